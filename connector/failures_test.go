package connector_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// What the worker does when ERPNext fails, and when another worker holds what it needs.

func TestServerErrorsRetryThenDie(t *testing.T) {
	r := newRig(t, withConfig(func(c *connector.Config) { c.Worker.MaxAttempts = 3 }))
	inv := r.invoice("Test Customer", "1000.00")
	r.deliver("E1", captured(t, "pay_T3stRetry00001", 50000, inv, nil))
	r.site.FailNext(1, 500)
	r.work()
	e := r.want("E1", connector.StatusPending, "look up Payment Entry by reference_no pay_T3stRetry00001: ERPNext 500 QueryDeadlockError")
	base := r.cfg.Worker.BackoffBase.D()
	if e.Attempts != 1 || e.NextAttemptAt.Before(r.clock.now().Add(base/2)) || e.NextAttemptAt.After(r.clock.now().Add(base)) {
		t.Errorf("attempts %d next %v: want one spent attempt and a retry after the backoff base %s", e.Attempts, e.NextAttemptAt.Sub(r.clock.now()), base)
	}
	r.work() // not due yet
	if got := r.event("E1"); got.Attempts != 1 || got.Status != connector.StatusPending {
		t.Fatalf("retried before its time: %+v", got)
	}
	r.clock.advance(base)
	r.work()
	r.want("E1", connector.StatusDone)

	r.deliver("E2", captured(t, "pay_T3stRetry00002", 50000, inv, nil))
	for i := 0; i < 3; i++ {
		r.site.FailNext(1, 500)
		r.work()
		r.clock.advance(r.cfg.Worker.BackoffMax.D())
	}
	if e := r.want("E2", connector.StatusDead, "gave up after 3 attempts (the next reconcile run tries again): look up Payment Entry"); e.WaitFor != connector.WaitReconcile {
		t.Errorf("dead row waits for %q, want %q: its last failure (a 500) may pass", e.WaitFor, connector.WaitReconcile)
	}
}

// A write ERPNext committed whose answer was lost (a 504 page): the claim and the invoice lock
// stay until the fence passes, nobody posts meanwhile, and the lookup then records the entry.
func TestAmbiguousWriteKeepsTheClaimUntilItsFence(t *testing.T) {
	r := newRig(t)
	inv := r.invoice("Test Customer", "1000.00")
	r.deliver("E1", captured(t, "pay_T3stAmbig00001", 50000, inv, nil))
	r.site.DropResponseAfterCommit(1)
	r.work()
	e := r.want("E1", connector.StatusPending, "insert Payment Entry for pay_T3stAmbig00001: outcome unknown", "will look up reference_no pay_T3stAmbig00001 after")
	fence := r.clock.now().Add(r.cfg.ERPNext.ServerTimeout.D() + r.cfg.Worker.FenceMargin.D())
	if e.Attempts != 1 || !e.NextAttemptAt.Equal(fence.Add(time.Second)) {
		t.Errorf("attempts %d next %v, want 1 and the fence %v + 1s", e.Attempts, e.NextAttemptAt, fence)
	}
	b, err := r.db.GetBooking(context.Background(), "pay_T3stAmbig00001")
	if err != nil || b.State != connector.BookingInFlight || !b.FenceUntil.Equal(fence) {
		t.Fatalf("booking %+v %v: want in flight until the fence", b, err)
	}
	if ok, err := r.db.AcquireLock(context.Background(), "invoice:"+inv, "someone-else", r.clock.now(), r.clock.now().Add(time.Minute)); ok || err != nil {
		t.Errorf("the invoice lock was released after an ambiguous write (%v)", err)
	}
	// Another delivery meanwhile waits for the claim, spending no attempt.
	r.deliver("E2", envelope(t, "order.paid", "payment", payment("pay_T3stAmbig00001", 50000, map[string]any{"notes": map[string]any{"invoice": inv}})))
	r.work()
	if w := r.want("E2", connector.StatusPending, "waiting: pay_T3stAmbig00001 is being booked by another worker"); w.Attempts != 0 || w.NextAttemptAt.Before(fence) {
		t.Errorf("waiter attempts %d next %v, want none spent and not before the fence", w.Attempts, w.NextAttemptAt)
	}
	r.clock.advance(r.cfg.ERPNext.ServerTimeout.D() + r.cfg.Worker.FenceMargin.D() + 2*time.Second)
	r.work()
	got := r.event("E1")
	if got.Status == connector.StatusDuplicate {
		got = r.event("E2")
	}
	if got.Status != connector.StatusDone || got.LastError != "found in ERPNext by reference_no" {
		t.Errorf("after the fence: %s %q, want done, found by reference_no", got.Status, got.LastError)
	}
	if n := len(r.entries("pay_T3stAmbig00001")); n != 1 {
		t.Errorf("%d entries, want the one committed", n)
	}
}

