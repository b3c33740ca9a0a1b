package reconcile

import (
	"context"
	"fmt"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// retryDead sends every dead row whose last failure was transient (a 5xx, a timeout, a
// connection failure, the store: the worker gave up after worker.max_attempts counted retries
// and marked it connector.WaitReconcile) back to pending, due now, and lists it in
// Report.Retried: a run never leaves such a row dead silently. Each run
// gives each row one more attempt; a row whose failure persists is dead again until the next
// run. A dry run lists them and changes nothing. It runs before the sweeps, so they find these
// rows on their way rather than needing a person.
func retryDead(ctx context.Context, q *queue) error {
	rows, err := q.store.Waiters(ctx, connector.WaitReconcile, connector.StatusDead)
	if err != nil {
		return fmt.Errorf("list dead events to retry: %w", err)
	}
	if len(rows) == 0 {
		return nil
	}
	for _, ev := range rows {
		kind := KindPayment
		if connector.RouteOf(ev.Event) == connector.RouteRefund {
			kind = KindRefund
		}
		status := "would retry"
		if !q.dryRun {
			status = string(connector.StatusPending)
		}
		q.t.rep.Retried = append(q.t.rep.Retried, Item{Kind: kind, ID: ev.BusinessKey, Source: SourceRazorpay, EventID: ev.EventID,
			CreatedAt: ev.ReceivedAt, Status: status, Reason: ev.LastError, rowID: ev.ID})
	}
	if q.dryRun {
		return nil
	}
	n, err := q.store.WakeWaiters(ctx, connector.WaitReconcile, q.now())
	if err != nil {
		return fmt.Errorf("retry dead events: %w", err)
	}
	q.t.log.Warn().Str("component", "reconcile").Int("events", n).
		Msg("dead events whose last failure was transient are pending again")
	q.wake()
	return nil
}
