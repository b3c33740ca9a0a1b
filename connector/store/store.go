// Package store keeps the connector's inbox, booking claims and lock rows in MariaDB or
// PostgreSQL (production, any number of replicas) or SQLite (the embedded default), through sqlx
// (DESIGN.md §8). What each driver changes is its dialect (dialect.go, one file per driver). Every claim is a row written in one statement or a short transaction, never a
// connection-scoped lock, so claims survive dropped connections and cover every process
// (DESIGN.md §4 step 3).
//
// Times are stored and returned in UTC, truncated to microseconds. Every failure of the database
// itself wraps connector.ErrStoreUnavailable; a missing single row is connector.ErrNotFound.
package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// Driver names accepted by Open.
const (
	// DriverMySQL is MariaDB 10.6+ through github.com/go-sql-driver/mysql. MySQL is not a
	// target: the store uses VALUES() in ON DUPLICATE KEY UPDATE (deprecated since MySQL
	// 8.0.20, fine on MariaDB) and CREATE INDEX IF NOT EXISTS (MariaDB only).
	DriverMySQL  = "mysql"
	DriverSQLite = "sqlite" // SQLite through modernc.org/sqlite
	// DriverPostgres is PostgreSQL 13+ through github.com/jackc/pgx/v5 and its database/sql
	// adapter (pgx/v5/stdlib).
	DriverPostgres = "postgres"
)

// DB is the connector's store on one database; it implements connector.Store. It is safe for use
// by many goroutines and by several processes (replicas) on one database.
type DB struct {
	db     *pool
	dl     dialect
	secret string           // the DSN password, redacted from every error message
	now    func() time.Time // for rows whose time the caller did not give
	stmts  *stmtCache       // SQLite: the fixed statements, prepared once; nil on MariaDB
	hot    *stmtCache       // MariaDB: the intake INSERT, prepared once per connection (execHot); nil on SQLite

	claimStats  claimCounters  // ClaimNextEvent's retries (claim.go)
	beforeClaim func(id int64) // tests: runs between finding a candidate and claiming it
}

var _ connector.Store = (*DB)(nil)

// newDB returns a store on db speaking dl's SQL; the caller sets what its driver needs more.
func newDB(db *sqlx.DB, dl dialect) *DB {
	return &DB{db: newPool(db, dl), dl: dl, now: time.Now}
}

// Open returns a store on driver ("mysql", "sqlite" or "postgres") and dsn. It does not migrate; call
// Migrate.
//
// For "mysql" dsn is a go-sql-driver DSN (user:pass@tcp(host:3306)/db); parseTime=true, UTC
// times and clientFoundRows=true are forced, and no connection is made yet, so a store whose
// server is down opens fine and its calls fail with connector.ErrStoreUnavailable.
// interpolateParams=true is added when the DSN does not mention it and names only character
// sets in which client-side escaping is safe (utf8mb4, the driver's default, utf8, latin1,
// ascii, binary; see statements.go): each statement is then one round trip instead of
// PREPARE + EXECUTE + CLOSE. The intake INSERT alone is prepared once per connection and kept
// (execHot), whatever the character set.
//
// For "sqlite" dsn is a file path, a "file:" URI or ":memory:"; WAL, a 5 s busy timeout, foreign
// keys and immediate transactions are added, one connection is used (SQLite has one writer, so
// goroutines queue in the pool instead of failing with "database is locked"), the store's fixed
// statements are prepared once and kept, and the file is opened at once so a bad path fails
// here.
//
// For "postgres" dsn is a libpq URL or key=value string
// (postgres://user:pass@127.0.0.1:5432/db?sslmode=disable); as for "mysql" no connection is
// made yet, the session time zone is UTC and a dial gives up after 5 s unless connect_timeout
// says otherwise (openPostgres).
func Open(ctx context.Context, driver, dsn string) (*DB, error) {
	return OpenWith(ctx, driver, dsn, Options{})
}

// Options change how OpenWith opens a store.
type Options struct {
	// Wrap, when set, wraps the database/sql connector every connection of the pool is made
	// by (tests count the statements the store sends at the driver edge: internal/sqlcount).
	Wrap func(driver.Connector) driver.Connector
}

// OpenWith is Open with o.
func OpenWith(ctx context.Context, driver, dsn string, o Options) (*DB, error) {
	switch driver {
	case DriverMySQL:
		return openMySQL(dsn, o)
	case DriverSQLite:
		return openSQLite(ctx, dsn, o)
	case DriverPostgres:
		return openPostgres(dsn, o)
	default:
		return nil, fmt.Errorf("open store: unknown driver %q (want %q, %q or %q)", driver, DriverMySQL, DriverSQLite, DriverPostgres)
	}
}

