package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

// migrationCount is the number of files in migrations/<driver>/.
const migrationCount = 9

var migrateCases = []contractCase{
	{"MigrateIsIdempotent", func(t *testing.T, b backend) {
		db := b.fresh(t)
		mustInsert(t, db, newEvent("acc_1", "evt_1", "pay_1", t0))
		for i := 0; i < 2; i++ {
			wantNoErr(t, "Migrate again", db.Migrate(ctx))
		}
		wantNoErr(t, "Ping", db.Ping(ctx))
		var n int
		wantNoErr(t, "count schema_migrations", db.SQL().GetContext(ctx, &n, `SELECT COUNT(*) FROM schema_migrations`))
		if n != migrationCount {
			t.Fatalf("schema_migrations has %d rows; want %d", n, migrationCount)
		}
		if found, err := db.FindEvents(ctx, "pay_1"); err != nil || len(found) != 1 {
			t.Fatalf("data after re-migrating: %d rows, %v", len(found), err)
		}
	}},
	{"ConcurrentMigrateFromTwoHandles", func(t *testing.T, b backend) {
		dsn := b.newDatabase(t)
		replicas := []*store.DB{b.open(t, dsn), b.open(t, dsn)}
		errs := make(chan error, len(replicas))
		for _, db := range replicas {
			go func(db *store.DB) { errs <- db.Migrate(ctx) }(db)
		}
		for range replicas {
			wantNoErr(t, "concurrent Migrate", <-errs)
		}
		for _, db := range replicas {
			wantNoErr(t, "Ping", db.Ping(ctx))
		}
		var n int
		wantNoErr(t, "count schema_migrations", replicas[0].SQL().GetContext(ctx, &n, `SELECT COUNT(*) FROM schema_migrations`))
		if n != migrationCount {
			t.Fatalf("schema_migrations has %d rows; want %d", n, migrationCount)
		}
		var locks int
		wantNoErr(t, "count locks", replicas[0].SQL().GetContext(ctx, &locks, `SELECT COUNT(*) FROM locks`))
		if locks != 0 {
			t.Fatalf("%d lock rows left after Migrate; want 0", locks)
		}
	}},
	{"PingReportsPendingMigrations", func(t *testing.T, b backend) {
		db := b.open(t, b.newDatabase(t))
		err := db.Ping(ctx)
		if !errors.Is(err, store.ErrNotMigrated) || errors.Is(err, connector.ErrStoreUnavailable) {
			t.Fatalf("Ping before Migrate: err = %v; want ErrNotMigrated", err)
		}
		wantNoErr(t, "Migrate", db.Migrate(ctx))
		wantNoErr(t, "Ping", db.Ping(ctx))
		if _, err := db.SQL().ExecContext(ctx, `DELETE FROM schema_migrations WHERE version = '0008_bookings'`); err != nil {
			t.Fatal(err)
		}
		if err := db.Ping(ctx); !errors.Is(err, store.ErrNotMigrated) {
			t.Fatalf("Ping with one migration missing: err = %v; want ErrNotMigrated", err)
		}
	}},
	{"CanceledContextIsUnavailable", func(t *testing.T, b backend) {
		db := b.fresh(t)
		canceled, cancel := context.WithCancel(ctx)
		cancel()
		_, err := db.InsertEvent(canceled, newEvent("acc_1", "evt_1", "pay_1", t0))
		wantErr(t, "InsertEvent with a canceled context", err, connector.ErrStoreUnavailable)
		wantErr(t, "InsertEvent with a canceled context", err, context.Canceled)
	}},
	{"ClosedStoreIsUnavailable", func(t *testing.T, b backend) {
		db := b.fresh(t)
		wantNoErr(t, "Close", db.Close())
		_, err := db.InsertEvent(ctx, newEvent("acc_1", "evt_1", "pay_1", t0))
		wantErr(t, "InsertEvent on a closed store", err, connector.ErrStoreUnavailable)
		_, err = db.ClaimNextEvent(ctx, "w1", t0, 1)
		wantErr(t, "ClaimNextEvent on a closed store", err, connector.ErrStoreUnavailable)
		wantErr(t, "Ping on a closed store", db.Ping(ctx), connector.ErrStoreUnavailable)
	}},
}
