package connector

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrReconcileBusy is returned by Reconcile when another process (or goroutine) holds the
// reconcile lock row: reconcile runs on one process at a time (DESIGN.md §10).
var ErrReconcileBusy = errors.New("another reconcile is running (lock row \"reconcile\" is held)")

// ErrNoRazorpayAPI is returned by Reconcile when razorpay.key_id and razorpay.key_secret are not
// configured: the sweep reads Razorpay's payment list.
var ErrNoRazorpayAPI = errors.New("reconcile needs the Razorpay API: set razorpay.key_id and razorpay.key_secret")

const (
	reconcileLock = "reconcile"
	// reconcileLockTTL is how long the lock row outlives a reconciler that died (kill -9):
	// a live one extends it every TTL/4, so it can be short.
	reconcileLockTTL = 30 * time.Second
)

// ReconcileRun is one row of reconcile_runs (DESIGN.md §8): the window swept and the counts of
// the run. Booked counts the rows the run queued (each goes through the booking path; when the
// run drains them, only those that ended booked); Parked counts everything that needs a person
// (parked or dead rows, authorized payments past their age, audit anomalies). Error is "" for a
// run that finished; FinishedAt is nil while it runs. Times are UTC.
type ReconcileRun struct {
	ID            int64      `json:"id"`
	WindowFrom    time.Time  `json:"window_from"`
	WindowTo      time.Time  `json:"window_to"`
	Scanned       int        `json:"scanned"`
	Booked        int        `json:"booked"`
	AlreadyBooked int        `json:"already_booked"`
	Parked        int        `json:"parked"`
	StartedAt     time.Time  `json:"started_at"`
	FinishedAt    *time.Time `json:"finished_at"`
	Error         string     `json:"error"`
}

// ReconcileRequest says what one reconcile run does. A zero To is now; a zero From is To minus
// reconcile.window.
type ReconcileRequest struct {
	From, To time.Time
	// DryRun reads everything and writes nothing anywhere: no inbox rows, no run record, no
	// lock row, no ERPNext or Razorpay write. The report lists what would be queued.
	DryRun bool
	// Drain processes the rows this run queued with the worker's own code (ProcessNext) until
	// each is final or reconcile.drain_timeout passes, and reports how they ended. Without it
	// the rows are left to the daemon's workers (the scheduled run in serve).
	Drain bool
	// Progress, when set, is called as the run advances (from the calling goroutine or a
	// drain goroutine, never concurrently).
	Progress func(Progress)
	// WaitForLock is how long to wait for a run in progress elsewhere (a scheduled one) to
	// finish before giving up with ErrReconcileBusy; 0 gives up at once (the schedule does).
	WaitForLock time.Duration
}

// Progress is one step of a reconcile run: Phase names what is being done; Done counts items
// handled so far and Total is the number expected, 0 when unknown (Razorpay's lists have no
// total).
type Progress struct {
	Phase string
	Done  int
	Total int
}

// SweepCounts are the counts of one sweep. Scanned: captured payments (processed refunds, or
// Integration Requests naming a payment) seen in the window. AlreadyBooked: booked before the
// run. InInbox: an inbox row was already on its way to booking. Queued: synthetic rows this run
// inserted (or, dry-run, would insert). Booked, Parked, Pending, NotBooked: how the queued rows
// ended when the run drained them; Parked also counts existing parked or dead rows.
// BeforeSince: left out because they were created before reconcile.since. Captured: authorized
// payments this run captured (reconcile.capture_authorized) and then queued.
type SweepCounts struct {
	Scanned       int `json:"scanned"`
	AlreadyBooked int `json:"already_booked"`
	InInbox       int `json:"in_inbox"`
	Queued        int `json:"queued"`
	Booked        int `json:"booked"`
	Parked        int `json:"parked"`
	Pending       int `json:"pending"`
	NotBooked     int `json:"not_booked"`
	BeforeSince   int `json:"before_since"`
	Captured      int `json:"captured"`
}

