package store_test

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/sqlcount"
)

// The store's conditional writes answer from the statement itself (RETURNING, rows affected),
// so the answer cannot come from a row that changed in between, and cost no second statement.

func init() { lockCases = append(lockCases, answerCases...) }

// counted returns a migrated store on a new database whose statements count into c.
func counted(t *testing.T, b backend, c *sqlcount.Counter) *store.DB {
	t.Helper()
	db, err := store.OpenWith(context.Background(), b.driver, b.newDatabase(t), store.Options{Wrap: c.Wrap})
	if err != nil {
		t.Fatalf("OpenWith(%s): %v", b.driver, err)
	}
	t.Cleanup(func() { db.Close() })
	wantNoErr(t, "Migrate", db.Migrate(ctx))
	return db
}

// wantStatements fails unless c counted exactly want since its last reset, then resets it.
func wantStatements(t *testing.T, what string, c *sqlcount.Counter, want map[string]int) {
	t.Helper()
	got := c.Snapshot()
	c.Reset()
	if !maps.Equal(got.Statements, want) {
		t.Fatalf("%s ran %v; want %v", what, got.Statements, want)
	}
}

var answerCases = []contractCase{
	{"AcquireLockAnswersInOneStatement", func(t *testing.T, b backend) {
		var c sqlcount.Counter
		db := counted(t, b, &c)
		one := map[string]int{"INSERT locks": 1}
		steps := []struct {
			what         string
			owner        string
			now, expires time.Time
			want         bool
			holder       string
			liveUntil    time.Time // the row's expires_at after the step
		}{
			{"fresh insert", "w1", t0, t0.Add(time.Minute), true, "w1", t0.Add(time.Minute)},
			{"held by another, live", "w2", t0.Add(time.Second), t0.Add(time.Hour), false, "w1", t0.Add(time.Minute)},
			{"own extension", "w1", t0.Add(2 * time.Second), t0.Add(2 * time.Minute), true, "w1", t0.Add(2 * time.Minute)},
			{"own extension, expires_at unchanged", "w1", t0.Add(3 * time.Second), t0.Add(2 * time.Minute), true, "w1", t0.Add(2 * time.Minute)},
			{"held by another at its expires_at", "w2", t0.Add(2 * time.Minute), t0.Add(time.Hour), false, "w1", t0.Add(2 * time.Minute)},
			{"expired takeover", "w2", t0.Add(2*time.Minute + time.Microsecond), t0.Add(time.Hour), true, "w2", t0.Add(time.Hour)},
			{"old owner after the takeover", "w1", t0.Add(3 * time.Minute), t0.Add(4 * time.Minute), false, "w2", t0.Add(time.Hour)},
		}
		c.Reset()
		for _, s := range steps {
			got, err := db.AcquireLock(ctx, invoiceLock, s.owner, s.now, s.expires)
			if err != nil || got != s.want {
				t.Fatalf("%s: AcquireLock(%s at %v) = %v, %v; want %v", s.what, s.owner, s.now, got, err, s.want)
			}
			wantStatements(t, s.what, &c, one)
			var row struct {
				Owner     string `db:"owner"`
				ExpiresAt string `db:"expires_at"`
			}
			wantNoErr(t, "read lock row", db.SQL().GetContext(ctx, &row, db.SQL().Rebind(`SELECT owner, expires_at FROM locks WHERE name = ?`), invoiceLock))
			if row.Owner != s.holder {
				t.Fatalf("%s: lock held by %s; want %s", s.what, row.Owner, s.holder)
			}
			// Live exactly up to liveUntil: held at it, free a microsecond after.
			if held, err := db.LockHeld(ctx, invoiceLock, s.liveUntil); err != nil || !held {
				t.Fatalf("%s: LockHeld at %v = %v, %v; want held", s.what, s.liveUntil, held, err)
			}
			if held, err := db.LockHeld(ctx, invoiceLock, s.liveUntil.Add(time.Microsecond)); err != nil || held {
				t.Fatalf("%s: LockHeld after %v = %v, %v; want free", s.what, s.liveUntil, held, err)
			}
			c.Reset()
		}
		// Released in between: the next owner inserts afresh, in one statement.
		wantNoErr(t, "ReleaseLock", db.ReleaseLock(ctx, invoiceLock, "w2"))
		c.Reset()
		acquire(t, db, invoiceLock, "w3", t0.Add(4*time.Minute), t0.Add(5*time.Minute), true)
		wantStatements(t, "insert after release", &c, one)
	}},
	{"ClaimBookingReturnsTheRowItWrote", func(t *testing.T, b backend) {
		var c sqlcount.Counter
		db := counted(t, b, &c)
		wantRow := func(what string, row connector.Booking) {
			t.Helper()
			got, err := db.GetBooking(ctx, row.BusinessKey)
			c.Reset()
			if err != nil || *got != row {
				t.Fatalf("%s: ClaimBooking returned %+v; GetBooking = %+v, %v", what, row, got, err)
			}
		}
		fence := t0.Add(3 * time.Minute)
		c.Reset()
		row := claimBooking(t, db, newBooking("pay_1", "w1", fence), t0, true)
		wantStatements(t, "fresh claim", &c, map[string]int{"INSERT bookings": 1})
		wantRow("fresh claim", row)

		taker := newBooking("pay_1", "w2", fence.Add(time.Hour))
		taker.AmountMinor = 70000
		row = claimBooking(t, db, taker, fence.Add(time.Microsecond), true)
		wantStatements(t, "takeover", &c, map[string]int{"INSERT bookings": 1})
		wantRow("takeover", row)
		wantTime(t, "CreatedAt after a takeover", row.CreatedAt, t0)

		// Left as it is: MariaDB's RETURNING still names the row; SQLite and PostgreSQL
		// (DO UPDATE … WHERE false) return none and read it.
		leftAlone := map[string]int{"INSERT bookings": 1}
		if b.driver != "mysql" {
			leftAlone["SELECT bookings"] = 1
		}
		row = claimBooking(t, db, newBooking("pay_1", "w1", t0.Add(48*time.Hour)), fence.Add(time.Minute), false)
		wantStatements(t, "held by another", &c, leftAlone)
		wantRow("held by another", row)
		if row.Owner != "w2" || row.AmountMinor != 70000 {
			t.Fatalf("refused claim changed the row: %+v", row)
		}
		row = claimBooking(t, db, newBooking("pay_1", "w2", t0.Add(48*time.Hour)), fence.Add(time.Minute), true)
		wantStatements(t, "own live claim", &c, leftAlone)
		wantTime(t, "own live claim's fence", row.FenceUntil, fence.Add(time.Hour))

		wantNoErr(t, "FinishBooking", db.FinishBooking(ctx, booked("pay_1", "ACC-PAY-2026-00001"), fence.Add(2*time.Minute)))
		c.Reset()
		row = claimBooking(t, db, newBooking("pay_1", "w3", t0.Add(48*time.Hour)), t0.Add(24*time.Hour), false)
		wantStatements(t, "booked", &c, leftAlone)
		wantRow("booked", row)
	}},
	{"RecordPaymentStateReadsBackOnlyWhenLeftAlone", func(t *testing.T, b backend) {
		var c sqlcount.Counter
		db := counted(t, b, &c)
		c.Reset()
		now := t0.Add(123456789 * time.Nanosecond) // sub-microsecond: the store keeps microseconds
		got := recordState(t, db, connector.PaymentState{PaymentID: "pay_1", State: "captured", Rank: rankCaptured, EventID: "evt_c"},
			now, true, "captured", rankCaptured, "evt_c")
		wantStatements(t, "first state", &c, map[string]int{"INSERT payment_states": 1})
		if stored, err := db.GetPaymentState(ctx, "pay_1"); err != nil || *stored != got {
			t.Fatalf("returned %+v; stored %+v, %v", got, stored, err)
		}
		c.Reset()
		recordState(t, db, connector.PaymentState{PaymentID: "pay_1", State: "authorized", Rank: rankAuthorized, EventID: "evt_a"},
			now, false, "captured", rankCaptured, "evt_c")
		wantStatements(t, "lower rank", &c, map[string]int{"INSERT payment_states": 1, "SELECT payment_states": 1})
	}},
	{"WakeWaitersEndsSeveralWaitsInOneStatement", func(t *testing.T, b backend) {
		var c sqlcount.Counter
		db := counted(t, b, &c)
		for _, id := range []string{"E1", "E2", "E3"} {
			mustInsert(t, db, newEvent("acc_1", id, "pay_"+id, t0))
		}
		later := t0.Add(time.Hour)
		receipt := complete(t, db, "w1", t0, connector.Outcome{Status: connector.StatusParked, WaitFor: connector.Wait{Kind: connector.WaitOnReceipt, Key: "pay_X"}})
		claim := complete(t, db, "w1", t0, connector.Outcome{Status: connector.StatusPending, NextAttemptAt: later, WaitFor: connector.Wait{Kind: connector.WaitOnBooking, Key: "pay_X"}})
		other := complete(t, db, "w1", t0, connector.Outcome{Status: connector.StatusPending, NextAttemptAt: later, WaitFor: connector.Wait{Kind: connector.WaitOnBooking, Key: "pay_Y"}})
		c.Reset()
		now := t0.Add(time.Minute)
		n, err := db.WakeWaiters(ctx, connector.Wait{Kind: connector.WaitOnReceipt, Key: "pay_X"}, now, connector.Wait{Kind: connector.WaitOnBooking, Key: "pay_X"}, connector.Wait{}, connector.Wait{Kind: connector.WaitOnReceipt, Key: "pay_X"})
		if err != nil || n != 2 {
			t.Fatalf("WakeWaiters(receipt:pay_X, booking:pay_X) = %d, %v; want 2", n, err)
		}
		wantStatements(t, "WakeWaiters", &c, map[string]int{"UPDATE inbox": 1})
		for _, id := range []int64{receipt.ID, claim.ID} {
			got := mustGet(t, db, id)
			if got.Status != connector.StatusPending || !got.WaitFor.IsZero() {
				t.Fatalf("row %d after the wake: %s waiting for %q", id, got.Status, got.WaitFor)
			}
			wantTime(t, "NextAttemptAt", got.NextAttemptAt, now)
		}
		if got := mustGet(t, db, other.ID); got.WaitFor != (connector.Wait{Kind: connector.WaitOnBooking, Key: "pay_Y"}) || !got.NextAttemptAt.Equal(later) {
			t.Fatalf("a wait not named was ended: %+v", got)
		}
	}},
}
