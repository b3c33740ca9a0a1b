package connector_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Rounded invoices (erpnext-recorded-connector README "81"): the simulator
// rounds invoices as ERPNext does by default (8.35 → 8.00, 1234.56 → 1235.00), and a payment of
// the grand total books Paid with unallocated 0 and the difference on the company's round-off
// account — the ledger as recorded (81-pe-deduction-minus-0.35-gl-entries,
// 81-big-pe-deduction-plus-0.44-gl-entries).

const roundOff = "Round Off - EC"

// glRows are the GL Entry rows of voucher as "account debit credit cost_center against_voucher",
// sorted, with their debit and credit totals in paise.
func (r *rig) glRows(voucher string) (rows []string, debit, credit int64) {
	r.t.Helper()
	var gl []map[string]any
	if err := r.erp.List(context.Background(), frappe.DoctypeGLEntry, frappe.ListOptions{
		Fields:  []string{"account", "debit", "credit", "cost_center", "against_voucher"},
		Filters: []frappe.Filter{{"voucher_no", "=", voucher}, {"is_cancelled", "=", 0}}, All: true,
	}, &gl); err != nil {
		r.t.Fatal(err)
	}
	for _, g := range gl {
		d, c := minor(r.t, g["debit"], 2), minor(r.t, g["credit"], 2)
		debit, credit = debit+d, credit+c
		cc, against := g["cost_center"], g["against_voucher"]
		if cc == nil {
			cc = "-"
		}
		if against == nil || against == "" {
			against = "-"
		}
		rows = append(rows, fmt.Sprintf("%s %s %s %v %v", g["account"], razorpay.FormatMinor(d, 2), razorpay.FormatMinor(c, 2), cc, against))
	}
	sort.Strings(rows)
	return rows, debit, credit
}

// roundedCase books one payment of amount on a fresh invoice of rate and checks the entry, the
// invoice and the ledger.
type roundedCase struct {
	name      string
	rate      string // the invoice's one line; ERPNext rounds its total
	amount    int64  // the payment, paise
	fees      bool   // mapping.fees.mode deduction with fee 23.60 (GST 3.60)
	allocated int64
	rounding  int64 // the Round Off deduction, paise
	gl        []string
}

