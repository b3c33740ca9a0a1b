package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// dialect is what one database driver changes in the store: how its statements are written
// (placeholders, upserts, RETURNING, the few functions that differ), how times travel, how its
// errors are classified, and how migrations run. The store's statements are written once, with
// ? placeholders and the SQL the drivers share; a dialect supplies the rest. There is one
// implementation per driver, each in its own file: dialect_mysql.go, dialect_sqlite.go,
// dialect_postgres.go.
type dialect interface {
	// name is the driver name Open takes (DriverMySQL, DriverSQLite, DriverPostgres).
	name() string
	// rebind rewrites the ? placeholders of query into the driver's own ($1, $2, … on
	// PostgreSQL); query unchanged where ? is native.
	rebind(query string) string
	// timeArg returns t, already UTC at microsecond precision (utc), as a query argument.
	timeArg(t time.Time) any

	// isDuplicate reports whether err is a unique-key violation.
	isDuplicate(err error) bool
	// isRetryable reports whether err means the statement (or transaction) lost a race with
	// another writer and changed nothing, so it may simply run again.
	isRetryable(err error) bool

	// bootstrap lists the idempotent statements that create schema_migrations and locks.
	bootstrap() []string
	// migrationsTableQuery counts the tables named schema_migrations in the store's schema.
	migrationsTableQuery() string
	// transactionalDDL reports whether a migration and its record can share a transaction.
	transactionalDDL() bool
	// recordMigrationQuery inserts (version, applied_at) into schema_migrations, doing nothing
	// when the version is there.
	recordMigrationQuery() string

	// insertEventFrom follows the SELECT list of an INSERT … SELECT without a table: "" or
	// " FROM DUAL".
	insertEventFrom() string
	// insertEventConflict is appended to the INSERT so that an existing (account_id, event_id)
	// inserts nothing instead of failing; "" when the driver reports the duplicate as an error.
	insertEventConflict() string
	// insertedIDReturned tells how the id of a new inbox or reconcile_runs row comes back:
	// false for sql.Result.LastInsertId, true for a RETURNING id clause the store appends.
	insertedIDReturned() bool

	// claimBookingUpsert is the conflict clause of ClaimBooking's INSERT: take over the columns
	// of takeoverSet only while the row is in flight with a fence before now; and its arguments.
	claimBookingUpsert(now any) (string, []any)
	// voidBookingUpsert is the conflict clause of VoidBooking's INSERT.
	voidBookingUpsert() string
	// acquireLockUpsert is the conflict clause of AcquireLock's INSERT and its arguments.
	acquireLockUpsert(now any) (string, []any)
	// recordPaymentStateQuery is RecordPaymentState's statement; paymentStateMoved reads from
	// its result whether it wrote the row.
	recordPaymentStateQuery() string
	paymentStateMoved(res sql.Result) (bool, error)

	// dueCandidatesQuery finds the claim's candidates (claim.go).
	dueCandidatesQuery() string

	// concat joins two text expressions.
	concat(a, b string) string
	// contains is a condition: the bytes or text of expression needle occur in haystack.
	contains(haystack, needle string) string
	// bodyJSON extracts the JSON value at path (dotted, from the root: "payload.payment") of
	// the inbox raw_body column expression body, as an integer when integer, else as text.
	bodyJSON(body, path string, integer bool) string
}

// dialects are the store's drivers, by name.
var dialects = map[string]dialect{}

// register adds a driver's dialect; each dialect_*.go calls it from init.
func register(dl dialect) { dialects[dl.name()] = dl }

// pool is the store's connection pool: every query text it is given goes through the dialect's
// rebind first, so the store's statements keep their ? placeholders on every driver.
type pool struct {
	*sqlx.DB
	dl dialect
}

func newPool(db *sqlx.DB, dl dialect) *pool { return &pool{DB: db, dl: dl} }

// ExecContext is sqlx.DB.ExecContext on the rebound query.
func (p *pool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return p.DB.ExecContext(ctx, p.dl.rebind(query), args...)
}

// GetContext is sqlx.DB.GetContext on the rebound query.
func (p *pool) GetContext(ctx context.Context, dest any, query string, args ...any) error {
	return p.DB.GetContext(ctx, dest, p.dl.rebind(query), args...)
}

