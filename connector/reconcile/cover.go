package reconcile

import (
	"context"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// queue is what the sweeps share to judge an item and queue it: the store's coverage of
// business keys, the synthetic rows it inserts (stamped with razorpay.account_id; none in a
// dry run), the wake of an idle worker, and the run's tally.
type queue struct {
	t         *tally
	store     Store
	accountID string
	now       func() time.Time
	wake      func()
	dryRun    bool
}

// enqueue inserts the synthetic row for it (body is the envelope), or in a dry run only lists
// it. A row that another process inserted first (a webhook arriving now) counts as in the inbox.
func (q *queue) enqueue(ctx context.Context, it Item, event string, body []byte, anyRow bool) error {
	cnt := q.t.counts(&it)
	it.EventID = connector.ReconcileEventPrefix + it.ID
	if q.dryRun {
		it.Status = "would queue"
		cnt.Queued++
		q.t.listQueued(it)
		return nil
	}
	now := q.now().UTC()
	ev := &connector.InboxEvent{AccountID: q.accountID, EventID: it.EventID, Event: event, BusinessKey: it.ID,
		RawBody: body, ReceivedAt: now, EventCreatedAt: &now, Status: connector.StatusPending, NextAttemptAt: now}
	insert := q.store.InsertEventIfNoKey
	if anyRow {
		// Rows of this key exist but none books it (e.g. only payment.authorized arrived):
		// the event id alone keeps the synthetic row unique.
		insert = q.store.InsertEvent
	}
	inserted, err := insert(ctx, ev)
	if err != nil {
		return fmt.Errorf("queue %s: %w", it.ID, err)
	}
	if !inserted {
		cnt.InInbox++
		return nil
	}
	it.rowID, it.Status = ev.ID, string(connector.StatusPending)
	cnt.Queued++
	q.t.listQueued(it)
	q.wake()
	return nil
}

// coverage is what the store already holds for a business key.
type coverage int

const (
	uncovered coverage = iota
	covDismissed
	covNotBooked // a row the worker skipped (e.g. "not booked by this version")
	covParked    // a parked or dead row: needs a person
	covQueued    // a row pending or processing, or an in_flight claim
	covBooked    // a booking, or a row done or duplicate
)

// covered is how far one business key is on its way. row is the inbox row that decided (nil
// for a booking); anyRow is true when some inbox row has the key at all (then
// InsertEventIfNoKey would refuse, and a synthetic row is inserted by its own event id instead).
type covered struct {
	cov    coverage
	row    *connector.InboxEvent
	anyRow bool
}

// coverKeys looks keys up in the store with at most two batched statements for the whole set
// (each chunked by the store at 500 keys): the bookings rows, then, for the keys not booked or
// void, their inbox rows (status columns only, never raw_body). A key that is booked or void is
// covBooked whatever its inbox rows; otherwise its rows of route decide (coverOf). Every key
// is in the map returned. Errors are the store's (ErrStoreUnavailable), wrapped.
func (q *queue) coverKeys(ctx context.Context, keys []string, route connector.Route) (map[string]covered, error) {
	out := make(map[string]covered, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	bookings, err := q.store.BookingsByBusinessKeys(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("read bookings of %d keys from %s: %w", len(keys), keys[0], err)
	}
	rest := make([]string, 0, len(keys))
	for _, k := range keys {
		b, ok := bookings[k]
		switch {
		case ok && (b.State == connector.BookingBooked || b.State == connector.BookingVoid):
			out[k] = covered{cov: covBooked, anyRow: true}
		case ok:
			out[k] = covered{cov: covQueued} // an in_flight claim
			rest = append(rest, k)
		default:
			out[k] = covered{}
			rest = append(rest, k)
		}
	}
	if len(rest) == 0 {
		return out, nil
	}
	rows, err := q.store.EventsByBusinessKeys(ctx, rest)
	if err != nil {
		return nil, fmt.Errorf("find inbox rows of %d keys from %s: %w", len(rest), rest[0], err)
	}
	for _, k := range rest {
		out[k] = coverOf(out[k], k, rows[k], route)
	}
	return out, nil
}

// cover is coverKeys for one key.
func (q *queue) cover(ctx context.Context, key string, route connector.Route) (covered, error) {
	m, err := q.coverKeys(ctx, []string{key}, route)
	if err != nil {
		return covered{}, err
	}
	return m[key], nil
}

// coverOf raises cv by key's inbox rows: any row makes anyRow true; the rows of route count,
// the furthest one deciding (done or duplicate > pending or processing > parked or dead >
// skipped > dismissed).
func coverOf(cv covered, key string, rows []connector.InboxEvent, route connector.Route) covered {
	for i := range rows {
		ev := &rows[i]
		if ev.BusinessKey != key {
			continue
		}
		cv.anyRow = true
		if connector.RouteOf(ev.Event) != route {
			continue
		}
		var c coverage
		switch ev.Status {
		case connector.StatusDone, connector.StatusDuplicate:
			c = covBooked
		case connector.StatusPending, connector.StatusProcessing:
			c = covQueued
		case connector.StatusParked, connector.StatusDead:
			c = covParked
		case connector.StatusSkipped:
			c = covNotBooked
		case connector.StatusDismissed:
			c = covDismissed
		}
		if c > cv.cov {
			cv.cov, cv.row = c, ev
		}
	}
	return cv
}

// judge looks it up and counts it by its coverage (judgeCovered); it returns true when it
// needs a synthetic row. A key judged earlier in this run by another sweep counts as in the
// inbox and is not looked up again.
func (q *queue) judge(ctx context.Context, it Item, route connector.Route) (need, anyRow bool, err error) {
	if q.t.handled[it.ID] {
		q.t.counts(&it).InInbox++ // queued or judged earlier in this run, by another sweep
		return false, true, nil
	}
	cv, err := q.cover(ctx, it.ID, route)
	if err != nil {
		return false, false, err
	}
	q.t.handled[it.ID] = true
	return q.t.judgeCovered(it, cv), cv.anyRow, nil
}
