package connector_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// The worker against the simulators: claim, lookup, resolve, lock, decide, apply, record.

func TestReceiptBooksOneEntryForThreeDeliveries(t *testing.T) {
	r := newRig(t)
	inv := r.invoice("Test Customer", "1180.00")
	body := captured(t, "pay_T3stBook000001", 118000, inv, map[string]any{"fee": 2360, "tax": 360, "method": "card"})
	r.deliver("E1", body)
	r.deliver("E2", envelope(t, "order.paid", "payment", payment("pay_T3stBook000001", 118000, map[string]any{"notes": map[string]any{"invoice": inv}}),
		"order", map[string]any{"id": "order_T3stBook0001", "entity": "order", "amount": 118000, "currency": "INR", "receipt": inv, "status": "paid"}))
	if n := r.work(); n != 1 {
		t.Fatalf("processed %d events, want 1: the booking makes the key's other pending row a duplicate", n)
	}
	pe := r.one("pay_T3stBook000001")
	done := r.want("E1", connector.StatusDone, "created")
	if done.ResultDoctype != frappe.DoctypePaymentEntry || done.ResultName != pe["name"] {
		t.Errorf("E1 result %s %s, want %v", done.ResultDoctype, done.ResultName, pe["name"])
	}
	r.want("E2", connector.StatusDuplicate, "duplicate of Payment Entry "+fmt.Sprint(pe["name"]))
	if got := minor(t, pe["paid_amount"], 2); got != 118000 {
		t.Errorf("paid_amount %d paise, want 118000", got)
	}
	refs := rows(pe, "references")
	if len(refs) != 1 || refs[0]["reference_name"] != inv || minor(t, refs[0]["allocated_amount"], 2) != 118000 {
		t.Errorf("references %v: want 1180.00 allocated to %s", refs, inv)
	}
	if pe["paid_to"] != erpnextsim.RazorpayClearing || pe["posting_date"] != "2026-01-15" || pe["mode_of_payment"] != "Razorpay" {
		t.Errorf("entry %v → %v on %v by %v", pe["paid_from"], pe["paid_to"], pe["posting_date"], pe["mode_of_payment"])
	}
	b, err := r.db.GetBooking(context.Background(), "pay_T3stBook000001")
	if err != nil || b.State != connector.BookingBooked || b.Name != pe["name"] || b.AmountMinor != 118000 || b.Invoice != inv {
		t.Errorf("booking %+v %v", b, err)
	}
	r.deliver("E3", body) // a third delivery under another event id, after the booking
	r.work()
	r.want("E3", connector.StatusDuplicate, "pay_T3stBook000001 already booked as Payment Entry "+fmt.Sprint(pe["name"]))
	if n := len(r.entries("pay_T3stBook000001")); n != 1 {
		t.Errorf("%d entries after three deliveries, want 1", n)
	}
}

func TestReceiptWithFeeDeduction(t *testing.T) {
	r := newRig(t, withConfig(func(c *connector.Config) {
		c.Mapping.Fees.Mode, c.Mapping.Fees.FeeAccount = "deduction", erpnextsim.FeeAccount
		c.Mapping.Fees.TaxAccount, c.Mapping.Fees.CostCenter = erpnextsim.GSTInputAccount, erpnextsim.CostCenter
	}))
	inv := r.invoice("Test Customer", "1180.00")
	r.deliver("E1", captured(t, "pay_T3stFee0000001", 118000, inv, map[string]any{"fee": 2360, "tax": 360}))
	r.work()
	r.want("E1", connector.StatusDone)
	pe := r.one("pay_T3stFee0000001")
	if paid, recv := minor(t, pe["paid_amount"], 2), minor(t, pe["received_amount"], 2); paid != 115640 || recv != 115640 {
		t.Errorf("paid %d received %d, want the net 115640", paid, recv)
	}
	ded := map[string]int64{}
	for _, d := range rows(pe, "deductions") {
		ded[fmt.Sprint(d["account"])] += minor(t, d["amount"], 2)
	}
	if ded[erpnextsim.FeeAccount] != 2000 || ded[erpnextsim.GSTInputAccount] != 360 {
		t.Errorf("deductions %v, want fee 2000 and GST 360", ded)
	}
	if a := minor(t, rows(pe, "references")[0]["allocated_amount"], 2); a != 118000 {
		t.Errorf("allocated %d, want the gross 118000", a)
	}
	if s, _ := r.site.Doc(frappe.DoctypeSalesInvoice, inv); fmt.Sprint(s["status"]) != "Paid" {
		t.Errorf("invoice status %v", s["status"])
	}
}

