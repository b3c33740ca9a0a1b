package store

import (
	"context"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// The per-event history (table inbox_history): what a person did to an inbox row, written in
// the same transaction as the change itself, so a replay or dismiss is never without its
// entry, nor an entry without its change.

// maxHistoryActor and maxHistoryDetail bound the actor and detail of a history entry, in bytes.
const (
	maxHistoryActor  = 255
	maxHistoryDetail = 4000
)

// SetEventStatusBy is SetEventStatusFrom for a person's decision, recorded: the row moves from
// status from to status (the same conditional UPDATE) and h is inserted as its history entry
// (EventID, From and To are set from id, from and status; At from now when zero), both in one
// transaction or neither. Errors as for SetEventStatusFrom; nothing is recorded when the row
// did not change. A dismissal (status dismissed, h.Action HistoryDismissed) inserts the row's
// dismissal (who h.Actor, why h.Detail, when h.At) and a move to any other status lifts the
// row's dismissals that hold, in the same transaction (dismissals.go).
func (d *DB) SetEventStatusBy(ctx context.Context, id int64, from, status connector.Status, reason string, h connector.HistoryEntry, now time.Time) error {
	if from == "" {
		return fmt.Errorf("store: set event %d status: empty expected status", id)
	}
	query, args, err := d.statusUpdate(id, from, status, historyAction(h.Action, from, status), reason, now)
	if err != nil {
		return err
	}
	if h.At.IsZero() {
		h.At = now
	}
	op := fmt.Sprintf("set event %d status %s", id, status)
	changed := false
	err = retry(ctx, func() error {
		tx, err := d.db.BeginTxx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback() //nolint:errcheck // no-op after Commit
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil || n == 0 {
			changed = false
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO inbox_history (inbox_id, at, actor, action, from_status, to_status, detail, attempts)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, id, d.arg(h.At), truncateBytes(h.Actor, maxHistoryActor), h.Action, from, status,
			truncateBytes(h.Detail, maxHistoryDetail), h.Attempts); err != nil {
			return err
		}
		if err := d.recordDismissal(ctx, tx, id, from, status, h); err != nil {
			return err
		}
		changed = true
		return tx.Commit()
	})
	if err != nil {
		return d.unavailable(op, err)
	}
	if !changed {
		return d.statusUnchanged(ctx, id, from, status, now)
	}
	return nil
}

// historyAction is the lifecycle action a person's change recorded as history action is
// (replayed, rebooked, dismissed); connector.ActionOf for any other. A replay of a row only a
// rebook may send back (`events replay --rebook` of a done or duplicate row) is a rebook.
func historyAction(action string, from, to connector.Status) connector.Action {
	switch action {
	case connector.HistoryReplayed:
		if !connector.Allowed(from, to, connector.ActionReplay) {
			return connector.ActionRebook
		}
		return connector.ActionReplay
	case connector.HistoryRebooked:
		return connector.ActionRebook
	case connector.HistoryDismissed:
		return connector.ActionDismiss
	}
	return connector.ActionOf(from, to)
}

// historyRow is an inbox_history row as both drivers return it.
type historyRow struct {
	InboxID  int64  `db:"inbox_id"`
	At       dbTime `db:"at"`
	Actor    string `db:"actor"`
	Action   string `db:"action"`
	From     string `db:"from_status"`
	To       string `db:"to_status"`
	Detail   string `db:"detail"`
	Attempts int    `db:"attempts"`
}

// EventHistory returns the history entries of the inbox row id, oldest first (none for a row
// nobody acted on, or one that does not exist).
func (d *DB) EventHistory(ctx context.Context, id int64) ([]connector.HistoryEntry, error) {
	var rows []historyRow
	err := d.db.SelectContext(ctx, &rows, `SELECT inbox_id, at, actor, action, from_status, to_status, detail, attempts
		FROM inbox_history WHERE inbox_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, d.unavailable(fmt.Sprintf("history of event %d", id), err)
	}
	out := make([]connector.HistoryEntry, 0, len(rows))
	for _, r := range rows {
		out = append(out, connector.HistoryEntry{EventID: r.InboxID, At: r.At.Time, Actor: r.Actor, Action: r.Action,
			From: connector.Status(r.From), To: connector.Status(r.To), Detail: r.Detail, Attempts: r.Attempts})
	}
	return out, nil
}
