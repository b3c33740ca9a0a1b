package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

// The replay and dismiss policy for one inbox row, shared by `events replay|dismiss` and the
// console (consoleBackend), so both allow and refuse exactly the same things in the same
// words. (Branch refactor moves this policy into the core; both callers then call that.)

// replayable are the statuses a person may send back to pending.
var replayable = map[string]bool{connector.StatusParked: true, connector.StatusDead: true,
	connector.StatusSkipped: true, connector.StatusDismissed: true}

// dismissible are the statuses a person may dismiss: never a booked or in-progress one.
var dismissible = map[string]bool{connector.StatusParked: true, connector.StatusDead: true,
	connector.StatusPending: true, connector.StatusSkipped: true}

// rowAction is what a replay or dismiss did to one row. Exactly one of Changed, Busy, Refused
// is true, or none (already pending or processing: nothing to do). Message is the line the
// CLI prints, e.g. "EvtX: parked → pending".
type rowAction struct {
	Changed, Busy, Refused bool
	Message                string
}

// replayRefusal says why r may not be replayed now: refused when its body is gone or its
// status does not allow it (rebook also allows done and duplicate rows, whose entry was
// cancelled); not refused but nothing to do when it is pending or processing already. ""
// when it may be replayed.
func replayRefusal(r connector.InboxEvent, rebook bool) (why string, refused bool) {
	switch {
	case r.RawBody == nil:
		return "not replayed: its raw body is gone (purged by retention after it finished, or never stored); reconcile does not re-create an event that has an inbox row", true
	case r.Status == connector.StatusPending || r.Status == connector.StatusProcessing:
		return "already " + r.Status, false
	case !replayable[r.Status] && !(rebook && (r.Status == connector.StatusDone || r.Status == connector.StatusDuplicate)):
		return fmt.Sprintf("not replayed: it is %s (%s)", r.Status, shorten(firstNonEmpty(r.ResultDoctype+" "+r.ResultName, r.LastError), 120)), true
	}
	return "", false
}

// replayRow sends r back to pending unless replayRefusal objects; by names who asked ("hand"
// for the CLI, the console's actor).
func replayRow(ctx context.Context, db *store.DB, r connector.InboxEvent, rebook bool, by string, now time.Time) (rowAction, error) {
	if why, refused := replayRefusal(r, rebook); why != "" {
		return rowAction{Refused: refused, Message: r.EventID + ": " + why}, nil
	}
	reason := "replayed by " + by + " (was " + r.Status + ": " + shorten(r.LastError, 500) + ")"
	return setRowStatus(ctx, db, r, connector.StatusPending, reason, "replayed", now)
}

// dismissRow marks r dismissed with "dismissed by <who>: <why>" unless its status forbids it.
func dismissRow(ctx context.Context, db *store.DB, r connector.InboxEvent, who, why string, now time.Time) (rowAction, error) {
	if !dismissible[r.Status] {
		return rowAction{Refused: true, Message: fmt.Sprintf("%s: not dismissed: it is %s", r.EventID, r.Status)}, nil
	}
	return setRowStatus(ctx, db, r, connector.StatusDismissed, fmt.Sprintf("dismissed by %s: %s", who, why), "dismissed", now)
}

// setRowStatus moves one row to status, only while it still has the status the decision was
// made on (one conditional UPDATE, store.SetEventStatusFrom); Busy (no error) when a worker
// claimed it meanwhile (store.ErrBusy) or it changed since it was read (store.ErrChanged).
func setRowStatus(ctx context.Context, db *store.DB, r connector.InboxEvent, status, reason, verb string, now time.Time) (rowAction, error) {
	err := db.SetEventStatusFrom(ctx, r.ID, r.Status, status, reason, now)
	if errors.Is(err, store.ErrBusy) {
		return rowAction{Busy: true, Message: fmt.Sprintf("%s: not %s: it is being processed right now; try again", r.EventID, verb)}, nil
	}
	if errors.Is(err, store.ErrChanged) {
		return rowAction{Busy: true, Message: fmt.Sprintf("%s: not %s: it changed since it was read (%v); try again", r.EventID, verb, err)}, nil
	}
	if err != nil {
		return rowAction{}, err
	}
	return rowAction{Changed: true, Message: fmt.Sprintf("%s: %s → %s", r.EventID, r.Status, status)}, nil
}