// SelectContext is sqlx.DB.SelectContext on the rebound query.
func (p *pool) SelectContext(ctx context.Context, dest any, query string, args ...any) error {
	return p.DB.SelectContext(ctx, dest, p.dl.rebind(query), args...)
}

// PreparexContext is sqlx.DB.PreparexContext on the rebound query.
func (p *pool) PreparexContext(ctx context.Context, query string) (*sqlx.Stmt, error) {
	return p.DB.PreparexContext(ctx, p.dl.rebind(query))
}

// BeginTxx starts a transaction whose statements are rebound too.
func (p *pool) BeginTxx(ctx context.Context, opts *sql.TxOptions) (*txn, error) {
	tx, err := p.DB.BeginTxx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &txn{Tx: tx, dl: p.dl}, nil
}

// txn is a transaction of pool.
type txn struct {
	*sqlx.Tx
	dl dialect
}

// ExecContext is sqlx.Tx.ExecContext on the rebound query.
func (t *txn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.Tx.ExecContext(ctx, t.dl.rebind(query), args...)
}

// GetContext is sqlx.Tx.GetContext on the rebound query.
func (t *txn) GetContext(ctx context.Context, dest any, query string, args ...any) error {
	return t.Tx.GetContext(ctx, dest, t.dl.rebind(query), args...)
}

// onConflictUpsert is the INSERT … ON CONFLICT form SQLite and PostgreSQL share.
type onConflictUpsert struct{}

func (onConflictUpsert) insertEventConflict() string {
	return ` ON CONFLICT (account_id, event_id) DO NOTHING`
}

func (onConflictUpsert) recordMigrationQuery() string {
	return `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?) ON CONFLICT (version) DO NOTHING`
}

// claimBookingUpsert: DO UPDATE … WHERE leaves a booked row or a live fence alone, and then
// RETURNING gives no row (ClaimBooking reads it again).
func (onConflictUpsert) claimBookingUpsert(now any) (string, []any) {
	set := ""
	for i, c := range takeoverSet {
		if i > 0 {
			set += ", "
		}
		set += c + " = excluded." + c
	}
	return ` ON CONFLICT (business_key) DO UPDATE SET ` + set +
		` WHERE bookings.state = ? AND bookings.fence_until < ?`, []any{connector.BookingInFlight, now}
}

func (onConflictUpsert) voidBookingUpsert() string {
	return ` ON CONFLICT (business_key) DO UPDATE SET state = excluded.state,
		doctype = CASE WHEN excluded.doctype = '' THEN bookings.doctype ELSE excluded.doctype END,
		name = CASE WHEN excluded.name = '' THEN bookings.name ELSE excluded.name END, updated_at = excluded.updated_at`
}

// acquireLockUpsert: the row comes back (RETURNING) only when it was inserted or updated.
func (onConflictUpsert) acquireLockUpsert(now any) (string, []any) {
	return ` ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
		WHERE locks.owner = excluded.owner OR locks.expires_at < ?`, []any{now}
}

// recordPaymentStateQuery: the WHERE of DO UPDATE makes a row whose rank is higher or equal a
// no-op, so the affected-row count is 1 exactly when the state moved.
func (onConflictUpsert) recordPaymentStateQuery() string {
	return `INSERT INTO payment_states (payment_id, state, state_rank, event_id, updated_at)
	VALUES (?, ?, ?, ?, ?) ON CONFLICT (payment_id) DO UPDATE SET
	state = excluded.state, state_rank = excluded.state_rank, event_id = excluded.event_id,
	updated_at = excluded.updated_at
	WHERE payment_states.state_rank < excluded.state_rank`
}

func (onConflictUpsert) paymentStateMoved(res sql.Result) (bool, error) {
	n, err := res.RowsAffected()
	return n > 0, err
}

// isTransient reports whether err means "the statement lost a race with another writer and
// changed nothing" on any driver (the drivers' error types are disjoint).
func isTransient(err error) bool { return anyDialect(err, dialect.isRetryable) }

// isDuplicate reports whether err is a unique-key violation on any driver.
func isDuplicate(err error) bool { return anyDialect(err, dialect.isDuplicate) }

// anyDialect reports whether is(dl, err) holds for some registered dialect dl.
func anyDialect(err error, is func(dialect, error) bool) bool {
	if err == nil {
		return false
	}
	for _, dl := range dialects {
		if is(dl, err) {
			return true
		}
	}
	return false
}
