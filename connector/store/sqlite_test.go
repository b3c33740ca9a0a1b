package store_test

import (
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

var sqliteFiles atomic.Int64

// sqliteBackend keeps each database in a file of the test's temporary directory.
var sqliteBackend = backend{
	driver: "sqlite",
	newDatabase: func(t testing.TB) string {
		return filepath.Join(t.TempDir(), fmt.Sprintf("store-%d.db", sqliteFiles.Add(1)))
	},
}

func TestSQLite(t *testing.T) {
	runContract(t, sqliteBackend)
}

func TestSQLiteInMemory(t *testing.T) {
	db := sqliteBackend.open(t, ":memory:")
	wantNoErr(t, "Migrate", db.Migrate(ctx))
	e := mustInsert(t, db, newEvent("acc_1", "evt_1", "pay_1", t0))
	if got := mustGet(t, db, e.ID); got.EventID != "evt_1" {
		t.Fatalf("GetEvent = %+v", got)
	}
	wantNoErr(t, "Ping", db.Ping(ctx))
}

func TestSQLiteBadPathFailsAtOpen(t *testing.T) {
	if _, err := store.Open(ctx, "sqlite", filepath.Join(t.TempDir(), "missing", "dir", "x.db")); err == nil {
		t.Fatal("Open of a file in a missing directory succeeded")
	}
}
