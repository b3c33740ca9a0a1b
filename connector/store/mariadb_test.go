package store_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

// mariadbDSN returns TEST_MARIADB_DSN. Without it the test is skipped on a developer machine
// and fails in CI (CI set), so MariaDB is never silently untested there.
func mariadbDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("TEST_MARIADB_DSN")
	if dsn == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TEST_MARIADB_DSN is not set; CI must run the store tests on MariaDB")
		}
		t.Skip("TEST_MARIADB_DSN is not set (e.g. root@tcp(127.0.0.1:3306)/razorpay_erpnext_test?parseTime=true)")
	}
	return dsn
}

var (
	mariadbAdminOnce sync.Once
	mariadbAdmin     *sql.DB
	mariadbAdminErr  error
)

// mariadbBackend creates a database with a random name for each test on the server of
// TEST_MARIADB_DSN and drops it when the test ends, so runs never see each other's rows. The
// database's default collation is deliberately case-insensitive: the tables must bring their
// own binary collation for ids.
var mariadbBackend = backend{
	driver: "mysql",
	newDatabase: func(t testing.TB) string {
		t.Helper()
		cfg, err := mysql.ParseDSN(mariadbDSN(t))
		if err != nil {
			t.Fatalf("TEST_MARIADB_DSN: %v", err)
		}
		mariadbAdminOnce.Do(func() {
			admin := cfg.Clone()
			admin.DBName = ""
			c, err := mysql.NewConnector(admin)
			if err != nil {
				mariadbAdminErr = err
				return
			}
			mariadbAdmin = sql.OpenDB(c)
		})
		if mariadbAdminErr != nil {
			t.Fatalf("MariaDB admin connection: %v", mariadbAdminErr)
		}
		var b [6]byte
		_, _ = rand.Read(b[:])
		name := "rpe_test_" + hex.EncodeToString(b[:])
		if _, err := mariadbAdmin.ExecContext(context.Background(),
			"CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"); err != nil {
			t.Fatalf("create database %s: %v", name, err)
		}
		t.Cleanup(func() {
			if _, err := mariadbAdmin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
				t.Errorf("drop database %s: %v", name, err)
			}
		})
		cfg.DBName = name
		return cfg.FormatDSN()
	},
}

func TestMariaDB(t *testing.T) {
	mariadbDSN(t)
	runContract(t, mariadbBackend)
}

// TestMariaDBUnreachableIsUnavailable needs no server: nothing listens on port 1.
func TestMariaDBUnreachableIsUnavailable(t *testing.T) {
	const password = "s3cret-Pa55word"
	wantUnreachableUnavailable(t, "mysql", "razorpay:"+password+"@tcp(127.0.0.1:1)/razorpay_erpnext?timeout=2s", password)
}

// wantUnreachableUnavailable opens driver's dsn, whose server does not answer, and fails unless
// Open succeeds and then InsertEvent and Ping fail with ErrStoreUnavailable, never naming
// password.
func wantUnreachableUnavailable(t *testing.T, driver, dsn, password string) {
	t.Helper()
	db, err := store.Open(ctx, driver, dsn)
	if err != nil {
		t.Fatalf("Open with the server down: %v; want a store that fails per call", err)
	}
	defer db.Close()
	inserted, err := db.InsertEvent(ctx, newEvent("acc_1", "evt_1", "pay_1", t0))
	if inserted || !errors.Is(err, connector.ErrStoreUnavailable) {
		t.Fatalf("InsertEvent = %v, %v; want ErrStoreUnavailable", inserted, err)
	}
	if strings.Contains(err.Error(), password) {
		t.Fatalf("error leaks the password: %v", err)
	}
	if err := db.Ping(ctx); !errors.Is(err, connector.ErrStoreUnavailable) || strings.Contains(err.Error(), password) {
		t.Fatalf("Ping = %v; want ErrStoreUnavailable without the password", err)
	}
}

func TestMariaDBWrongPasswordIsUnavailableAndRedacted(t *testing.T) {
	cfg, err := mysql.ParseDSN(mariadbDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	const password = "not-the-Root-passw0rd"
	cfg.User, cfg.Passwd = "razorpay_erpnext_nobody", password
	refusedWithoutPassword(t, "mysql", cfg.FormatDSN(), password)
}

// refusedWithoutPassword opens driver's dsn, whose password the server refuses: Open succeeds
// (it connects lazily), and the first write fails as ErrStoreUnavailable with an error that
// does not carry the password.
func refusedWithoutPassword(t *testing.T, driver, dsn, password string) {
	t.Helper()
	db, err := store.Open(ctx, driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.InsertEvent(ctx, newEvent("acc_1", "evt_1", "pay_1", t0))
	if !errors.Is(err, connector.ErrStoreUnavailable) || strings.Contains(err.Error(), password) {
		t.Fatalf("InsertEvent = %v; want ErrStoreUnavailable without the password", err)
	}
}

func TestMariaDBIDColumnsAreBinary(t *testing.T) {
	db := mariadbBackend.fresh(t)
	var rows []struct {
		Table     string `db:"table_name"`
		Column    string `db:"column_name"`
		Collation string `db:"collation_name"`
	}
	err := db.SQL().SelectContext(ctx, &rows, `SELECT table_name AS table_name, column_name AS column_name,
		collation_name AS collation_name FROM information_schema.columns
		WHERE table_schema = DATABASE() AND column_name IN ('account_id', 'event_id', 'business_key', 'name', 'owner', 'lease_owner', 'payment_id')`)
	if err != nil || len(rows) < 8 {
		t.Fatalf("information_schema: %d rows, %v", len(rows), err)
	}
	for _, r := range rows {
		if r.Collation != "utf8mb4_bin" {
			t.Errorf("%s.%s collation %s; want utf8mb4_bin", r.Table, r.Column, r.Collation)
		}
	}
}
