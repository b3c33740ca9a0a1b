package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/reconcile"
	"github.com/razorpay-erpnext/razorpay-erpnext/console"
)

// DryRunReconcile is `reconcile --dry-run` over the default window.
func (b *consoleBackend) DryRunReconcile(ctx context.Context) (console.ReconcileReport, error) {
	rep, err := reconcile.Run(ctx, b.d.conn.Reconcile(), reconcile.Request{DryRun: true})
	if errors.Is(err, reconcile.ErrNoRazorpayAPI) {
		return console.ReconcileReport{}, fmt.Errorf("%w: %w", console.ErrUnavailable, err)
	}
	if err != nil {
		return console.ReconcileReport{}, err
	}
	return consoleReport(rep), nil
}

// LastReconcileReport reads the report the latest run saved with it (reconcile.StoredReport),
// from the store: every replica, and a restarted one, shows the same.
func (b *consoleBackend) LastReconcileReport(ctx context.Context) (*console.RunReport, error) {
	run, ok, err := b.d.db.LastReconcileReport(ctx)
	if err != nil || !ok {
		return nil, err
	}
	var rep reconcile.Report
	if err := json.Unmarshal(run.Report, &rep); err != nil {
		return nil, fmt.Errorf("the report of reconcile run %d does not decode: %w", run.ID, err)
	}
	return &console.RunReport{Run: consoleRun(run), Report: consoleReport(&rep)}, nil
}

// consoleReport is a reconcile report as the console shows it: the counts of each sweep, the
// items queued (dry run: that would be), those that need a person, anomalies and warnings.
func consoleReport(rep *reconcile.Report) console.ReconcileReport {
	out := console.ReconcileReport{DryRun: rep.DryRun, WindowFrom: rep.WindowFrom, WindowTo: rep.WindowTo,
		ListedFrom: rep.ListedFrom, Warnings: rep.Warnings}
	for _, s := range rep.Sweeps() {
		c := s.Counts
		out.Sweeps = append(out.Sweeps, console.SweepRow{Name: s.Name, Scanned: c.Scanned, AlreadyBooked: c.AlreadyBooked,
			InInbox: c.InInbox, WouldQueue: c.Queued, Park: c.Parked})
	}
	item := func(it reconcile.Item, note string) console.ReconcileItem {
		return console.ReconcileItem{Kind: it.Kind, ID: it.ID, AmountMinor: it.AmountMinor, Currency: it.Currency, CreatedAt: it.CreatedAt, Note: note}
	}
	for _, it := range rep.Queued {
		note := it.Kind
		if it.PaymentRequest != "" {
			note += ", Payment Request " + it.PaymentRequest
		}
		out.WouldQueue = append(out.WouldQueue, item(it, note))
	}
	for _, it := range rep.Parked {
		out.NeedsPerson = append(out.NeedsPerson, item(it, "parked: "+it.Reason))
	}
	for _, it := range rep.Authorized {
		out.NeedsPerson = append(out.NeedsPerson, item(it, "authorized, not captured: "+it.Reason))
	}
	for _, a := range rep.Anomalies {
		out.Anomalies = append(out.Anomalies, a.Kind+": "+a.Detail)
	}
	return out
}
