package connector_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
)

// Many payments of one Sales Invoice at once (the benchmark's "20 on one invoice"):
// they serialise on the invoice lock, and a payment that finds the lock held spends no ERPNext
// call before it knows, so each payment costs exactly a plain booking — the lookup by
// reference_no, one read of the invoice, the insert — and the process reads the Mode of
// Payment once. Every ERPNext call of a booking is made under the lock, so the site sees the
// bookings one after another, each as those three calls with nothing in between.

// siteCall names one request the site served by what it is for the booking path: "lookup
// <payment id>", "read invoice <name>", "insert", "mode of payment", or "METHOD path".
func siteCall(method, path string, filters string) string {
	var fs [][]any
	_ = json.Unmarshal([]byte(filters), &fs)
	filter := func(field string) string {
		for _, f := range fs {
			if len(f) == 3 && f[0] == field && f[1] == "=" {
				return fmt.Sprint(f[2])
			}
		}
		return "?"
	}
	switch {
	case method == http.MethodGet && path == "/api/resource/"+frappe.DoctypePaymentEntry:
		return "lookup " + filter("reference_no")
	case method == http.MethodGet && path == "/api/resource/"+frappe.DoctypeSalesInvoice:
		return "read invoice " + filter("name")
	case method == http.MethodPost && path == "/api/resource/"+frappe.DoctypePaymentEntry:
		return "insert"
	case method == http.MethodGet && strings.HasPrefix(path, "/api/resource/"+frappe.DoctypeModeOfPayment+"/"):
		return "mode of payment"
	}
	return method + " " + path
}

// siteCalls are the requests the site served so far, named by siteCall; inserts name the
// payment the rig saw sent (its k-th insert is the k-th one sent).
func (r *rig) siteCalls() []string {
	r.mu.Lock()
	sent := append([]map[string]any(nil), r.sent...)
	r.mu.Unlock()
	var out []string
	inserts := 0
	for _, q := range r.site.Requests() {
		c := siteCall(q.Method, q.Path, q.Query.Get("filters"))
		if c == "insert" {
			ref := "?"
			if inserts < len(sent) {
				ref = fmt.Sprint(sent[inserts]["reference_no"])
			}
			c, inserts = "insert "+ref, inserts+1
		}
		out = append(out, c)
	}
	return out
}

// perBooking splits calls at each lookup into the calls of each booking, in order: a booking
// is its lookup and what follows it until the next lookup (the calls are serialised by the
// invoice lock). Calls before the first lookup are returned under "".
func perBooking(calls []string) (order []string, of map[string][]string) {
	of = map[string][]string{}
	cur := ""
	for _, c := range calls {
		if id, ok := strings.CutPrefix(c, "lookup "); ok {
			cur = id
			if _, seen := of[id]; !seen {
				order = append(order, id)
			}
		}
		of[cur] = append(of[cur], c)
	}
	return order, of
}

func TestTwentyPaymentsOnOneInvoiceSpendAPlainBookingEach(t *testing.T) {
	for _, e := range []struct {
		name string
		open func(testing.TB) *store.DB
	}{{"SQLite", sqliteStore}, {"MariaDB", mariadbStore}, {"PostgreSQL", postgresStore}} {
		t.Run(e.name, func(t *testing.T) { twentyOnOneInvoice(t, e.open) })
	}
}

