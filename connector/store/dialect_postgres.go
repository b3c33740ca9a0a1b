package store

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/jmoiron/sqlx"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/redact"
)

// postgresDialTimeout bounds a dial when the DSN sets no connect_timeout. The pool has
// MariaDB's limits (setServerPool): small, with as many idle connections as open ones, since
// the store holds none across calls.
const postgresDialTimeout = 5 * time.Second

// PostgreSQL error codes the store reacts to (SQLSTATE, PostgreSQL manual appendix A).
const (
	pgUniqueViolation      = "23505"
	pgSerializationFailure = "40001"
	pgDeadlockDetected     = "40P01"
)

// openPostgres opens a pool on a libpq-style DSN (postgres://user:pass@host:5432/db?sslmode=…
// or key=value pairs). No connection is made yet, so a store whose server is down opens fine
// and its calls fail with connector.ErrStoreUnavailable. The session time zone is UTC and a
// dial gives up after 5 s unless the DSN sets connect_timeout. pgx prepares each statement
// once per connection and keeps it (its default statement cache), so the store keeps none.
func openPostgres(dsn string, o Options) (*DB, error) {
	secret := dsnPassword(dsn)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open store: postgres dsn: %s", redact.Secrets(err.Error(), secret))
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = postgresDialTimeout
	}
	cfg.RuntimeParams["timezone"] = "UTC"
	sqlDB := sql.OpenDB(o.wrap(stdlib.GetConnector(*cfg)))
	setServerPool(sqlDB)
	d := newDB(sqlx.NewDb(sqlDB, "pgx"), postgresDialect{})
	d.secret = cfg.Password
	if d.secret == "" {
		d.secret = secret
	}
	return d, nil
}

// dsnPassword is the password of a URL or key=value DSN, "" when it names none; only for
// redacting errors about a DSN that did not parse.
func dsnPassword(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		p, _ := u.User.Password()
		return p
	}
	for _, f := range strings.Fields(dsn) {
		if v, ok := strings.CutPrefix(f, "password="); ok {
			return strings.Trim(v, "'")
		}
	}
	return ""
}

// postgresDialect is PostgreSQL: $n placeholders, INSERT … ON CONFLICT and RETURNING (the
// forms SQLite shares), TIMESTAMPTZ columns (microseconds, read as time.Time), BYTEA bodies,
// and transactional DDL. The claim finds its candidates with the same plain SELECT as the other
// drivers and claims with a conditional UPDATE: under READ COMMITTED a second UPDATE of the
// same row waits for the first and re-checks its WHERE on the new row, so exactly one claimer
// matches, with no lock held between the SELECT and the UPDATE (no FOR UPDATE SKIP LOCKED).
type postgresDialect struct{ onConflictUpsert }

func init() { register(postgresDialect{}) }

func (postgresDialect) name() string               { return DriverPostgres }
func (postgresDialect) rebind(query string) string { return sqlx.Rebind(sqlx.DOLLAR, query) }
func (postgresDialect) timeArg(t time.Time) any    { return t }

func (postgresDialect) isDuplicate(err error) bool { return pgCode(err) == pgUniqueViolation }

// isRetryable: a serialization failure or a deadlock victim; the transaction was rolled back.
func (postgresDialect) isRetryable(err error) bool {
	code := pgCode(err)
	return code == pgSerializationFailure || code == pgDeadlockDetected
}

// pgCode is the SQLSTATE of a PostgreSQL error, "" for any other error.
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

func (postgresDialect) bootstrap() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    VARCHAR(191) COLLATE "C" NOT NULL,
    applied_at TIMESTAMPTZ  NOT NULL,
    PRIMARY KEY (version)
)`,
		`CREATE TABLE IF NOT EXISTS locks (
    name       VARCHAR(255) COLLATE "C" NOT NULL,
    owner      VARCHAR(191) COLLATE "C" NOT NULL,
    expires_at TIMESTAMPTZ  NOT NULL,
    PRIMARY KEY (name)
)`,
	}
}

func (postgresDialect) migrationsTableQuery() string {
	return `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'schema_migrations'`
}

func (postgresDialect) transactionalDDL() bool     { return true }
func (postgresDialect) insertEventFrom() string    { return "" }
func (postgresDialect) insertedIDReturned() bool   { return true }
func (postgresDialect) dueCandidatesQuery() string { return dueCandidatesQuery }
func (postgresDialect) concat(a, b string) string  { return a + " || " + b }

// contains: position() is byte-exact on BYTEA and on TEXT in the "C" collation.
func (postgresDialect) contains(haystack, needle string) string {
	return "position(" + needle + " in " + haystack + ") > 0"
}

func (postgresDialect) bodyJSON(body, path string, integer bool) string {
	v := `(convert_from(` + body + `, 'UTF8')::jsonb #>> '{` + strings.ReplaceAll(path, ".", ",") + `}')`
	if integer {
		return v + `::bigint`
	}
	return v
}
