package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// reconcileRun is one run: its sweeps in the order run performs them, each holding what it
// uses, and the tally they share.
type reconcileRun struct {
	t *tally
	q *queue
	// irs is nil when reconcile.integration_requests is off; drain nil unless the request
	// drains and is not a dry run.
	irs         *integrationSweep
	payments    *paymentSweep
	refunds     *refundSweep
	settlements *settlementSweep
	audit       *audit
	drain       *drainer
}

// newRun builds the sweeps of one run of c over the report's window.
func newRun(c *core, req Request, rep *Report) *reconcileRun {
	t := &tally{rep: rep, since: c.a.Reconcile.SinceIn(c.loc), handled: map[string]bool{}, log: c.log, onProgress: req.Progress}
	q := &queue{t: t, store: c.store, accountID: c.a.ID, now: c.now, wake: c.d.Wake, dryRun: req.DryRun}
	rd := reads{rzp: c.rzp, backoff: c.d.Backoff}
	st := c.a.Settlements
	r := &reconcileRun{t: t, q: q,
		payments: &paymentSweep{q: q, rd: rd, from: rep.ListedFrom, to: rep.WindowTo},
		refunds:  &refundSweep{q: q, rd: rd, from: rep.ListedFrom, to: rep.WindowTo},
		settlements: &settlementSweep{q: q, rd: rd, from: rep.WindowFrom, to: rep.WindowTo, enabled: st.Enabled, window: st.Window.D(),
			since: st.SinceIn(c.loc), bankAccount: st.BankAccountDoc,
			booker: c.d.Settlement, owner: c.d.Owner, observe: c.d.ObserveSettlements},
		audit: &audit{t: t, erp: c.erp, store: c.store, loc: c.loc, from: rep.ListedFrom, modeOfPayment: c.a.Mapping.ModeOfPayment},
	}
	if c.a.Reconcile.IntegrationRequests {
		r.irs = &integrationSweep{q: q, rd: rd, erp: c.erp, loc: c.loc, from: rep.WindowFrom, to: rep.WindowTo,
			authorizedAge: c.a.Reconcile.AuthorizedAge.D(), capture: c.a.Reconcile.CaptureAuthorized, payments: r.payments}
	}
	if req.Drain && !req.DryRun {
		r.drain = &drainer{t: t, store: c.store, drain: c.d.Drain, timeout: c.a.Reconcile.DrainTimeout.D()}
	}
	return r
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
	r := newRun(c, req, rep)
	if req.DryRun {
		err := r.run(ctx)
		r.t.summarise()
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
	r.t.summarise()
	t := rep.Totals()
	run.Scanned, run.AlreadyBooked, run.Queued, run.Booked = t.Scanned, t.AlreadyBooked, t.Queued, t.Booked
	run.SettlementsQueued = rep.SettlementCounts.Queued
	run.Parked = len(rep.Parked) + r.t.unlisted.parked + len(rep.Authorized) + len(rep.Anomalies)
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
	if err := retryDead(ctx, r.q); err != nil {
		return err
	}
	if r.irs != nil {
		if err := r.irs.run(ctx); err != nil {
			return err
		}
	}
	if err := r.payments.run(ctx); err != nil {
		return err
	}
	if err := r.refunds.run(ctx); err != nil {
		return err
	}
	if err := r.settlements.run(ctx); err != nil {
		return err
	}
	r.audit.run(ctx)
	if r.drain != nil {
		if err := r.drain.run(ctx); err != nil {
			return err
		}
	}
	return r.settlements.report(ctx)
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
