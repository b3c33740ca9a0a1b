package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// eventColumns lists the inbox columns in eventRow order.
const eventColumns = `id, account_id, event_id, event, business_key, raw_body, received_at, event_created_at,
	status, attempts, next_attempt_at, lease_owner, lease_until, last_error, result_doctype, result_name, updated_at, wait_for`

// eventRow is an inbox row as both drivers return it.
type eventRow struct {
	ID             int64    `db:"id"`
	AccountID      string   `db:"account_id"`
	EventID        string   `db:"event_id"`
	Event          string   `db:"event"`
	BusinessKey    string   `db:"business_key"`
	RawBody        []byte   `db:"raw_body"`
	ReceivedAt     dbTime   `db:"received_at"`
	EventCreatedAt nullTime `db:"event_created_at"`
	Status         string   `db:"status"`
	Attempts       int      `db:"attempts"`
	NextAttemptAt  dbTime   `db:"next_attempt_at"`
	LeaseOwner     string   `db:"lease_owner"`
	LeaseUntil     nullTime `db:"lease_until"`
	LastError      string   `db:"last_error"`
	ResultDoctype  string   `db:"result_doctype"`
	ResultName     string   `db:"result_name"`
	UpdatedAt      dbTime   `db:"updated_at"`
	WaitFor        string   `db:"wait_for"`
}

func (r *eventRow) event() *connector.InboxEvent {
	return &connector.InboxEvent{
		ID:             r.ID,
		AccountID:      r.AccountID,
		EventID:        r.EventID,
		Event:          r.Event,
		BusinessKey:    r.BusinessKey,
		RawBody:        r.RawBody,
		ReceivedAt:     r.ReceivedAt.Time,
		EventCreatedAt: r.EventCreatedAt.Time,
		Status:         connector.Status(r.Status),
		Attempts:       r.Attempts,
		NextAttemptAt:  r.NextAttemptAt.Time,
		LeaseOwner:     r.LeaseOwner,
		LeaseUntil:     r.LeaseUntil.Time,
		LastError:      r.LastError,
		ResultDoctype:  r.ResultDoctype,
		ResultName:     r.ResultName,
		UpdatedAt:      r.UpdatedAt.Time,
		WaitFor:        r.WaitFor,
	}
}

// InsertEvent stores a new inbox row. Zero fields are filled in place: ReceivedAt (now),
// NextAttemptAt (ReceivedAt), Status (pending), UpdatedAt (ReceivedAt); times are made UTC at
// microsecond precision and e.ID is set. It returns inserted=false, without error, when a row
// with the same (AccountID, EventID) exists; ids compare case-sensitively. An empty or
// oversized id is refused with an error that does not wrap connector.ErrStoreUnavailable.
func (d *DB) InsertEvent(ctx context.Context, e *connector.InboxEvent) (bool, error) {
	return d.insertEvent(ctx, e, false)
}

// InsertEventIfNoKey inserts e, like InsertEvent, only when no inbox row has e.BusinessKey
// (reconcile rows, DESIGN.md §8); inserted=false when one exists or when (AccountID, EventID)
// is taken. An empty BusinessKey is refused.
func (d *DB) InsertEventIfNoKey(ctx context.Context, e *connector.InboxEvent) (bool, error) {
	if e.BusinessKey == "" {
		return false, errors.New("store: insert event if no key: empty business key")
	}
	return d.insertEvent(ctx, e, true)
}

