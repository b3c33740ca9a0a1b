package razorpaysim_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// disputeLine summarises a dispute webhook: event/status/amount_deducted/payment id.
func disputeLine(t *testing.T, h hit, secret string) string {
	t.Helper()
	if err := razorpay.VerifySignature(h.Body, h.Header.Get("X-Razorpay-Signature"), []string{secret}); err != nil {
		t.Errorf("signature: %v", err)
	}
	if len(h.Header.Get("X-Razorpay-Event-Id")) != 14 {
		t.Errorf("event id %q", h.Header.Get("X-Razorpay-Event-Id"))
	}
	ev, err := razorpay.ParseEvent(h.Body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ev.Contains, ",") != "payment,dispute" || ev.Payment == nil || ev.Dispute == nil {
		t.Fatalf("%s: contains %v, payment %v, dispute %v", ev.Event, ev.Contains, ev.Payment, ev.Dispute)
	}
	if ev.Dispute.PaymentID != ev.Payment.ID || ev.BusinessKey() != ev.Dispute.ID {
		t.Errorf("%s: dispute %+v of payment %s", ev.Event, ev.Dispute, ev.Payment.ID)
	}
	return fmt.Sprintf("%s/%s/%d", ev.Event, ev.Dispute.Status, ev.Dispute.AmountDeducted)
}

