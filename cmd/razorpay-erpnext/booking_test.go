package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/config"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// capture is a payment entity for the booking tests: INR, captured an hour ago, the fields
// given in over replacing the defaults (nil deletes a field).
func capture(id string, amount int64, over map[string]any) map[string]any {
	p := map[string]any{
		"id": id, "entity": "payment", "amount": amount, "currency": "INR", "status": "captured",
		"method": "card", "captured": true, "notes": []any{}, "fee": nil, "tax": nil,
		"acquirer_data": map[string]any{"auth_code": "123456"}, "created_at": paymentTime.Unix(), "base_amount": amount,
	}
	for k, v := range over {
		if v == nil {
			delete(p, k)
			continue
		}
		p[k] = v
	}
	return p
}

// envelope wraps entities (name → entity) in a webhook body.
func envelope(t *testing.T, event string, entities ...any) []byte {
	t.Helper()
	payload := map[string]any{}
	var contains []string
	for i := 0; i+1 < len(entities); i += 2 {
		name := entities[i].(string)
		payload[name] = map[string]any{"entity": entities[i+1]}
		contains = append(contains, name)
	}
	b, err := json.Marshal(map[string]any{"entity": "event", "account_id": testAccount, "event": event,
		"contains": contains, "payload": payload, "created_at": paymentTime.Unix() + 5})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (e *env) newInvoice(customer, rate string) string {
	e.t.Helper()
	name, err := e.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: customer, Submit: true,
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: rate}}})
	if err != nil {
		e.t.Fatal(err)
	}
	return name
}

func (e *env) doc(doctype, name string) map[string]any {
	e.t.Helper()
	d, ok := e.site.Doc(doctype, name)
	if !ok {
		e.t.Fatalf("%s %s not found in the simulator", doctype, name)
	}
	return d
}

// one returns the only submitted Payment Entry with reference_no ref.
func (e *env) one(ref string) map[string]any {
	e.t.Helper()
	sub, other := e.entries(ref)
	if len(sub) != 1 || len(other) != 0 {
		e.t.Fatalf("Payment Entries for %s: %d submitted, %d other; want exactly one submitted\nlogs:\n%s", ref, len(sub), len(other), e.logs.String())
	}
	return e.doc("Payment Entry", fmt.Sprint(sub[0]["name"]))
}