func (d *DB) insertEvent(ctx context.Context, e *connector.InboxEvent, ifNoKey bool) (bool, error) {
	if err := d.prepareEvent(e); err != nil {
		return false, err
	}
	args := []any{e.AccountID, e.EventID, e.Event, e.BusinessKey, e.RawBody, d.arg(e.ReceivedAt),
		d.argPtr(e.EventCreatedAt), e.Status, e.Attempts, d.arg(e.NextAttemptAt), e.LeaseOwner,
		d.argPtr(e.LeaseUntil), e.LastError, e.ResultDoctype, e.ResultName, d.arg(e.UpdatedAt)}
	query := `INSERT INTO inbox (account_id, event_id, event, business_key, raw_body, received_at,
	event_created_at, status, attempts, next_attempt_at, lease_owner, lease_until, last_error,
	result_doctype, result_name, updated_at) `
	if ifNoKey {
		query += `SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?` + d.dl.insertEventFrom() + ` WHERE NOT EXISTS (SELECT 1 FROM inbox WHERE business_key = ?)`
		args = append(args, e.BusinessKey)
	} else {
		query += `VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	}
	query += d.dl.insertEventConflict()
	if d.dl.insertedIDReturned() {
		return d.insertReturningID(ctx, e, query, args)
	}
	var res sql.Result
	err := retry(ctx, func() (err error) {
		if ifNoKey { // reconcile's insert: not on the webhook's path
			res, err = d.execContext(ctx, query, args...)
		} else {
			res, err = d.execHot(ctx, query, args...)
		}
		return err
	})
	if isDuplicate(err) {
		return false, nil
	}
	if err != nil {
		return false, d.unavailable("insert event "+e.EventID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		// The row may or may not exist: answering "duplicate" would make intake acknowledge a
		// webhook that was perhaps never stored, so Razorpay must retry instead.
		return false, d.unavailable("insert event "+e.EventID+": read affected rows", err)
	}
	if n == 0 {
		return false, nil
	}
	id, err := res.LastInsertId()
	if err != nil {
		return true, d.unavailable("insert event "+e.EventID+": read id", err)
	}
	e.ID = id
	return true, nil
}

// insertReturningID runs an inbox INSERT whose RETURNING clause gives the new row's id
// (PostgreSQL); no row back means the conflict clause inserted nothing.
func (d *DB) insertReturningID(ctx context.Context, e *connector.InboxEvent, query string, args []any) (bool, error) {
	var id int64
	err := d.returning(ctx, "insert event "+e.EventID, &id, query+` RETURNING id`, args...)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	e.ID = id
	return true, nil
}

// prepareEvent fills the defaults InsertEvent documents, makes the text columns valid UTF-8
// (validText: what is checked and stored is what e then holds) and checks the key columns.
func (d *DB) prepareEvent(e *connector.InboxEvent) error {
	for _, f := range []*string{&e.AccountID, &e.EventID, &e.Event, &e.BusinessKey, &e.LeaseOwner,
		&e.LastError, &e.ResultDoctype, &e.ResultName, &e.WaitFor} {
		*f = validText(*f)
	}
	switch {
	case e.EventID == "":
		return errors.New("store: insert event: empty event id")
	case utf8.RuneCountInString(e.EventID) > maxEventID:
		return fmt.Errorf("store: insert event: event id longer than %d characters", maxEventID)
	case utf8.RuneCountInString(e.AccountID) > maxAccountID:
		return fmt.Errorf("store: insert event %s: account id longer than %d characters", e.EventID, maxAccountID)
	case utf8.RuneCountInString(e.BusinessKey) > maxBusinessKey:
		return fmt.Errorf("store: insert event %s: business key longer than %d characters", e.EventID, maxBusinessKey)
	case utf8.RuneCountInString(e.LeaseOwner) > maxOwner:
		return fmt.Errorf("store: insert event %s: lease owner longer than %d characters", e.EventID, maxOwner)
	}
	if e.Status == "" {
		e.Status = connector.StatusPending
	}
	if !knownStatus(e.Status) {
		return fmt.Errorf("store: insert event %s: unknown status %q", e.EventID, e.Status)
	}
	e.Event = truncateRunes(e.Event, maxEventName)
	e.LastError = truncateBytes(e.LastError, maxLastError)
	if e.ReceivedAt.IsZero() {
		e.ReceivedAt = d.now()
	}
	e.ReceivedAt = utc(e.ReceivedAt)
	if e.NextAttemptAt.IsZero() {
		e.NextAttemptAt = e.ReceivedAt
	}
	e.NextAttemptAt = utc(e.NextAttemptAt)
	if e.UpdatedAt.IsZero() {
		e.UpdatedAt = e.ReceivedAt
	}
	e.UpdatedAt = utc(e.UpdatedAt)
	e.EventCreatedAt = utcPtr(e.EventCreatedAt)
	e.LeaseUntil = utcPtr(e.LeaseUntil)
	return nil
}

// GetEvent returns the inbox row with id, or connector.ErrNotFound.
func (d *DB) GetEvent(ctx context.Context, id int64) (*connector.InboxEvent, error) {
	var r eventRow
	err := d.getContext(ctx, &r, `SELECT `+eventColumns+` FROM inbox WHERE id = ?`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("event %d: %w", id, connector.ErrNotFound)
	}
	if err != nil {
		return nil, d.unavailable(fmt.Sprintf("get event %d", id), err)
	}
	return r.event(), nil
}

// FindEvents returns the rows whose event id or business key equals key (case-sensitively),
// oldest first (received_at, then id); an empty slice when none or when key is "".
func (d *DB) FindEvents(ctx context.Context, key string) ([]connector.InboxEvent, error) {
	if key == "" {
		return []connector.InboxEvent{}, nil
	}
	var rows []eventRow
	err := d.selectContext(ctx, &rows,
		`SELECT `+eventColumns+` FROM inbox WHERE event_id = ? OR business_key = ? ORDER BY received_at, id`, key, key)
	if err != nil {
		return nil, d.unavailable("find events "+key, err)
	}
	return events(rows), nil
}

// ListEvents returns the rows matching f (status, received_at >= Since, at most Limit rows),
// newest first (received_at, then id, descending).
func (d *DB) ListEvents(ctx context.Context, f connector.EventFilter) ([]connector.InboxEvent, error) {
	var where []string
	var args []any
	if f.Status != "" {
		where = append(where, "status = ?")
		args = append(args, f.Status)
	}
	if !f.Since.IsZero() {
		where = append(where, "received_at >= ?")
		args = append(args, d.arg(f.Since))
	}
	query := `SELECT ` + eventColumns + ` FROM inbox`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	query += " ORDER BY received_at DESC, id DESC"
	if f.Limit > 0 {
		query += " LIMIT ?"
		args = append(args, f.Limit)
	}
	return d.selectEvents(ctx, "list events", query, args...)
}

// selectEvents runs a query built per call (not kept prepared) and converts its rows.
func (d *DB) selectEvents(ctx context.Context, op, query string, args ...any) ([]connector.InboxEvent, error) {
	var rows []eventRow
	if err := d.db.SelectContext(ctx, &rows, query, textArgs(args)...); err != nil {
		return nil, d.unavailable(op, err)
	}
	return events(rows), nil
}

func events(rows []eventRow) []connector.InboxEvent {
	out := make([]connector.InboxEvent, 0, len(rows))
	for i := range rows {
		out = append(out, *rows[i].event())
	}
	return out
}

// CountByStatus returns the number of inbox rows per status. Every status the connector
// defines is present, with 0 when it has no rows, so gauges drop to zero.
func (d *DB) CountByStatus(ctx context.Context) (map[connector.Status]int, error) {
	var rows []struct {
		Status string `db:"status"`
		N      int    `db:"n"`
	}
	if err := d.db.SelectContext(ctx, &rows, `SELECT status, COUNT(*) AS n FROM inbox GROUP BY status`); err != nil {
		return nil, d.unavailable("count events by status", err)
	}
	counts := make(map[connector.Status]int, len(connector.Statuses))
	for _, s := range connector.Statuses {
		counts[s] = 0
	}
	for _, r := range rows {
		counts[connector.Status(r.Status)] = r.N
	}
	return counts, nil
}

// SetEventStatus moves the row id to status for a person (events replay|dismiss) and clears
// its lease. StatusPending replays: NextAttemptAt now and Attempts 0. Any other final status
// (dismissed, done, parked, dead, skipped, duplicate) is set as is. A non-empty reason replaces
// LastError; an empty one keeps it. StatusProcessing is refused (it needs a lease);
// connector.ErrNotFound when the row does not exist.
//
// A row that is processing under a lease still live at now (lease_until >= now) is left alone
// and an error wrapping ErrBusy and connector.ErrLeaseLost is returned: the worker holding it
// would otherwise lose its outcome (CompleteEvent fails with ErrLeaseLost), perhaps a booking
// it has just made. A processing row whose lease has ended (its worker died) may be changed.
// The check is part of the UPDATE, so it holds against a worker claiming the row meanwhile.
func (d *DB) SetEventStatus(ctx context.Context, id int64, status connector.Status, reason string, now time.Time) error {
	return d.setEventStatus(ctx, id, "", status, reason, now)
}

// SetEventStatusFrom is SetEventStatus for a decision a person made on the row as it was read:
// it changes the row only while its status is still from, in the same single UPDATE, so a
// replay or dismiss never lands on a row a worker finished meanwhile (a dismissed row whose
// payment was just booked), on one server or on any node of a Galera cluster. When the status
// moved on, nothing changes and the error wraps ErrChanged (and names the status now);
// ErrBusy and connector.ErrNotFound as for SetEventStatus.
func (d *DB) SetEventStatusFrom(ctx context.Context, id int64, from, status connector.Status, reason string, now time.Time) error {
	if from == "" {
		return fmt.Errorf("store: set event %d status: empty expected status", id)
	}
	return d.setEventStatus(ctx, id, from, status, reason, now)
}

// setEventStatus is SetEventStatus, also conditional on the current status when from is set.
func (d *DB) setEventStatus(ctx context.Context, id int64, from, status connector.Status, reason string, now time.Time) error {
	action := connector.ActionCorrect
	if from != "" {
		action = connector.ActionOf(from, status)
	}
	query, args, err := d.statusUpdate(id, from, status, action, reason, now)
	if err != nil {
		return err
	}
	n, err := d.exec(ctx, fmt.Sprintf("set event %d status %s", id, status), query, args...)
	if err != nil || n > 0 {
		return err
	}
	return d.statusUnchanged(ctx, id, from, status, now)
}

// statusUpdate is the one UPDATE of setEventStatus and its arguments: action (written to
// last_action) moves the row to status, from one of the statuses connector.Transitions lets
// action move to status (and from from, when set).
func (d *DB) statusUpdate(id int64, from, status connector.Status, action connector.Action, reason string, now time.Time) (string, []any, error) {
	if status == connector.StatusProcessing || !knownStatus(status) {
		return "", nil, fmt.Errorf("store: set event %d status: cannot set status %q", id, status)
	}
	froms := connector.FromOf(action, status)
	if len(froms) == 0 {
		return "", nil, fmt.Errorf("%w: set event %d status %s by %s", ErrTransition, id, status, action)
	}
	set := []string{"status = ?", "last_action = ?", "lease_owner = ''", "lease_until = NULL", "updated_at = ?"}
	args := []any{status, action, d.arg(now)}
	if status == connector.StatusPending {
		set = append(set, "next_attempt_at = ?", "attempts = 0")
		args = append(args, d.arg(now))
	}
	if reason != "" {
		set = append(set, "last_error = ?")
		args = append(args, truncateBytes(reason, maxLastError))
	}
	where := `id = ? AND NOT (status = ? AND lease_until IS NOT NULL AND lease_until >= ?) AND status IN (` +
		placeholders(len(froms)) + `)`
	args = append(args, id, connector.StatusProcessing, d.arg(now))
	for _, f := range froms {
		args = append(args, f)
	}
	if from != "" {
		where += ` AND status = ?`
		args = append(args, from)
	}
	return `UPDATE inbox SET ` + strings.Join(set, ", ") + ` WHERE ` + where, args, nil
}

// statusUnchanged says why statusUpdate changed no row: connector.ErrNotFound, a live lease
// (ErrBusy, connector.ErrLeaseLost) or a status other than from (ErrChanged).
func (d *DB) statusUnchanged(ctx context.Context, id int64, from, status connector.Status, now time.Time) error {
	var row struct {
		Status     connector.Status `db:"status"`
		LeaseOwner string           `db:"lease_owner"`
		LeaseUntil nullTime         `db:"lease_until"`
	}
	err := d.db.GetContext(ctx, &row, `SELECT status, lease_owner, lease_until FROM inbox WHERE id = ?`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("event %d: %w", id, connector.ErrNotFound)
	}
	if err != nil {
		return d.unavailable(fmt.Sprintf("set event %d status %s", id, status), err)
	}
	live := row.Status == connector.StatusProcessing && row.LeaseUntil.Time != nil && !row.LeaseUntil.Time.Before(utc(now))
	if live || from == "" {
		return fmt.Errorf("event %d: %w (leased to %s: %w)", id, ErrBusy, row.LeaseOwner, connector.ErrLeaseLost)
	}
	if row.Status == from {
		return fmt.Errorf("%w: event %d: %s → %s", ErrTransition, id, from, status)
	}
	return fmt.Errorf("event %d: %w: it is %s now, not %s", id, ErrChanged, row.Status, from)
}

// markable are the statuses connector.ActionMark moves to duplicate (parked, pending, dead).
var markable = statusArgs(connector.FromOf(connector.ActionMark, connector.StatusDuplicate))

// statusArgs is ss as query arguments.
func statusArgs(ss []connector.Status) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// MarkDuplicates turns the parked, pending and dead rows of businessKey, other than exceptID,
// into StatusDuplicate with LastError "duplicate of <result>" (result names the booked
// document, e.g. "Payment Entry ACC-PAY-2026-00001"). Rows being processed or already final
// are left alone. It returns how many rows changed; 0 for an empty businessKey.
func (d *DB) MarkDuplicates(ctx context.Context, businessKey string, exceptID int64, result string, now time.Time) (int, error) {
	if businessKey == "" {
		return 0, nil
	}
	n, err := d.exec(ctx, "mark duplicates of "+businessKey,
		`UPDATE inbox SET status = ?, last_action = ?, last_error = ?, updated_at = ?
		WHERE business_key = ? AND id <> ? AND status IN (`+placeholders(len(markable))+`) AND event <> ?`,
		append(append([]any{connector.StatusDuplicate, connector.ActionMark, truncateBytes("duplicate of "+result, maxLastError),
			d.arg(now), businessKey, exceptID}, markable...), connector.EventRefundFailed)...)
	return int(n), err
}
