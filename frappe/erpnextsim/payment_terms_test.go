package erpnextsim_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

const gpePath = "/api/method/erpnext.accounts.doctype.payment_entry.payment_entry.get_payment_entry"

// termsInvoice adds the 50/50 template (allocate by term: "Advance 50" due at posting,
// "Balance 50" 30 days later) and a submitted 1000.00 invoice of Test Customer using it.
func termsInvoice(t *testing.T, h *harness) string {
	t.Helper()
	if err := h.site.AddPaymentTermsTemplate(erpnextsim.PaymentTermsTemplateSpec{Name: "50-50", AllocateByTerms: true,
		Terms: []erpnextsim.PaymentTermSpec{{Name: "Advance 50", InvoicePortion: "50"}, {Name: "Balance 50", InvoicePortion: "50", CreditDays: 30}}}); err != nil {
		t.Fatal(err)
	}
	name, err := h.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true, PaymentTermsTemplate: "50-50",
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "1000.00"}}})
	if err != nil {
		t.Fatal(err)
	}
	return name
}

func termRef(inv, term string, amount any) []any {
	return []any{map[string]any{"reference_doctype": "Sales Invoice", "reference_name": inv, "payment_term": term, "allocated_amount": amount}}
}

func schedule(t *testing.T, inv map[string]any) []map[string]any {
	t.Helper()
	rows, _ := inv["payment_schedule"].([]any)
	var out []map[string]any
	for _, r := range rows {
		out = append(out, r.(map[string]any))
	}
	return out
}

func TestPaymentTermsScheduleOnInvoice(t *testing.T) {
	h := seeded(t)
	inv := h.invoice(termsInvoice(t, h))
	if field(inv, "payment_terms_template") != "50-50" || field(inv, "due_date") != "2026-12-30" || field(inv, "status") != "Unpaid" {
		t.Fatalf("invoice: template %v due %v status %v", inv["payment_terms_template"], inv["due_date"], inv["status"])
	}
	ps := schedule(t, inv)
	if len(ps) != 2 {
		t.Fatalf("%d schedule rows", len(ps))
	}
	for i, want := range []struct{ term, due string }{{"Advance 50", "2026-11-30"}, {"Balance 50", "2026-12-30"}} {
		if field(ps[i], "payment_term") != want.term || field(ps[i], "due_date") != want.due || field(ps[i], "payment_amount") != "500.0" ||
			field(ps[i], "outstanding") != "500.0" || field(ps[i], "paid_amount") != "0.0" || field(ps[i], "invoice_portion") != "50.0" {
			t.Errorf("schedule row %d: %v", i, ps[i])
		}
	}
}

// TestPaymentTermRequiredWhenAllocatingByTerm is §3.2 V14's term check: on a term-based
// invoice a row without payment_term is refused before anything else of V14.
func TestPaymentTermRequiredWhenAllocatingByTerm(t *testing.T) {
	h := seeded(t)
	inv := termsInvoice(t, h)
	h.do("POST", pePath, pe(map[string]any{"references": refs(inv, 1000)})).expectError(t, 417, "ValidationError",
		"<strong>"+inv+"</strong> has Payment Term based allocation enabled. Select a Payment Term for Row #<strong>1</strong> in Payment References section")
	h.do("POST", pePath, pe(map[string]any{"paid_amount": 1500, "received_amount": 1500,
		"references": append(refs("ACC-SINV-2026-00001", 1000), termRef(inv, "", 500)...)})).expectError(t, 417, "ValidationError",
		"<strong>"+inv+"</strong> has Payment Term based allocation enabled. Select a Payment Term for Row #<strong>2</strong> in Payment References section")
	h.do("POST", pePath, pe(map[string]any{"paid_amount": 600, "received_amount": 600, "references": termRef(inv, "Advance 50", 600)})).
		expectError(t, 417, "ValidationError", "Row #1: Allocated Amount cannot be greater than outstanding amount.")
	h.do("POST", pePath, pe(map[string]any{"references": termRef(inv, "No Such Term", 500), "paid_amount": 500, "received_amount": 500})).
		expectError(t, 417, "LinkValidationError", "Could not find Row #1: Payment Term: No Such Term")
}