func TestReceiptParks(t *testing.T) {
	r := newRig(t)
	inv := r.invoice("Test Customer", "500.00")
	for _, tc := range []struct {
		name, id string
		body     []byte
		reason   string
	}{
		{"NoInvoiceNamed", "pay_T3stPark000001", captured(t, "pay_T3stPark000001", 50000, "", nil), "no invoice matched: payment pay_T3stPark000001 names no invoice"},
		{"InvoiceDoesNotExist", "pay_T3stPark000002", captured(t, "pay_T3stPark000002", 50000, "ACC-SINV-2026-09999", nil), `no Sales Invoice named notes.invoice="ACC-SINV-2026-09999"`},
		{"NotCaptured", "pay_T3stPark000003", envelope(t, "payment.captured", "payment", payment("pay_T3stPark000003", 50000, map[string]any{"status": "authorized", "captured": false})), "payment not captured"},
		// Status and captured flag disagree (a hand-made or corrupted snapshot): the status wins.
		{"FailedButCapturedTrue", "pay_T3stPark000004", envelope(t, "payment.captured", "payment", payment("pay_T3stPark000004", 50000,
			map[string]any{"status": "failed", "captured": true, "notes": map[string]any{"invoice": inv}})),
			`payment not captured: payment pay_T3stPark000004 has status "failed" but captured true: only a payment whose status is captured is booked`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r.deliver(tc.name, tc.body)
			r.work()
			r.want(tc.name, connector.StatusParked, tc.reason)
			if n := len(r.entries(tc.id)); n != 0 {
				t.Errorf("%d entries for a parked payment", n)
			}
		})
	}
	t.Run("InvoiceAlreadySettled", func(t *testing.T) {
		r.deliver("S1", captured(t, "pay_T3stSettle0001", 50000, inv, nil))
		r.deliver("S2", captured(t, "pay_T3stSettle0002", 50000, inv, nil))
		r.work()
		r.want("S1", connector.StatusDone)
		r.want("S2", connector.StatusParked, "invoice already settled", "Sales Invoice "+inv+" has outstanding INR 0.00")
	})
}

func TestReceiptOverPaymentLeavesAnAdvanceOrParks(t *testing.T) {
	for _, excess := range []string{"unallocated", "park"} {
		t.Run(excess, func(t *testing.T) {
			r := newRig(t, withConfig(func(c *connector.Config) { c.Mapping.Excess = excess }))
			inv := r.invoice("Test Customer", "1000.00")
			r.deliver("E1", captured(t, "pay_T3stOver000001", 150000, inv, nil))
			r.work()
			if excess == "park" {
				r.want("E1", connector.StatusParked, "over-payment: payment pay_T3stOver000001 of INR 1500.00 exceeds the outstanding 1000.00")
				return
			}
			r.want("E1", connector.StatusDone)
			pe := r.one("pay_T3stOver000001")
			if paid, alloc, un := minor(t, pe["paid_amount"], 2), minor(t, rows(pe, "references")[0]["allocated_amount"], 2), minor(t, pe["unallocated_amount"], 2); paid != 150000 || alloc != 100000 || un != 50000 {
				t.Errorf("paid %d allocated %d unallocated %d, want 150000 = 100000 + 50000", paid, alloc, un)
			}
		})
	}
}

func TestReceiptSubmitsAMatchingDraftAndParksAnotherOne(t *testing.T) {
	r := newRig(t)
	inv := r.invoice("Test Customer", "1180.00")
	draft := func(ref string, amount float64) string {
		var out frappe.PaymentEntry
		err := r.erp.Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{
			"payment_type": "Receive", "company": erpnextsim.DefaultCompany, "party_type": "Customer", "party": "Test Customer",
			"paid_to": erpnextsim.RazorpayClearing, "paid_amount": amount, "received_amount": amount, "reference_no": ref,
			"reference_date": "2026-01-15", "posting_date": "2026-01-15", "mode_of_payment": "Razorpay",
			"references": []map[string]any{{"reference_doctype": "Sales Invoice", "reference_name": inv, "allocated_amount": amount}},
		}, &out)
		if err != nil {
			t.Fatal(err)
		}
		return out.Name
	}
	good := draft("pay_T3stDraft00001", 500)
	bad := draft("pay_T3stDraft00002", 100)
	r.deliver("E1", captured(t, "pay_T3stDraft00001", 50000, inv, nil))
	r.deliver("E2", captured(t, "pay_T3stDraft00002", 50000, inv, nil))
	r.work()
	e1 := r.want("E1", connector.StatusDone, "submitted the matching draft")
	if e1.ResultName != good || fmt.Sprint(r.one("pay_T3stDraft00001")["docstatus"]) != "1" {
		t.Errorf("E1 %s, entry %v: want the draft %s submitted", e1.ResultName, r.entries("pay_T3stDraft00001"), good)
	}
	r.want("E2", connector.StatusParked, "draft differs: draft Payment Entry "+bad, "paid_amount 100", "expected 500.00")
}

