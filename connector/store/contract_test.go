package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

// backend is one implementation under the contract suite: a driver and a way to make a new,
// empty database that disappears when the test ends. Tests that need two replicas open two
// handles on one database; the rest use fresh.
type backend struct {
	driver      string
	newDatabase func(t testing.TB) (dsn string)
}

// open opens a handle on dsn, closed when t ends; it does not migrate.
func (b backend) open(t testing.TB, dsn string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), b.driver, dsn)
	if err != nil {
		t.Fatalf("Open(%s): %v", b.driver, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// fresh returns a migrated store on a new database of its own.
func (b backend) fresh(t testing.TB) *store.DB {
	t.Helper()
	db := b.open(t, b.newDatabase(t))
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	return db
}

// contractCase is one behaviour every store must show.
type contractCase struct {
	name string
	run  func(t *testing.T, b backend)
}

// contractCases collects the cases of the contract_*_test.go files.
func contractCases() []contractCase {
	var all []contractCase
	all = append(all, inboxCases...)
	all = append(all, claimCases...)
	all = append(all, raceCases...)
	all = append(all, bookingCases...)
	all = append(all, lockCases...)
	all = append(all, migrateCases...)
	all = append(all, retentionCases...)
	all = append(all, waiterCases...)
	all = append(all, textCases...)
	all = append(all, historyCases...)
	all = append(all, guardCases...)
	all = append(all, dismissalCases...)
	all = append(all, waitColumnCases...)
	return all
}

// runContract runs the whole contract suite against b; each case in parallel, on its own
// database.
func runContract(t *testing.T, b backend) {
	for _, c := range contractCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, b)
		})
	}
}

// t0 is the suite's fixed clock: a UTC time with microseconds, so round trips are exact.
var t0 = time.Date(2026, 3, 14, 9, 26, 53, 589793000, time.UTC)

// ctx is the context of every store call in the suite.
var ctx = context.Background()

// newEvent returns an inbox row received at `at`, with a raw body naming the event.
func newEvent(account, eventID, key string, at time.Time) *connector.InboxEvent {
	return &connector.InboxEvent{
		AccountID:   account,
		EventID:     eventID,
		Event:       "payment.captured",
		BusinessKey: key,
		RawBody:     []byte(`{"event":"payment.captured","id":"` + eventID + `"}`),
		ReceivedAt:  at,
	}
}

// mustInsert inserts e and fails unless it was new.
func mustInsert(t *testing.T, db *store.DB, e *connector.InboxEvent) *connector.InboxEvent {
	t.Helper()
	inserted, err := db.InsertEvent(ctx, e)
	if err != nil || !inserted {
		t.Fatalf("InsertEvent(%s) = %v, %v; want inserted", e.EventID, inserted, err)
	}
	return e
}

// mustClaim claims the next event and fails unless there is one.
func mustClaim(t *testing.T, db *store.DB, owner string, now time.Time, lease time.Duration) *connector.InboxEvent {
	t.Helper()
	ev, err := db.ClaimNextEvent(ctx, owner, now, lease)
	if err != nil || ev == nil {
		t.Fatalf("ClaimNextEvent(%s, %v) = %v, %v; want an event", owner, now, ev, err)
	}
	return ev
}

// mustGet returns the row id.
func mustGet(t *testing.T, db *store.DB, id int64) *connector.InboxEvent {
	t.Helper()
	ev, err := db.GetEvent(ctx, id)
	if err != nil {
		t.Fatalf("GetEvent(%d): %v", id, err)
	}
	return ev
}

// wantErr fails unless errors.Is(err, target).
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: err = %v; want %v", what, err, target)
	}
}

// wantNoErr fails on err.
func wantNoErr(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// wantTime fails unless got is want, in UTC.
func wantTime(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	if !got.Equal(want) || got.Location() != time.UTC {
		t.Fatalf("%s = %v; want %v in UTC", what, got, want)
	}
}
