package erpnextsim_test

import (
	"sync"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// TestProfileRealV15ServiceTimes: the recorded averages (erpnext-recorded-connector/README
// "Timing") for the calls of a booking, and 2 workers.
func TestProfileRealV15ServiceTimes(t *testing.T) {
	p, err := erpnextsim.ProfileByName("real-v15")
	if err != nil || p == nil || p.Workers != 2 {
		t.Fatalf("ProfileByName = %+v, %v", p, err)
	}
	ms := time.Millisecond
	for _, tc := range []struct {
		call erpnextsim.Call
		want time.Duration
	}{
		{erpnextsim.Call{HTTPMethod: "GET", Doctype: "Payment Entry"}, 48 * ms},
		{erpnextsim.Call{HTTPMethod: "GET", Doctype: "Sales Invoice", Named: true}, 101 * ms},
		{erpnextsim.Call{HTTPMethod: "POST", Method: "erpnext.accounts.doctype.payment_entry.payment_entry.get_payment_entry"}, 252 * ms},
		{erpnextsim.Call{HTTPMethod: "POST", Doctype: "Payment Entry", Docstatus: 1}, 776 * ms},
		{erpnextsim.Call{HTTPMethod: "POST", Doctype: "Payment Entry"}, 400 * ms},
		{erpnextsim.Call{HTTPMethod: "PUT", Doctype: "Payment Entry", Named: true, Docstatus: 1}, 650 * ms},
	} {
		if got := p.Service(tc.call); got != tc.want {
			t.Errorf("%+v: %v, want %v", tc.call, got, tc.want)
		}
	}
	if p, err := erpnextsim.ProfileByName("none"); p != nil || err != nil {
		t.Errorf("none = %+v, %v", p, err)
	}
	if _, err := erpnextsim.ProfileByName("real-v99"); err == nil {
		t.Error("unknown profile accepted")
	}
}

// TestProfileQueuesBeyondItsWorkers: with 2 workers and 150 ms per call, four calls at once
// are served in two rounds, a write takes its service time too, and control endpoints do not
// queue.
func TestProfileQueuesBeyondItsWorkers(t *testing.T) {
	const d = 150 * time.Millisecond
	h := newHarness(t, erpnextsim.Options{Profile: &erpnextsim.Profile{Name: "test", Workers: 2, Service: func(erpnextsim.Call) time.Duration { return d }}})
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := h.do("GET", siPath, nil); r.status != 200 {
				t.Errorf("list: %d", r.status)
			}
		}()
	}
	wg.Wait()
	if el := time.Since(start); el < 2*d {
		t.Errorf("four calls on two workers took %v, want at least %v", el, 2*d)
	}
	ctl := time.Now()
	h.do("GET", "/__sim/state", nil)
	if el := time.Since(ctl); el >= d {
		t.Errorf("control endpoint took %v: it must not queue", el)
	}
	if err := h.site.AddCustomer("Test Customer"); err != nil {
		t.Fatal(err)
	}
	w := time.Now()
	r := h.do("POST", "/api/resource/Customer", map[string]any{"customer_name": "Queued Customer"})
	if el := time.Since(w); r.status != 200 || el < d {
		t.Errorf("write: %d after %v, want 200 after at least %v", r.status, el, d)
	}
}