func TestReceiptReferenceInAnotherCaseIsNotOurs(t *testing.T) {
	r := newRig(t)
	inv := r.invoice("Test Customer", "1000.00")
	var other frappe.PaymentEntry
	if err := r.erp.Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{
		"payment_type": "Receive", "company": erpnextsim.DefaultCompany, "party_type": "Customer", "party": "Test Customer",
		"paid_to": erpnextsim.RazorpayClearing, "paid_amount": 100, "received_amount": 100, "reference_no": "PAY_T3STCASE000001",
		"reference_date": "2026-01-15", "posting_date": "2026-01-15", "docstatus": 1,
	}, &other); err != nil {
		t.Fatal(err)
	}
	r.deliver("E1", captured(t, "pay_T3stCase000001", 50000, inv, nil))
	r.work()
	if e := r.want("E1", connector.StatusDone, "created"); e.ResultName == other.Name {
		t.Errorf("booked as %s, the entry of another reference in another case", e.ResultName)
	}
}

func TestReceiptAsAnAdvanceWithoutInvoice(t *testing.T) {
	r := newRig(t, withConfig(func(c *connector.Config) { c.Mapping.WithoutInvoice = "advance" }))
	r.deliver("E1", captured(t, "pay_T3stAdv0000001", 75050, "", map[string]any{"notes": map[string]any{"customer": "Test Customer"}}))
	r.deliver("E2", captured(t, "pay_T3stAdv0000002", 10000, "", map[string]any{"notes": map[string]any{"customer": "Nobody"}}))
	r.work()
	r.want("E1", connector.StatusDone, "created an advance for Test Customer")
	pe := r.one("pay_T3stAdv0000001")
	if pe["party"] != "Test Customer" || len(rows(pe, "references")) != 0 || minor(t, pe["paid_amount"], 2) != 75050 || minor(t, pe["unallocated_amount"], 2) != 75050 {
		t.Errorf("advance %v paid %v unallocated %v references %v", pe["party"], pe["paid_amount"], pe["unallocated_amount"], rows(pe, "references"))
	}
	r.want("E2", connector.StatusParked, "no invoice matched", "no customer found either")
}

func TestReceiptThroughAPaymentRequest(t *testing.T) {
	r := newRig(t)
	inv := r.invoice("Test Customer", "1200.00")
	pr, err := r.site.AddPaymentRequest(inv, erpnextsim.PaymentRequestSpec{})
	if err != nil {
		t.Fatal(err)
	}
	body := envelope(t, "payment.captured", "payment", payment("pay_T3stPrq0000001", 120000, map[string]any{
		"notes": map[string]any{"payment_request": pr}, "created_at": r.clock.now().Unix()}))
	r.deliver("E1", body)
	r.work()
	wait := r.want("E1", connector.StatusPending, "waiting until", "for ERPNext's checkout to book Payment Request "+pr)
	if wait.Attempts != 0 || !wait.NextAttemptAt.Equal(r.clock.now().Add(10*time.Minute)) {
		t.Errorf("grace wait: attempts %d, next %v; want no attempt spent and the 10 min grace", wait.Attempts, wait.NextAttemptAt)
	}
	r.clock.advance(10 * time.Minute)
	r.work()
	r.want("E1", connector.StatusDone, "created")
	refs := rows(r.one("pay_T3stPrq0000001"), "references")
	if len(refs) != 1 || refs[0]["reference_name"] != inv || refs[0]["payment_request"] != pr {
		t.Errorf("references %v: want %s linked to %s", refs, inv, pr)
	}
}

