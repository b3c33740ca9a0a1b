package connector_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// goldenCase is one mapping/testdata/<case>.json: a webhook body, rule overrides and the
// ERPNext facts the connector would have looked up; goldenPlan is its <case>.golden.json.
type goldenCase struct {
	Rules struct {
		Excess                   string            `json:"excess"`
		Fees                     *mapping.FeeRules `json:"fees"`
		RefundsWithoutCreditNote string            `json:"refunds_without_credit_note"`
		InvoiceFrom              []string          `json:"invoice_from"`
		DescriptionPattern       string            `json:"description_pattern"`
	} `json:"rules"`
	AdvanceCustomer string                `json:"advance_customer"`
	Event           json.RawMessage       `json:"event"`
	Invoice         *mapping.Invoice      `json:"invoice"`
	PaymentRequest  string                `json:"payment_request"`
	Receipt         *mapping.ReceiptFacts `json:"receipt"`
	CreditNote      *mapping.Invoice      `json:"credit_note"`
}

type goldenPlan struct {
	Candidates []mapping.Candidate `json:"candidates"`
	Receipt    *mapping.Receipt    `json:"receipt"`
	Refund     *mapping.Refund     `json:"refund"`
	Park       *mapping.Park       `json:"park"`
}

// For every golden case of mapping/testdata, on a site holding the case's ERPNext facts, the
// worker does what Explain planned and writes the entry it planned; the plan's money is the
// golden plan's, and a park gives the golden reason. Each case is explained twice over: as a
// body not yet delivered (explain --payload) and as the stored row (the console, events).
func TestExplainAndTheWorkerAgreeOnEveryGoldenCase(t *testing.T) {
	for _, stored := range []bool{false, true} {
		name := map[bool]string{false: "Payload", true: "Stored"}[stored]
		t.Run(name, func(t *testing.T) { agreeOnGoldenCases(t, stored) })
	}
}

func agreeOnGoldenCases(t *testing.T, stored bool) {
	files, err := filepath.Glob(filepath.Join("..", "mapping", "testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".golden.json") {
			continue
		}
		n++
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			var c goldenCase
			var g goldenPlan
			readJSON(t, f, &c)
			readJSON(t, strings.TrimSuffix(f, ".json")+".golden.json", &g)
			r := newRig(t, withConfig(func(cfg *connector.Config) { goldenRules(cfg, c) }))
			names := r.goldenFacts(c)
			body := substitute(c.Event, names)
			var x *connector.Explanation
			if stored {
				r.deliver("golden", body)
				x, _ = r.agreeStored("golden")
			} else {
				x, _ = r.agree("golden", body)
			}
			checkGolden(t, x, g, names)
		})
	}
	if n < 25 {
		t.Fatalf("only %d golden cases", n)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// goldenRules applies a case's rule overrides to the configuration.
func goldenRules(cfg *connector.Config, c goldenCase) {
	m := &cfg.Mapping
	if c.Rules.Excess != "" {
		m.Excess = c.Rules.Excess
	}
	if f := c.Rules.Fees; f != nil {
		m.Fees.Mode, m.Fees.FeeAccount, m.Fees.TaxAccount, m.Fees.CostCenter = f.Mode, f.FeeAccount, f.TaxAccount, f.CostCenter
	}
	if c.Rules.RefundsWithoutCreditNote != "" {
		m.Refunds.WithoutCreditNote = c.Rules.RefundsWithoutCreditNote
	}
	if c.Rules.InvoiceFrom != nil {
		m.InvoiceFrom = c.Rules.InvoiceFrom
	}
	m.DescriptionPattern = c.Rules.DescriptionPattern
	if c.AdvanceCustomer != "" {
		m.WithoutInvoice, m.FallbackCustomer = "advance", c.AdvanceCustomer
	}
}

// goldenFacts makes the site hold a case's facts — the invoice with its outstanding, its
// Payment Request, the booked receipt and the credit note of a refund — and returns the
// names the site gave them in place of the case's.
func (r *rig) goldenFacts(c goldenCase) map[string]string {
	names := map[string]string{}
	if c.Invoice != nil {
		names[c.Invoice.Name] = r.goldenInvoice(*c.Invoice, c)
	}
	if c.PaymentRequest != "" {
		pr, err := r.site.AddPaymentRequest(names[c.Invoice.Name], erpnextsim.PaymentRequestSpec{})
		if err != nil {
			r.t.Fatal(err)
		}
		names[c.PaymentRequest] = pr
	}
	if c.Receipt != nil {
		ev, err := razorpay.ParseEvent(c.Event)
		if err != nil {
			r.t.Fatal(err)
		}
		inv := r.invoice(c.Receipt.Customer, razorpay.FormatMinor(ev.Payment.Amount, 2))
		names[c.Receipt.Invoice] = inv
		r.deliver("golden-receipt", substitute(envelope(r.t, "payment.captured", "payment", ev.Payment), names))
		r.work()
		r.want("golden-receipt", connector.StatusDone)
	}
	if cn := c.CreditNote; cn != nil {
		exp, _ := razorpay.Exponent(cn.PartyAccountCurrency)
		name, err := r.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: cn.Customer, Submit: true, IsReturn: true,
			ReturnAgainst: names[c.Receipt.Invoice], Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: razorpay.FormatMinor(-cn.Outstanding, exp)}}})
		if err != nil {
			r.t.Fatal(err)
		}
		names[cn.Name] = name
	}
	return names
}

