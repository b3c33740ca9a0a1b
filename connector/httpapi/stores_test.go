package httpapi_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/pgtest"
)

// engines are the stores intake must behave the same on: SQLite, MariaDB and PostgreSQL
// (MariaDB and PostgreSQL refuse bytes that are not valid UTF-8 in a text column, SQLite stores
// anything).
var engines = []struct {
	name string
	open func(t testing.TB) *store.DB
}{{"SQLite", sqliteStore}, {"MariaDB", mariadbStore}, {"PostgreSQL", postgresStore}}

// postgresStore returns a migrated store on a new database of the server of TEST_POSTGRES_DSN,
// dropped when t ends (internal/pgtest: skipped without the variable, a failure under CI).
func postgresStore(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), "postgres", pgtest.Database(t, "rpe_httpapi"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// mariadbStore returns a migrated store on a new database of the server of TEST_MARIADB_DSN,
// dropped when t ends. Without TEST_MARIADB_DSN the test is skipped, and fails under CI.
func mariadbStore(t testing.TB) *store.DB {
	t.Helper()
	dsn := os.Getenv("TEST_MARIADB_DSN")
	if dsn == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TEST_MARIADB_DSN is not set; CI must run the intake tests on MariaDB")
		}
		t.Skip("TEST_MARIADB_DSN is not set")
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("TEST_MARIADB_DSN: %v", err)
	}
	admin := cfg.Clone()
	admin.DBName = ""
	conn, err := mysql.NewConnector(admin)
	if err != nil {
		t.Fatal(err)
	}
	adm := sql.OpenDB(conn)
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "rpe_httpapi_" + hex.EncodeToString(b[:])
	if _, err := adm.Exec("CREATE DATABASE `" + name + "` CHARACTER SET utf8mb4"); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	cfg.DBName = name
	db, err := store.Open(context.Background(), "mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Close()
		if _, err := adm.Exec("DROP DATABASE IF EXISTS `" + name + "`"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		adm.Close()
	})
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}