// ERPNext's checkout booked the Payment Request itself: the entry is recorded for one payment;
// another payment of the same request, one of another amount, and one with a fee to deduct park.
func TestCheckoutEntryOfERPNext(t *testing.T) {
	setup := func(t *testing.T, opts ...rigOption) (*rig, string, string) {
		r := newRig(t, opts...)
		inv := r.invoice("Test Customer", "1200.00")
		pr, err := r.site.AddPaymentRequest(inv, erpnextsim.PaymentRequestSpec{})
		if err != nil {
			t.Fatal(err)
		}
		var made frappe.PaymentEntry
		if err := r.erp.Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{
			"payment_type": "Receive", "company": erpnextsim.DefaultCompany, "party_type": "Customer", "party": "Test Customer",
			"paid_to": erpnextsim.RazorpayClearing, "paid_amount": 1200, "received_amount": 1200, "reference_no": pr,
			"reference_date": "2026-01-15", "posting_date": "2026-01-15", "mode_of_payment": "Razorpay", "docstatus": 1,
			"references": []map[string]any{{"reference_doctype": "Sales Invoice", "reference_name": inv, "allocated_amount": 1200, "payment_request": pr}},
		}, &made); err != nil {
			t.Fatal(err)
		}
		return r, pr, made.Name
	}
	pay := func(t *testing.T, id string, amount int64, pr string, over map[string]any) []byte {
		o := map[string]any{"notes": map[string]any{"payment_request": pr}}
		for k, v := range over {
			o[k] = v
		}
		return envelope(t, "payment.captured", "payment", payment(id, amount, o))
	}
	t.Run("RecordedForOnePaymentOnly", func(t *testing.T) {
		r, pr, made := setup(t)
		r.deliver("E1", pay(t, "pay_T3stChk0000001", 120000, pr, nil))
		r.work()
		r.deliver("E2", pay(t, "pay_T3stChk0000002", 120000, pr, nil))
		r.work()
		if e := r.want("E1", connector.StatusDone, "booked by ERPNext's checkout for Payment Request "+pr); e.ResultName != made {
			t.Errorf("E1 recorded %s, want %s", e.ResultName, made)
		}
		r.want("E2", connector.StatusParked, "Payment Entry "+made+" of Payment Request "+pr+" already accounts for payment pay_T3stChk0000001")
		if n := len(r.site.Docs(frappe.DoctypePaymentEntry)); n != 1 {
			t.Errorf("%d Payment Entries, want ERPNext's only", n)
		}
	})
	t.Run("OtherAmountParks", func(t *testing.T) {
		r, pr, made := setup(t)
		r.deliver("E1", pay(t, "pay_T3stChk0000003", 100000, pr, nil))
		r.work()
		r.want("E1", connector.StatusParked, "Payment Entry "+made+" of Payment Request "+pr+" is for 1200", "payment pay_T3stChk0000003 is INR 1000.00")
	})
	t.Run("FeeNotBookedParksAfterRecording", func(t *testing.T) {
		r, pr, made := setup(t, withConfig(func(c *connector.Config) {
			c.Mapping.Fees.Mode, c.Mapping.Fees.FeeAccount = "deduction", erpnextsim.FeeAccount
			c.Mapping.Fees.TaxAccount, c.Mapping.Fees.CostCenter = erpnextsim.GSTInputAccount, erpnextsim.CostCenter
		}))
		r.deliver("E1", pay(t, "pay_T3stChk0000004", 120000, pr, map[string]any{"fee": 28320, "tax": 4320}))
		r.work()
		e := r.want("E1", connector.StatusParked, "fee not booked", "INR 283.20 (of which GST INR 43.20)")
		if e.ResultName != made {
			t.Errorf("parked without the recorded entry: result %q, want %s", e.ResultName, made)
		}
		if b, err := r.db.GetBooking(context.Background(), "pay_T3stChk0000004"); err != nil || b.Name != made {
			t.Errorf("booking %+v %v, want recorded against %s", b, err, made)
		}
	})
}