// ReconcileItem is one payment or refund the report names. AmountMinor is in minor units of
// Currency; Status and Reason are the inbox row's status and last_error after the run.
type ReconcileItem struct {
	Kind               string    `json:"kind"`   // "payment" or "refund"
	ID                 string    `json:"id"`     // pay_… or rfnd_…
	Source             string    `json:"source"` // "razorpay" (list sweep) or "integration_request"
	EventID            string    `json:"event_id,omitempty"`
	AmountMinor        int64     `json:"amount_minor"`
	Currency           string    `json:"currency"`
	CreatedAt          time.Time `json:"created_at"`
	IntegrationRequest string    `json:"integration_request,omitempty"`
	PaymentRequest     string    `json:"payment_request,omitempty"`
	Status             string    `json:"status,omitempty"`
	Reason             string    `json:"reason,omitempty"`
	Result             string    `json:"result,omitempty"` // the ERPNext document, e.g. "Payment Entry ACC-PAY-…"

	rowID int64
}

// Anomaly is something the audit found in ERPNext that a person must look at; reconcile never
// re-books or changes it.
type Anomaly struct {
	Kind      string   `json:"kind"` // one of the Anomaly kinds below
	Detail    string   `json:"detail"`
	Documents []string `json:"documents"`
}

// Anomaly kinds.
const (
	// AnomalyDuplicateReference: submitted Payment Entries share one reference_no.
	AnomalyDuplicateReference = "duplicate_reference_no"
	// AnomalyBookingCancelled: a booking's ERPNext entry was cancelled or deleted.
	AnomalyBookingCancelled = "booking_cancelled"
	// AnomalyInvoicePaidTwice: a Sales Invoice was allocated beyond its total by submitted
	// entries under different reference_no; Documents are the invoice, then the entries.
	AnomalyInvoicePaidTwice = "invoice_paid_twice"
	// AnomalyPaymentRequestPaidTwice: the same for a Payment Request (reference rows linking it,
	// or reference_no = its name).
	AnomalyPaymentRequestPaidTwice = "payment_request_paid_twice"
)

// ReconcileReport is what a reconcile run found and did; `reconcile --json` prints it.
type ReconcileReport struct {
	RunID      int64     `json:"run_id,omitempty"`
	DryRun     bool      `json:"dry_run"`
	WindowFrom time.Time `json:"window_from"`
	WindowTo   time.Time `json:"window_to"`
	ListedFrom time.Time `json:"listed_from"` // window start minus reconcile.lookback
	Since      string    `json:"since,omitempty"`

	Payments            SweepCounts `json:"payments"`
	Refunds             SweepCounts `json:"refunds"`
	IntegrationRequests SweepCounts `json:"integration_requests"`

	Queued     []ReconcileItem `json:"queued"`     // queued by this run (dry-run: would be)
	Parked     []ReconcileItem `json:"parked"`     // need a person, with the reason
	NotBooked  []ReconcileItem `json:"not_booked"` // the worker skipped them (e.g. refunds before the refund engine)
	Authorized []ReconcileItem `json:"authorized"` // authorized past reconcile.authorized_age, not captured
	Anomalies  []Anomaly       `json:"anomalies"`
	Warnings   []string        `json:"warnings"`

	NeedsAttention bool `json:"needs_attention"`
}

// Totals adds up the three sweeps.
func (r *ReconcileReport) Totals() SweepCounts {
	var t SweepCounts
	for _, s := range []SweepCounts{r.Payments, r.Refunds, r.IntegrationRequests} {
		t.Scanned += s.Scanned
		t.AlreadyBooked += s.AlreadyBooked
		t.InInbox += s.InInbox
		t.Queued += s.Queued
		t.Booked += s.Booked
		t.Parked += s.Parked
		t.Pending += s.Pending
		t.NotBooked += s.NotBooked
		t.BeforeSince += s.BeforeSince
		t.Captured += s.Captured
	}
	return t
}

