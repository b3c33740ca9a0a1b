package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

// migrationCount is the number of files in migrations/<driver>/.
const migrationCount = 31

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
	{"HotQueriesHaveIndexes", func(t *testing.T, b backend) {
		db := b.fresh(t)
		for _, want := range []struct {
			table, why string
			columns    []string
		}{
			{"bookings", "BookingsForDocument, under an invoice lock", []string{"doctype", "name"}},
			{"bookings", "ListBookings, each reconcile run", []string{"state", "created_at"}},
			{"reconcile_runs", "LastReconcileSuccess, each /metrics scrape", []string{"finished_at"}},
		} {
			indexes := indexColumns(t, db, want.table)
			if !hasIndexOn(indexes, want.columns) {
				t.Errorf("%s: no index starts with %v (%s); indexes %v", want.table, want.columns, want.why, indexes)
			}
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

// indexColumns returns the columns of each index of table, by index name, in index order.
func indexColumns(t *testing.T, db *store.DB, table string) map[string][]string {
	t.Helper()
	query := `SELECT il.name AS index_name, ii.name AS column_name
		FROM pragma_index_list(?) AS il JOIN pragma_index_info(il.name) AS ii ORDER BY il.name, ii.seqno`
	switch db.Driver() {
	case "mysql":
		query = `SELECT index_name AS index_name, column_name AS column_name FROM information_schema.statistics
		WHERE table_schema = DATABASE() AND table_name = ? ORDER BY index_name, seq_in_index`
	case "postgres":
		query = `SELECT i.relname AS index_name, a.attname AS column_name
		FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class c ON c.oid = x.indrelid
		JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord) ON true
		JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
		WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace ORDER BY i.relname, k.ord`
	}
	var rows []struct {
		Index  string `db:"index_name"`
		Column string `db:"column_name"`
	}
	wantNoErr(t, "read indexes of "+table, db.SQL().SelectContext(ctx, &rows, query, table))
	out := map[string][]string{}
	for _, r := range rows {
		out[r.Index] = append(out[r.Index], r.Column)
	}
	return out
}

// hasIndexOn reports whether some index starts with columns, in order.
func hasIndexOn(indexes map[string][]string, columns []string) bool {
	for _, cols := range indexes {
		if len(cols) >= len(columns) && slices.Equal(cols[:len(columns)], columns) {
			return true
		}
	}
	return false
}
