package main

import (
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Deliveries are real Razorpay webhooks: signed with the secret, parsing to the payment and
// invoice they claim, 12 % of them exact repeats of an earlier one.
func TestCorpusDeliversSignedWebhooksWithTwelvePercentRepeats(t *testing.T) {
	co := newCorpus("T3st0", "whsec-bench", 7)
	seen := map[string]string{}
	repeats := 0
	const n = 1000
	for i := 0; i < n; i++ {
		id, body, sig := co.delivery(i)
		if err := razorpay.VerifySignature(body, sig, []string{"whsec-bench"}); err != nil {
			t.Fatalf("delivery %d: %v", i, err)
		}
		if !razorpay.ValidEventID(id) {
			t.Fatalf("delivery %d: event id %q is not a Razorpay event id", i, id)
		}
		ev, err := razorpay.ParseEvent(body)
		if err != nil || len(ev.Warnings) > 0 {
			t.Fatalf("delivery %d does not parse cleanly: %v %v", i, err, ev.Warnings)
		}
		p := ev.Payment
		k := source(i)
		if ev.Event != "payment.captured" || ev.AccountID != benchAccount || p.ID != co.paymentID(k) || len(p.ID) != 18 ||
			p.Amount != amountMinor || p.Currency != "INR" || p.Notes["invoice"] != invoiceName(k%7+1) {
			t.Fatalf("delivery %d: %+v, payment %+v", i, ev, p)
		}
		if prev, ok := seen[id]; ok {
			if prev != string(body) {
				t.Fatalf("delivery %d repeats event %s with another body", i, id)
			}
			repeats++
		}
		seen[id] = string(body)
	}
	if repeats != 120 || payments(n) != 880 {
		t.Fatalf("%d repeats, %d payments in %d deliveries; want 120 (12 %%) and 880", repeats, payments(n), n)
	}
}

func TestRunTag(t *testing.T) {
	a, b := runTag("R"), runTag("R")
	if len(a) != 5 || !strings.HasPrefix(a, "R") || a == b {
		t.Fatalf("runTag = %q, %q; want 5 characters from R, distinct", a, b)
	}
}