// reconcileRun is the state of one run.
type reconcileRun struct {
	c       *Connector
	req     ReconcileRequest
	rep     *ReconcileReport
	since   time.Time
	handled map[string]bool // business keys this run queued or judged, across sweeps
}

// Reconcile sweeps the window (DESIGN.md §2 invariant 3): every captured payment and processed
// refund Razorpay lists that has neither a booking nor an inbox row on its way gets a synthetic
// inbox row (event id "reconcile:<id>", the configured account id) that the workers book through
// the same claim → lookup → create path as a webhook; Integration Requests of ERPNext's checkout
// are swept the same way (reconcile.integration_requests); the audit reports anomalies. It runs
// under the lock row "reconcile" (ErrReconcileBusy when another process holds it) and records
// the run in reconcile_runs; a dry run does neither. Every run that took the lock, finished or
// failed, is counted by ObserveReconcile (the scheduled runs of serve and runs by hand alike); a
// dry run and a run refused with ErrReconcileBusy are not runs and are not counted.
//
// It returns the report also when it fails part-way (with the error): counts up to the failure
// stand. Errors: ErrNoRazorpayAPI, ErrReconcileBusy, store errors (ErrStoreUnavailable),
// Razorpay API errors after retries (see razorpay.Retryable, razorpay.IsAuthFault).
func (c *Connector) Reconcile(ctx context.Context, req ReconcileRequest) (*ReconcileReport, error) {
	to := req.To
	if to.IsZero() {
		to = c.now()
	}
	from := req.From
	if from.IsZero() {
		from = to.Add(-c.cfg.Reconcile.Window.D())
	}
	rep := &ReconcileReport{DryRun: req.DryRun, WindowFrom: from.UTC(), WindowTo: to.UTC(),
		ListedFrom: from.Add(-c.cfg.Reconcile.Lookback.D()).UTC(), Since: c.cfg.Reconcile.Since,
		Queued: []ReconcileItem{}, Parked: []ReconcileItem{}, NotBooked: []ReconcileItem{},
		Authorized: []ReconcileItem{}, Anomalies: []Anomaly{}, Warnings: []string{}}
	if c.rzp == nil {
		return rep, ErrNoRazorpayAPI
	}
	if !from.Before(to) {
		return rep, fmt.Errorf("reconcile: window start %s is not before its end %s", from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	r := &reconcileRun{c: c, req: req, rep: rep, since: c.cfg.Reconcile.SinceIn(c.loc), handled: map[string]bool{}}
	if req.DryRun {
		err := r.run(ctx)
		r.summarise()
		return rep, err
	}
	owner := fmt.Sprintf("%s/reconcile/%d", c.instance, c.seq.Add(1))
	// Losing the lock row (this process stalled past its TTL and another took it) stops the run:
	// one sweep at a time. What was queued stays queued; queueing is idempotent anyway.
	ctx, lost := context.WithCancelCause(ctx)
	defer lost(nil)
	stopLock, err := c.holdLock(ctx, reconcileLock, owner, reconcileLockTTL, func() { lost(ErrReconcileBusy) })
	for deadline := time.Now().Add(req.WaitForLock); errors.Is(err, ErrReconcileBusy) && time.Now().Before(deadline); {
		sleep(ctx, time.Second)
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
		stopLock, err = c.holdLock(ctx, reconcileLock, owner, reconcileLockTTL, func() { lost(ErrReconcileBusy) })
	}
	if err != nil {
		return rep, err
	}
	defer stopLock()
	run := ReconcileRun{WindowFrom: from, WindowTo: to, StartedAt: c.now()}
	if err := c.store.StartReconcileRun(ctx, &run); err != nil {
		err = fmt.Errorf("record reconcile run: %w", err)
		c.ObserveReconcile(ReconcileObservation{Finished: c.now(), Err: err})
		return rep, err
	}
	rep.RunID = run.ID
	runErr := r.run(ctx)
	r.summarise()
	t := rep.Totals()
	run.Scanned, run.AlreadyBooked = t.Scanned, t.AlreadyBooked
	run.Booked = t.Queued
	if req.Drain {
		run.Booked = t.Booked
	}
	run.Parked = len(rep.Parked) + len(rep.Authorized) + len(rep.Anomalies)
	finished := c.now()
	run.FinishedAt = &finished
	if runErr != nil {
		run.Error = runErr.Error()
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := c.store.FinishReconcileRun(wctx, run); err != nil && runErr == nil {
		runErr = fmt.Errorf("record reconcile run %d: %w", run.ID, err)
	}
	c.ObserveReconcile(ReconcileObservation{Finished: finished, Err: runErr, Scanned: run.Scanned,
		Booked: run.Booked, AlreadyBooked: run.AlreadyBooked, Parked: run.Parked})
	return rep, runErr
}

// run performs the sweeps in order: Integration Requests first, so a payment of ERPNext's
// checkout is queued with its Payment Request; then Razorpay's payments and refunds; then the
// audit; then the drain.
func (r *reconcileRun) run(ctx context.Context) error {
	if r.c.cfg.Reconcile.IntegrationRequests {
		if err := r.sweepIntegrationRequests(ctx); err != nil {
			return err
		}
	}
	if err := r.sweepPayments(ctx); err != nil {
		return err
	}
	if err := r.sweepRefunds(ctx); err != nil {
		return err
	}
	r.audit(ctx)
	if r.req.Drain && !r.req.DryRun {
		return r.drain(ctx)
	}
	return nil
}

// summarise sets NeedsAttention: something is parked, authorized past its age, or anomalous.
func (r *reconcileRun) summarise() {
	rep := r.rep
	rep.NeedsAttention = len(rep.Parked) > 0 || len(rep.Authorized) > 0 || len(rep.Anomalies) > 0
}

func (r *reconcileRun) progress(phase string, done, total int) {
	if r.req.Progress != nil {
		r.req.Progress(Progress{Phase: phase, Done: done, Total: total})
	}
}

func (r *reconcileRun) warn(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	r.rep.Warnings = append(r.rep.Warnings, msg)
	r.c.log.Warn().Str("component", "reconcile").Msg(msg)
}

// counts returns the sweep counts an item belongs to.
func (r *reconcileRun) counts(it *ReconcileItem) *SweepCounts {
	switch {
	case it.Source == sourceIntegrationRequest:
		return &r.rep.IntegrationRequests
	case it.Kind == itemRefund:
		return &r.rep.Refunds
	}
	return &r.rep.Payments
}

// holdLock takes the named lock row for owner and keeps extending it until the returned
// function is called (which releases it). ErrReconcileBusy when another owner holds it. When
// another owner takes the row over later, lost is called once and extending stops.
func (c *Connector) holdLock(ctx context.Context, name, owner string, ttl time.Duration, lost func()) (func(), error) {
	now := c.now()
	ok, err := c.store.AcquireLock(ctx, name, owner, now, now.Add(ttl))
	if err != nil {
		return nil, fmt.Errorf("take lock %s: %w", name, err)
	}
	if !ok {
		return nil, ErrReconcileBusy
	}
	stop := repeat(context.WithoutCancel(ctx), ttl/4, func(ctx context.Context) bool {
		now := c.now()
		if held, err := c.store.AcquireLock(ctx, name, owner, now, now.Add(ttl)); err == nil && !held {
			c.log.Warn().Str("lock", name).Msg("lock taken over by another process; stopping")
			lost()
			return false
		}
		return true
	})
	return func() {
		stop()
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer rcancel()
		if err := c.store.ReleaseLock(rctx, name, owner); err != nil {
			c.log.Warn().Err(err).Str("lock", name).Msg("release lock")
		}
	}, nil
}