// goldenInvoice adds the case's invoice: receivable in its currency, rounded as ERPNext
// rounds by default (a case whose invoice has a grand total is a rounded invoice; one whose
// outstanding has a fraction and no grand total is an invoice with rounding disabled, as
// disable_rounded_total allows per invoice), and paid down by another entry to the case's
// outstanding (all of it when the case says it is settled).
func (r *rig) goldenInvoice(inv mapping.Invoice, c goldenCase) string {
	customer, rate := inv.Customer, "1"
	if cur := inv.PartyAccountCurrency; cur != "INR" {
		customer, rate = r.foreignCustomer(cur), map[string]string{"USD": "84", "JPY": "0.58", "KWD": "272"}[cur]
	}
	exp, _ := razorpay.Exponent(inv.PartyAccountCurrency)
	amount := inv.Outstanding
	if inv.GrandTotal != 0 {
		amount = inv.GrandTotal
	} else if amount == 0 {
		ev, _ := razorpay.ParseEvent(c.Event)
		amount = ev.Payment.Amount
	}
	doc := map[string]any{"customer": customer, "currency": inv.PartyAccountCurrency, "conversion_rate": json.Number(rate), "docstatus": 1,
		"items": []map[string]any{{"item_code": "RZP-ITEM", "qty": 1, "rate": json.Number(razorpay.FormatMinor(amount, exp))}}}
	unit := int64(1)
	for i := 0; i < exp; i++ {
		unit *= 10
	}
	if inv.GrandTotal == 0 && amount%unit != 0 {
		doc["disable_rounded_total"] = 1
	}
	var si frappe.SalesInvoice
	if err := r.erp.Insert(context.Background(), frappe.DoctypeSalesInvoice, doc, &si); err != nil {
		r.t.Fatalf("invoice in %s: %v", inv.PartyAccountCurrency, err)
	}
	if err := r.erp.Get(context.Background(), frappe.DoctypeSalesInvoice, si.Name, &si); err != nil {
		r.t.Fatal(err)
	}
	out, _ := razorpay.ParseDecimal(si.OutstandingAmount.String(), exp)
	if inv.GrandTotal != 0 {
		if adj, _ := razorpay.ParseDecimal(si.RoundingAdjustment.String(), exp); adj != inv.RoundingAdjustment {
			r.t.Fatalf("invoice of %s: rounding_adjustment %s, the case says %d", razorpay.FormatMinor(amount, exp), si.RoundingAdjustment, inv.RoundingAdjustment)
		}
	}
	if paid := out - inv.Outstanding; paid > 0 {
		if err := r.erp.Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{
			"payment_type": "Receive", "company": erpnextsim.DefaultCompany, "party_type": "Customer", "party": customer,
			"paid_to": erpnextsim.RazorpayClearing, "paid_amount": razorpay.FormatMinor(paid, 2), "received_amount": razorpay.FormatMinor(paid, 2),
			"reference_no": "NEFT-PAID-BEFORE", "reference_date": "2026-01-15", "posting_date": "2026-01-15", "docstatus": 1,
			"references": []map[string]any{{"reference_doctype": "Sales Invoice", "reference_name": si.Name, "allocated_amount": razorpay.FormatMinor(paid, 2)}},
		}, nil); err != nil {
			r.t.Fatal(err)
		}
	}
	return si.Name
}

