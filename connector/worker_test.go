package connector_test

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/intake"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/wire"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// eventually waits, up to a generous bound, until cond holds (no fixed sleep).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 30 s", what)
		}
		time.Sleep(5 * time.Millisecond) // polling a condition, not waiting for time to pass
	}
}

// The workers of Run book what arrives, keep their leases alive while ERPNext is slow, and
// stop once drained.
func TestRunBooksThenDrains(t *testing.T) {
	r := newRig(t, withConfig(func(c *connector.Config) {
		c.Workers = 2
		c.Worker.Poll = connector.Duration(10 * time.Millisecond)
		c.Worker.Lease = connector.Duration(60 * time.Millisecond) // the heartbeat extends it every 20 ms
	}))
	// Two invoices: on one, the second payment would wait for the lock on the rig's frozen clock.
	inv, inv2 := r.invoice("Test Customer", "400.00"), r.invoice("Test Customer", "600.00")
	r.site.SetLatency(30 * time.Millisecond)
	ran := make(chan struct{})
	go func() { r.conn.Run(context.Background()); close(ran) }()
	r.deliver("R1", captured(t, "pay_T3stRun0000001", 40000, inv, nil))
	r.deliver("R2", captured(t, "pay_T3stRun0000002", 60000, inv2, nil))
	eventually(t, "both booked", func() bool {
		return r.event("R1").Status == connector.StatusDone && r.event("R2").Status == connector.StatusDone
	})
	r.conn.Drain()
	r.conn.Drain() // twice is fine
	select {
	case <-ran:
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after Drain")
	}
	for _, name := range []string{inv, inv2} {
		if si, _ := r.site.Doc(frappe.DoctypeSalesInvoice, name); minor(t, si["outstanding_amount"], 2) != 0 {
			t.Errorf("invoice %s outstanding %v", name, si["outstanding_amount"])
		}
	}
}

// Drain ends Run promptly while work is paused by a configuration fault: a paused worker's
// sleep until the recheck (an hour here) ends on Drain, so shutdown does not wait for it.
func TestDrainWhilePausedReturnsPromptly(t *testing.T) {
	var refuse atomic.Bool
	refuse.Store(true)
	r := newRig(t, refusingFront(&refuse), withConfig(func(c *connector.Config) {
		c.Workers = 2
		c.Worker.Poll = connector.Duration(10 * time.Millisecond)
		c.Worker.PauseRecheck = connector.Duration(time.Hour)
	}))
	r.deliver("P1", captured(t, "pay_T3stDrainPause1", 40000, r.invoice("Test Customer", "400.00"), nil))
	r.work()
	if paused, _ := r.conn.Paused(); !paused {
		t.Fatal("not paused after ERPNext's 401")
	}
	ran := make(chan struct{})
	go func() { r.conn.Run(context.Background()); close(ran) }()
	// Both workers asleep in the pause, so Drain is not merely seen at the top of their loop.
	eventually(t, "both workers asleep in the pause", func() bool { return goroutinesIn("worker.(*Worker).sleepPaused") == 2 })
	asked := time.Now()
	r.conn.Drain()
	select {
	case <-ran:
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return within 30 s of Drain while paused for an hour")
	}
	t.Logf("Run returned %s after Drain while paused", time.Since(asked))
	if e := r.event("P1"); e.Status != connector.StatusPending || e.Attempts != 0 {
		t.Errorf("event %s with %d attempts, want pending with none spent", e.Status, e.Attempts)
	}
}

// goroutinesIn counts the goroutines with fn in their stack.
func goroutinesIn(fn string) int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, fn) {
			n++
		}
	}
	return n
}

