package main

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

// inboxInsert is a single-row INSERT of every inbox column, the shape of the store's intake
// write; the floor server and the baseline use it as one statement prepared once.
const inboxInsert = `INSERT INTO inbox (account_id, event_id, event, business_key, raw_body, received_at,
	event_created_at, status, attempts, next_attempt_at, lease_owner, lease_until, last_error,
	result_doctype, result_name, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, '', NULL, '', '', '', ?)`

// inboxArgs are inboxInsert's arguments for one row received now.
func inboxArgs(driver, eventID, key string, body []byte, now time.Time) []any {
	var at any = now.UTC()
	if driver == store.DriverSQLite {
		at = now.UTC().Format("2006-01-02 15:04:05.000000") // the store's SQLite layout
	}
	return []any{benchAccount, eventID, "payment.captured", key, body, at, at, "pending", at, at}
}

// BaselineRun is (1): committed single-row inserts per second into the inbox table of a fresh
// database, through the store's own driver and pool, the statement prepared once.
type BaselineRun struct {
	Callers   int     `json:"concurrency"`
	InsertsPS float64 `json:"inserts_per_s"`
	Latency   Latency `json:"latency"`
}

// measureBaseline inserts from `callers` goroutines for warm (not counted: the first commits
// of a new database grow its files, SQLite's WAL above all, as the floor's and the daemon's
// warm-ups do), then for d (each insert its own autocommit transaction, as the store's intake
// write is), and checks the table holds every row it counted.
func measureBaseline(ctx context.Context, db *database, callers int, warm, d time.Duration, body []byte) (BaselineRun, error) {
	s, err := store.Open(ctx, db.Driver, db.DSN)
	if err != nil {
		return BaselineRun{}, err
	}
	defer s.Close()
	stmt, err := s.SQL().PrepareContext(ctx, inboxInsert)
	if err != nil {
		return BaselineRun{}, fmt.Errorf("prepare: %w", err)
	}
	defer stmt.Close()
	var firstErr error
	var once sync.Once
	insert := func(i int) outcome {
		_, err := stmt.ExecContext(ctx, inboxArgs(db.Driver, fmt.Sprintf("B%013d", i), fmt.Sprintf("pay_B%013d", i), body, time.Now())...)
		if err != nil {
			once.Do(func() { firstErr = err })
			return outError
		}
		return outAccepted
	}
	w, next := closedLoop(ctx, callers, warm, 0, insert)
	r, _ := closedLoop(ctx, callers, d, next, insert)
	if firstErr != nil {
		return BaselineRun{}, fmt.Errorf("baseline insert: %w", firstErr)
	}
	n := r.Counts.Accepted
	if err := checkRows(ctx, s.SQL().DB, w.Counts.Accepted+n, 0); err != nil {
		return BaselineRun{}, err
	}
	return BaselineRun{Callers: callers, InsertsPS: perSecond(n, r.Elapsed), Latency: r.Latency}, nil
}

// checkRows fails unless the inbox holds the accepted rows: a figure is only reported for
// writes that are really there. unsure deliveries got no definite answer (a client time-out, a
// dropped connection, a 503 or another status): each may or may not have been stored, so the
// count may exceed accepted by that many, never more and never fall short.
func checkRows(ctx context.Context, db *sql.DB, accepted, unsure int) error {
	var got int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM inbox`).Scan(&got); err != nil {
		return err
	}
	if got < accepted || got > accepted+unsure {
		return fmt.Errorf("inbox holds %d rows; %d were acknowledged as stored and %d got no definite answer", got, accepted, unsure)
	}
	return nil
}
