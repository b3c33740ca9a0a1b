package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// drainer books the rows a run queued or retried in this process (reconcile --drain) within
// timeout (reconcile.drain_timeout), and counts how they ended.
type drainer struct {
	t       *tally
	store   Store
	drain   func(ctx context.Context, ids []int64, progress func(done, total int)) error
	timeout time.Duration
}

// run processes the rows this run queued or retried, within reconcile.drain_timeout, then
// reads how each ended and counts it: booked (done, or duplicate of a booking made meanwhile),
// parked or dead (with the reason), skipped (not booked by this version), or still pending. A
// retried row is not counted in the sweeps; one that ended parked or dead is listed as parked.
// Queued rows left out of Report.Queued (ListLimit) are drained and counted all the same.
func (d *drainer) run(ctx context.Context) error {
	t := d.t
	var ids []int64
	for _, it := range append(append([]Item(nil), t.rep.Queued...), t.rep.Retried...) {
		if it.rowID != 0 {
			ids = append(ids, it.rowID)
		}
	}
	for _, u := range t.unlisted.queuedRows {
		ids = append(ids, u.id)
	}
	timeout := d.timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	dctx, cancel := context.WithTimeout(ctx, timeout)
	err := d.drain(dctx, ids, func(done, total int) { t.progress("booking", done, total) })
	cancel()
	if err != nil && ctx.Err() != nil {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.warn("drain stopped after %s; rows still pending are booked by the daemon's workers", timeout)
	} else if err != nil {
		return err
	}
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer rcancel()
	for i := range t.rep.Retried {
		it := &t.rep.Retried[i]
		ev, err := d.store.GetEvent(rctx, it.rowID)
		if err != nil {
			return fmt.Errorf("drain: read event %s: %w", it.EventID, err)
		}
		it.Status, it.Reason, it.Result = string(ev.Status), ev.LastError, resultOf(ev)
		if ev.Status == connector.StatusParked || ev.Status == connector.StatusDead {
			t.listParked(*it)
		}
	}
	queued := t.rep.Queued // listParked and listNotBooked never touch it
	for i := range queued {
		it := &queued[i]
		if it.rowID == 0 {
			continue
		}
		ev, err := d.store.GetEvent(rctx, it.rowID)
		if err != nil {
			return fmt.Errorf("drain: read event %s: %w", it.EventID, err)
		}
		it.Status, it.Reason, it.Result = string(ev.Status), ev.LastError, resultOf(ev)
		d.ended(*it, ev.Status, t.counts(it))
	}
	for _, u := range t.unlisted.queuedRows {
		ev, err := d.store.GetEvent(rctx, u.id)
		if err != nil {
			return fmt.Errorf("drain: read event %d: %w", u.id, err)
		}
		d.ended(itemOfRow(ev), ev.Status, u.cnt)
	}
	return nil
}

// ended counts a drained row by the status it ended in, and lists it when it needs a person
// (parked or dead) or was not booked.
func (d *drainer) ended(it Item, status connector.Status, cnt *SweepCounts) {
	switch status {
	case connector.StatusDone, connector.StatusDuplicate:
		cnt.Booked++
	case connector.StatusParked, connector.StatusDead:
		cnt.Parked++
		d.t.listParked(it)
	case connector.StatusSkipped, connector.StatusDismissed:
		cnt.NotBooked++
		d.t.listNotBooked(it)
	default:
		cnt.Pending++
	}
}
