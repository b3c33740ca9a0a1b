package connector_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
)

// The worker under pressure, on the wall clock, with its workers running on their own (issue
// 10: a slow or rate-limited ERPNext never dead-letters a payment, siblings never wait minutes).

// syncBuffer is a log sink the workers write to while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runWorkers runs the rig's workers until the test ends.
func (r *rig) runWorkers() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.conn.Run(ctx)
	}()
	r.t.Cleanup(func() { cancel(); <-done })
}

// statuses counts the inbox rows by status.
func (r *rig) statuses() map[connector.Status]int {
	r.t.Helper()
	c, err := r.db.CountByStatus(context.Background())
	if err != nil {
		r.t.Fatal(err)
	}
	return c
}

// 30 payments at once against a site whose rate limiter allows ~12 requests per 3 s (Frappe's
// rate_limit: 1.2 s of request time per 3 s window; the simulator charges 100 ms a request):
// the site answers 429 with Retry-After over and over, and every payment is booked, none dead,
// no attempt spent: a 429 is a pause the client waits out, not a counted retry.
func TestThirtyPaymentsAtOnceAgainstARateLimitedSite(t *testing.T) {
	t.Parallel()
	testtime.Long(t, "about a minute of wall-clock time against a rate-limited site")
	logs := &syncBuffer{}
	r := newRig(t, withLiveClock, withLog(logs), withConfig(func(c *connector.Config) {
		c.Workers = 8
		c.Worker.MaxAttempts = 3 // three 429s in a row would kill a payment if they counted
	}))
	r.site.SetRateLimit(1200*time.Millisecond, 3*time.Second, 100*time.Millisecond)
	const n = 30
	ids := make([]string, n)
	for i := range ids {
		inv := r.invoice("Test Customer", fmt.Sprintf("%d.00", 1000+i))
		ids[i] = fmt.Sprintf("pay_T3stPace%06d", i)
		r.deliver(fmt.Sprintf("E%02d", i), captured(t, ids[i], int64(1000+i)*100, inv, nil))
	}
	start := time.Now()
	r.runWorkers()
	if !testtime.Poll(4*time.Minute, func() bool { return r.statuses()[connector.StatusDone] == n }) {
		t.Fatalf("after %s: %v; want all %d done", time.Since(start).Round(time.Second), r.statuses(), n)
	}
	t.Logf("%d payments booked in %s", n, time.Since(start).Round(100*time.Millisecond))
	for i, id := range ids {
		e := r.event(fmt.Sprintf("E%02d", i))
		if e.Attempts != 0 {
			t.Errorf("%s: %d attempts spent (%q)", e.EventID, e.Attempts, e.LastError)
		}
		pe := r.one(id)
		if got := minor(t, pe["paid_amount"], 2); got != int64(1000+i)*100 {
			t.Errorf("%s: paid_amount %d paise, want %d", id, got, int64(1000+i)*100)
		}
	}
	if c := r.statuses(); c[connector.StatusDead] != 0 || c[connector.StatusParked] != 0 {
		t.Errorf("statuses %v: want none dead or parked", c)
	}
	throttled := 0
	for _, q := range r.site.Requests() {
		if q.Status == 429 {
			throttled++
		}
	}
	waits := strings.Count(logs.String(), "ERPNext 429 TooManyRequestsError")
	t.Logf("the site answered 429 %d times; %d outcomes waited for the pace", throttled, waits)
	if throttled == 0 || waits == 0 {
		t.Errorf("the site answered 429 %d times and %d outcomes waited: the rate limiter was never reached, the test shows nothing", throttled, waits)
	}
}

// payment.captured without an invoice (no API keys, so its order cannot be fetched) claims the
// payment 0.1 s before its order.paid arrives; the captured event parks for want of an invoice
// and lets go of the claim, which wakes the order.paid waiting for it: the payment is booked
// within 5 s, not at the claim's fence (server_timeout + fence_margin, 25 s here), and the
// parked captured event becomes a duplicate of the booking.
func TestWaiterRunsAsSoonAsTheHolderLetsGo(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	r := newRig(t, withLiveClock, withLog(logs))
	inv := r.invoice("Test Customer", "1180.00")
	r.site.SetLatency(150 * time.Millisecond) // the captured event holds the claim ~0.5 s
	const id = "pay_T3stWake000001"
	order := map[string]any{"id": "order_T3stWake0001", "entity": "order", "amount": 118000, "amount_paid": 118000,
		"currency": "INR", "receipt": inv, "status": "paid"}
	r.runWorkers()
	r.deliver("CAPTURED", envelope(t, "payment.captured", "payment", payment(id, 118000, map[string]any{"order_id": order["id"]})))
	if !testtime.Poll(testtime.Bound, func() bool {
		b, err := r.db.GetBooking(context.Background(), id)
		return err == nil && b.State == connector.BookingInFlight
	}) {
		t.Fatal("payment.captured never claimed the payment")
	}
	time.Sleep(100 * time.Millisecond) // not a synchronisation: the scenario has order.paid come 0.1 s after the claim
	sent := time.Now()
	r.deliver("ORDER", envelope(t, "order.paid", "payment", payment(id, 118000, map[string]any{"order_id": order["id"]}), "order", order))
	booked := testtime.Poll(5*time.Second, func() bool { return r.event("ORDER").Status == connector.StatusDone })
	took := time.Since(sent)
	if !booked {
		t.Fatalf("order.paid is %s (%q) %s after it arrived; want booked within 5 s", r.event("ORDER").Status, r.event("ORDER").LastError, took.Round(time.Millisecond))
	}
	t.Logf("booked %s after order.paid arrived", took.Round(time.Millisecond))
	if !strings.Contains(logs.String(), "waiting: "+id+" is being booked by another worker") {
		t.Errorf("order.paid never waited for the captured event's claim: the test did not make them meet\n%s", logs)
	}
	if pe := r.one(id); minor(t, pe["paid_amount"], 2) != 118000 {
		t.Errorf("paid_amount %v", pe["paid_amount"])
	}
	if !testtime.Poll(testtime.Bound, func() bool { return r.event("CAPTURED").Status == connector.StatusDuplicate }) {
		t.Errorf("payment.captured is %s (%q), want duplicate of the booking", r.event("CAPTURED").Status, r.event("CAPTURED").LastError)
	}
	if c := r.statuses(); c[connector.StatusParked] != 0 || c[connector.StatusPending] != 0 {
		t.Errorf("statuses at the end %v: want nothing parked or waiting", c)
	}
}
