package store_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/pgtest"
)

// postgresBackend creates a database with a random name for each test on the server of
// TEST_POSTGRES_DSN and drops it when the test ends (internal/pgtest).
var postgresBackend = backend{
	driver: "postgres",
	newDatabase: func(t testing.TB) string {
		t.Helper()
		return pgtest.Database(t, "rpe_test")
	},
}

func TestPostgres(t *testing.T) {
	pgtest.DSN(t)
	runContract(t, postgresBackend)
}

// TestPostgresUnreachableIsUnavailable needs no server: nothing listens on port 1.
func TestPostgresUnreachableIsUnavailable(t *testing.T) {
	const password = "s3cret-Pa55word"
	wantUnreachableUnavailable(t, "postgres",
		"postgres://razorpay:"+password+"@127.0.0.1:1/razorpay_erpnext?sslmode=disable&connect_timeout=2", password)
}

// A DSN that does not parse is refused at Open, without repeating its password.
func TestPostgresBadDSNIsRedacted(t *testing.T) {
	const password = "s3cret-Pa55word"
	_, err := store.Open(ctx, "postgres", "postgres://razorpay:"+password+"@127.0.0.1:notaport/db")
	if err == nil || strings.Contains(err.Error(), password) {
		t.Fatalf("Open with a bad port = %v; want an error without the password", err)
	}
}

func TestPostgresWrongPasswordIsUnavailableAndRedacted(t *testing.T) {
	u, err := url.Parse(pgtest.Database(t, "rpe_test"))
	if err != nil {
		t.Fatal(err)
	}
	const password = "not-the-Postgres-passw0rd"
	u.User = url.UserPassword("razorpay_erpnext_nobody", password)
	refusedWithoutPassword(t, "postgres", u.String(), password)
}

// The id columns compare and order byte for byte, as on MariaDB (utf8mb4_bin) and SQLite.
func TestPostgresTextColumnsAreC(t *testing.T) {
	db := postgresBackend.fresh(t)
	var rows []struct {
		Table     string  `db:"table_name"`
		Column    string  `db:"column_name"`
		Collation *string `db:"collation_name"`
	}
	err := db.SQL().SelectContext(ctx, &rows, `SELECT table_name, column_name, collation_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND column_name IN ('account_id', 'event_id', 'business_key', 'name', 'owner', 'lease_owner', 'payment_id')`)
	if err != nil || len(rows) < 8 {
		t.Fatalf("information_schema: %d rows, %v", len(rows), err)
	}
	for _, r := range rows {
		if r.Collation == nil || *r.Collation != "C" {
			t.Errorf("%s.%s collation %v; want C", r.Table, r.Column, r.Collation)
		}
	}
}