// 401 from ERPNext is a configuration fault: all work pauses, no attempt is spent, /readyz says so.
func TestAuthFailurePausesWithoutSpendingAttempts(t *testing.T) {
	r := newRig(t)
	inv := r.invoice("Test Customer", "1000.00")
	cfg := r.cfg
	cfg.ERPNext.APISecret = "wrong"
	conn := r.connector(cfg)
	r.conn = conn
	r.deliver("E1", captured(t, "pay_T3stAuth000001", 50000, inv, nil))
	r.work()
	e := r.want("E1", connector.StatusPending, "paused: look up Payment Entry by reference_no pay_T3stAuth000001: ERPNext 401")
	if e.Attempts != 0 || !e.NextAttemptAt.Equal(r.clock.now().Add(cfg.Worker.PauseRecheck.D())) {
		t.Errorf("attempts %d next %v: want none spent, retried after pause_recheck", e.Attempts, e.NextAttemptAt)
	}
	paused, why := conn.Paused()
	if !paused || !strings.Contains(why, "ERPNext refused the API credentials (ERPNext 401") || strings.Contains(why, "wrong") {
		t.Errorf("paused %v %q", paused, why)
	}
	if ok, status, reason := conn.Ready(context.Background()); ok || status != "paused" || reason != why {
		t.Errorf("Ready = %v %q %q while paused", ok, status, reason)
	}
	r.clock.advance(cfg.Worker.PauseRecheck.D())
	if paused, _ := conn.Paused(); !paused {
		t.Error("not paused once pause_recheck has passed, before any recheck: the pause holds until a call succeeds")
	}
}

// refusingFront answers every ERPNext call with the site's own 401 (a wrong API secret) while
// refuse is set, as a site whose credentials were revoked and then restored.
func refusingFront(refuse *atomic.Bool) rigOption {
	return withFront(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if refuse.Load() {
				req.Header.Set("Authorization", "token "+erpKey+":wrong-secret")
			}
			h.ServeHTTP(w, req)
		})
	})
}

// A configuration pause is a state, not a deadline: the lapse of worker.pause_recheck only lets
// the workers recheck, Paused and Ready say "paused" before the recheck, through a recheck that
// is refused again and until the first call ERPNext accepts; that call ends it, and the event
// books having spent no attempt.
func TestPauseHoldsUntilARecheckSucceeds(t *testing.T) {
	var refuse atomic.Bool
	refuse.Store(true)
	r := newRig(t, refusingFront(&refuse))
	inv := r.invoice("Test Customer", "1000.00")
	r.deliver("E1", captured(t, "pay_T3stPause00001", 50000, inv, nil))
	recheck := r.cfg.Worker.PauseRecheck.D()
	wantPaused := func(when string) {
		t.Helper()
		paused, why := r.conn.Paused()
		if !paused || !strings.HasPrefix(why, "ERPNext refused the API credentials (ERPNext 401") || strings.Contains(why, "wrong-secret") {
			t.Errorf("%s: paused %v %q, want paused for ERPNext's 401", when, paused, why)
		}
		if ok, status, _ := r.conn.Ready(context.Background()); ok || status != "paused" {
			t.Errorf("%s: Ready %v %q, want not ready, paused", when, ok, status)
		}
	}
	if n := r.work(); n != 1 {
		t.Fatalf("processed %d events, want 1", n)
	}
	wantPaused("after the refusal")
	r.clock.advance(recheck)
	wantPaused("once pause_recheck has passed, before the recheck")
	if n := r.work(); n != 1 {
		t.Fatalf("recheck processed %d events, want 1", n)
	}
	if e := r.want("E1", connector.StatusPending, "paused: look up Payment Entry by reference_no pay_T3stPause00001: ERPNext 401"); e.Attempts != 0 || !e.NextAttemptAt.Equal(r.clock.now().Add(recheck)) {
		t.Errorf("after a refused recheck: attempts %d, next in %s; want none spent, next in %s", e.Attempts, e.NextAttemptAt.Sub(r.clock.now()), recheck)
	}
	wantPaused("after a refused recheck")
	refuse.Store(false)
	r.clock.advance(recheck / 2)
	wantPaused("with the credentials restored, before a call")
	r.clock.advance(recheck / 2)
	r.work()
	if e := r.want("E1", connector.StatusDone); e.Attempts != 0 {
		t.Errorf("booked after %d counted attempts, want 0 (rechecks spend none)", e.Attempts)
	}
	if paused, why := r.conn.Paused(); paused {
		t.Errorf("still paused (%q) after ERPNext accepted a call", why)
	}
	if ok, status, _ := r.conn.Ready(context.Background()); !ok || status != "ready" {
		t.Errorf("Ready %v %q after the pause ended, want ready", ok, status)
	}
	if n := len(r.entries("pay_T3stPause00001")); n != 1 {
		t.Errorf("%d Payment Entries, want 1", n)
	}
}

