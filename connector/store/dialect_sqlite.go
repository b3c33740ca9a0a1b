package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"modernc.org/sqlite" // registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"
)

// sqliteBusyTimeout is how long an SQLite connection waits for another process's write lock
// before it reports "database is locked".
const sqliteBusyTimeout = 5 * time.Second

// sqliteTimeLayout is how times are written to SQLite: UTC, fixed width, microseconds, so that
// text comparison in SQL orders them like time and SQLite's date functions read them.
const sqliteTimeLayout = "2006-01-02 15:04:05.000000"

func openSQLite(ctx context.Context, dsn string, o Options) (*DB, error) {
	if dsn == "" {
		return nil, errors.New("open store: sqlite: empty dsn")
	}

	params := fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate",
		sqliteBusyTimeout.Milliseconds())
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	sqlDB, err := sql.Open(DriverSQLite, dsn+sep+params)
	if err != nil {
		return nil, fmt.Errorf("open store: sqlite: %w", err)
	}
	if o.Wrap != nil {
		drv := sqlDB.Driver()
		sqlDB.Close()
		sqlDB = sql.OpenDB(o.Wrap(dsnConnector{dsn: dsn + sep + params, drv: drv}))
	}
	// One connection: SQLite allows one writer at a time, and a ":memory:" database exists only
	// inside its connection, which must therefore never be closed while the store is open.
	sqlDB.SetMaxOpenConns(1)
	sqlDB.SetMaxIdleConns(1)
	sqlDB.SetConnMaxLifetime(0)
	sqlDB.SetConnMaxIdleTime(0)
	d := newDB(sqlx.NewDb(sqlDB, DriverSQLite), sqliteDialect{})
	d.stmts = newStmtCache(d.db)
	if err := sqlDB.PingContext(ctx); err != nil {
		sqlDB.Close()
		return nil, d.unavailable("open sqlite", err)
	}
	return d, nil
}

// sqliteDialect is SQLite 3.35+ through modernc.org/sqlite: ON CONFLICT upserts, RETURNING,
// STRICT tables, times as fixed-width UTC text (sqliteTimeLayout).
type sqliteDialect struct{ onConflictUpsert }

func init() { register(sqliteDialect{}) }

func (sqliteDialect) name() string               { return DriverSQLite }
func (sqliteDialect) rebind(query string) string { return query }
func (sqliteDialect) timeArg(t time.Time) any    { return t.Format(sqliteTimeLayout) }

func (sqliteDialect) isDuplicate(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) &&
		(se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
}

// isRetryable: still busy (or locked) after the busy timeout.
func (sqliteDialect) isRetryable(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	primary := se.Code() & 0xff
	return primary == sqlite3.SQLITE_BUSY || primary == sqlite3.SQLITE_LOCKED
}

func (sqliteDialect) bootstrap() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    TEXT NOT NULL PRIMARY KEY,
    applied_at TEXT NOT NULL
) STRICT`,
		`CREATE TABLE IF NOT EXISTS locks (
    name       TEXT NOT NULL PRIMARY KEY,
    owner      TEXT NOT NULL,
    expires_at TEXT NOT NULL
) STRICT`,
	}
}

func (sqliteDialect) migrationsTableQuery() string {
	return `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`
}

func (sqliteDialect) transactionalDDL() bool     { return true }
func (sqliteDialect) insertEventFrom() string    { return "" }
func (sqliteDialect) insertedIDReturned() bool   { return false }
func (sqliteDialect) dueCandidatesQuery() string { return dueCandidatesQuery }
func (sqliteDialect) concat(a, b string) string  { return a + " || " + b }

// contains: INSTR is byte-exact on a BLOB and case-sensitive on TEXT.
func (sqliteDialect) contains(haystack, needle string) string {
	return "INSTR(" + haystack + ", " + needle + ") > 0"
}

func (sqliteDialect) bodyJSON(body, path string, _ bool) string {
	return `json_extract(CAST(` + body + ` AS TEXT), '$.` + path + `')`
}
