package mapping_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

func ist(t *testing.T) *time.Location {
	loc, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func rules(t *testing.T) mapping.Rules {
	return mapping.Rules{
		Company: "Example Company", ModeOfPayment: "Razorpay", PaidTo: "Razorpay Clearing - EC", Location: ist(t),
		InvoiceFrom: []string{"notes.invoice", "notes.sales_invoice", "order.receipt", "payment_link.reference_id"},
		Excess:      "unallocated", CompanyCurrency: "INR", SitePrecision: 2,
		RoundOff: mapping.RoundOff{Account: "Round Off - EC", CostCenter: "Main - EC"},
	}
}

func fee(v int64) *int64 { return &v }

func captured(amount int64) *razorpay.Payment {
	return &razorpay.Payment{ID: "pay_T3stPayCard001", Entity: "payment", Amount: amount, Currency: "INR", Status: "captured",
		Captured: true, OrderID: "order_T3stOrdCard001", Method: "card", Notes: razorpay.Notes{"invoice": "ACC-SINV-2026-00001"},
		AcquirerData: map[string]string{"rrn": "123456789012", "auth_code": "AB12CD"}, Fee: fee(2360), Tax: fee(360),
		CreatedAt: 1768416000} // 2026-01-14 18:40 UTC = 2026-01-15 00:10 IST
}

func invoice(outstanding int64) mapping.Invoice {
	return mapping.Invoice{Name: "ACC-SINV-2026-00001", Customer: "Test Customer", Company: "Example Company",
		PartyAccountCurrency: "INR", Docstatus: 1, Outstanding: outstanding}
}

func TestInvoiceCandidatesFollowConfiguredOrder(t *testing.T) {
	p := captured(100)
	p.Notes = razorpay.Notes{"sales_invoice": "SINV-B", "invoice": "SINV-A"}
	o := &razorpay.Order{ID: "order_1", Receipt: "SINV-C", Notes: razorpay.Notes{"invoice": "SINV-A"}}
	l := &razorpay.PaymentLink{ReferenceID: "SINV-D"}
	got := mapping.InvoiceCandidates(rules(t), p, o, l)
	want := []mapping.Candidate{{"notes.invoice", "SINV-A"}, {"notes.sales_invoice", "SINV-B"}, {"order.receipt", "SINV-C"}, {"payment_link.reference_id", "SINV-D"}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("candidate %d = %v, want %v", i, got[i], want[i])
		}
	}
	r := rules(t)
	r.InvoiceFrom = []string{"order.receipt"}
	if got := mapping.InvoiceCandidates(r, p, o, l); len(got) != 1 || got[0].Name != "SINV-C" {
		t.Errorf("order.receipt only: %v", got)
	}
	p.Notes = nil
	if got := mapping.InvoiceCandidates(rules(t), p, nil, nil); len(got) != 0 {
		t.Errorf("no sources: %v", got)
	}
}

func TestBookingDateIsTheLocalDate(t *testing.T) {
	if got := mapping.BookingDate(1768416000, ist(t)); got != "2026-01-15" {
		t.Errorf("IST date %s, want 2026-01-15 (UTC is still the 14th)", got)
	}
	if got := mapping.BookingDate(1768416000, time.UTC); got != "2026-01-14" {
		t.Errorf("UTC date %s", got)
	}
}

func TestPlanReceiptFullPayment(t *testing.T) {
	plan, err := mapping.PlanReceipt(rules(t), captured(118000), nil, invoice(118000), "")
	if err != nil {
		t.Fatal(err)
	}
	want := mapping.Receipt{PaymentID: "pay_T3stPayCard001", Invoice: "ACC-SINV-2026-00001", Customer: "Test Customer",
		Company: "Example Company", ModeOfPayment: "Razorpay", PaidTo: "Razorpay Clearing - EC", PostingDate: "2026-01-15",
		ReferenceDate: "2026-01-15", ReferenceNo: "pay_T3stPayCard001", Currency: "INR", Paid: 118000, Allocated: 118000,
		ReceivedCurrency: "INR", Received: 118000,
		Remarks: "Razorpay payment pay_T3stPayCard001; order order_T3stOrdCard001; amount INR 1180.00; method card; auth code AB12CD; rrn 123456789012; Razorpay fee INR 23.60 (GST INR 3.60)"}
	if !reflect.DeepEqual(plan, want) {
		t.Errorf("plan\n%+v\nwant\n%+v", plan, want)
	}
}