func TestPaymentTermSubmitUpdatesSchedule(t *testing.T) {
	h := seeded(t)
	inv := termsInvoice(t, h)
	r := h.do("POST", pePath, pe(map[string]any{"docstatus": 1, "paid_amount": 500, "received_amount": 500, "references": termRef(inv, "Advance 50", 500)}))
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	d := h.invoice(inv)
	ps := schedule(t, d)
	if field(d, "outstanding_amount") != "500.0" || field(d, "status") != "Partly Paid" ||
		field(ps[0], "paid_amount") != "500.0" || field(ps[0], "outstanding") != "0.0" || field(ps[1], "paid_amount") != "0.0" {
		t.Fatalf("after paying the first term: %v %v %v", d["outstanding_amount"], d["status"], ps)
	}
	h.do("POST", pePath, pe(map[string]any{"paid_amount": 500, "received_amount": 500, "references": termRef(inv, "Advance 50", 500)})).
		expectError(t, 417, "ValidationError", "Sales Invoice "+inv+" has already been fully paid.")
	name := field(r.data(), "name")
	if c := h.do("PUT", pePath+"/"+name, map[string]any{"docstatus": 2}); c.status != 200 {
		t.Fatal(c.raw)
	}
	ps = schedule(t, h.invoice(inv))
	if field(ps[0], "paid_amount") != "0.0" || field(ps[0], "outstanding") != "500.0" {
		t.Fatalf("cancel did not restore the schedule: %v", ps[0])
	}
}

func TestGetPaymentEntryOneRowPerTerm(t *testing.T) {
	h := seeded(t)
	inv := termsInvoice(t, h)
	r := h.do("POST", gpePath, map[string]any{"dt": "Sales Invoice", "dn": inv, "bank_account": erpnextsim.RazorpayClearing})
	d := r.data()
	rows, _ := d["references"].([]any)
	if r.status != 200 || len(rows) != 2 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	for i, term := range []string{"Advance 50", "Balance 50"} {
		row := rows[i].(map[string]any)
		if field(row, "payment_term") != term || field(row, "allocated_amount") != "500.0" || field(row, "payment_term_outstanding") != "500.0" ||
			field(row, "total_amount") != "1000.0" || field(row, "outstanding_amount") != "1000.0" || field(row, "due_date") != "2026-12-30" || field(row, "idx") != num(i+1) {
			t.Errorf("row %d: %v", i, row)
		}
	}
	if field(d, "paid_amount") != "1000.0" || field(d, "total_allocated_amount") != "1000.0" || field(d, "difference_amount") != "0.0" {
		t.Errorf("amounts: %v %v %v", d["paid_amount"], d["total_allocated_amount"], d["difference_amount"])
	}
	// party_amount does not spread over the terms in 15.71.1: the rows keep each term's
	// outstanding and the shortfall shows as difference_amount.
	r = h.do("POST", gpePath, map[string]any{"dt": "Sales Invoice", "dn": inv, "party_amount": 400, "bank_account": erpnextsim.RazorpayClearing})
	d = r.data()
	rows, _ = d["references"].([]any)
	if len(rows) != 2 || field(d, "paid_amount") != "400.0" || field(d, "total_allocated_amount") != "1000.0" || field(d, "difference_amount") != "600.0" ||
		field(rows[0].(map[string]any), "outstanding_amount") != "400.0" || field(rows[1].(map[string]any), "allocated_amount") != "500.0" {
		t.Fatalf("with party_amount: %s", r.raw)
	}
	// after the first term is paid only the second is offered
	if p := h.do("POST", pePath, pe(map[string]any{"docstatus": 1, "paid_amount": 500, "received_amount": 500, "references": termRef(inv, "Advance 50", 500)})); p.status != 200 {
		t.Fatal(p.raw)
	}
	r = h.do("POST", gpePath, map[string]any{"dt": "Sales Invoice", "dn": inv, "bank_account": erpnextsim.RazorpayClearing})
	rows, _ = r.data()["references"].([]any)
	if len(rows) != 1 || field(rows[0].(map[string]any), "payment_term") != "Balance 50" || field(rows[0].(map[string]any), "outstanding_amount") != "500.0" {
		t.Fatalf("after the first term: %s", r.raw)
	}
}