// rows returns a child table of a document as maps.
func rows(d map[string]any, table string) []map[string]any {
	list, _ := d[table].([]any)
	var out []map[string]any
	for _, r := range list {
		if m, ok := r.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func wantAmount(t *testing.T, what string, got any, want int64) {
	t.Helper()
	if v := amountMinor(t, got); v != want {
		t.Errorf("%s = %v, want %s", what, got, formatPaise(want))
	}
}

func formatPaise(v int64) string {
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	return fmt.Sprintf("%s%d.%02d", sign, v/100, v%100)
}

func (e *env) statusOf(key string) connector.InboxEvent {
	e.t.Helper()
	rows, err := e.lastDaemon.db.FindEvents(context.Background(), key)
	if err != nil || len(rows) == 0 {
		e.t.Fatalf("events of %s: %v %v", key, rows, err)
	}
	return rows[len(rows)-1]
}

func feeConfig(cfg connector.Config) connector.Config {
	cfg.Mapping.Fees = config.Fees{Mode: "deduction", FeeAccount: erpnextsim.FeeAccount,
		TaxAccount: erpnextsim.GSTInputAccount, CostCenter: erpnextsim.CostCenter}
	return cfg
}

func TestFeeDeductionBooksNetAndFeeRows(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	inv := e.newInvoice("Test Customer", "1180.00")
	d := e.start(feeConfig(e.config()))
	e.deliver(d, "T3stEvFee00001", envelope(t, "payment.captured", "payment",
		capture("pay_T3stFee0000001", 118000, map[string]any{"fee": 2360, "tax": 360, "notes": map[string]any{"invoice": inv}})))
	e.waitIdle(d)
	pe := e.one("pay_T3stFee0000001")
	wantAmount(t, "paid_amount", pe["paid_amount"], 115640)
	wantAmount(t, "received_amount", pe["received_amount"], 115640)
	refs := rows(pe, "references")
	if len(refs) != 1 || refs[0]["reference_name"] != inv {
		t.Fatalf("references %v", refs)
	}
	wantAmount(t, "allocated_amount", refs[0]["allocated_amount"], 118000)
	ded := rows(pe, "deductions")
	if len(ded) != 2 {
		t.Fatalf("deductions %v, want fee and GST rows", ded)
	}
	want := map[string]int64{erpnextsim.FeeAccount: 2000, erpnextsim.GSTInputAccount: 360}
	for _, r := range ded {
		wantAmount(t, fmt.Sprint("deduction ", r["account"]), r["amount"], want[fmt.Sprint(r["account"])])
		if r["cost_center"] != erpnextsim.CostCenter {
			t.Errorf("deduction cost center %v", r["cost_center"])
		}
	}
	wantAmount(t, "difference_amount", pe["difference_amount"], 0)
	wantAmount(t, "unallocated_amount", pe["unallocated_amount"], 0)
	wantAmount(t, "invoice outstanding", e.doc("Sales Invoice", inv)["outstanding_amount"], 0)
}

func TestCustomerBorneFeeSettlesOnlyTheInvoiceAmount(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	inv := e.newInvoice("Test Customer", "1180.00")
	d := e.start(feeConfig(e.config()))
	e.deliver(d, "T3stEvCFee0001", envelope(t, "payment.captured", "payment",
		capture("pay_T3stCFee000001", 120360, map[string]any{"fee": 2360, "tax": 360, "fee_bearer": "customer", "notes": map[string]any{"invoice": inv}})))
	e.waitIdle(d)
	pe := e.one("pay_T3stCFee000001")
	wantAmount(t, "paid_amount", pe["paid_amount"], 118000)
	wantAmount(t, "received_amount", pe["received_amount"], 118000)
	if len(rows(pe, "deductions")) != 0 {
		t.Errorf("deductions %v: a customer-borne fee is not the merchant's expense", rows(pe, "deductions"))
	}
	wantAmount(t, "unallocated_amount", pe["unallocated_amount"], 0)
	wantAmount(t, "invoice outstanding", e.doc("Sales Invoice", inv)["outstanding_amount"], 0)
}

func TestEightRupeesThirtyFiveSettleExactly(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	inv := e.newInvoice("Test Customer", "8.35")
	d := e.start(e.config())
	e.deliver(d, "T3stEvSmall001", envelope(t, "payment.captured", "payment",
		capture("pay_T3stSmall00001", 835, map[string]any{"notes": map[string]any{"invoice": inv}})))
	e.waitIdle(d)
	pe := e.one("pay_T3stSmall00001")
	wantAmount(t, "paid_amount", pe["paid_amount"], 835)
	got := fmt.Sprint(e.doc("Sales Invoice", inv)["outstanding_amount"])
	if got != "0.0" && got != "0" {
		t.Errorf("invoice outstanding %q, want exactly 0.00", got)
	}
	if s := e.doc("Sales Invoice", inv)["status"]; s != "Paid" {
		t.Errorf("status %v", s)
	}
}

func TestUSDInvoiceAtRazorpaysRate(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"none", "deduction"} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t, "sqlite")
			if err := e.site.AddCustomerSpec(erpnextsim.CustomerSpec{Name: "USD Customer", DefaultCurrency: "USD", ReceivableAccount: erpnextsim.ReceivableUSD}); err != nil {
				t.Fatal(err)
			}
			inv, err := e.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "USD Customer", Currency: "USD", ConversionRate: "84", Submit: true,
				Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "25.00"}}})
			if err != nil {
				t.Fatal(err)
			}
			cfg := e.config()
			if mode == "deduction" {
				cfg = feeConfig(cfg)
			}
			d := e.start(cfg)
			e.deliver(d, "T3stEvtUsd0001", envelope(t, "payment.captured", "payment", capture("pay_T3stUsd00000001", 2500, map[string]any{
				"currency": "USD", "base_amount": 213125, "base_currency": "INR", "fee": 7544, "tax": 1151, "international": true,
				"notes": map[string]any{"invoice": inv}})))
			e.waitIdle(d)
			pe := e.one("pay_T3stUsd00000001")
			wantAmount(t, "paid_amount (USD)", pe["paid_amount"], 2500)
			received := int64(213125)
			if mode == "deduction" {
				received -= 7544
				if len(rows(pe, "deductions")) != 2 {
					t.Errorf("deductions %v", rows(pe, "deductions"))
				}
			}
			wantAmount(t, "received_amount (INR)", pe["received_amount"], received)
			if r := fmt.Sprint(pe["source_exchange_rate"]); r != "85.25" {
				t.Errorf("source_exchange_rate %s, want 85.25", r)
			}
			if pe["paid_to"] != erpnextsim.RazorpayClearing || pe["paid_from"] != erpnextsim.ReceivableUSD {
				t.Errorf("accounts %v → %v", pe["paid_from"], pe["paid_to"])
			}
			wantAmount(t, "difference_amount", pe["difference_amount"], 0)
			si := e.doc("Sales Invoice", inv)
			wantAmount(t, "invoice outstanding (USD)", si["outstanding_amount"], 0)
			if si["status"] != "Paid" {
				t.Errorf("invoice status %v", si["status"])
			}
		})
	}
}