func TestStatesDisputesAndUnknownEvents(t *testing.T) {
	r := newRig(t)
	r.deliver("A1", envelope(t, "payment.authorized", "payment", payment("pay_T3stState00001", 5000, map[string]any{"status": "authorized", "captured": false})))
	r.deliver("F1", envelope(t, "payment.failed", "payment", payment("pay_T3stState00001", 5000, map[string]any{"status": "failed", "captured": false})))
	r.deliver("D1", envelope(t, "payment.dispute.created", "dispute", map[string]any{"id": "disp_T3stDisp00001", "entity": "dispute",
		"payment_id": "pay_T3stState00001", "amount": 5000, "currency": "INR", "amount_deducted": 0, "reason_code": "chargeback",
		"status": "open", "phase": "chargeback", "created_at": paymentAt}))
	r.deliver("U1", envelope(t, "invoice.paid"))
	r.work()
	r.want("A1", connector.StatusSkipped, "recorded: payment pay_T3stState00001 was authorized in this snapshot; a capture books it")
	r.want("F1", connector.StatusSkipped, "was failed in this snapshot", "(furthest state known: authorized, from "+headerID("A1")+")")
	r.want("D1", connector.StatusParked, "dispute: payment.dispute.created disp_T3stDisp00001 on payment pay_T3stState00001: INR 50.00, phase chargeback, status open")
	r.want("U1", connector.StatusSkipped, "event invoice.paid is not booked by this version")
	st, err := r.db.GetPaymentState(context.Background(), "pay_T3stState00001")
	if err != nil || st.State != "authorized" {
		t.Errorf("payment state %+v %v: states only move forward, authorized > failed", st, err)
	}
}

func TestUnreadableBodiesAreDead(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	for id, body := range map[string][]byte{"gone": nil, "garbage": []byte("not json")} {
		if _, err := r.db.InsertEvent(ctx, &connector.InboxEvent{AccountID: account, EventID: id, Event: "payment.captured",
			BusinessKey: "pay_" + id, RawBody: body, ReceivedAt: r.clock.now()}); err != nil {
			t.Fatal(err)
		}
	}
	r.work()
	r.want("gone", connector.StatusDead, "raw body no longer stored (retention)")
	r.want("garbage", connector.StatusDead, "webhook body does not parse")
}

// hideFirstLookups answers the first n reference_no lookups of Payment Entries with no rows, as a
// lookup that ran just before another worker's entry was committed would see.
func hideFirstLookups(n int) func(http.Handler) http.Handler {
	var mu sync.Mutex
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			mu.Lock()
			hide := n > 0 && req.Method == http.MethodGet && req.URL.Path == "/api/resource/Payment Entry" && strings.Contains(req.URL.RawQuery, "reference_no")
			if hide {
				n--
			}
			mu.Unlock()
			if hide {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"data":[]}`))
				return
			}
			next.ServeHTTP(w, req)
		})
	}
}

// With erpnext.name_entries_by_payment_id, ERPNext's own key refuses a second insert (409,
// recordings 07-*): the entry found under the id is recorded, never a second one made.
func TestNameEntriesByPaymentIDRecordsTheEntryERPNextRefusesTwice(t *testing.T) {
	r := newRig(t, withConfig(func(c *connector.Config) { c.ERPNext.NameEntriesByPaymentID = true }), withFront(hideFirstLookups(0)))
	inv := r.invoice("Test Customer", "1000.00")
	r.deliver("E1", captured(t, "pay_T3stNamed00001", 50000, inv, nil))
	r.work()
	pe := r.one("pay_T3stNamed00001")
	if pe["name"] != "pay_T3stNamed00001" {
		t.Fatalf("entry named %v, want the payment id", pe["name"])
	}
	// The bookings row is lost (a store restored from a backup) and the lookup runs before the
	// entry is visible: the insert is refused with 409 and the entry is recorded.
	r2 := newRig(t, withConfig(func(c *connector.Config) { c.ERPNext.NameEntriesByPaymentID = true }), withFront(hideFirstLookups(1)))
	inv2 := r2.invoice("Test Customer", "1000.00")
	var made frappe.PaymentEntry
	if err := r2.erp.Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{"name": "pay_T3stNamed00002",
		"payment_type": "Receive", "company": erpnextsim.DefaultCompany, "party_type": "Customer", "party": "Test Customer",
		"paid_to": erpnextsim.RazorpayClearing, "paid_amount": 500, "received_amount": 500, "reference_no": "pay_T3stNamed00002",
		"reference_date": "2026-01-15", "posting_date": "2026-01-15", "docstatus": 1,
		"references": []map[string]any{{"reference_doctype": "Sales Invoice", "reference_name": inv2, "allocated_amount": 500}},
	}, &made); err != nil {
		t.Fatal(err)
	}
	r2.deliver("E2", captured(t, "pay_T3stNamed00002", 50000, inv2, nil))
	r2.work()
	if e := r2.want("E2", connector.StatusDone, "409: already booked under its id"); e.ResultName != "pay_T3stNamed00002" {
		t.Errorf("recorded %s", e.ResultName)
	}
	if n := len(r2.entries("pay_T3stNamed00002")); n != 1 {
		t.Errorf("%d entries, want the one ERPNext kept", n)
	}
}