// ERPNext refusing the entry (a frozen period) parks with its message, tags stripped.
func TestValidationRefusalParksWithERPNextsMessage(t *testing.T) {
	r := newRig(t)
	inv := r.invoice("Test Customer", "1000.00")
	r.site.SetFrozenUpto("2026-01-31")
	r.deliver("E1", captured(t, "pay_T3stFrozen0001", 50000, inv, nil))
	r.work()
	e := r.want("E1", connector.StatusParked, "insert Payment Entry for pay_T3stFrozen0001: ERPNext 417")
	if strings.Contains(e.LastError, "<") {
		t.Errorf("reason keeps HTML tags: %q", e.LastError)
	}
	if n := len(r.entries("pay_T3stFrozen0001")); n != 0 {
		t.Errorf("%d entries", n)
	}
}

// Another worker's invoice lock or claim is "not now": a wait, no attempt spent, that names
// what it waits for; the holder letting go makes the waiter due at once, not at the lock's or
// claim's fence.
func TestContentionWaitsWithoutSpendingAttempts(t *testing.T) {
	r := newRig(t)
	inv := r.invoice("Test Customer", "1000.00")
	ctx := context.Background()
	now := r.clock.now()
	if ok, err := r.db.AcquireLock(ctx, "invoice:"+inv, "other-worker", now, now.Add(time.Minute)); !ok || err != nil {
		t.Fatal(ok, err)
	}
	r.deliver("E1", captured(t, "pay_T3stLock000001", 50000, inv, nil))
	r.work()
	e := r.want("E1", connector.StatusPending, "waiting for the lock on Sales Invoice "+inv+"; runs again as soon as it is released")
	if e.Attempts != 0 || e.WaitFor != (connector.Wait{Kind: connector.WaitOnLock, Key: "invoice:" + inv}) || e.NextAttemptAt.Before(now.Add(20*time.Second)) || e.NextAttemptAt.After(now.Add(31*time.Second)) {
		t.Errorf("attempts %d, wait_for %q, next in %s: want none spent, the lock named and a re-poll within 30 s", e.Attempts, e.WaitFor, e.NextAttemptAt.Sub(now))
	}
	if b, err := r.db.GetBooking(ctx, "pay_T3stLock000001"); err == nil {
		t.Errorf("the claim was kept while waiting for the lock: %+v", b)
	}
	// The holder releases its lock and wakes its waiters, as writeClaim.unlock does.
	if err := r.db.ReleaseLock(ctx, "invoice:"+inv, "other-worker"); err != nil {
		t.Fatal(err)
	}
	if n, err := r.db.WakeWaiters(ctx, connector.Wait{Kind: connector.WaitOnLock, Key: "invoice:" + inv}, r.clock.now()); n != 1 || err != nil {
		t.Fatalf("WakeWaiters = %d, %v; want the one waiter", n, err)
	}
	r.work() // the clock has not moved
	r.want("E1", connector.StatusDone)

	if _, _, err := r.db.ClaimBooking(ctx, connector.Booking{BusinessKey: "pay_T3stLock000002", Kind: connector.KindReceipt, Owner: "other-worker",
		FenceUntil: r.clock.now().Add(time.Minute)}, r.clock.now()); err != nil {
		t.Fatal(err)
	}
	r.deliver("E2", captured(t, "pay_T3stLock000002", 50000, inv, nil))
	r.work()
	if w := r.want("E2", connector.StatusPending, "waiting: pay_T3stLock000002 is being booked by another worker (claim fenced until"); w.Attempts != 0 || w.WaitFor != (connector.Wait{Kind: connector.WaitOnBooking, Key: "pay_T3stLock000002"}) {
		t.Errorf("attempts %d, wait_for %q", w.Attempts, w.WaitFor)
	}
}