func TestPlanReceiptOverpaymentLeavesAdvance(t *testing.T) {
	plan, err := mapping.PlanReceipt(rules(t), captured(150000), nil, invoice(100000), "")
	if err != nil {
		t.Fatal(err)
	}
	if plan.Paid != 150000 || plan.Allocated != 100000 || plan.Unallocated != 50000 {
		t.Errorf("paid %d allocated %d unallocated %d, want 150000/100000/50000", plan.Paid, plan.Allocated, plan.Unallocated)
	}
}

func TestPlanReceiptParks(t *testing.T) {
	r := rules(t)
	parkExcess := rules(t)
	parkExcess.Excess = "park"
	draft := invoice(1000)
	draft.Docstatus = 0
	usdInv := invoice(2500)
	usdInv.PartyAccountCurrency = "USD"
	eurInv := invoice(2500)
	eurInv.PartyAccountCurrency = "EUR"
	usd := captured(2500)
	usd.Currency = "USD"
	kwd := captured(1000)
	kwd.Currency = "KWD"
	authorized := captured(1000)
	authorized.Status, authorized.Captured = "authorized", false
	other := invoice(1000)
	other.Company = "Other Co"
	cases := []struct {
		name   string
		rules  mapping.Rules
		p      *razorpay.Payment
		inv    mapping.Invoice
		reason string
		detail string
	}{
		{"AlreadySettled", r, captured(1000), invoice(0), mapping.ReasonInvoiceSettled, "outstanding INR 0.00"},
		{"OverpaidInvoice", r, captured(1000), invoice(-500), mapping.ReasonInvoiceSettled, "outstanding INR -5.00"},
		{"ExcessWithParkRule", parkExcess, captured(1500), invoice(1000), mapping.ReasonExcess, "exceeds the outstanding 10.00"},
		{"DraftInvoice", r, captured(1000), draft, mapping.ReasonInvoiceState, "is a draft"},
		{"ForeignCurrencyWithoutBaseAmount", r, usd, usdInv, mapping.ReasonNoRate, "never booked at rate 1"},
		{"CurrencyMismatch", r, usd, eurInv, mapping.ReasonCurrency, "receivable in EUR"},
		{"ThreeDecimalCurrency", r, kwd, invoice(1000), mapping.ReasonCurrencyPrecision, "KWD (3 decimals)"},
		{"NotCaptured", r, authorized, invoice(1000), mapping.ReasonNotCaptured, "authorized"},
		{"OtherCompany", r, captured(1000), other, mapping.ReasonCompany, "Other Co"},
		{"ZeroAmount", r, captured(0), invoice(1000), mapping.ReasonAmount, "amount 0"},
		{"TaxAboveFee", r, withFee(captured(118000), 100, 360), invoice(118000), mapping.ReasonAmount, "fee 100 and tax 360"},
		{"NegativeTax", r, withFee(captured(118000), 2360, -360), invoice(118000), mapping.ReasonAmount, "tax -360"},
		{"NegativeFee", r, withFee(captured(118000), -5, 0), invoice(118000), mapping.ReasonAmount, "fee -5"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := mapping.PlanReceipt(tc.rules, tc.p, nil, tc.inv, "")
			var p *mapping.Park
			if !errors.As(err, &p) {
				t.Fatalf("err %v, want *mapping.Park", err)
			}
			if p.Reason != tc.reason || !strings.Contains(p.Detail, tc.detail) {
				t.Errorf("park %q / %q, want %q containing %q", p.Reason, p.Detail, tc.reason, tc.detail)
			}
		})
	}
}

func withFee(p *razorpay.Payment, fee, tax int64) *razorpay.Payment {
	p.Fee, p.Tax = &fee, &tax
	return p
}