// twentyOnOneInvoice delivers 20 payments of one invoice (101.00 … 120.00, 2,210.00 in all, the
// invoice's total) to 4 workers at once on a clock that does not move, so a waiter runs again
// only when the holder's release wakes it. The first insert is held until the other 19 have
// found the lock held: at that point the site has served the holder's lookup, the Mode of
// Payment and the holder's invoice read, nothing else.
func twentyOnOneInvoice(t *testing.T, open func(testing.TB) *store.DB) {
	const n = 20
	g := newGate()
	r := newRig(t, withStore(open), withFront(g.front), withConfig(func(c *connector.Config) {
		c.Workers = 4
		// The held insert must not time out while the test looks at the waiters.
		c.ERPNext.Timeout, c.ERPNext.ServerTimeout = connector.Duration(2*time.Minute), connector.Duration(2*time.Minute)
	}))
	inv := r.invoice("Test Customer", "2210.00")
	ids, amounts := make([]string, n), map[string]int64{}
	for i := range ids {
		ids[i] = fmt.Sprintf("pay_T3stOneInv%04d", i)
		amounts[ids[i]] = int64(101+i) * 100
		r.deliver(fmt.Sprintf("E%02d", i), captured(t, ids[i], amounts[ids[i]], inv, nil))
	}
	r.runWorkers()
	select {
	case <-g.ready:
	case <-time.After(testtime.Bound):
		t.Fatal("no payment reached its insert")
	}
	lockWait := connector.Wait{Kind: connector.WaitOnLock, Key: "invoice:" + inv}
	var waiting []connector.InboxEvent
	testtime.Until(t, fmt.Sprintf("%d payments waiting for the lock of %s", n-1, inv), func() bool {
		waiting = waiting[:0]
		for i := range ids {
			if ev := r.event(fmt.Sprintf("E%02d", i)); ev.Status == connector.StatusPending && ev.WaitFor == lockWait {
				waiting = append(waiting, ev)
			}
		}
		return len(waiting) == n-1
	})
	holder := r.siteCalls()
	for _, ev := range waiting {
		if ev.Attempts != 0 || !strings.Contains(ev.LastError, "waiting for the lock on Sales Invoice "+inv) {
			t.Errorf("waiter %s: %d attempts, reason %q; want none spent, waiting for the lock on %s", ev.EventID, ev.Attempts, ev.LastError, inv)
		}
		if strings.Contains(strings.Join(holder, "|"), ev.BusinessKey) {
			t.Errorf("waiter %s spent calls before it found the lock held: %q", ev.BusinessKey, holder)
		}
	}
	if want := 3; len(holder) != want || !strings.HasPrefix(holder[0], "lookup ") || holder[1] != "mode of payment" || holder[2] != "read invoice "+inv {
		t.Errorf("with %d payments waiting the site served %q; want only the holder's lookup, the Mode of Payment and its invoice read", n-1, holder)
	}
	close(g.release)
	testtime.Until(t, "every payment booked", func() bool { return r.statuses()[connector.StatusDone] == n })
	checkSerialBookings(t, r.siteCalls(), ids, inv)
	checkOneInvoiceBooks(t, r, ids, amounts, inv)
}

// checkSerialBookings checks that each payment cost exactly a plain booking, one payment after
// another, and the process one read of the Mode of Payment: 3 × 20 + 1 calls.
func checkSerialBookings(t *testing.T, calls []string, ids []string, inv string) {
	t.Helper()
	if len(calls) != 3*len(ids)+1 {
		t.Errorf("%d ERPNext calls for %d payments, want %d (3 each, the Mode of Payment once): %q", len(calls), len(ids), 3*len(ids)+1, calls)
	}
	order, of := perBooking(calls)
	if len(of[""]) != 0 {
		t.Errorf("calls before the first lookup: %q", of[""])
	}
	if len(order) != len(ids) {
		t.Errorf("%d payments looked up (%q), want %d", len(order), order, len(ids))
	}
	for i, id := range ids {
		want := []string{"lookup " + id, "read invoice " + inv, "insert " + id}
		if len(order) > 0 && id == order[0] {
			want = []string{"lookup " + id, "mode of payment", "read invoice " + inv, "insert " + id}
		}
		if got := of[id]; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("payment %d (%s) cost %q, want %q", i, id, got, want)
		}
	}
}

// checkOneInvoiceBooks checks the books: each event done with no attempt spent, one submitted
// Payment Entry per payment for its exact amount, allocated to the invoice, which is paid.
func checkOneInvoiceBooks(t *testing.T, r *rig, ids []string, amounts map[string]int64, inv string) {
	t.Helper()
	for i, id := range ids {
		ev := r.want(fmt.Sprintf("E%02d", i), connector.StatusDone, "created")
		pe := r.one(id)
		if ev.Attempts != 0 || ev.ResultName != pe["name"] {
			t.Errorf("%s: %d attempts, result %q; want none spent, %v", id, ev.Attempts, ev.ResultName, pe["name"])
		}
		refs := rows(pe, "references")
		if got := minor(t, pe["paid_amount"], 2); got != amounts[id] || len(refs) != 1 || refs[0]["reference_name"] != inv ||
			minor(t, refs[0]["allocated_amount"], 2) != amounts[id] {
			t.Errorf("%s: paid_amount %d paise, references %v; want %d allocated to %s", id, got, refs, amounts[id], inv)
		}
	}
	if docs := r.site.Docs(frappe.DoctypePaymentEntry); len(docs) != len(ids) {
		t.Errorf("%d Payment Entries on the site, want %d", len(docs), len(ids))
	}
	si, _ := r.site.Doc(frappe.DoctypeSalesInvoice, inv)
	if si["status"] != "Paid" || minor(t, si["outstanding_amount"], 2) != 0 {
		t.Errorf("invoice %s is %v with %v outstanding, want Paid with 0.00", inv, si["status"], si["outstanding_amount"])
	}
}
