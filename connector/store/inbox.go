package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// eventColumns lists the inbox columns in eventRow order.
const eventColumns = `id, account_id, event_id, event, business_key, raw_body, received_at, event_created_at,
	status, attempts, next_attempt_at, lease_owner, lease_until, last_error, result_doctype, result_name, updated_at, wait_kind, wait_key`

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
	WaitKind       string   `db:"wait_kind"`
	WaitKey        string   `db:"wait_key"`
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
		WaitFor:        connector.Wait{Kind: connector.WaitKind(r.WaitKind), Key: r.WaitKey},
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
		&e.LastError, &e.ResultDoctype, &e.ResultName} {
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