func TestForeignPaymentWithoutBaseAmountParks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	if err := e.site.AddCustomerSpec(erpnextsim.CustomerSpec{Name: "USD Customer", DefaultCurrency: "USD", ReceivableAccount: erpnextsim.ReceivableUSD}); err != nil {
		t.Fatal(err)
	}
	inv, err := e.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "USD Customer", Currency: "USD", ConversionRate: "84", Submit: true,
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "25.00"}}})
	if err != nil {
		t.Fatal(err)
	}
	d := e.start(e.config())
	e.lastDaemon = d
	e.deliver(d, "T3stEvUsdNoB01", envelope(t, "payment.captured", "payment", capture("pay_T3stUsdNoBase01", 2500, map[string]any{
		"currency": "USD", "base_amount": nil, "notes": map[string]any{"invoice": inv}})))
	e.waitIdle(d)
	if ev := e.statusOf("pay_T3stUsdNoBase01"); ev.Status != connector.StatusParked || !strings.HasPrefix(ev.LastError, "no exchange rate") {
		t.Fatalf("%s %q, want parked: no exchange rate", ev.Status, ev.LastError)
	}
	if n := len(e.site.Docs("Payment Entry")); n != 0 {
		t.Errorf("%d entries, want none (never rate 1)", n)
	}
}

// Two ₹600.00 payments for one ₹1,000.00 invoice at the same moment on two daemons: the invoice
// lock row serialises them; ERPNext (which has no lock of its own, spec §3.7) never sees two
// concurrent allocations.
func TestTwoPaymentsRaceForOneInvoice(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, driver string) {
		for _, excess := range []string{"unallocated", "park"} {
			t.Run(excess, func(t *testing.T) {
				e := newEnv(t, driver)
				inv := e.newInvoice("Test Customer", "1000.00")
				e.site.SetLatency(30 * time.Millisecond)
				cfg := e.config()
				cfg.Mapping.Excess = excess
				d1, d2 := e.start(cfg), e.start(cfg)
				e.lastDaemon = d1
				var wg sync.WaitGroup
				for i, d := range []*daemon{d1, d2} {
					wg.Add(1)
					go func(i int, d *daemon) {
						defer wg.Done()
						id := fmt.Sprintf("pay_T3stRace00000%d", i)
						e.deliver(d, fmt.Sprintf("T3stEvtRace00%d", i), envelope(t, "payment.captured", "payment",
							capture(id, 60000, map[string]any{"notes": map[string]any{"invoice": inv}})))
					}(i, d)
				}
				wg.Wait()
				e.waitIdle(d1)
				e.waitIdle(d2)
				allocs, unallocated := e.allocations()
				out := amountMinor(t, e.doc("Sales Invoice", inv)["outstanding_amount"])
				if wantOut := map[string]int64{"unallocated": 0, "park": 40000}[excess]; out != wantOut {
					t.Errorf("invoice outstanding %s, want %s (never negative)", formatPaise(out), formatPaise(wantOut))
				}
				switch excess {
				case "unallocated":
					if len(allocs) != 2 || allocs[0]+allocs[1] != 100000 || (allocs[0] != 60000 && allocs[1] != 60000) || unallocated != 20000 {
						t.Errorf("allocations %v unallocated %s, want 600.00 and 400.00 with 200.00 unallocated", allocs, formatPaise(unallocated))
					}
				case "park":
					if len(allocs) != 1 || allocs[0] != 60000 {
						t.Errorf("allocations %v, want only 600.00 (the second payment parks)", allocs)
					}
					c, _ := d1.db.CountByStatus(context.Background())
					if c[connector.StatusParked] != 1 || c[connector.StatusDone] != 1 {
						t.Errorf("inbox %v, want one done and one parked", c)
					}
				}
			})
		}
	})
}

