package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/go-sql-driver/mysql"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

// engine is one database the measurements run on.
type engine struct {
	Name   string // "mariadb" or "sqlite"
	Driver string // store.DriverMySQL or store.DriverSQLite

	adminDSN string // MariaDB: the server, without a database
	dir      string // SQLite: where database files go
	seq      atomic.Int64
}

// database is a fresh, migrated database of one engine; drop removes it.
type database struct {
	Driver, DSN string
	drop        func()
}

// newMariaDB checks dsn (a go-sql-driver DSN such as TEST_MARIADB_DSN) and returns the engine;
// each database it makes is created with a random name and dropped after use.
func newMariaDB(ctx context.Context, dsn string) (*engine, string, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, "", fmt.Errorf("mariadb dsn: %w", err)
	}
	cfg.DBName = ""
	e := &engine{Name: "mariadb", Driver: store.DriverMySQL, adminDSN: cfg.FormatDSN()}
	admin, err := sql.Open("mysql", e.adminDSN)
	if err != nil {
		return nil, "", err
	}
	defer admin.Close()
	var version string
	if err := admin.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return nil, "", fmt.Errorf("mariadb: %w", err)
	}
	return e, version, nil
}

// newSQLite returns the SQLite engine keeping its files under dir.
func newSQLite(dir string) *engine {
	return &engine{Name: "sqlite", Driver: store.DriverSQLite, dir: dir}
}

// forTarget makes a new database for the floor server (v nil) or variant v's daemon: migrated
// by the benchmark's store (fresh) for the floor and the tree measured, and left empty for a
// --before build, whose serve migrates it to its own schema at start (a binary refuses a
// schema newer than it knows).
func (e *engine) forTarget(ctx context.Context, v *variant) (*database, error) {
	if v != nil && v.name != "" {
		return e.create(ctx)
	}
	return e.fresh(ctx)
}

// fresh makes a new database and applies the store's migrations to it.
func (e *engine) fresh(ctx context.Context) (*database, error) {
	db, err := e.create(ctx)
	if err != nil {
		return nil, err
	}
	s, err := store.Open(ctx, db.Driver, db.DSN)
	if err == nil {
		err = s.Migrate(ctx)
		s.Close()
	}
	if err != nil {
		db.drop()
		return nil, fmt.Errorf("%s: migrate: %w", e.Name, err)
	}
	return db, nil
}

func (e *engine) create(ctx context.Context) (*database, error) {
	if e.Driver == store.DriverSQLite {
		path := filepath.Join(e.dir, fmt.Sprintf("bench-%d.db", e.seq.Add(1)))
		return &database{Driver: e.Driver, DSN: path, drop: func() {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				_ = os.Remove(path + suffix)
			}
		}}, nil
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "rpe_bench_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("mysql", e.adminDSN)
	if err != nil {
		return nil, err
	}
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"); err != nil {
		admin.Close()
		return nil, fmt.Errorf("mariadb: create database %s: %w", name, err)
	}
	cfg, _ := mysql.ParseDSN(e.adminDSN)
	cfg.DBName = name
	cfg.ParseTime = true
	return &database{Driver: e.Driver, DSN: cfg.FormatDSN(), drop: func() {
		_, _ = admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS `"+name+"`")
		admin.Close()
	}}, nil
}
