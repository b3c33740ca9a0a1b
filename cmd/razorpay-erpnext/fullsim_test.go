package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// rzpSim starts the Razorpay simulator delivering signed webhooks to d (and serving its API).
func rzpSim(t *testing.T, d *daemon, faults razorpaysim.Faults) (*razorpaysim.Sim, *httptest.Server) {
	t.Helper()
	sim := razorpaysim.New(razorpaysim.Options{KeyID: "rzp_test_key", KeySecret: "rzp-secret", AccountID: testAccount,
		WebhookURL: "http://" + d.pub.Addr().String() + d.cfg.WebhookPath, WebhookSecret: testWebhook,
		TimeScale: 0.001, Seed: 7, Faults: faults})
	srv := httptest.NewServer(sim)
	t.Cleanup(func() { srv.Close(); sim.Close() })
	return sim, srv
}

// A payment-link payment as Razorpay sends it: payment.authorized, payment.captured, order.paid
// and payment_link.paid with distinct event ids, in the given order, every event delivered
// twice — one Payment Entry, the invoice Paid.
func TestPaymentLinkFromTheRazorpaySimulator(t *testing.T) {
	for _, order := range []razorpaysim.Ordering{razorpaysim.InOrder, razorpaysim.Reversed, razorpaysim.Shuffled} {
		t.Run(string(order), func(t *testing.T) {
			e := newEnv(t, "sqlite")
			d := e.start(e.config())
			sim, _ := rzpSim(t, d, razorpaysim.Faults{Duplicate: true, Ordering: order})
			p, err := sim.CreatePayment(razorpay.Payment{Amount: 1200000, Currency: "INR", Method: "upi"},
				razorpaysim.PaymentOptions{Link: true, LinkReferenceID: e.invoice})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := sim.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			counts := e.waitIdle(d, 20*time.Second)
			if counts[connector.StatusDone] != 1 {
				t.Errorf("inbox %v, want one done", counts)
			}
			pe := e.one(p.ID)
			wantAmount(t, "paid_amount", pe["paid_amount"], 1200000)
			if s := e.invoiceField("status"); s != "Paid" {
				t.Errorf("invoice %s", s)
			}
			events := 0
			for _, ev := range sim.State().Events {
				if !ev.Lost {
					events++
				}
			}
			if events < 4 {
				t.Errorf("the simulator sent %d events, want authorized, captured, order.paid and payment_link.paid", events)
			}
		})
	}
}

// explain --payment fetches the payment (and its order) from Razorpay and explains it.
func TestExplainPaymentFromRazorpay(t *testing.T) {
	e := newEnv(t, "sqlite")
	d := e.start(e.config())
	sim, srv := rzpSim(t, d, razorpaysim.Faults{})
	p, err := sim.CreatePayment(razorpay.Payment{Amount: 1200000, Currency: "INR", Method: "card"},
		razorpaysim.PaymentOptions{Lose: true, Receipt: e.invoice})
	if err != nil {
		t.Fatal(err)
	}
	path, envs := e.configFile("", `  key_id: ${RZK}
  key_secret: ${RZS}
  api_url: "`+srv.URL+`"`)
	envs["RZK"], envs["RZS"] = "rzp_test_key", "rzp-secret"
	code, out, errs := run(t, envs, "explain", "--config", path, "--payment", p.ID, "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	var x connector.Explanation
	if err := json.Unmarshal([]byte(out), &x); err != nil {
		t.Fatal(err)
	}
	if x.Action != connector.ExplainCreate || x.Key != p.ID {
		t.Fatalf("explanation %+v, want create for %s", x, p.ID)
	}
	found := false
	for _, f := range x.Fields {
		if f.Field == "references[].reference_name" && f.Value == e.invoice && f.Source == "order.receipt of the payment" {
			found = true
		}
	}
	if !found {
		t.Errorf("the invoice did not come from the order fetched from Razorpay: %+v", x.Fields)
	}
	if len(e.site.Docs("Payment Entry")) != 0 {
		t.Error("explain wrote an entry")
	}
}
