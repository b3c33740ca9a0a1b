package connector_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/wire"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// With the Razorpay API configured the worker re-fetches refunds and disputes and fetches the
// order a payment's event lacks; Razorpay's failures go through the one classification.

func TestOrderFetchedFromRazorpayNamesTheInvoice(t *testing.T) {
	r := newRig(t, withRazorpay)
	inv := r.invoice("Test Customer", "1200.00")
	p, err := r.rzp.CreatePayment(razorpay.Payment{Amount: 120000, Currency: "INR", Method: "card", CreatedAt: paymentAt},
		razorpaysim.PaymentOptions{Lose: true, Receipt: inv})
	if err != nil {
		t.Fatal(err)
	}
	x, _ := r.agree("O1", envelope(t, "payment.captured", "payment", payment(p.ID, 120000, map[string]any{"order_id": p.OrderID})))
	if x.Action != connector.ExplainCreate {
		t.Fatalf("planned %s %q", x.Action, x.Reason)
	}
	found := false
	for _, f := range x.Fields {
		found = found || f.Field == "references[].reference_name" && f.Value == inv && f.Source == "order.receipt of the payment"
	}
	if !found {
		t.Errorf("the invoice did not come from the order fetched from Razorpay: %+v", x.Fields)
	}
}

func TestDisputeIsReFetched(t *testing.T) {
	r := newRig(t, withRazorpay)
	p, err := r.rzp.CreatePayment(razorpay.Payment{Amount: 50000, Currency: "INR", Method: "card", CreatedAt: paymentAt}, razorpaysim.PaymentOptions{Lose: true})
	if err != nil {
		t.Fatal(err)
	}
	d, err := r.rzp.CreateDispute(razorpay.Dispute{PaymentID: p.ID, Amount: 50000, Currency: "INR", ReasonCode: "chargeback", Phase: "chargeback"},
		razorpaysim.DisputeOptions{Lose: true, Then: []string{"under_review"}})
	if err != nil {
		t.Fatal(err)
	}
	stale := map[string]any{"id": d.ID, "entity": "dispute", "payment_id": p.ID, "amount": 50000, "currency": "INR", "amount_deducted": 0,
		"reason_code": "chargeback", "status": "open", "phase": "chargeback", "created_at": paymentAt}
	x, _ := r.agree("D1", envelope(t, "payment.dispute.created", "dispute", stale))
	if x.Action != connector.ExplainPark || !strings.Contains(x.Reason, "status under_review") {
		t.Errorf("planned %s %q, want parked with the dispute's current status", x.Action, x.Reason)
	}
	if got := sample(t, r.conn, connector.MetricDisputes, "event", "payment.dispute.created"); got != 1 {
		t.Errorf("disputes counted %v", got)
	}
}

func TestRazorpayFailures(t *testing.T) {
	t.Run("UnknownRefundParks", func(t *testing.T) {
		r := newRig(t, withRazorpay)
		r.deliver("R1", refundBody(t, "refund.processed", "rfnd_T3stNoSuch001", "pay_T3stNoSuch0001", 100, "processed"))
		r.work()
		e := r.want("R1", connector.StatusParked, "re-fetch refund rfnd_T3stNoSuch001: ")
		if strings.HasPrefix(strings.TrimPrefix(e.LastError, "re-fetch refund rfnd_T3stNoSuch001: "), "razorpay") {
			t.Errorf("reason keeps the client's prefix: %q", e.LastError)
		}
		if got := sample(t, r.conn, connector.MetricRazorpayErrors, "op", "get_refund"); got != 1 {
			t.Errorf("razorpay errors of get_refund %v", got)
		}
	})
	t.Run("RefusedKeysPause", func(t *testing.T) {
		r := newRig(t, withRazorpay)
		cfg := r.cfg
		r.conn = r.connectorWithRazorpayKeys(cfg, "wrong-secret")
		r.deliver("R2", refundBody(t, "refund.processed", "rfnd_T3stKeys00001", "pay_T3stKeys000001", 100, "processed"))
		r.work()
		if e := r.want("R2", connector.StatusPending, "paused: re-fetch refund rfnd_T3stKeys00001"); e.Attempts != 0 {
			t.Errorf("attempts %d", e.Attempts)
		}
		if paused, why := r.conn.Paused(); !paused || !strings.HasPrefix(why, "Razorpay refused the API keys: ") || strings.Contains(why, "wrong-secret") {
			t.Errorf("paused %v %q", paused, why)
		}
	})
	t.Run("UnreachableRetries", func(t *testing.T) {
		r := newRig(t, withRazorpay)
		cfg := r.cfg
		cfg.Razorpay.APIURL = "http://127.0.0.1:1"
		r.conn = r.connector(cfg)
		r.deliver("R3", refundBody(t, "refund.processed", "rfnd_T3stDown00001", "pay_T3stDown000001", 100, "processed"))
		r.work()
		if e := r.want("R3", connector.StatusPending, "re-fetch refund rfnd_T3stDown00001: "); e.Attempts != 1 {
			t.Errorf("attempts %d, want a counted retry", e.Attempts)
		}
	})
}