func TestFailedThenCapturedBooks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	d := e.start(e.config())
	notes := map[string]any{"invoice": e.invoice}
	e.deliver(d, "T3stEvUpiFail1", envelope(t, "payment.failed", "payment", capture("pay_T3stUpiRetry001", 1200000,
		map[string]any{"status": "failed", "captured": false, "error_code": "BAD_REQUEST_ERROR", "notes": notes})))
	e.waitIdle(d)
	e.deliver(d, "T3stEvUpiCap01", envelope(t, "payment.captured", "payment", capture("pay_T3stUpiRetry001", 1200000, map[string]any{"notes": notes})))
	e.waitIdle(d)
	// A late payment.authorized snapshot moves nothing back and books nothing.
	e.deliver(d, "T3stEvUpiAut01", envelope(t, "payment.authorized", "payment", capture("pay_T3stUpiRetry001", 1200000,
		map[string]any{"status": "authorized", "captured": false, "notes": notes})))
	e.waitIdle(d)
	e.one("pay_T3stUpiRetry001")
	if s := e.invoiceField("status"); s != "Paid" {
		t.Errorf("invoice %s", s)
	}
	st, err := d.db.GetPaymentState(context.Background(), "pay_T3stUpiRetry001")
	if err != nil || st.State != "captured" || st.EventID != "T3stEvUpiCap01" {
		t.Errorf("payment state %+v %v, want captured (set by the capture, never moved back)", st, err)
	}
	if ev := e.statusOf("T3stEvUpiAut01"); ev.Status != connector.StatusSkipped || !strings.Contains(ev.LastError, "furthest state known: captured") {
		t.Errorf("late authorized snapshot: %s %q", ev.Status, ev.LastError)
	}
}

func TestDisputeIsParkedForAPerson(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	d := e.start(e.config())
	e.lastDaemon = d
	dispute := map[string]any{"id": "disp_T3stDispute001", "entity": "dispute", "payment_id": "pay_T3stDisputed01", "amount": 98000,
		"currency": "INR", "amount_deducted": 0, "reason_code": "chargeback", "status": "open", "phase": "chargeback", "created_at": paymentTime.Unix()}
	e.deliver(d, "T3stEvDisp0001", envelope(t, "payment.dispute.created", "payment", capture("pay_T3stDisputed01", 118000, nil), "dispute", dispute))
	e.waitIdle(d)
	ev := e.statusOf("disp_T3stDispute001")
	if ev.Status != connector.StatusParked || !strings.Contains(ev.LastError, "disp_T3stDispute001") || !strings.Contains(ev.LastError, "pay_T3stDisputed01") {
		t.Fatalf("%s %q, want parked naming the dispute and the payment", ev.Status, ev.LastError)
	}
	if n := len(e.site.Docs("Payment Entry")); n != 0 {
		t.Errorf("%d entries", n)
	}
}

// payment_link.partially_paid books its own amount; the invoice becomes Partly Paid and a second
// part-payment completes it.
func TestPartPaymentsOfAPaymentLink(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	d := e.start(e.config())
	link := map[string]any{"id": "plink_T3stPartial001", "amount": 1200000, "amount_paid": 400000, "currency": "INR",
		"status": "partially_paid", "accept_partial": true, "reference_id": e.invoice, "notes": nil, "created_at": paymentTime.Unix() - 600}
	e.deliver(d, "T3stEvPart0001", envelope(t, "payment_link.partially_paid", "payment_link", link,
		"payment", capture("pay_T3stPartLink001", 400000, nil)))
	e.waitIdle(d)
	wantAmount(t, "first part", rows(e.one("pay_T3stPartLink001"), "references")[0]["allocated_amount"], 400000)
	wantAmount(t, "outstanding", e.invoiceField("outstanding_amount"), 800000)
	if s := e.invoiceField("status"); s != "Partly Paid" {
		t.Errorf("invoice %s, want Partly Paid", s)
	}
	link["amount_paid"], link["status"] = 1200000, "paid"
	e.deliver(d, "T3stEvPart0002", envelope(t, "payment_link.paid", "payment_link", link,
		"payment", capture("pay_T3stPartLink002", 800000, nil)))
	e.waitIdle(d)
	e.one("pay_T3stPartLink002")
	wantAmount(t, "outstanding", e.invoiceField("outstanding_amount"), 0)
	if s := e.invoiceField("status"); s != "Paid" {
		t.Errorf("invoice %s, want Paid", s)
	}
}