// TestOverdueFromPaymentSchedule is §4 is_overdue: a term already due and unpaid makes the
// invoice Overdue although its due date (the last term's) has not passed.
func TestOverdueFromPaymentSchedule(t *testing.T) {
	var now atomic.Int64
	now.Store(recordedNow.UnixNano())
	h := newHarness(t, erpnextsim.Options{Now: func() time.Time { return time.Unix(0, now.Load()) }})
	h.seedRecorded()
	inv := termsInvoice(t, h)
	if got := field(h.invoice(inv), "status"); got != "Unpaid" {
		t.Fatalf("status %s on the posting day", got)
	}
	now.Store(recordedNow.Add(5 * 24 * time.Hour).UnixNano())
	if d := h.invoice(inv); field(d, "status") != "Overdue" || field(d, "due_date") != "2026-12-30" {
		t.Fatalf("status %v (due %v) with the first term unpaid", d["status"], d["due_date"])
	}
	if r := h.do("POST", pePath, pe(map[string]any{"docstatus": 1, "posting_date": "2026-12-05", "paid_amount": 500, "received_amount": 500,
		"references": termRef(inv, "Advance 50", 500)})); r.status != 200 {
		t.Fatal(r.raw)
	}
	if got := field(h.invoice(inv), "status"); got != "Partly Paid" {
		t.Fatalf("status %s with the due term paid", got)
	}
}

// TestPaymentTermsTemplateOverREST: an accounts user makes Payment Terms and a template over
// REST; an invoice using it gets one schedule row per term; the template's validate refuses
// portions that do not add up to 100 and duplicate rows, and a second template of the name is
// 409.
func TestPaymentTermsTemplateOverREST(t *testing.T) {
	h := connectorHarness(t)
	if err := h.site.AddCustomer("Test Customer"); err != nil {
		t.Fatal(err)
	}
	const ptPath, pttPath = "/api/resource/Payment%20Term", "/api/resource/Payment%20Terms%20Template"
	mustOK(t, h.do("POST", ptPath, map[string]any{"payment_term_name": "Advance 30", "invoice_portion": 30}))
	bal := mustOK(t, h.do("POST", ptPath, map[string]any{"payment_term_name": "Balance 70", "invoice_portion": 70, "credit_days": 30})).data()
	if field(bal, "name") != "Balance 70" || field(bal, "due_date_based_on") != "Day(s) after invoice date" || field(bal, "credit_days") != "30" {
		t.Errorf("payment term %v", bal)
	}
	h.do("POST", ptPath, map[string]any{"payment_term_name": "Balance 70", "invoice_portion": 70}).expectError(t, 409, "DuplicateEntryError")
	tmpl := func(name string, rows ...any) map[string]any {
		return map[string]any{"template_name": name, "allocate_payment_based_on_payment_terms": 1, "terms": rows}
	}
	r := mustOK(t, h.do("POST", pttPath, tmpl("30-70", map[string]any{"payment_term": "Advance 30"}, map[string]any{"payment_term": "Balance 70"})))
	rows, _ := r.data()["terms"].([]any)
	if field(r.data(), "name") != "30-70" || len(rows) != 2 || field(rows[1].(map[string]any), "invoice_portion") != "70.0" || field(rows[1].(map[string]any), "credit_days") != "30" {
		t.Fatalf("template %s", r.raw)
	}
	h.do("POST", pttPath, tmpl("30-70", map[string]any{"payment_term": "Advance 30"}, map[string]any{"payment_term": "Balance 70"})).
		expectError(t, 409, "DuplicateEntryError")
	h.do("POST", pttPath, tmpl("short", map[string]any{"payment_term": "Advance 30"}, map[string]any{"payment_term": "Advance 30", "invoice_portion": 60})).
		expectError(t, 417, "ValidationError", "Combined invoice portion must equal 100%")
	h.do("POST", pttPath, tmpl("twice", map[string]any{"payment_term": "Advance 30", "invoice_portion": 50}, map[string]any{"payment_term": "Advance 30", "invoice_portion": 50})).
		expectError(t, 417, "ValidationError", "The Payment Term at row 2 is possibly a duplicate.")
	h.do("POST", pttPath, tmpl("unknown", map[string]any{"payment_term": "No Such Term", "invoice_portion": 100})).
		expectError(t, 417, "LinkValidationError")
	inv := mustOK(t, h.do("POST", siPath, map[string]any{"customer": "Test Customer", "posting_date": "2026-12-01", "payment_terms_template": "30-70",
		"items": []any{map[string]any{"item_code": "RZP-ITEM", "qty": 1, "rate": 1000}}, "docstatus": 1})).data()
	sched, _ := inv["payment_schedule"].([]any)
	if len(sched) != 2 || field(sched[0].(map[string]any), "payment_amount") != "300.0" || field(sched[1].(map[string]any), "due_date") != "2026-12-31" || field(inv, "due_date") != "2026-12-31" {
		t.Errorf("invoice schedule %v, due %s", sched, field(inv, "due_date"))
	}
}