// TestRoundOffDifferenceOnlyForTheInvoicesOwnRounding: the round-off is outstanding − paid
// only when it has the sign of rounding_adjustment and is no larger (recorded 81-*: 8.35 →
// 8.00 is −0.35, 1234.56 → 1235.00 is +0.44); anything else is a partial or over-payment.
func TestRoundOffDifferenceOnlyForTheInvoicesOwnRounding(t *testing.T) {
	down := mapping.Invoice{Outstanding: 800, GrandTotal: 835, RoundingAdjustment: -35}
	up := mapping.Invoice{Outstanding: 123500, GrandTotal: 123456, RoundingAdjustment: 44}
	for _, tc := range []struct {
		name   string
		inv    mapping.Invoice
		settle int64
		want   int64
	}{
		{"RoundedDownPaidGrandTotal", down, 835, -35},
		{"RoundedDownPaidWithinRounding", down, 820, -20},
		{"RoundedDownPaidOutstanding", down, 800, 0},
		{"RoundedDownPartial", down, 400, 0},
		{"RoundedDownOverBeyondRounding", down, 836, 0},
		{"RoundedUpPaidGrandTotal", up, 123456, 44},
		{"RoundedUpPaidWithinRounding", up, 123470, 30},
		{"RoundedUpShortBeyondRounding", up, 123455, 0},
		{"RoundedUpOverPayment", up, 123600, 0},
		{"LastPartOfRoundedUp", mapping.Invoice{Outstanding: 23500, GrandTotal: 123456, RoundingAdjustment: 44}, 23456, 44},
		{"NotRounded", mapping.Invoice{Outstanding: 835, GrandTotal: 835}, 800, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mapping.RoundOffDifference(tc.inv, tc.settle); got != tc.want {
				t.Errorf("RoundOffDifference(outstanding %d, adjustment %d, paid %d) = %d, want %d", tc.inv.Outstanding, tc.inv.RoundingAdjustment, tc.settle, got, tc.want)
			}
		})
	}
}

// TestRoundedInvoicePlans: the plan of a payment of a rounded invoice's grand total balances
// with unallocated 0 in every fee mode; a foreign-currency payment never books a round-off; a
// company without round_off_account parks.
func TestRoundedInvoicePlans(t *testing.T) {
	inv := invoice(800)
	inv.GrandTotal, inv.RoundingAdjustment = 835, -35
	p := captured(835)
	p.Fee, p.Tax = fee(20), fee(3)
	r := rules(t)
	for _, mode := range []string{"none", "deduction"} {
		r.Fees = mapping.FeeRules{Mode: mode, FeeAccount: "Razorpay Fees - EC", TaxAccount: "Input Tax GST - EC", CostCenter: "Main - EC"}
		plan, err := mapping.PlanReceipt(r, p, nil, inv, "")
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		var ded int64
		for _, d := range plan.Deductions {
			ded += d.Amount
		}
		if plan.Allocated != 800 || plan.Unallocated != 0 || plan.Rounding != -35 || plan.Paid+ded != plan.Allocated+plan.Unallocated {
			t.Errorf("%s: paid %d deductions %d allocated %d unallocated %d rounding %d", mode, plan.Paid, ded, plan.Allocated, plan.Unallocated, plan.Rounding)
		}
		last := plan.Deductions[len(plan.Deductions)-1]
		if last.Kind != mapping.DeductionRoundOff || last.Account != "Round Off - EC" || last.CostCenter != "Main - EC" || last.Amount != -35 {
			t.Errorf("%s: round-off row %+v", mode, last)
		}
	}
	r.Fees = mapping.FeeRules{Mode: "none"}
	usd := inv
	usd.PartyAccountCurrency = "USD"
	pu := captured(835)
	pu.Currency, pu.BaseAmount = "USD", fee(70140)
	if plan, err := mapping.PlanReceipt(r, pu, nil, usd, ""); err != nil || plan.Rounding != 0 || plan.Allocated != 800 || plan.Unallocated != 35 {
		t.Errorf("USD on a rounded invoice: %+v %v; want no round-off, 0.35 unallocated", plan, err)
	}
	r.RoundOff = mapping.RoundOff{}
	_, err := mapping.PlanReceipt(r, p, nil, inv, "")
	var pk *mapping.Park
	if !errors.As(err, &pk) || pk.Reason != mapping.ReasonRounding || !strings.Contains(pk.Detail, "has no round_off_account") {
		t.Errorf("no round-off account: %v, want park %q", err, mapping.ReasonRounding)
	}
}
