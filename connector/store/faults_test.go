package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// These tests need failures that a healthy database does not produce on demand (a result
// whose RowsAffected fails, a deadlock on a plain INSERT), so they run the store's SQL for each
// driver against a scripted database/sql driver instead of the contract suite's real ones.

// scripted is a database/sql driver whose Exec answers come from a list, one per call.
type scripted struct {
	mu      sync.Mutex
	answers []execAnswer
	queries []string
}

type execAnswer struct {
	res driver.Result
	err error
}

func (s *scripted) Connect(context.Context) (driver.Conn, error) { return scriptedConn{s}, nil }
func (s *scripted) Driver() driver.Driver                        { return s }
func (s *scripted) Open(string) (driver.Conn, error)             { return scriptedConn{s}, nil }

func (s *scripted) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queries)
}

type scriptedConn struct{ s *scripted }

func (c scriptedConn) ExecContext(_ context.Context, query string, _ []driver.NamedValue) (driver.Result, error) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.s.queries = append(c.s.queries, query)
	if len(c.s.answers) == 0 {
		return nil, errors.New("scripted driver: no answer left")
	}
	a := c.s.answers[0]
	c.s.answers = c.s.answers[1:]
	return a.res, a.err
}
func (c scriptedConn) Prepare(string) (driver.Stmt, error) {
	return nil, errors.New("scripted driver: no prepared statements")
}
func (c scriptedConn) Close() error { return nil }
func (c scriptedConn) Begin() (driver.Tx, error) {
	return nil, errors.New("scripted driver: no transactions")
}

// result is a driver.Result; rowsErr makes RowsAffected fail.
type result struct {
	id, rows int64
	rowsErr  error
}

func (r result) LastInsertId() (int64, error) { return r.id, nil }
func (r result) RowsAffected() (int64, error) { return r.rows, r.rowsErr }

// scriptedDB returns a store speaking driver's SQL to a scripted database.
func scriptedDB(t *testing.T, driverName string, answers ...execAnswer) (*DB, *scripted) {
	t.Helper()
	s := &scripted{answers: answers}
	sqlDB := sql.OpenDB(s)
	t.Cleanup(func() { sqlDB.Close() })
	return newDB(sqlx.NewDb(sqlDB, driverName), dialects[driverName]), s
}

// transientError returns the error driver reports when a statement lost a race with another
// writer: an InnoDB deadlock, or SQLite busy (taken from a real SQLite database, since the
// driver's error type cannot be built).
func transientError(t *testing.T, driverName string) error {
	t.Helper()
	if driverName == DriverMySQL {
		return &mysql.MySQLError{Number: mysqlLockDeadlock, Message: "Deadlock found when trying to get lock; try restarting transaction"}
	}
	dsn := filepath.Join(t.TempDir(), "busy.db") + "?_pragma=busy_timeout(0)&_pragma=journal_mode(WAL)"
	holder, err := sql.Open(DriverSQLite, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	holder.SetMaxOpenConns(2)
	ctx := context.Background()
	if _, err := holder.ExecContext(ctx, `CREATE TABLE t (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	a, err := holder.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := holder.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := a.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	defer a.ExecContext(ctx, `ROLLBACK`) //nolint:errcheck // test cleanup
	_, err = b.ExecContext(ctx, `INSERT INTO t (x) VALUES (1)`)
	if !isTransient(err) {
		t.Fatalf("SQLite write under another writer's lock: err = %v; want a busy error", err)
	}
	return err
}

var bothDrivers = []string{DriverMySQL, DriverSQLite}

// A result whose affected-row count cannot be read says nothing about whether the row was
// stored: InsertEvent must report the store unavailable (intake answers 503, Razorpay
// retries), never "duplicate" (intake answers 200 and the webhook may be lost).
func TestInsertEventUnreadableRowsAffectedIsUnavailable(t *testing.T) {
	for _, drv := range bothDrivers {
		t.Run(drv, func(t *testing.T) {
			for _, ifNoKey := range []bool{false, true} {
				db, _ := scriptedDB(t, drv, execAnswer{res: result{id: 1, rowsErr: errors.New("bad connection")}})
				e := &connector.InboxEvent{AccountID: "acc_1", EventID: "evt_1", Event: "payment.captured",
					BusinessKey: "pay_1", RawBody: []byte(`{}`)}
				insert := db.InsertEvent
				if ifNoKey {
					insert = db.InsertEventIfNoKey
				}
				inserted, err := insert(context.Background(), e)
				if inserted || !errors.Is(err, connector.ErrStoreUnavailable) {
					t.Fatalf("insert (ifNoKey %v) with unreadable RowsAffected = %v, %v; want false, ErrStoreUnavailable",
						ifNoKey, inserted, err)
				}
			}
		})
	}
}

// StartReconcileRun is a write like the others: a deadlock (MariaDB) or busy (SQLite) answer
// is retried, not reported as the store being down.
func TestStartReconcileRunRetriesTransientErrors(t *testing.T) {
	for _, drv := range bothDrivers {
		t.Run(drv, func(t *testing.T) {
			db, s := scriptedDB(t, drv,
				execAnswer{err: transientError(t, drv)},
				execAnswer{err: transientError(t, drv)},
				execAnswer{res: result{id: 7, rows: 1}})
			r := &connector.ReconcileRun{WindowFrom: time.Now().Add(-time.Hour), WindowTo: time.Now()}
			if err := db.StartReconcileRun(context.Background(), r); err != nil {
				t.Fatalf("StartReconcileRun after two transient errors: %v; want it retried", err)
			}
			if r.ID != 7 || s.calls() != 3 {
				t.Fatalf("run id %d after %d attempts; want 7 after 3", r.ID, s.calls())
			}
		})
	}
}