func TestRoundedInvoicePaidAtGrandTotalIsPaidWithTheRoundingOnRoundOff(t *testing.T) {
	cases := []roundedCase{
		{name: "RoundedDown835", rate: "8.35", amount: 835, allocated: 800, rounding: -35, gl: []string{
			"Debtors - EC 0.00 8.00 - INV", "Razorpay Clearing - EC 8.35 0.00 - -", "Round Off - EC 0.00 0.35 Main - EC -"}},
		{name: "RoundedUp123456", rate: "1234.56", amount: 123456, allocated: 123500, rounding: 44, gl: []string{
			"Debtors - EC 0.00 1235.00 - INV", "Razorpay Clearing - EC 1234.56 0.00 - -", "Round Off - EC 0.44 0.00 Main - EC -"}},
		{name: "RoundedUpWithFeeDeduction", rate: "1234.56", amount: 123456, fees: true, allocated: 123500, rounding: 44, gl: []string{
			"Debtors - EC 0.00 1235.00 - INV", "Input Tax GST - EC 3.60 0.00 Main - EC -", "Razorpay Clearing - EC 1210.96 0.00 - -",
			"Razorpay Fees - EC 20.00 0.00 Main - EC -", "Round Off - EC 0.44 0.00 Main - EC -"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, withConfig(func(c *connector.Config) {
				if tc.fees {
					c.Mapping.Fees.Mode, c.Mapping.Fees.FeeAccount, c.Mapping.Fees.TaxAccount, c.Mapping.Fees.CostCenter =
						"deduction", erpnextsim.FeeAccount, erpnextsim.GSTInputAccount, erpnextsim.CostCenter
				}
			}))
			inv := r.invoice("Test Customer", tc.rate)
			over := map[string]any{}
			if tc.fees {
				over["fee"], over["tax"] = 2360, 360
			}
			id := "pay_T3stRound" + strings.ReplaceAll(tc.rate, ".", "x")
			x, _ := r.agree("E1", captured(t, id, tc.amount, inv, over))
			if x.Ledger.Allocated != tc.allocated || x.Ledger.Unallocated != 0 {
				t.Errorf("planned allocated %d unallocated %d, want %d and 0", x.Ledger.Allocated, x.Ledger.Unallocated, tc.allocated)
			}
			paidSrc := fmt.Sprintf("payment amount INR %s (mapping.fees.mode none: no fee deducted)", razorpay.FormatMinor(tc.amount, 2))
			if tc.fees {
				paidSrc = fmt.Sprintf("payment amount INR %s less Razorpay's fee INR 23.60 (mapping.fees.mode deduction)", razorpay.FormatMinor(tc.amount, 2))
			}
			if got := source(x, "paid_amount"); got != paidSrc {
				t.Errorf("paid_amount from %q; want %q (the fee mode used)", got, paidSrc)
			}
			if !explained(x, "rounding", "rounding_adjustment") || !explained(x, "deductions["+roundOff+"]", "round_off_account") {
				t.Errorf("explain does not say where the rounding goes: %+v", x.Fields)
			}
			pe := r.one(id)
			refs, ded := rows(pe, "references"), rows(pe, "deductions")
			if len(refs) != 1 || minor(t, refs[0]["allocated_amount"], 2) != tc.allocated || minor(t, pe["unallocated_amount"], 2) != 0 ||
				minor(t, pe["difference_amount"], 2) != 0 {
				t.Errorf("references %v unallocated %v difference %v", refs, pe["unallocated_amount"], pe["difference_amount"])
			}
			last := ded[len(ded)-1]
			if last["account"] != roundOff || last["cost_center"] != erpnextsim.CostCenter || minor(t, last["amount"], 2) != tc.rounding {
				t.Errorf("deductions %v: want %s on %s / %s", ded, razorpay.FormatMinor(tc.rounding, 2), roundOff, erpnextsim.CostCenter)
			}
			si, _ := r.site.Doc(frappe.DoctypeSalesInvoice, inv)
			if si["status"] != "Paid" || minor(t, si["outstanding_amount"], 2) != 0 {
				t.Errorf("invoice %s %v outstanding %v, want Paid 0", inv, si["status"], si["outstanding_amount"])
			}
			gl, debit, credit := r.glRows(fmt.Sprint(pe["name"]))
			want := strings.Join(tc.gl, "|")
			if got := strings.ReplaceAll(strings.Join(gl, "|"), inv, "INV"); got != want || debit != credit {
				t.Errorf("GL\n  %s\nwant\n  %s\n(debit %d, credit %d)", got, want, debit, credit)
			}
			b, err := r.db.GetBooking(context.Background(), id)
			if err != nil || b.AmountMinor != tc.amount {
				t.Errorf("booking amount %+v %v, want the gross %d paise", b, err, tc.amount)
			}
		})
	}
}

// source is the source explain gives for field ("" when it names no such field).
func source(x *connector.Explanation, field string) string {
	for _, f := range x.Fields {
		if f.Field == field {
			return f.Source
		}
	}
	return ""
}

// explained reports whether x explains field with a value or source containing s.
func explained(x *connector.Explanation, field, s string) bool {
	for _, f := range x.Fields {
		if f.Field == field && (strings.Contains(f.Source, s) || strings.Contains(f.Value, s)) {
			return true
		}
	}
	return false
}

// A rounded invoice paid in parts: the first payment is partial (no round-off, the invoice is
// Partly Paid), the last one pays the rest of the grand total and the rounding goes to Round
// Off; a payment beyond the rounding is an over-payment, not a rounding.
func TestRoundedInvoicePaidInPartsRoundsOnlyTheLastPart(t *testing.T) {
	r := newRig(t)
	inv := r.invoice("Test Customer", "1234.56")
	r.deliver("E1", captured(t, "pay_T3stRoundPt001", 100000, inv, nil))
	r.work()
	first := r.one("pay_T3stRoundPt001")
	if len(rows(first, "deductions")) != 0 || minor(t, rows(first, "references")[0]["allocated_amount"], 2) != 100000 {
		t.Errorf("partial payment: deductions %v references %v, want 1000.00 allocated and no round-off", first["deductions"], first["references"])
	}
	if si, _ := r.site.Doc(frappe.DoctypeSalesInvoice, inv); si["status"] != "Partly Paid" || minor(t, si["outstanding_amount"], 2) != 23500 {
		t.Fatalf("after the partial payment %v %v, want Partly Paid 235.00", si["status"], si["outstanding_amount"])
	}
	x, _ := r.agree("E2", captured(t, "pay_T3stRoundPt002", 23456, inv, nil))
	if x.Ledger.Allocated != 23500 || x.Ledger.Unallocated != 0 || x.Ledger.Deductions != 44 {
		t.Errorf("last part: %+v, want 235.00 allocated with +0.44 Round Off", *x.Ledger)
	}
	if si, _ := r.site.Doc(frappe.DoctypeSalesInvoice, inv); si["status"] != "Paid" {
		t.Errorf("after the last part %v, want Paid", si["status"])
	}

	down := r.invoice("Test Customer", "8.35")
	x, _ = r.agree("E3", captured(t, "pay_T3stRoundPt003", 900, down, nil))
	if x.Ledger.Allocated != 800 || x.Ledger.Unallocated != 100 || x.Ledger.Deductions != 0 || !explained(x, "rounding", "more than the rounding") {
		t.Errorf("9.00 on a rounded 8.35 invoice: %+v %+v, want 8.00 allocated, 1.00 unallocated, no round-off", *x.Ledger, x.Fields)
	}
}

