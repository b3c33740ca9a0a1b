package mapping_test

import (
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// benchRules are rules(t) for a benchmark.
func benchRules(b *testing.B) mapping.Rules {
	loc, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		b.Fatal(err)
	}
	return mapping.Rules{
		Company: "Example Company", ModeOfPayment: "Razorpay", PaidTo: "Razorpay Clearing - EC", Location: loc,
		InvoiceFrom: []string{"notes.invoice", "notes.sales_invoice", "order.receipt", "payment_link.reference_id"},
		Excess:      "unallocated", CompanyCurrency: "INR", SitePrecision: 2,
		RoundOff: mapping.RoundOff{Account: "Round Off - EC", CostCenter: "Main - EC"},
	}
}

// BenchmarkDecideReceipt is the pure part of deciding a plain receipt: the invoice candidates
// the payment names (notes, then its order's receipt), then the plan against the invoice as
// read (₹1,180.00 paid in full; fees in deduction mode on the second sub-benchmark). The
// ERPNext and store calls around it are measured by the booking benchmark (cmd/benchmark).
func BenchmarkDecideReceipt(b *testing.B) {
	o := &razorpay.Order{ID: "order_T3stOrdCard001", Entity: "order", Amount: 118000, Currency: "INR", Receipt: "ACC-SINV-2026-00001"}
	for _, mode := range []string{"", "deduction"} {
		r := benchRules(b)
		r.Fees.Mode = mode
		r.Fees.FeeAccount, r.Fees.TaxAccount, r.Fees.CostCenter = "Razorpay Fees - EC", "Input GST - EC", "Main - EC"
		name := "plain"
		if mode != "" {
			name = "fees_deduction"
		}
		b.Run(name, func(b *testing.B) {
			p, inv := captured(118000), invoice(118000)
			b.ReportAllocs()
			for b.Loop() {
				cands := mapping.InvoiceCandidates(r, p, o, nil)
				if len(cands) == 0 || cands[0].Name != inv.Name {
					b.Fatalf("candidates %+v", cands)
				}
				plan, err := mapping.PlanReceipt(r, p, o, inv, "")
				if err != nil || plan.Allocated != 118000 {
					b.Fatalf("plan %+v, %v", plan, err)
				}
			}
		})
	}
}

// BenchmarkDecideRefund plans a ₹500.00 refund of a booked receipt against its credit note.
func BenchmarkDecideRefund(b *testing.B) {
	r := benchRules(b)
	rf := &razorpay.Refund{ID: "rfnd_T3stRefund0001", Entity: "refund", Amount: 50000, Currency: "INR", PaymentID: "pay_T3stPayCard001",
		Status: "processed", CreatedAt: 1768420000, AcquirerData: map[string]string{"arn": "74836290134"}}
	receipt := mapping.ReceiptFacts{PaymentEntry: "ACC-PAY-2026-00001", Invoice: "ACC-SINV-2026-00001", Customer: "Test Customer",
		Company: "Example Company", PaidTo: "Razorpay Clearing - EC", Receivable: "Debtors - EC"}
	cn := &mapping.Invoice{Name: "ACC-SINV-2026-00002", Customer: "Test Customer", Company: "Example Company",
		PartyAccountCurrency: "INR", Docstatus: 1, Outstanding: -50000, IsReturn: true}
	b.ReportAllocs()
	for b.Loop() {
		plan, err := mapping.PlanRefund(r, rf, receipt, cn)
		if err != nil || plan.Allocated != 50000 || plan.CreditNote != cn.Name {
			b.Fatalf("plan %+v, %v", plan, err)
		}
	}
}
