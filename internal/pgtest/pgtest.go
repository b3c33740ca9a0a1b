// Package pgtest gives tests a PostgreSQL database of their own on the server of
// TEST_POSTGRES_DSN (a libpq URL such as postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable):
// created with a random name for one test and dropped when it ends, so tests running at the same
// time never see each other's rows. Without TEST_POSTGRES_DSN a test is skipped on a developer
// machine and fails under CI (CI set), so PostgreSQL is never silently untested there.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
)

// Env names the server the tests use.
const Env = "TEST_POSTGRES_DSN"

// DSN returns TEST_POSTGRES_DSN, skipping (or, under CI, failing) t when it is not set.
func DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(Env)
	if dsn == "" {
		if os.Getenv("CI") != "" {
			t.Fatal(Env + " is not set; CI must run the PostgreSQL tests")
		}
		t.Skip(Env + " is not set (e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable)")
	}
	return dsn
}

var (
	adminOnce sync.Once
	admin     *sql.DB
)

// Database creates a database named prefix_<random hex> on the server of TEST_POSTGRES_DSN and
// returns the DSN naming it; the database is dropped (its connections closed) when t ends.
func Database(t testing.TB, prefix string) string {
	t.Helper()
	base := DSN(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s is not a URL: %v", Env, err)
	}
	adminOnce.Do(func() {
		admin, err = sql.Open("pgx", base)
		if err == nil {
			admin.SetMaxOpenConns(4)
		}
	})
	if admin == nil {
		t.Fatalf("PostgreSQL admin connection: %v", err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := prefix + "_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(context.Background(), `CREATE DATABASE "`+name+`"`); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}
