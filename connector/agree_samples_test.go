package connector_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/sharedtest"
)

// substitute replaces names in body: each key by its value, all at once.
func substitute(body []byte, names map[string]string) []byte {
	var pairs []string
	for from, to := range names {
		pairs = append(pairs, from, to)
	}
	return []byte(strings.NewReplacer(pairs...).Replace(string(body)))
}

// sampleSetups prepare the site for a sample payload (the ERPNext facts its story needs) and
// return the names the payload must use instead of its own.
var sampleSetups = map[string]func(r *rig) map[string]string{
	"payment.captured--notes-invoice.json": cardInvoice,
	"order.paid.json":                      cardInvoice,
	"payment.captured--international-usd.json": func(r *rig) map[string]string {
		if err := r.site.AddCustomerSpec(erpnextsim.CustomerSpec{Name: "USD Customer", DefaultCurrency: "USD", ReceivableAccount: erpnextsim.ReceivableUSD}); err != nil {
			r.t.Fatal(err)
		}
		inv, err := r.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "USD Customer", Currency: "USD", ConversionRate: "84", Submit: true,
			Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "25.00"}}})
		if err != nil {
			r.t.Fatal(err)
		}
		return map[string]string{"ACC-SINV-2026-00003": inv}
	},
	"refund.created.json":   refundStory,
	"refund.processed.json": refundStory,
	"payment_link.paid.json": func(r *rig) map[string]string {
		return map[string]string{"ACC-SINV-2026-00002": r.invoice("Test Customer", "3540.00")}
	},
}

// cardInvoice is Story A's invoice: ₹1,180.00 for CUST-00042.
func cardInvoice(r *rig) map[string]string {
	if err := r.site.AddCustomer("CUST-00042"); err != nil {
		r.t.Fatal(err)
	}
	return map[string]string{"ACC-SINV-2026-00001": r.invoice("CUST-00042", "1180.00")}
}

// refundStory books Story A's receipt and makes the credit note of its ₹200.00 refund.
func refundStory(r *rig) map[string]string {
	names := cardInvoice(r)
	r.deliver("story-capture", substitute(readSample(r.t, "payment.captured--notes-invoice.json"), names))
	r.work()
	r.want("story-capture", connector.StatusDone)
	cn, err := r.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "CUST-00042", Submit: true, IsReturn: true,
		ReturnAgainst: names["ACC-SINV-2026-00001"], Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "200.00"}}})
	if err != nil {
		r.t.Fatal(err)
	}
	names["ACC-SINV-2026-00001-RET-1"] = cn
	return names
}

// sampleActions is what each sample payload comes to on its story's site.
var sampleActions = map[string]string{
	"payment.authorized.json":                  connector.ExplainSkip,
	"payment.captured.json":                    connector.ExplainPark, // names no invoice
	"payment.captured--notes-invoice.json":     connector.ExplainCreate,
	"payment.captured--international-usd.json": connector.ExplainCreate,
	"payment.captured--upi.json":               connector.ExplainPark,
	"payment.failed.json":                      connector.ExplainSkip,
	"order.paid.json":                          connector.ExplainCreate,
	"refund.created.json":                      connector.ExplainCreate,
	"refund.processed.json":                    connector.ExplainCreate,
	"refund.failed.json":                       connector.ExplainVoid,
	"payment_link.paid.json":                   connector.ExplainCreate,
	"settlement.processed.json":                connector.ExplainSkip,
	"payment.dispute.created.json":             connector.ExplainPark,
}

// For every sample payload of shared/reference/razorpay-payloads, on a site holding its
// story's documents, the worker does what Explain planned and writes the entry it planned.
func TestExplainAndTheWorkerAgreeOnEverySamplePayload(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(sharedtest.Dir(t, "reference", "razorpay-payloads"), "*.json"))
	if err != nil || len(files) < 13 {
		t.Fatalf("sample payloads %v %v", files, err)
	}
	sort.Strings(files)
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(strings.TrimSuffix(name, ".json"), func(t *testing.T) {
			want, ok := sampleActions[name]
			if !ok {
				t.Fatalf("no expected action for the sample %s: add it to sampleActions", name)
			}
			r := newRig(t)
			var names map[string]string
			if setup := sampleSetups[name]; setup != nil {
				names = setup(r)
			}
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			x, _ := r.agree("sample", substitute(body, names))
			if x.Action != want {
				t.Errorf("%s planned %s (%s), want %s", name, x.Action, x.Reason, want)
			}
		})
	}
}

