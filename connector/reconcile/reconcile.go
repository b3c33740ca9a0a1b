package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// reconcileRun is the state of one run.
type reconcileRun struct {
	c     *core
	req   Request
	rep   *Report
	since time.Time
	// handled are the business keys a sweep judged that a later sweep lists again (the
	// payments of Integration Requests, settlements): those count once.
	handled map[string]bool
	// unlisted counts what the report's lists left out (ListLimit).
	unlisted unlisted
	// settlements are the processed settlements the settlement sweep listed, for the report.
	settlements []razorpay.Settlement
}

// Run sweeps the window (DESIGN.md §2 invariant 3): every captured payment and processed
// refund Razorpay lists that has neither a booking nor an inbox row on its way gets a synthetic
// inbox row (event id "reconcile:<id>", the configured account id) that the workers book through
// the same claim → lookup → create path as a webhook; Integration Requests of ERPNext's checkout
// are swept the same way (reconcile.integration_requests); the audit reports anomalies. It runs
// under the lock row "reconcile" (ErrBusy when another process holds it) and records
// the run in reconcile_runs; a dry run does neither. Every run that took the lock, finished or
// failed, is counted by Deps.ObserveRun (the scheduled runs of serve and runs by hand alike); a
// dry run and a run refused with ErrBusy are not runs and are not counted.
//
// It returns the report also when it fails part-way (with the error): counts up to the failure
// stand. Errors: ErrNoRazorpayAPI, ErrBusy, store errors (ErrStoreUnavailable),
// Razorpay API errors after retries (a *connector.Failure; FailAuth stops the run at once).
func Run(ctx context.Context, d Deps, req Request) (*Report, error) {
	c := coreOf(d)
	to := req.To
	if to.IsZero() {
		to = c.now()
	}
	from := req.From
	if from.IsZero() {
		from = to.Add(-c.a.Reconcile.Window.D())
	}
	rep := &Report{DryRun: req.DryRun, WindowFrom: from.UTC(), WindowTo: to.UTC(),
		ListedFrom: from.Add(-c.a.Reconcile.Lookback.D()).UTC(), Since: c.a.Reconcile.Since,
		Queued: []Item{}, Retried: []Item{}, Parked: []Item{}, NotBooked: []Item{},
		Authorized: []Item{}, Anomalies: []Anomaly{}, Warnings: []string{}, Settlements: []connector.SettlementLine{},
		SettlementsOn: c.a.Settlements.Enabled}
	if c.rzp == nil {
		return rep, ErrNoRazorpayAPI
	}
	if !from.Before(to) {
		return rep, fmt.Errorf("reconcile: window start %s is not before its end %s", from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	r := &reconcileRun{c: c, req: req, rep: rep, since: c.a.Reconcile.SinceIn(c.loc), handled: map[string]bool{}}
	if req.DryRun {
		err := r.run(ctx)
		r.summarise()
		return rep, err
	}
	owner := c.d.Owner("reconcile")
	// Losing the lock row (this process stalled past its TTL and another took it) stops the run:
	// one sweep at a time. What was queued stays queued; queueing is idempotent anyway.
	ctx, lost := context.WithCancelCause(ctx)
	defer lost(nil)
	stopLock, err := holdLock(ctx, c.d.HoldLock, owner, req.WaitForLock, func() { lost(ErrBusy) })
	if err != nil {
		return rep, err
	}
	defer stopLock()
	run := connector.ReconcileRun{WindowFrom: from, WindowTo: to, StartedAt: c.now()}
	if err := c.store.StartReconcileRun(ctx, &run); err != nil {
		err = fmt.Errorf("record reconcile run: %w", err)
		c.d.ObserveRun(connector.ReconcileObservation{Finished: c.now(), Err: err})
		return rep, err
	}
	rep.RunID = run.ID
	runErr := r.run(ctx)
	r.summarise()
	t := rep.Totals()
	run.Scanned, run.AlreadyBooked, run.Queued, run.Booked = t.Scanned, t.AlreadyBooked, t.Queued, t.Booked
	run.SettlementsQueued = rep.SettlementCounts.Queued
	run.Parked = len(rep.Parked) + r.unlisted.parked + len(rep.Authorized) + len(rep.Anomalies)
	finished := c.now()
	run.FinishedAt = &finished
	if runErr != nil {
		run.Error = runErr.Error()
	}
	run.Report = StoredReport(rep)
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := c.store.FinishReconcileRun(wctx, run); err != nil && runErr == nil {
		runErr = fmt.Errorf("record reconcile run %d: %w", run.ID, err)
	}
	booked := run.Queued // reconcile_payments_total{outcome="booked"}: queued to be booked, as before
	if req.Drain {
		booked = run.Booked
	}
	c.d.ObserveRun(connector.ReconcileObservation{Finished: finished, Err: runErr, Scanned: run.Scanned,
		Booked: booked, AlreadyBooked: run.AlreadyBooked, Parked: run.Parked, RetriedDead: len(rep.Retried)})
	return rep, runErr
}

// run performs the sweeps in order: the dead events to retry first; Integration Requests, so a
// payment of ERPNext's checkout is queued with its Payment Request; then Razorpay's payments and
// refunds; then the audit; then the drain.
func (r *reconcileRun) run(ctx context.Context) error {
	if err := r.retryDead(ctx); err != nil {
		return err
	}
	if r.c.a.Reconcile.IntegrationRequests {
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
	if err := r.sweepSettlements(ctx); err != nil {
		return err
	}
	r.audit(ctx)
	if r.req.Drain && !r.req.DryRun {
		if err := r.drain(ctx); err != nil {
			return err
		}
	}
	return r.reportSettlements(ctx)
}

// summarise warns of items left out of the lists and sets NeedsAttention: something is
// parked, authorized past its age, or anomalous.
func (r *reconcileRun) summarise() {
	r.warnUnlisted()
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
func (r *reconcileRun) counts(it *Item) *SweepCounts {
	switch {
	case it.Source == SourceIntegrationRequest:
		return &r.rep.IntegrationRequests
	case it.Kind == KindRefund:
		return &r.rep.Refunds
	case it.Kind == KindSettlement:
		return &r.rep.SettlementCounts
	}
	return &r.rep.Payments
}

// holdLock takes the lock row "reconcile" for owner, waiting up to wait for a run in progress
// elsewhere to finish (checking every second); ErrBusy when it stays held.
func holdLock(ctx context.Context, hold func(ctx context.Context, name, owner string, ttl time.Duration, lost func()) (func(), error), owner string, wait time.Duration, lost func()) (func(), error) {
	deadline := time.Now().Add(wait)
	for {
		release, err := hold(ctx, reconcileLock, owner, reconcileLockTTL, lost)
		switch {
		case err == nil:
			return release, nil
		case !errors.Is(err, connector.ErrLockHeld):
			return nil, err
		case !time.Now().Before(deadline):
			return nil, ErrBusy
		}
		t := time.NewTimer(time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}