// DrainEvents runs the worker's loop until the given rows are final.
func TestDrainEventsUntilTheRowsAreFinal(t *testing.T) {
	r := newRig(t, withConfig(func(c *connector.Config) { c.Worker.Poll = connector.Duration(10 * time.Millisecond) }))
	inv := r.invoice("Test Customer", "1000.00")
	a := r.deliver("D1", captured(t, "pay_T3stDrain00001", 40000, inv, nil))
	b := r.deliver("D2", captured(t, "pay_T3stDrain00002", 40000, "", nil))
	var last atomic.Int64
	if err := r.conn.DrainEvents(context.Background(), []int64{a.ID, b.ID, 424242}, func(done, total int) {
		last.Store(int64(done*10 + total))
	}); err != nil {
		t.Fatal(err)
	}
	r.want("D1", connector.StatusDone)
	r.want("D2", connector.StatusParked)
	if last.Load() != 33 {
		t.Errorf("last progress %d, want 3 of 3 (a deleted row counts as final)", last.Load())
	}
	r.deliver("D3", captured(t, "pay_T3stDrain00003", 40000, inv, map[string]any{"created_at": nil}))
	r.site.FailNext(1000, 500)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := r.conn.DrainEvents(ctx, []int64{r.event("D3").ID}, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("DrainEvents of a row that cannot finish: %v, want the context's deadline", err)
	}
	if err := r.conn.DrainEvents(context.Background(), nil, nil); err != nil {
		t.Errorf("DrainEvents(nothing) = %v", err)
	}
}