// The other plans the worker follows: ERPNext's checkout entry recorded or parked for its fee,
// a Payment Request linked or waited for, an advance, a draft submitted, a duplicate, a refund
// waiting for its receipt, a booked refund cancelled, a payment in flight elsewhere.
func TestExplainAndTheWorkerAgreeOnEveryPlan(t *testing.T) {
	fees := withConfig(func(c *connector.Config) {
		c.Mapping.Fees.Mode, c.Mapping.Fees.FeeAccount = "deduction", erpnextsim.FeeAccount
		c.Mapping.Fees.TaxAccount, c.Mapping.Fees.CostCenter = erpnextsim.GSTInputAccount, erpnextsim.CostCenter
	})
	for _, tc := range []struct {
		name, action string
		opts         []rigOption
		body         func(r *rig) []byte
	}{
		{"CheckoutEntryRecorded", connector.ExplainReuse, nil, func(r *rig) []byte { return checkoutPayment(r, 0) }},
		{"CheckoutEntryWithoutTheFee", connector.ExplainPark, []rigOption{fees}, func(r *rig) []byte { return checkoutPayment(r, 28320) }},
		{"PaymentRequestLinked", connector.ExplainCreate, nil, func(r *rig) []byte { return requestPayment(r, paymentAt) }},
		{"PaymentRequestGraceWait", connector.ExplainWait, nil, func(r *rig) []byte { return requestPayment(r, r.clock.now().Unix()) }},
		{"Advance", connector.ExplainCreate, []rigOption{withConfig(func(c *connector.Config) {
			c.Mapping.WithoutInvoice, c.Mapping.FallbackCustomer = "advance", "Test Customer"
		})},
			func(r *rig) []byte { return captured(r.t, "pay_T3stAgrAdv0001", 25075, "", nil) }},
		{"FeeDeducted", connector.ExplainCreate, []rigOption{fees}, func(r *rig) []byte {
			return captured(r.t, "pay_T3stAgrFee0001", 118000, r.invoice("Test Customer", "1180.00"), map[string]any{"fee": 2360, "tax": 360})
		}},
		{"DraftSubmitted", connector.ExplainSubmitDraft, nil, func(r *rig) []byte {
			inv := r.invoice("Test Customer", "500.00")
			r.draft("pay_T3stAgrDraft01", inv, 500)
			return captured(r.t, "pay_T3stAgrDraft01", 50000, inv, nil)
		}},
		{"Duplicate", connector.ExplainDuplicate, nil, func(r *rig) []byte {
			body := captured(r.t, "pay_T3stAgrDup0001", 50000, r.invoice("Test Customer", "500.00"), nil)
			r.deliver("first", body)
			r.work()
			return body
		}},
		{"RefundWaitsForItsReceipt", connector.ExplainWait, nil, func(r *rig) []byte {
			return refundBody(r.t, "refund.processed", "rfnd_T3stAgrWait01", "pay_T3stAgrWait001", 5000, "processed")
		}},
		{"BookedRefundCancelled", connector.ExplainCancel, nil, func(r *rig) []byte {
			inv := r.booked("pay_T3stAgrCncl001")
			r.creditNote(inv, "1180.00")
			r.deliver("refund", refundBody(r.t, "refund.processed", "rfnd_T3stAgrCncl01", "pay_T3stAgrCncl001", 10000, "processed"))
			r.work()
			return refundBody(r.t, "refund.failed", "rfnd_T3stAgrCncl01", "pay_T3stAgrCncl001", 10000, "failed")
		}},
		{"InFlightElsewhere", connector.ExplainWait, nil, func(r *rig) []byte {
			if _, _, err := r.db.ClaimBooking(context.Background(), connector.Booking{BusinessKey: "pay_T3stAgrBusy001", Kind: connector.KindReceipt,
				Owner: "another-worker", FenceUntil: r.clock.now().Add(time.Minute)}, r.clock.now()); err != nil {
				r.t.Fatal(err)
			}
			return captured(r.t, "pay_T3stAgrBusy001", 50000, r.invoice("Test Customer", "500.00"), nil)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, tc.opts...)
			x, _ := r.agree("plan", tc.body(r))
			if x.Action != tc.action {
				t.Errorf("planned %s (%s), want %s", x.Action, x.Reason, tc.action)
			}
		})
	}
}

// requestPayment is a payment of a new Payment Request for a new invoice, made at created.
func requestPayment(r *rig, created int64) []byte {
	inv := r.invoice("Test Customer", "1200.00")
	pr, err := r.site.AddPaymentRequest(inv, erpnextsim.PaymentRequestSpec{})
	if err != nil {
		r.t.Fatal(err)
	}
	return envelope(r.t, "payment.captured", "payment", payment("pay_T3stAgrPrq0001", 120000, map[string]any{
		"notes": map[string]any{"payment_request": pr}, "created_at": created}))
}

// checkoutPayment is a payment of a Payment Request that ERPNext's checkout booked already.
func checkoutPayment(r *rig, fee int64) []byte {
	inv := r.invoice("Test Customer", "1200.00")
	pr, err := r.site.AddPaymentRequest(inv, erpnextsim.PaymentRequestSpec{})
	if err != nil {
		r.t.Fatal(err)
	}
	var made frappe.PaymentEntry
	if err := r.erp.Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{
		"payment_type": "Receive", "company": erpnextsim.DefaultCompany, "party_type": "Customer", "party": "Test Customer",
		"paid_to": erpnextsim.RazorpayClearing, "paid_amount": 1200, "received_amount": 1200, "reference_no": pr,
		"reference_date": "2026-01-15", "posting_date": "2026-01-15", "docstatus": 1,
		"references": []map[string]any{{"reference_doctype": "Sales Invoice", "reference_name": inv, "allocated_amount": 1200, "payment_request": pr}},
	}, &made); err != nil {
		r.t.Fatal(err)
	}
	over := map[string]any{"notes": map[string]any{"payment_request": pr}}
	if fee > 0 {
		over["fee"], over["tax"] = fee, fee*18/118
	}
	return envelope(r.t, "payment.captured", "payment", payment("pay_T3stAgrChk0001", 120000, over))
}

// draft inserts a draft receipt of amount rupees against inv with reference_no ref.
func (r *rig) draft(ref, inv string, amount float64) string {
	r.t.Helper()
	var out frappe.PaymentEntry
	if err := r.erp.Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{
		"payment_type": "Receive", "company": erpnextsim.DefaultCompany, "party_type": "Customer", "party": "Test Customer",
		"paid_to": erpnextsim.RazorpayClearing, "paid_amount": amount, "received_amount": amount, "reference_no": ref,
		"reference_date": "2026-01-15", "posting_date": "2026-01-15", "mode_of_payment": "Razorpay",
		"references": []map[string]any{{"reference_doctype": "Sales Invoice", "reference_name": inv, "allocated_amount": amount}},
	}, &out); err != nil {
		r.t.Fatal(err)
	}
	return out.Name
}