func TestItem23DisputeLifecycle(t *testing.T) {
	const secret = "whsec_disputes"
	rc := newReceiver(t, nil)
	clk := newClock()
	s := newSim(t, rc, razorpaysim.Options{WebhookSecret: secret, Now: clk.Now})
	p := mustPay(t, s, razorpay.Payment{Amount: 118000}, razorpaysim.PaymentOptions{Lose: true})

	t.Run("CreatedUnderReviewLost", func(t *testing.T) {
		d, err := s.CreateDispute(razorpay.Dispute{PaymentID: p.ID, Amount: 98000}, razorpaysim.DisputeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(d.ID, "disp_") || len(d.ID) != 19 || d.Status != "open" || d.Phase != "chargeback" ||
			d.Currency != "INR" || d.AmountDeducted != 0 || d.CreatedAt != t0 || d.RespondBy <= d.CreatedAt || d.ReasonCode == "" {
			t.Fatalf("created dispute %+v", d)
		}
		wait(t, s)
		clk.Add(86400)
		if d, err = s.ResolveDispute(d.ID, "under_review"); err != nil || d.Status != "under_review" {
			t.Fatalf("under_review: %v %+v", err, d)
		}
		wait(t, s)
		if d, err = s.ResolveDispute(d.ID, "lost"); err != nil || d.AmountDeducted != 98000 {
			t.Fatalf("lost: %v %+v", err, d)
		}
		wait(t, s)
		var got []string
		for _, h := range rc.Hits() {
			got = append(got, disputeLine(t, h, secret))
		}
		want := "payment.dispute.created/open/0 payment.dispute.under_review/under_review/0 payment.dispute.lost/lost/98000"
		if strings.Join(got, " ") != want {
			t.Errorf("webhooks:\n got %s\nwant %s", strings.Join(got, " "), want)
		}
		for _, to := range []string{"won", "closed", "under_review"} {
			if _, err := s.ResolveDispute(d.ID, to); err == nil || razorpay.IsNotFound(err) {
				t.Errorf("%s after lost: %v", to, err)
			}
		}

		code, m, _ := apiCall(t, s, "GET", "/v1/disputes/"+d.ID, "", nil)
		if code != 200 || m["entity"] != "dispute" || m["status"] != "lost" || num(t, m["amount_deducted"]) != 98000 ||
			m["payment_id"] != p.ID || m["reason_description"] == nil || m["evidence"] == nil {
			t.Errorf("GET dispute: %d %v", code, m)
		}
		if st := s.State(); len(st.Disputes) != 1 || st.Disputes[0].Status != "lost" {
			t.Errorf("state disputes: %+v", st.Disputes)
		}
	})

	t.Run("WebhookDisputeHasTheSampleShape", func(t *testing.T) {
		// Key order of the dispute in shared/reference/razorpay-payloads/payment.dispute.created.json.
		const sample = "id,entity,payment_id,amount,currency,amount_deducted,reason_code,respond_by,status,evidence,phase,created_at"
		got := keysOf(t, rc.Hits()[0].Body, "dispute")
		if got != sample {
			t.Errorf("dispute keys:\n got %s\nwant %s", got, sample)
		}
	})

	t.Run("ThenAndControlAPI", func(t *testing.T) {
		before := len(rc.Hits())
		code, m, _ := apiCall(t, s, "POST", "/__sim/disputes", "", map[string]any{
			"payment_id": p.ID, "phase": "pre_arbitration", "then": []string{"action_required", "under_review", "won"},
		})
		if code != 200 || m["status"] != "won" || m["phase"] != "pre_arbitration" || num(t, m["amount"]) != 118000 {
			t.Fatalf("POST /__sim/disputes: %d %v", code, m)
		}
		wait(t, s) // batches of different facts are delivered concurrently
		code, m, _ = apiCall(t, s, "POST", "/__sim/disputes", "", map[string]any{"payment_id": p.ID, "amount": 1000})
		if code != 200 {
			t.Fatalf("second dispute: %d %v", code, m)
		}
		wait(t, s)
		id := m["id"].(string)
		code, m, _ = apiCall(t, s, "POST", "/__sim/disputes/"+id+"/status", "", map[string]any{"status": "closed"})
		if code != 200 || m["status"] != "closed" || num(t, m["amount_deducted"]) != 0 {
			t.Fatalf("POST status closed: %d %v", code, m)
		}
		wait(t, s)
		var got []string
		for _, h := range rc.Hits()[before:] {
			got = append(got, disputeLine(t, h, secret))
		}
		want := "payment.dispute.created/open/0 payment.dispute.action_required/open/0 " +
			"payment.dispute.under_review/under_review/0 payment.dispute.won/won/0 " +
			"payment.dispute.created/open/0 payment.dispute.closed/closed/0"
		if strings.Join(got, " ") != want {
			t.Errorf("webhooks:\n got %s\nwant %s", strings.Join(got, " "), want)
		}
		if code, m, _ := apiCall(t, s, "POST", "/__sim/disputes/"+id+"/status", "", map[string]any{"status": "lost"}); code != 400 {
			t.Errorf("lost after closed: %d %v", code, m)
		}
		if code, m, _ := apiCall(t, s, "POST", "/__sim/disputes/disp_Unknown0000001/status", "", map[string]any{"status": "won"}); code != 400 ||
			errOf(t, m)["description"] != "The id provided does not exist" {
			t.Errorf("status of unknown dispute: %d %v", code, m)
		}
	})

	t.Run("Refusals", func(t *testing.T) {
		auth := mustPay(t, s, razorpay.Payment{Amount: 5000, Status: "authorized"}, razorpaysim.PaymentOptions{Lose: true})
		n := len(s.State().Disputes)
		for name, tc := range map[string]struct {
			d   razorpay.Dispute
			opt razorpaysim.DisputeOptions
		}{
			"UnknownPayment":   {razorpay.Dispute{PaymentID: "pay_Unknown0000001"}, razorpaysim.DisputeOptions{}},
			"NotCaptured":      {razorpay.Dispute{PaymentID: auth.ID}, razorpaysim.DisputeOptions{}},
			"AboveAmount":      {razorpay.Dispute{PaymentID: p.ID, Amount: 118001}, razorpaysim.DisputeOptions{}},
			"OtherCurrency":    {razorpay.Dispute{PaymentID: p.ID, Currency: "USD"}, razorpaysim.DisputeOptions{}},
			"CreatedLost":      {razorpay.Dispute{PaymentID: p.ID, Status: "lost"}, razorpaysim.DisputeOptions{}},
			"UnknownPhase":     {razorpay.Dispute{PaymentID: p.ID, Phase: "appeal"}, razorpaysim.DisputeOptions{}},
			"BadThen":          {razorpay.Dispute{PaymentID: p.ID}, razorpaysim.DisputeOptions{Then: []string{"won", "lost"}}},
			"UnknownTarget":    {razorpay.Dispute{PaymentID: p.ID}, razorpaysim.DisputeOptions{Then: []string{"open"}}},
			"UnderReviewTwice": {razorpay.Dispute{PaymentID: p.ID}, razorpaysim.DisputeOptions{Then: []string{"under_review", "under_review"}}},
		} {
			if _, err := s.CreateDispute(tc.d, tc.opt); err == nil {
				t.Errorf("%s: accepted", name)
			} else if razorpay.IsNotFound(err) != (name == "UnknownPayment") {
				t.Errorf("%s: %v", name, err)
			}
		}
		if got := len(s.State().Disputes); got != n {
			t.Errorf("refused disputes recorded: %d, want %d", got, n)
		}
		if _, err := s.ResolveDispute("disp_Unknown0000001", "won"); !razorpay.IsNotFound(err) {
			t.Errorf("resolve unknown: %v", err)
		}
		code, m, _ := apiCall(t, s, "GET", "/v1/disputes/disp_Unknown0000001", "", nil)
		if code != 400 || errOf(t, m)["description"] != "The id provided does not exist" {
			t.Errorf("GET unknown dispute: %d %v", code, m)
		}
	})

	t.Run("LoseAndDuplicateCoverLaterTransitions", func(t *testing.T) {
		wait(t, s)
		before := len(rc.Hits())
		lost, err := s.CreateDispute(razorpay.Dispute{PaymentID: p.ID}, razorpaysim.DisputeOptions{Lose: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.ResolveDispute(lost.ID, "won"); err != nil {
			t.Fatal(err)
		}
		dup, err := s.CreateDispute(razorpay.Dispute{PaymentID: p.ID}, razorpaysim.DisputeOptions{Duplicate: true})
		if err != nil {
			t.Fatal(err)
		}
		wait(t, s)
		if _, err := s.ResolveDispute(dup.ID, "lost"); err != nil {
			t.Fatal(err)
		}
		wait(t, s)
		var got []string
		for _, h := range rc.Hits()[before:] {
			got = append(got, disputeLine(t, h, secret))
		}
		want := "payment.dispute.created/open/0 payment.dispute.created/open/0 " +
			"payment.dispute.lost/lost/118000 payment.dispute.lost/lost/118000"
		if strings.Join(got, " ") != want {
			t.Errorf("webhooks:\n got %s\nwant %s", strings.Join(got, " "), want)
		}
	})
}

// keysOf returns the top-level keys of payload.<name>.entity in an event body, in order.
func keysOf(t *testing.T, body []byte, name string) string {
	t.Helper()
	var env struct {
		Payload map[string]struct {
			Entity json.RawMessage `json:"entity"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	return objectKeys(t, env.Payload[name].Entity)
}

// objectKeys returns the top-level keys of a JSON object, in order, joined with ",".
func objectKeys(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(raw))
	if _, err := d.Token(); err != nil { // '{'
		t.Fatal(err)
	}
	var keys []string
	for d.More() {
		k, err := d.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return strings.Join(keys, ",")
}