// A rounded invoice with mapping.excess park: paying its grand total is not an over-payment.
func TestRoundedDownInvoiceAtGrandTotalIsNotAnOverPayment(t *testing.T) {
	r := newRig(t, withConfig(func(c *connector.Config) { c.Mapping.Excess = "park" }))
	inv := r.invoice("Test Customer", "8.35")
	r.agree("E1", captured(t, "pay_T3stRoundEx001", 835, inv, nil))
	r.want("E1", connector.StatusDone, "created")
	r.deliver("E2", captured(t, "pay_T3stRoundEx002", 900, r.invoice("Test Customer", "8.35"), nil))
	r.work()
	r.want("E2", connector.StatusParked, "over-payment")
}

// A rounded invoice on a template that allocates by term: the terms split the rounded total,
// the grand total pays every term and the rounding goes to Round Off; through its Payment
// Request (whose amount is the rounded outstanding) the request ends Paid too.
func TestRoundedInvoiceOverPaymentTermsAndThroughItsPaymentRequest(t *testing.T) {
	r := newRig(t)
	if err := r.site.AddPaymentTermsTemplate(erpnextsim.PaymentTermsTemplateSpec{Name: "Half and half", AllocateByTerms: true,
		Terms: []erpnextsim.PaymentTermSpec{{Name: "First half", InvoicePortion: "50"}, {Name: "Second half", InvoicePortion: "50", CreditDays: 30}}}); err != nil {
		t.Fatal(err)
	}
	inv, err := r.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true, PaymentTermsTemplate: "Half and half",
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "1234.56"}}})
	if err != nil {
		t.Fatal(err)
	}
	x, _ := r.agree("E1", captured(t, "pay_T3stRoundTerm1", 123456, inv, nil))
	if x.Ledger.Allocated != 123500 || x.Ledger.Deductions != 44 || x.Ledger.Unallocated != 0 {
		t.Errorf("planned %+v, want 1235.00 allocated over the terms and +0.44 Round Off", *x.Ledger)
	}
	var got []string
	for _, row := range rows(r.one("pay_T3stRoundTerm1"), "references") {
		got = append(got, fmt.Sprintf("%v %s", row["payment_term"], razorpay.FormatMinor(minor(t, row["allocated_amount"], 2), 2)))
	}
	if strings.Join(got, "|") != "First half 617.50|Second half 617.50" {
		t.Errorf("term rows %v, want each half of the rounded total", got)
	}
	if si, _ := r.site.Doc(frappe.DoctypeSalesInvoice, inv); si["status"] != "Paid" {
		t.Errorf("invoice %v, want Paid", si["status"])
	}

	down := r.invoice("Test Customer", "8.35")
	pr, err := r.site.AddPaymentRequest(down, erpnextsim.PaymentRequestSpec{})
	if err != nil {
		t.Fatal(err)
	}
	r.deliver("E2", captured(t, "pay_T3stRoundPrq01", 835, "", map[string]any{"notes": map[string]any{"payment_request": pr}}))
	r.work()
	r.want("E2", connector.StatusDone, "created")
	pe := r.one("pay_T3stRoundPrq01")
	refs := rows(pe, "references")
	if len(refs) != 1 || refs[0]["payment_request"] != pr || minor(t, refs[0]["allocated_amount"], 2) != 800 || minor(t, pe["unallocated_amount"], 2) != 0 {
		t.Errorf("references %v unallocated %v: want 8.00 linked to %s, nothing unallocated", refs, pe["unallocated_amount"], pr)
	}
	if d, _ := r.site.Doc(frappe.DoctypePaymentRequest, pr); d["status"] != "Paid" {
		t.Errorf("Payment Request %v, want Paid", d["status"])
	}
}