// An invoice whose payment terms template allocates by term: each payment is spread over the
// terms in order (ERPNext's get_payment_entry proposes each term's whole outstanding).
func TestPaymentsAcrossPaymentTerms(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	if err := e.site.AddPaymentTermsTemplate(erpnextsim.PaymentTermsTemplateSpec{Name: "50-50", AllocateByTerms: true,
		Terms: []erpnextsim.PaymentTermSpec{{Name: "Advance 50", InvoicePortion: "50", CreditDays: 0}, {Name: "Balance 50", InvoicePortion: "50", CreditDays: 30}}}); err != nil {
		t.Fatal(err)
	}
	inv, err := e.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true, PaymentTermsTemplate: "50-50",
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "1000.00"}}})
	if err != nil {
		t.Fatal(err)
	}
	d := e.start(e.config())
	pay := func(id string, amount int64) map[string]any {
		e.deliver(d, eventIDFor(id), envelope(t, "payment.captured", "payment", capture(id, amount, map[string]any{"notes": map[string]any{"invoice": inv}})))
		e.waitIdle(d)
		return e.one(id)
	}
	refs := rows(pay("pay_T3stTerms00001", 40000), "references")
	if len(refs) != 1 || refs[0]["payment_term"] != "Advance 50" {
		t.Fatalf("first payment rows %v, want one row on Advance 50", refs)
	}
	wantAmount(t, "first allocation", refs[0]["allocated_amount"], 40000)
	refs = rows(pay("pay_T3stTerms00002", 60000), "references")
	if len(refs) != 2 || refs[0]["payment_term"] != "Advance 50" || refs[1]["payment_term"] != "Balance 50" {
		t.Fatalf("second payment rows %v, want Advance 50 then Balance 50", refs)
	}
	wantAmount(t, "rest of the first term", refs[0]["allocated_amount"], 10000)
	wantAmount(t, "second term", refs[1]["allocated_amount"], 50000)
	wantAmount(t, "outstanding", e.doc("Sales Invoice", inv)["outstanding_amount"], 0)
}

// A USD invoice paid over several payment-term rows: ERPNext rounds each row's base amount, and
// at 85.25 the rows 7.50 + 17.50 make ₹2,131.26 against ₹2,131.25 received. The paisa goes to
// the company's round-off account as a deduction, received stays what Razorpay settled, and
// explain predicts exactly that entry (fifth adversarial pass: ERPNext refused it before).
func TestUSDTermRowsRoundingGoesToRoundOff(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	if err := e.site.AddCustomerSpec(erpnextsim.CustomerSpec{Name: "USD Customer", DefaultCurrency: "USD", ReceivableAccount: erpnextsim.ReceivableUSD}); err != nil {
		t.Fatal(err)
	}
	if err := e.site.AddPaymentTermsTemplate(erpnextsim.PaymentTermsTemplateSpec{Name: "30-70", AllocateByTerms: true,
		Terms: []erpnextsim.PaymentTermSpec{{Name: "Advance 30", InvoicePortion: "30"}, {Name: "Balance 70", InvoicePortion: "70", CreditDays: 30}}}); err != nil {
		t.Fatal(err)
	}
	inv, err := e.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "USD Customer", Currency: "USD", ConversionRate: "84", Submit: true,
		PaymentTermsTemplate: "30-70", Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "25.00"}}})
	if err != nil {
		t.Fatal(err)
	}
	body := envelope(t, "payment.captured", "payment", capture("pay_T3stUsdTerms01", 2500, map[string]any{
		"currency": "USD", "base_amount": 213125, "notes": map[string]any{"invoice": inv}}))
	path, envs := e.configFile("", "")
	f := filepath.Join(t.TempDir(), "p.json")
	os.WriteFile(f, body, 0o600)
	code, out, _ := run(t, envs, "explain", "--config", path, "--payload", f, "--json")
	var x connector.Explanation
	if err := json.Unmarshal([]byte(out), &x); err != nil || code != exitOK || x.Action != connector.ExplainCreate {
		t.Fatalf("explain: exit %d %s", code, out)
	}
	d := e.start(e.config())
	e.deliver(d, "T3stEvUsdTrm01", body)
	e.waitIdle(d)
	pe := e.one("pay_T3stUsdTerms01")
	wantAmount(t, "received", pe["received_amount"], 213125)
	wantAmount(t, "difference", pe["difference_amount"], 0)
	ded := rows(pe, "deductions")
	if len(ded) != 1 || ded[0]["account"] != "Round Off - EC" {
		t.Fatalf("deductions %v, want one round-off row", ded)
	}
	wantAmount(t, "round-off", ded[0]["amount"], 1)
	if refs := rows(pe, "references"); len(refs) != 2 {
		t.Errorf("references %v, want the two term rows", refs)
	}
	if s := e.doc("Sales Invoice", inv)["status"]; s != "Paid" {
		t.Errorf("invoice %v", s)
	}
	xd, _ := x.Entry["deductions"].([]any)
	if len(xd) != 1 {
		t.Errorf("explain's entry deductions %v, want the same round-off row", x.Entry["deductions"])
	}
}