// foreignCustomer is a customer receivable in currency (its own receivable account).
func (r *rig) foreignCustomer(currency string) string {
	r.t.Helper()
	name, account := currency+" Customer", erpnextsim.ReceivableUSD
	if currency != "USD" {
		acct, err := r.site.AddAccount(erpnextsim.AccountSpec{AccountName: "Debtors " + currency, AccountType: "Receivable",
			Currency: currency, Parent: "Accounts Receivable - EC"})
		if err != nil {
			r.t.Fatalf("receivable in %s: %v", currency, err)
		}
		account = acct
	}
	if err := r.site.AddCustomerSpec(erpnextsim.CustomerSpec{Name: name, DefaultCurrency: currency, ReceivableAccount: account}); err != nil {
		r.t.Fatal(err)
	}
	return name
}

// checkGolden compares the plan with the golden plan of mapping: a park with its reason, a
// receipt or refund with its amounts, reference and remarks.
func checkGolden(t *testing.T, x *connector.Explanation, g goldenPlan, names map[string]string) {
	t.Helper()
	switch {
	case connector.RouteOf(x.Event) == connector.RouteState:
		// payment.failed is routed to "record the state" before any plan: the golden park of
		// the planner is never reached.
		if x.Action != connector.ExplainSkip || !strings.HasPrefix(x.Reason, "recorded: ") {
			t.Errorf("planned %s %q, want skip: recorded", x.Action, x.Reason)
		}
	case g.Park != nil:
		if want := string(substitute([]byte(g.Park.Error()), names)); x.Action != connector.ExplainPark || x.Reason != want {
			t.Errorf("planned %s %q, want park %q", x.Action, x.Reason, want)
		}
	case g.Receipt != nil:
		p := g.Receipt
		want := connector.Ledger{Currency: p.Currency, Paid: p.Paid, Allocated: p.Allocated, Unallocated: p.Unallocated,
			ReceivedCurrency: p.ReceivedCurrency, Received: p.Received, Deductions: sumDeductions(p.Deductions)}
		if want.ReceivedCurrency == "" {
			want.ReceivedCurrency = want.Currency
		}
		sameGolden(t, x, want, p.ReferenceNo, string(substitute([]byte(p.Remarks), names)))
	case g.Refund != nil:
		p := g.Refund
		want := connector.Ledger{Currency: p.Currency, Paid: p.Paid, Allocated: -p.Allocated, Unallocated: p.Paid - p.Allocated,
			ReceivedCurrency: p.Currency, Received: p.Paid}
		sameGolden(t, x, want, p.ReferenceNo, string(substitute([]byte(p.Remarks), names)))
	default: // the case only lists the names a payment gives; the site has none of them
		if x.Action != connector.ExplainPark || !strings.HasPrefix(x.Reason, mapping.ReasonNoInvoice) {
			t.Errorf("planned %s %q, want park: no invoice matched", x.Action, x.Reason)
		}
	}
}

func sameGolden(t *testing.T, x *connector.Explanation, want connector.Ledger, ref, remarks string) {
	t.Helper()
	if x.Action != connector.ExplainCreate {
		t.Fatalf("planned %s %q, want create", x.Action, x.Reason)
	}
	if *x.Ledger != want {
		t.Errorf("ledger %+v, golden %+v", *x.Ledger, want)
	}
	if x.Entry["reference_no"] != ref || x.Entry["remarks"] != remarks {
		t.Errorf("reference_no %v remarks %q, golden %s %q", x.Entry["reference_no"], x.Entry["remarks"], ref, remarks)
	}
}

func sumDeductions(ds []mapping.Deduction) int64 {
	var n int64
	for _, d := range ds {
		n += d.Amount
	}
	return n
}