// A booked entry cancelled in ERPNext parks the next event of the payment (never re-booked on
// its own); Rebook forgets it and the payment books again.
func TestCancelledBookingParksUntilRebooked(t *testing.T) {
	r := newRig(t)
	inv := r.invoice("Test Customer", "1000.00")
	ctx := context.Background()
	r.deliver("E1", captured(t, "pay_T3stCancel0001", 100000, inv, nil))
	r.work()
	first := fmt.Sprint(r.one("pay_T3stCancel0001")["name"])
	if _, err := r.conn.Operator().ForgetCancelledBooking(ctx, "pay_T3stCancel0001"); err == nil || !strings.Contains(err.Error(), "still live") {
		t.Fatalf("forget of a live entry: %v, want ErrStillBooked", err)
	}
	if err := r.erp.Call(ctx, "frappe.client.cancel", map[string]any{"doctype": frappe.DoctypePaymentEntry, "name": first}, nil); err != nil {
		t.Fatal(err)
	}
	r.deliver("E2", captured(t, "pay_T3stCancel0001", 100000, inv, nil))
	r.work()
	e2 := r.want("E2", connector.StatusParked, "Payment Entry "+first+" booked for pay_T3stCancel0001 was cancelled in ERPNext", "events replay pay_T3stCancel0001 --rebook")
	a, err := r.conn.Operator().Rebook(ctx, e2, "test")
	if err != nil || !a.Changed || !strings.Contains(a.Message, "parked → pending; forgot Payment Entry "+first) {
		t.Fatalf("Rebook = %+v, %v", a, err)
	}
	r.work()
	r.want("E2", connector.StatusDone, "created")
	var live []string
	for _, d := range r.entries("pay_T3stCancel0001") {
		if fmt.Sprint(d["docstatus"]) == "1" {
			live = append(live, fmt.Sprint(d["name"]))
		}
	}
	if len(live) != 1 || live[0] == first {
		t.Errorf("submitted entries %v, want one new entry besides the cancelled %s", live, first)
	}
	if si, _ := r.site.Doc(frappe.DoctypeSalesInvoice, inv); minor(t, si["outstanding_amount"], 2) != 0 {
		t.Errorf("invoice outstanding %v", si["outstanding_amount"])
	}
}

// A 429 (ERPNext's rate limiter, Razorpay's) is "not now": the event waits out the pace the
// client keeps, spending no attempt, however often it comes: with worker.max_attempts 2 a
// counted retry would be dead on the second 429.
func TestThrottledWaitsWithoutSpendingAttempts(t *testing.T) {
	r := newRig(t, withRazorpay, withConfig(func(c *connector.Config) { c.Worker.MaxAttempts = 2 }))
	inv := r.booked("pay_T3stThrottle01")
	r.creditNote(inv, "100.00")
	if _, err := r.rzp.CreatePayment(razorpay.Payment{ID: "pay_T3stThrottle01", Amount: 118000, Currency: "INR", Method: "upi",
		CreatedAt: paymentAt, Notes: razorpay.Notes{"invoice": inv}}, razorpaysim.PaymentOptions{Lose: true}); err != nil {
		t.Fatal(err)
	}
	rf, err := r.rzp.CreateRefund(razorpay.Refund{PaymentID: "pay_T3stThrottle01", Amount: 10000}, razorpaysim.RefundOptions{Lose: true})
	if err != nil {
		t.Fatal(err)
	}
	r.deliver("E1", captured(t, "pay_T3stThrottle02", 50000, r.invoice("Test Customer", "1000.00"), nil))
	for i := 0; i < 2; i++ {
		r.site.FailNext(1, 429) // TooManyRequestsError, Retry-After: 1
		r.work()
		e := r.want("E1", connector.StatusPending, "not now: look up Payment Entry by reference_no pay_T3stThrottle02: ERPNext 429 TooManyRequestsError",
			"no attempt spent")
		if wait := e.NextAttemptAt.Sub(r.clock.now()); e.Attempts != 0 || wait < time.Second || wait > 1250*time.Millisecond {
			t.Fatalf("429 #%d: attempts %d, next in %s; want none spent and Retry-After (1 s) plus at most a quarter", i+1, e.Attempts, wait)
		}
		r.clock.advance(2 * time.Second)
	}
	r.work()
	if e := r.want("E1", connector.StatusDone, "created"); e.Attempts != 0 {
		t.Errorf("booked with %d attempts spent", e.Attempts)
	}

	r.deliver("R1", refundBody(t, "refund.processed", rf.ID, "pay_T3stThrottle01", 10000, "processed"))
	r.rzp.SetFaults(razorpaysim.Faults{FailNext: []int{429, 429}})
	for i := 0; i < 2; i++ {
		r.work()
		e := r.want("R1", connector.StatusPending, "not now: re-fetch refund "+rf.ID+": ", "429", "no attempt spent")
		if e.Attempts != 0 || !e.NextAttemptAt.After(r.clock.now()) {
			t.Fatalf("Razorpay 429 #%d: attempts %d, next at %v; want none spent and a wait", i+1, e.Attempts, e.NextAttemptAt)
		}
		r.clock.advance(e.NextAttemptAt.Sub(r.clock.now()))
	}
	r.work()
	r.want("R1", connector.StatusDone, "created")
}