// HoldLock keeps a lock row alive, refuses a second owner and tells its holder when another
// process took the row over after it stalled past the TTL.
func TestHoldLock(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	lost := make(chan struct{}, 1)
	release, err := r.conn.HoldLock(ctx, "reconcile", "me", 40*time.Millisecond, func() { lost <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.conn.HoldLock(ctx, "reconcile", "other", time.Minute, func() {}); !errors.Is(err, connector.ErrLockHeld) {
		t.Fatalf("second owner: %v, want ErrLockHeld", err)
	}
	r.clock.advance(time.Minute) // "me" stalled past its TTL: another takes the row over
	if ok, err := r.db.AcquireLock(ctx, "reconcile", "other", r.clock.now(), r.clock.now().Add(time.Hour)); !ok || err != nil {
		t.Fatal(ok, err)
	}
	select {
	case <-lost:
	case <-time.After(30 * time.Second):
		t.Fatal("the holder was not told it lost the lock")
	}
	release()
	if ok, _ := r.db.AcquireLock(ctx, "reconcile", "third", r.clock.now(), r.clock.now().Add(time.Minute)); ok {
		t.Error("release deleted the lock row of its new owner")
	}
	if o := r.conn.Owner("reconcile"); !strings.Contains(o, "/reconcile/") || r.conn.Owner("x") == r.conn.Owner("x") {
		t.Error("Owner ids repeat")
	}
	if b := r.conn.Backoff(3); b < 4*r.cfg.Worker.BackoffBase.D()/2 || b >= 4*r.cfg.Worker.BackoffBase.D() {
		t.Errorf("Backoff(3) = %s, want in [2, 4) × base", b)
	}
	if d := r.conn.Reconcile(); d.Store == nil || d.Account.ERP == nil || d.Account.Razorpay != nil || d.Account.Company() != "Example Company" || d.Account.Location.String() != "Asia/Kolkata" {
		t.Errorf("reconcile deps %+v", d)
	}
}

// Receive is intake: it verifies, parses and stores; it never calls ERPNext.
func TestReceive(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	body := readSample(t, "payment.captured.json")
	dup, err := r.conn.Intake().Receive(ctx, intake.Delivery{Body: body, Signature: razorpay.Sign(secretOld, body), EventID: " T3stEvtCapNb01 "})
	if err != nil || dup {
		t.Fatalf("first: %v %v", dup, err)
	}
	if dup, err := r.conn.Intake().Receive(ctx, intake.Delivery{Body: body, Signature: razorpay.Sign(secretNew, body), EventID: "T3stEvtCapNb01"}); err != nil || !dup {
		t.Errorf("second: duplicate %v, %v", dup, err)
	}
	row := r.event("T3stEvtCapNb01")
	if row.AccountID != account || row.BusinessKey != "pay_T3stPayNetb001" || row.Event != "payment.captured" || row.EventCreatedAt == nil {
		t.Errorf("stored %+v", row)
	}
	if _, err := r.conn.Intake().Receive(ctx, intake.Delivery{Body: body, Signature: razorpay.Sign("other", body), EventID: "E2"}); !errors.Is(err, intake.ErrBadSignature) {
		t.Errorf("bad signature: %v", err)
	}
	if _, err := r.conn.Intake().Receive(ctx, intake.Delivery{Body: body, Signature: razorpay.Sign(secretNew, body), EventID: strings.Repeat("x", 65)}); !errors.Is(err, intake.ErrBadEventID) {
		t.Errorf("long event id: %v", err)
	}
	bad := []byte(`{"entity":"event","event":1}`)
	if _, err := r.conn.Intake().Receive(ctx, intake.Delivery{Body: bad, Signature: razorpay.Sign(secretNew, bad), EventID: headerID("E3")}); err != nil {
		t.Errorf("unparseable but signed: %v", err)
	}
	if e := r.want("E3", connector.StatusDead, "webhook body does not parse"); e.AccountID != account {
		t.Errorf("dead row of account %q", e.AccountID)
	}
	r.conn.Intake().RefuseTooLarge()
	closed, err := store.Open(ctx, "sqlite", filepath.Join(t.TempDir(), "closed.db"))
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	c, err := wire.New(wire.Options{Config: r.cfg, Store: closed, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Intake().Receive(ctx, intake.Delivery{Body: body, Signature: razorpay.Sign(secretNew, body), EventID: headerID("E4")}); err == nil {
		t.Error("a closed store accepted the webhook")
	}
	if ok, status, _ := c.Ready(ctx); ok || status != "store unavailable" {
		t.Errorf("Ready on a closed store: %v %s", ok, status)
	}
	if ok, status, _ := r.conn.Ready(ctx); !ok || status != "ready" {
		t.Errorf("Ready: %v %s", ok, status)
	}
	want := map[string]float64{"accepted": 1, "duplicate": 1, "bad_signature": 1, "malformed": 2, "too_large": 1}
	for outcome, n := range want {
		if got := sample(t, r.conn, connector.MetricWebhooks, "outcome", outcome); got != n {
			t.Errorf("webhooks %s = %v, want %v", outcome, got, n)
		}
	}
}

// The metrics count outcomes, bookings, ERPNext calls and their failures, and read the inbox
// at scrape time.
func TestMetricsOfWork(t *testing.T) {
	r := newRig(t)
	inv := r.invoice("Test Customer", "1000.00")
	r.deliver("M1", captured(t, "pay_T3stMetric0001", 40000, inv, nil))
	r.deliver("M2", captured(t, "pay_T3stMetric0002", 40000, "", nil))
	r.work()
	r.deliver("M3", captured(t, "pay_T3stMetric0003", 10000, inv, nil))
	r.site.FailNext(1, 500)
	r.work()
	r.conn.Reconcile().ObserveRun(connector.ReconcileObservation{Scanned: 3, Booked: 1, Parked: 1})
	r.conn.Reconcile().ObserveRun(connector.ReconcileObservation{Err: errors.New("boom")})
	for _, tc := range []struct {
		name, label, value string
		want               float64
	}{
		{connector.MetricEventOutcomes, "status", "done", 1},
		{connector.MetricEventOutcomes, "status", "parked", 1},
		{connector.MetricEventOutcomes, "status", "pending", 1},
		{connector.MetricBookings, "outcome", "booked", 1},
		{connector.MetricBookings, "outcome", "retry", 1},
		{connector.MetricERPNextErrors, "class", "server", 1},
		{connector.MetricReconcileRuns, "result", "success", 1},
		{connector.MetricReconcileRuns, "result", "failure", 1},
		{connector.MetricReconcilePayments, "outcome", "scanned", 3},
		{connector.MetricInboxEvents, "status", "pending", 1},
		{connector.MetricInboxEvents, "status", "done", 1},
	} {
		if got := sample(t, r.conn, tc.name, tc.label, tc.value); got != tc.want {
			t.Errorf("%s{%s=%q} = %v, want %v", tc.name, tc.label, tc.value, got, tc.want)
		}
	}
	if got := sample(t, r.conn, connector.MetricStoreUp, "", ""); got != 1 {
		t.Errorf("store_up %v", got)
	}
	if got := sample(t, r.conn, connector.MetricOldestPendingAge, "", ""); got != 0 {
		t.Errorf("oldest pending age %v s on a frozen clock, want 0", got)
	}
}

// sample returns the value of the sample of metric name with label = value ("" for none).
func sample(t *testing.T, c *wire.Core, name, label, value string) float64 {
	t.Helper()
	mfs, err := c.Metrics().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if label == "" || hasLabel(m, label, value) {
				switch {
				case m.Counter != nil:
					return m.GetCounter().GetValue()
				case m.Gauge != nil:
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	return 0
}

func hasLabel(m *dto.Metric, label, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == label && l.GetValue() == value {
			return true
		}
	}
	return false
}

// With mapping.comment_on_park a parked payment leaves a Comment on the invoice it names.
func TestCommentOnPark(t *testing.T) {
	r := newRig(t, withConfig(func(c *connector.Config) { c.Mapping.CommentOnPark = true }))
	inv := r.invoice("Test Customer", "500.00")
	r.deliver("C1", captured(t, "pay_T3stComment001", 50000, inv, nil))
	r.deliver("C2", captured(t, "pay_T3stComment002", 50000, inv, nil))
	r.work()
	r.want("C2", connector.StatusParked, "invoice already settled")
	cs := r.site.Comments(frappe.DoctypeSalesInvoice, inv)
	if len(cs) != 1 || !strings.Contains(cs[0]["content"].(string), "Razorpay payment pay_T3stComment002 was not booked") ||
		!strings.Contains(cs[0]["content"].(string), "razorpay-erpnext events replay C2") {
		t.Errorf("comments %v", cs)
	}
	if got := sample(t, r.conn, connector.MetricParkComments, "result", "added"); got != 1 {
		t.Errorf("comments added %v", got)
	}
}

// A paused replica with nothing queued rechecks by itself: once worker.pause_recheck has
// passed, one worker asks ERPNext who the API key is (a read), so restored credentials end
// the pause and /readyz says ready again without any event — behind a load balancer a paused
// replica gets no webhook to make that call. A recheck refused again renews the pause and
// waits another pause_recheck: one probe, not a loop.
func TestPausedWorkersRecheckWithNothingQueued(t *testing.T) {
	var refuse atomic.Bool
	refuse.Store(true)
	r := newRig(t, refusingFront(&refuse), withConfig(func(c *connector.Config) {
		c.Workers = 2
		c.Worker.Poll = connector.Duration(10 * time.Millisecond)
	}))
	recheck := r.cfg.Worker.PauseRecheck.D()
	r.deliver("Q1", captured(t, "pay_T3stProbe00001", 40000, r.invoice("Test Customer", "400.00"), nil))
	r.work()
	if paused, _ := r.conn.Paused(); !paused {
		t.Fatal("not paused after ERPNext's 401")
	}
	if a, err := r.conn.Operator().Dismiss(context.Background(), r.event("Q1"), "test", "nothing queued"); err != nil || !a.Changed {
		t.Fatalf("dismiss: %+v %v", a, err)
	}
	probes := func() int {
		n := 0
		for _, req := range r.site.Requests() {
			if strings.HasSuffix(req.Path, "/"+frappe.MethodGetLoggedUser) {
				n++
			}
		}
		return n
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { r.conn.Run(ctx); close(ran) }()
	t.Cleanup(func() { cancel(); <-ran })

	r.clock.advance(recheck)
	eventually(t, "a recheck refused again", func() bool { return probes() == 1 })
	eventually(t, "the pause renewed", func() bool {
		_, hold := r.conn.PauseHolding()
		return hold
	})
	if ok, status, _ := r.conn.Ready(context.Background()); ok || status != "paused" {
		t.Errorf("Ready %v %q after a refused recheck, want paused", ok, status)
	}
	if n := probes(); n != 1 {
		t.Errorf("%d rechecks before pause_recheck passed again, want 1", n)
	}

	refuse.Store(false)
	r.clock.advance(recheck)
	eventually(t, "the pause to end without an event", func() bool { paused, _ := r.conn.Paused(); return !paused })
	if ok, status, _ := r.conn.Ready(context.Background()); !ok || status != "ready" {
		t.Errorf("Ready %v %q after the recheck succeeded, want ready", ok, status)
	}
	if n := len(r.entries("pay_T3stProbe00001")); n != 0 {
		t.Errorf("%d Payment Entries for the dismissed payment, want 0", n)
	}
}