// A read that fails where the worker would retry or pause is a line of the explanation, not
// the end of the dry run: `explain` must not exit 1 on the sample payloads whose order has to
// be fetched when Razorpay keys are set and Razorpay cannot be reached. The
// explanation says what failed and what the worker does, and the worker then does that.
func TestExplainReportsAFailedReadAsALine(t *testing.T) {
	body := func(t *testing.T, id string) []byte {
		return envelope(t, "payment.captured", "payment", payment(id, 120000, map[string]any{"order_id": "order_T3stOrdNetb001"}))
	}
	t.Run("UnreachableRazorpayRetries", func(t *testing.T) {
		r := newRig(t, withRazorpay)
		cfg := r.cfg
		cfg.Razorpay.APIURL = "http://127.0.0.1:1"
		r.conn = r.connector(cfg)
		x, row := r.agree("X1", body(t, "pay_T3stExplain001"))
		if x.Action != connector.ExplainRetry || !strings.HasPrefix(x.Reason, "fetch order order_T3stOrdNetb001 from Razorpay: ") ||
			!strings.HasSuffix(x.Reason, " — the worker would try again after its backoff, counting an attempt (the event is dead after 12)") {
			t.Errorf("explained %s %q", x.Action, x.Reason)
		}
		if row.Attempts != 1 {
			t.Errorf("the worker spent %d attempts, want 1 (a counted retry)", row.Attempts)
		}
	})
	t.Run("RefusedKeysPause", func(t *testing.T) {
		r := newRig(t, withRazorpay)
		r.conn = r.connectorWithRazorpayKeys(r.cfg, "wrong-secret-0123")
		x, row := r.agree("X2", body(t, "pay_T3stExplain002"))
		if x.Action != connector.ExplainRetry || !strings.HasPrefix(x.Reason, "paused: fetch order order_T3stOrdNetb001 from Razorpay: ") ||
			!strings.HasSuffix(x.Reason, " — the worker would pause all work (spending no attempt) and test the credentials again every 30s") ||
			strings.Contains(x.Reason, "wrong-secret-0123") {
			t.Errorf("explained %s %q", x.Action, x.Reason)
		}
		if row.Attempts != 0 {
			t.Errorf("the worker spent %d attempts, want none", row.Attempts)
		}
	})
	t.Run("EndedContextIsAnError", func(t *testing.T) {
		r := newRig(t, withRazorpay)
		ev, err := razorpay.ParseEvent(body(t, "pay_T3stExplain003"))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if x, err := r.conn.Explain(ctx, ev); err == nil {
			t.Errorf("explained %+v with an ended context, want its error", x)
		}
	})
}

// connectorWithRazorpayKeys is a connector whose Razorpay client sends secret.
func (r *rig) connectorWithRazorpayKeys(cfg connector.Config, secret string) *wire.Core {
	r.t.Helper()
	rc, err := razorpay.NewClient(razorpay.ClientConfig{BaseURL: cfg.Razorpay.APIURL, KeyID: rzpKey, KeySecret: secret})
	if err != nil {
		r.t.Fatal(err)
	}
	c, err := wire.New(wire.Options{Config: cfg, Store: r.db, ERP: r.erp, Razorpay: rc, Log: zerolog.Nop(), Now: r.clock.now})
	if err != nil {
		r.t.Fatal(err)
	}
	return c
}

// A USD payment over two payment-term rows: each row's rupee amount is rounded on its own, and
// the paisa left goes to the company's round-off account (the received INR stays Razorpay's).
func TestForeignPaymentOverTermRowsRoundsOff(t *testing.T) {
	r := newRig(t)
	if err := r.site.AddCustomerSpec(erpnextsim.CustomerSpec{Name: "USD Customer", DefaultCurrency: "USD", ReceivableAccount: erpnextsim.ReceivableUSD}); err != nil {
		t.Fatal(err)
	}
	if err := r.site.AddPaymentTermsTemplate(erpnextsim.PaymentTermsTemplateSpec{Name: "30-70", AllocateByTerms: true,
		Terms: []erpnextsim.PaymentTermSpec{{Name: "Advance 30", InvoicePortion: "30"}, {Name: "Balance 70", InvoicePortion: "70", CreditDays: 30}}}); err != nil {
		t.Fatal(err)
	}
	inv, err := r.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "USD Customer", Currency: "USD", ConversionRate: "84", Submit: true,
		PaymentTermsTemplate: "30-70", Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "25.00"}}})
	if err != nil {
		t.Fatal(err)
	}
	x, _ := r.agree("U1", captured(t, "pay_T3stUsdTerm001", 2500, inv, map[string]any{"currency": "USD", "base_amount": 213125}))
	if x.Action != connector.ExplainCreate {
		t.Fatalf("planned %s %q", x.Action, x.Reason)
	}
	pe := r.one("pay_T3stUsdTerm001")
	ded := rows(pe, "deductions")
	if len(ded) != 1 || ded[0]["account"] != "Round Off - EC" || minor(t, ded[0]["amount"], 2) != 1 || minor(t, pe["received_amount"], 2) != 213125 {
		t.Errorf("deductions %v received %v: want one paisa to Round Off - EC and ₹2,131.25 received", ded, pe["received_amount"])
	}
	if refs := rows(pe, "references"); len(refs) != 2 {
		t.Errorf("references %v, want the two term rows", refs)
	}
}
