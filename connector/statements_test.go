package connector_test

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/intake"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/sqlcount"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// countedSQLite opens a migrated SQLite store whose statements count into c.
func countedSQLite(c *sqlcount.Counter) func(testing.TB) *store.DB {
	return func(t testing.TB) *store.DB { t.Helper(); return sqliteStoreWith(t, store.Options{Wrap: c.Wrap}) }
}

// countedMariaDB opens a migrated store on a fresh MariaDB database (dropped after the test)
// whose statements count into c. Without TEST_MARIADB_DSN the test skips, except under CI.
func countedMariaDB(c *sqlcount.Counter) func(testing.TB) *store.DB {
	return func(t testing.TB) *store.DB { t.Helper(); return mariadbStoreWith(t, store.Options{Wrap: c.Wrap}) }
}

// countedPostgres opens a migrated store on a fresh PostgreSQL database (dropped after the test)
// whose statements count into c. Without TEST_POSTGRES_DSN the test skips, except under CI.
func countedPostgres(c *sqlcount.Counter) func(testing.TB) *store.DB {
	return func(t testing.TB) *store.DB { t.Helper(); return postgresStoreWith(t, store.Options{Wrap: c.Wrap}) }
}

// bookingBudget is what one plain booking may cost the store: the statements by kind and
// table (sqlcount.Kind) and the commits.
type bookingBudget struct {
	intake, worker map[string]int
	intakeCommits  int
	workerCommits  int
}

// plainBudget is one plain booking on either driver (2026-12-03). The intake: the INSERT of the
// inbox row. The worker: one SELECT of the due candidates (both indexes in one statement), the
// claiming UPDATE and the read of the claimed row; the payment state upsert (no read back when
// it moved); the look-up of a dismissal of the payment (SELECT dismissals); the
// booking claim (INSERT … RETURNING, no read back); the invoice lock (INSERT … RETURNING); the
// fences before the write (UPDATE bookings, the lock's INSERT … RETURNING); FinishBooking
// (UPDATE bookings); the key's other rows marked duplicates and the waiters of the receipt and
// of the claim woken (two UPDATE inbox); the lock released and its waiters woken (DELETE locks,
// UPDATE inbox); the outcome (UPDATE inbox). Nothing else: no read-backs of rows the
// statements already answered, no DELETE of a claim that is booked. Before this budget the
// same booking cost 23 statements and 14 commits.
var plainBudget = bookingBudget{
	intake: map[string]int{"INSERT inbox": 1}, intakeCommits: 1,
	worker: map[string]int{"SELECT inbox": 2, "SELECT dismissals": 1, "UPDATE inbox": 5, "INSERT payment_states": 1, "INSERT bookings": 1,
		"UPDATE bookings": 2, "INSERT locks": 2, "DELETE locks": 1},
	workerCommits: 12,
}

// plainBooking delivers one payment.captured webhook for one Sales Invoice and books it with
// one ProcessNext, as a worker does, and returns what the intake and the worker each cost the
// store, counted at the driver edge.
func plainBooking(t *testing.T, r *rig, c *sqlcount.Counter, id string) (received, worker sqlcount.Counts) {
	t.Helper()
	inv := r.invoice("Test Customer", "1180.00")
	body := captured(t, id, 118000, inv, nil)
	c.Reset()
	dup, err := r.conn.Intake().Receive(context.Background(), intake.Delivery{Body: body, Signature: razorpay.Sign(secretNew, body), EventID: headerID("E" + id[len(id)-4:])})
	if err != nil || dup {
		t.Fatalf("receive %s: duplicate %v, %v", id, dup, err)
	}
	received = c.Snapshot()
	c.Reset()
	did, err := r.conn.ProcessNext(context.Background(), 0)
	worker = c.Snapshot()
	if err != nil || !did {
		t.Fatalf("ProcessNext = %v, %v; want the event processed", did, err)
	}
	r.one(id)
	if b, err := r.db.GetBooking(context.Background(), id); err != nil || b.State != connector.BookingBooked {
		t.Fatalf("booking of %s: %+v, %v; want booked", id, b, err)
	}
	return received, worker
}

// The store statements and commits of one plain booking, on each driver, after a first
// booking has warmed the process's caches: the intake's one INSERT, then the worker's claim of
// the event, the payment state, the booking claim, the invoice lock, the fences, the finished
// booking, the outcome and the releases. The histogram is logged; any statement more fails.
func TestPlainBookingStatementBudget(t *testing.T) {
	for _, tc := range []struct {
		name   string
		open   func(*sqlcount.Counter) func(testing.TB) *store.DB
		budget bookingBudget
	}{
		{"SQLite", countedSQLite, plainBudget},
		{"MariaDB", countedMariaDB, plainBudget},
		{"PostgreSQL", countedPostgres, plainBudget},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c sqlcount.Counter
			r := newRig(t, withStore(tc.open(&c)))
			plainBooking(t, r, &c, "pay_T3stStmt000001") // warms the caches
			intake, worker := plainBooking(t, r, &c, "pay_T3stStmt000002")
			t.Logf("intake:\n%s", intake)
			t.Logf("worker:\n%s", worker)
			b := tc.budget
			if !maps.Equal(intake.Statements, b.intake) || intake.Commits != b.intakeCommits {
				t.Errorf("intake cost %v and %d commits; want %v and %d", intake.Statements, intake.Commits, b.intake, b.intakeCommits)
			}
			if !maps.Equal(worker.Statements, b.worker) || worker.Commits != b.workerCommits {
				t.Errorf("worker cost %v and %d commits; want %v and %d", worker.Statements, worker.Commits, b.worker, b.workerCommits)
				for _, q := range worker.Texts {
					t.Logf("  %.300s", strings.Join(strings.Fields(q), " "))
				}
			}
		})
	}
}
