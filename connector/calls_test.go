package connector_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/booking"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// ERPNext calls per booking: a plain booking is the lookup by reference_no, ONE
// read of the invoice (a list of the fields it needs) and the insert with docstatus 1 — no
// get_payment_entry, no second read — and a payment that must wait for the invoice lock spends
// no call before it knows.

// callsSince are the requests the site served after the first n, as "METHOD path".
func callsSince(site *erpnextsim.Site, n int) []string {
	var out []string
	for _, r := range site.Requests()[n:] {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}

func TestPlainBookingCostsThreeERPNextCalls(t *testing.T) {
	r := newRig(t)
	r.deliver("warm", captured(t, "pay_T3stCalls00000", 100000, r.invoice("Test Customer", "1000.00"), nil))
	r.work() // the first booking of a process also reads the Mode of Payment once
	r.want("warm", connector.StatusDone)
	inv := r.invoice("Test Customer", "1000.00")
	r.deliver("E1", captured(t, "pay_T3stCalls00001", 100000, inv, nil))
	n := len(r.site.Requests())
	r.work()
	r.want("E1", connector.StatusDone, "created")
	want := []string{"GET /api/resource/Payment Entry", "GET /api/resource/Sales Invoice", "POST /api/resource/Payment Entry"}
	if got := callsSince(r.site, n); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("calls %q, want %q", got, want)
	}
	if pe := r.one("pay_T3stCalls00001"); fmt.Sprint(pe["docstatus"]) != "1" {
		t.Errorf("entry docstatus %v, want submitted by the one insert", pe["docstatus"])
	}
}

func TestPaymentWaitingForTheInvoiceLockSpendsNoCall(t *testing.T) {
	r := newRig(t)
	inv := r.invoice("Test Customer", "1000.00")
	ok, err := r.db.AcquireLock(context.Background(), "invoice:"+inv, "another-worker", t0, t0.Add(time.Minute))
	if err != nil || !ok {
		t.Fatalf("hold the lock: %v %v", ok, err)
	}
	r.deliver("E1", captured(t, "pay_T3stCallsWait1", 40000, inv, nil))
	n := len(r.site.Requests())
	r.work()
	e := r.want("E1", connector.StatusPending, "waiting for the lock on Sales Invoice "+inv)
	if got := callsSince(r.site, n); len(got) != 0 || e.Attempts != 0 {
		t.Errorf("waiting cost calls %q and %d attempts, want none", got, e.Attempts)
	}
	if err := r.db.ReleaseLock(context.Background(), "invoice:"+inv, "another-worker"); err != nil {
		t.Fatal(err)
	}
	// Released behind the connector's back (no wake-up): the waiter re-polls within
	// holderRecheck (30 s, wake.go).
	r.clock.advance(32 * time.Second)
	r.work()
	r.want("E1", connector.StatusDone, "created")
}

// A payment naming a Payment Request reads it the first time (the name says nothing of its
// invoice); the Payment Request → invoice answer is kept, so a later attempt that must wait for
// the invoice lock knows it without a call.
func TestPaymentRequestInvoiceIsKnownBeforeTheLock(t *testing.T) {
	r := newRig(t, withConfig(func(c *connector.Config) { c.Mapping.PaymentRequestGrace = connector.Duration(time.Minute) }))
	inv := r.invoice("Test Customer", "1000.00")
	pr, err := r.site.AddPaymentRequest(inv, erpnextsim.PaymentRequestSpec{})
	if err != nil {
		t.Fatal(err)
	}
	r.deliver("E1", captured(t, "pay_T3stCallsPR001", 100000, "", map[string]any{"notes": map[string]any{"payment_request": pr},
		"created_at": t0.Unix()}))
	r.work()
	r.want("E1", connector.StatusPending, "for ERPNext's checkout to book Payment Request "+pr)
	if ok, err := r.db.AcquireLock(context.Background(), "invoice:"+inv, "another-worker", t0, t0.Add(time.Hour)); err != nil || !ok {
		t.Fatalf("hold the lock: %v %v", ok, err)
	}
	r.clock.advance(time.Hour)
	n := len(r.site.Requests())
	r.work()
	r.want("E1", connector.StatusPending, "waiting for the lock on Sales Invoice "+inv)
	if got := callsSince(r.site, n); len(got) != 0 {
		t.Errorf("waiting for the lock of the Payment Request's invoice cost %q, want no call", got)
	}
}

