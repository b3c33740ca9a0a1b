package connector_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/internal/sitetest"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/pgtest"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/sharedtest"
)

const (
	secretNew = sitetest.SecretNew
	secretOld = sitetest.SecretOld
)

// intakeConfig is a valid configuration with two webhook secrets and an unreachable ERPNext.
func intakeConfig() connector.Config { return sitetest.Config() }

func sqliteStore(t testing.TB) *store.DB { t.Helper(); return sqliteStoreWith(t, store.Options{}) }

// sqliteStoreWith is sqliteStore opened with opts (e.g. a statement counter's Wrap).
func sqliteStoreWith(t testing.TB, opts store.Options) *store.DB {
	t.Helper()
	db, err := store.OpenWith(context.Background(), "sqlite", filepath.Join(t.TempDir(), "s.db"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// mariadbStore returns a migrated store on a new database of the server of TEST_MARIADB_DSN
// (the daemon's production engine), dropped when t ends. Without TEST_MARIADB_DSN the test is
// skipped, and fails under CI.
func mariadbStore(t testing.TB) *store.DB { t.Helper(); return mariadbStoreWith(t, store.Options{}) }

// mariadbStoreWith is mariadbStore opened with opts (e.g. a statement counter's Wrap).
func mariadbStoreWith(t testing.TB, opts store.Options) *store.DB {
	t.Helper()
	dsn := os.Getenv("TEST_MARIADB_DSN")
	if dsn == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TEST_MARIADB_DSN is not set; CI must run the MariaDB tests")
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
	name := "rpe_connector_" + hex.EncodeToString(b[:])
	if _, err := adm.Exec("CREATE DATABASE `" + name + "` CHARACTER SET utf8mb4"); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	cfg.DBName = name
	db, err := store.OpenWith(context.Background(), "mysql", cfg.FormatDSN(), opts)
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

// postgresStore returns a migrated store on a new database of the server of TEST_POSTGRES_DSN,
// dropped when t ends (internal/pgtest: skipped without the variable, a failure under CI).
func postgresStore(t testing.TB) *store.DB { t.Helper(); return postgresStoreWith(t, store.Options{}) }

// postgresStoreWith is postgresStore opened with opts (e.g. a statement counter's Wrap).
func postgresStoreWith(t testing.TB, opts store.Options) *store.DB {
	t.Helper()
	db, err := store.OpenWith(context.Background(), "postgres", pgtest.Database(t, "rpe_connector"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() }) // runs before the database is dropped
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

func readSample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedtest.Dir(t, "reference", "razorpay-payloads"), name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func total(t *testing.T, s connector.Store) int {
	t.Helper()
	c, err := s.CountByStatus(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}
