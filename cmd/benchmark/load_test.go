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
			p.Amount != amountMinor || p.Currency != "INR" || p.Notes["invoice"] != invoiceName(k%7+1) ||
			p.Notes["invoice"] != co.invoiceOf(k) {
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

// A corpus with an invoice per payment, starting past another corpus's invoices, never names an
// invoice twice: neither within itself nor one of the other's (the fixed-rate warm-up and run).
func TestCorpusFromNeverReusesAnInvoice(t *testing.T) {
	const n = 1000
	warm := newCorpus("W4rm0", "whsec-bench", n)
	run := newCorpusFrom("Run00", "whsec-bench", n+1, n)
	named := map[string]string{}
	for _, co := range []*corpus{warm, run} {
		for i := 0; i < n; i++ {
			if isRepeat(i) {
				continue
			}
			_, body, _ := co.delivery(i)
			ev, err := razorpay.ParseEvent(body)
			if err != nil {
				t.Fatal(err)
			}
			inv := ev.Payment.Notes["invoice"]
			if prev, ok := named[inv]; ok {
				t.Fatalf("%s names %s, already named by %s", ev.Payment.ID, inv, prev)
			}
			named[inv] = ev.Payment.ID
		}
	}
	if len(named) != 2*payments(n) || named[invoiceName(1)] == "" || named[invoiceName(2*n)] == "" {
		t.Fatalf("%d invoices named; want %d, from invoice 1 to %d", len(named), 2*payments(n), 2*n)
	}
}
