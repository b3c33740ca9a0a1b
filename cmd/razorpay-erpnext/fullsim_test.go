package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// rzpSim starts the Razorpay simulator delivering signed webhooks to d (and serving its API).
func rzpSim(t *testing.T, d *daemon, faults razorpaysim.Faults) (*razorpaysim.Sim, *httptest.Server) {
	t.Helper()
	sim := razorpaysim.New(razorpaysim.Options{KeyID: "rzp_test_key", KeySecret: "rzp-secret-0123456789ab", AccountID: testAccount,
		WebhookURL: "http://" + d.pub.Addr().String() + d.cfg.WebhookPath, WebhookSecret: testWebhook,
		TimeScale: 0.001, Seed: 7, Faults: faults, DeliveryTimeout: testtime.Bound}) // see newRzpEnv
	srv := httptest.NewServer(sim)
	t.Cleanup(func() { srv.Close(); sim.Close() })
	return sim, srv
}

// A payment-link payment as Razorpay sends it: payment.authorized, payment.captured, order.paid
// and payment_link.paid with distinct event ids, in the given order, every event delivered
// twice — one Payment Entry, the invoice Paid.
func TestPaymentLinkFromTheRazorpaySimulator(t *testing.T) {
	t.Parallel()
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
			counts := e.waitIdle(d)
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
	t.Parallel()
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
	envs["RZK"], envs["RZS"] = "rzp_test_key", "rzp-secret-0123456789ab"
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

// Disputes from the Razorpay simulator: each event is parked for a person with the dispute as
// Razorpay reports it now (re-fetched), counted, and never booked.
func TestDisputesFromTheRazorpaySimulator(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	cfg := e.config()
	d, sim := e.startWithRazorpay(cfg, 9)
	p, err := sim.CreatePayment(razorpay.Payment{Amount: 1200000, Currency: "INR", Method: "card"}, razorpaysim.PaymentOptions{Lose: true})
	if err != nil {
		t.Fatal(err)
	}
	disp, err := sim.CreateDispute(razorpay.Dispute{PaymentID: p.ID}, razorpaysim.DisputeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := sim.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	e.waitIdle(d)
	if _, err := sim.ResolveDispute(disp.ID, "lost"); err != nil {
		t.Fatal(err)
	}
	if err := sim.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	e.waitIdle(d)
	rows, _ := d.db.FindEvents(context.Background(), disp.ID)
	if len(rows) != 2 {
		t.Fatalf("%d dispute events, want created and lost", len(rows))
	}
	for _, r := range rows {
		if r.Status != connector.StatusParked || !strings.Contains(r.LastError, disp.ID) {
			t.Errorf("%s: %s %q, want parked naming %s", r.Event, r.Status, r.LastError, disp.ID)
		}
	}
	if last := rows[1].LastError; !strings.Contains(last, "status lost") || !strings.Contains(last, "deducted 12000.00") {
		t.Errorf("lost dispute reason %q lacks its status or deduction", last)
	}
	if n := len(e.site.Docs("Payment Entry")); n != 0 {
		t.Errorf("%d entries for a dispute", n)
	}
	if !strings.Contains(getMetrics(t, d), `razorpay_erpnext_disputes_total{event="payment.dispute.lost"} 1`) {
		t.Error("the lost dispute is not counted")
	}
}

// A passing Razorpay API error while fetching a payment's order is retried, never parked; a
// payment whose notes name its invoice does not need the order at all (fourth adversarial
// pass: one 504 parked such receipts for good). A 429 is "not now": it spends no attempt.
func TestTransientRazorpayErrorsAreRetried(t *testing.T) {
	t.Parallel()
	for _, status := range []int{504, 429, 500} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			e := newEnv(t, "sqlite")
			cfg := e.config()
			d, sim := e.startWithRazorpay(cfg, 3)
			// The order (receipt = the invoice) exists only at Razorpay; the webhook lacks it.
			p, err := sim.CreatePayment(razorpay.Payment{Amount: 1200000, Currency: "INR", Method: "card"},
				razorpaysim.PaymentOptions{Lose: true, Receipt: e.invoice})
			if err != nil {
				t.Fatal(err)
			}
			sim.SetFaults(razorpaysim.Faults{FailNext: []int{status}})
			body := envelope(t, "payment.captured", "payment", capture(p.ID, 1200000, map[string]any{"order_id": p.OrderID}))
			e.deliver(d, eventIDFor(fmt.Sprint("rzp", status)), body)
			e.waitIdle(d)
			ev := e.statusOf(p.ID)
			want := 1
			if status == http.StatusTooManyRequests {
				want = 0
			}
			if ev.Status != connector.StatusDone || ev.Attempts != want {
				t.Fatalf("%s after %d attempts (%q): want done after %d failed attempt(s)", ev.Status, ev.Attempts, ev.LastError, want)
			}
			e.one(p.ID)
		})
	}
}

// startWithRazorpay starts a daemon whose Razorpay API is a Razorpay simulator that also sends
// it signed webhooks. The daemon needs the API's address and the simulator the daemon's: the
// API server is up first, the simulator behind it is made once the daemon listens (the API is
// only called after a webhook arrives).
func (e *env) startWithRazorpay(cfg connector.Config, seed int64) (*daemon, *razorpaysim.Sim) {
	var sim *razorpaysim.Sim
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sim.ServeHTTP(w, r) }))
	e.t.Cleanup(api.Close)
	cfg.Razorpay.KeyID, cfg.Razorpay.KeySecret, cfg.Razorpay.APIURL = "rzp_test_key", "rzp-secret-0123456789ab", api.URL
	d := e.start(cfg)
	sim = razorpaysim.New(razorpaysim.Options{KeyID: "rzp_test_key", KeySecret: "rzp-secret-0123456789ab", AccountID: testAccount,
		WebhookURL: "http://" + d.pub.Addr().String() + cfg.WebhookPath, WebhookSecret: testWebhook, TimeScale: 0.001, Seed: seed,
		DeliveryTimeout: testtime.Bound}) // see newRzpEnv
	e.t.Cleanup(sim.Close)
	return d, sim
}