// Workers that start at once read the Mode of Payment's account once between them.
func TestConcurrentFirstBookingsReadTheModeOfPaymentOnce(t *testing.T) {
	r := newRig(t)
	for i := 0; i < 4; i++ {
		r.deliver(fmt.Sprintf("E%d", i), captured(t, fmt.Sprintf("pay_T3stCallsMop%03d", i), 100000, r.invoice("Test Customer", "1000.00"), nil))
	}
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := r.conn.ProcessNext(context.Background(), 0); err != nil {
				t.Errorf("ProcessNext: %v", err)
			}
		}()
	}
	wg.Wait()
	r.work()
	reads := 0
	for _, c := range callsSince(r.site, 0) {
		if c == "GET /api/resource/Mode of Payment/Razorpay" {
			reads++
		}
	}
	for i := 0; i < 4; i++ {
		r.want(fmt.Sprintf("E%d", i), connector.StatusDone)
	}
	if reads != 1 {
		t.Errorf("the Mode of Payment was read %d times, want once", reads)
	}
}

// A payment naming its invoice in another case than the site's: the read finds it (the site's
// collation ignores case), and the lock is then taken on the invoice's own name, so it
// serialises with every other payment of that invoice, and the invoice is read again under it.
func TestInvoiceNamedInAnotherCaseIsLockedUnderItsOwnName(t *testing.T) {
	r := newRig(t)
	inv := r.invoice("Test Customer", "1000.00")
	if ok, err := r.db.AcquireLock(context.Background(), "invoice:"+inv, "another-worker", t0, t0.Add(time.Minute)); err != nil || !ok {
		t.Fatalf("hold the lock: %v %v", ok, err)
	}
	r.deliver("E1", captured(t, "pay_T3stCallsCase1", 100000, strings.ToLower(inv), nil))
	r.work()
	r.want("E1", connector.StatusPending, "waiting for the lock on Sales Invoice "+inv)
	if err := r.db.ReleaseLock(context.Background(), "invoice:"+inv, "another-worker"); err != nil {
		t.Fatal(err)
	}
	// Released behind the connector's back (no wake-up): the waiter re-polls within
	// holderRecheck (30 s, wake.go).
	r.clock.advance(32 * time.Second)
	n := len(r.site.Requests())
	r.work()
	r.want("E1", connector.StatusDone, "created")
	if refs := rows(r.one("pay_T3stCallsCase1"), "references"); len(refs) != 1 || refs[0]["reference_name"] != inv {
		t.Errorf("references %v, want %s", refs, inv)
	}
	reads := 0
	for _, c := range callsSince(r.site, n) {
		if c == "GET /api/resource/Sales Invoice" {
			reads++
		}
	}
	if reads != 2 {
		t.Errorf("%d invoice reads, want 2 (the one that finds it, the one under its lock)", reads)
	}
}

// The invoice is read with a list of chosen fields (invoice.go): every scalar field the
// connector decodes from a Sales Invoice must be among them, or it would be silently empty.
func TestInvoiceReadSelectsEveryFieldTheConnectorDecodes(t *testing.T) {
	listed := map[string]bool{}
	for _, f := range booking.InvoiceFields {
		listed[f] = true
	}
	typ := reflect.TypeOf(frappe.SalesInvoice{})
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if k := f.Type.Kind(); k == reflect.Slice || name == "" {
			continue // child tables: the items' project is joined, the schedule read with the document
		}
		if !listed[name] {
			t.Errorf("frappe.SalesInvoice.%s (%s) is decoded but not listed", f.Name, name)
		}
	}
}