// wrap applies o.Wrap to c, when set.
func (o Options) wrap(c driver.Connector) driver.Connector {
	if o.Wrap == nil {
		return c
	}
	return o.Wrap(c)
}

// dsnConnector is the connector database/sql makes for a driver that has none of its own: it
// opens dsn with drv.
type dsnConnector struct {
	dsn string
	drv driver.Driver
}

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c dsnConnector) Driver() driver.Driver                        { return c.drv }

// Driver returns the driver name the store was opened with: "mysql" or "sqlite".
func (d *DB) Driver() string { return d.dl.name() }

// SQL returns the underlying connection pool, for tests and admin tools. Writes through it
// bypass the store's rules.
func (d *DB) SQL() *sqlx.DB { return d.db.DB }

// Close releases the kept statements and the connection pool.
func (d *DB) Close() error {
	d.stmts.close()
	d.hot.close()
	return d.db.Close()
}

// Ping checks that the database answers and that every embedded migration has been applied. It
// returns an error wrapping connector.ErrStoreUnavailable when the database does not answer and
// one wrapping ErrNotMigrated when it answers but the schema is behind.
func (d *DB) Ping(ctx context.Context) error {
	if err := d.db.PingContext(ctx); err != nil {
		return d.unavailable("ping", err)
	}
	pending, err := d.pendingMigrations(ctx)
	if err != nil {
		return err
	}
	if len(pending) > 0 {
		return fmt.Errorf("%w: %d pending, first %s", ErrNotMigrated, len(pending), pending[0])
	}
	return nil
}

// exec runs one write statement, retrying deadlocks, and returns the rows it matched (the MySQL
// connection reports found rows, not changed rows).
func (d *DB) exec(ctx context.Context, op, query string, args ...any) (int64, error) {
	res, err := d.execResult(ctx, op, query, args...)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, d.unavailable(op, err)
	}
	return n, nil
}

// execResult runs one write statement, retrying deadlocks (MariaDB) and busy errors (SQLite),
// and returns its result; failures wrap connector.ErrStoreUnavailable.
func (d *DB) execResult(ctx context.Context, op, query string, args ...any) (sql.Result, error) {
	var res sql.Result
	err := retry(ctx, func() (err error) {
		res, err = d.execContext(ctx, query, args...)
		return err
	})
	if err != nil {
		return nil, d.unavailable(op, err)
	}
	return res, nil
}

// returning runs one write statement with a RETURNING clause and reads the row it returns into
// dest, retrying deadlocks (MariaDB, PostgreSQL) and busy errors (SQLite) as execResult does. sql.ErrNoRows
// comes back unwrapped when the statement returned no row; other failures wrap
// connector.ErrStoreUnavailable.
func (d *DB) returning(ctx context.Context, op string, dest any, query string, args ...any) error {
	err := retry(ctx, func() error { return d.getContext(ctx, dest, query, args...) })
	if err == nil || errors.Is(err, sql.ErrNoRows) {
		return err
	}
	return d.unavailable(op, err)
}

// OpenExisting opens a store that must already exist and be migrated by this release (or an
// equal one): commands that only read or change rows (events, explain, reconcile) use it, so a
// mistyped path never leaves an empty SQLite file behind and a CLI never migrates a schema under
// running replicas. Errors: ErrNotMigrated (no store, or migrations pending — run migrate),
// ErrSchemaNewer, or ErrStoreUnavailable.
func OpenExisting(ctx context.Context, driver, dsn string) (*DB, error) {
	if driver == DriverSQLite {
		file := strings.TrimPrefix(strings.SplitN(dsn, "?", 2)[0], "file:")
		if _, err := os.Stat(file); err != nil {
			return nil, fmt.Errorf("open store: no SQLite store at %s (run `razorpay-erpnext migrate` first): %w", file, ErrNotMigrated)
		}
	}
	d, err := Open(ctx, driver, dsn)
	if err != nil {
		return nil, err
	}
	if err := d.Ping(ctx); err != nil {
		d.Close()
		if errors.Is(err, ErrNotMigrated) {
			return nil, fmt.Errorf("%w (run `razorpay-erpnext migrate` first)", err)
		}
		return nil, err
	}
	return d, nil
}
