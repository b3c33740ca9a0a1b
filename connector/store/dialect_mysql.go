package store

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/redact"
)

// Connection pool limits for MariaDB. The store holds no connection across calls, so a small
// pool serves many workers. Idle connections are kept up to the open limit: MariaDB's group
// commit ends many webhooks' INSERTs at the same moment, and with fewer idle slots than open
// connections the pool closed the surplus of every such burst and dialled it again for the
// next one (measured: ~200 new connections in 5 s at 32 concurrent senders, with a TCP connect
// and a MariaDB handshake each; 0 with the slots equal). ConnMaxIdleTime still closes the
// connections a quiet daemon does not use.
const (
	mysqlMaxOpenConns    = 16
	mysqlMaxIdleConns    = mysqlMaxOpenConns
	mysqlConnMaxLifetime = 5 * time.Minute
	mysqlConnMaxIdleTime = time.Minute
	mysqlDialTimeout     = 5 * time.Second
)

// MariaDB error numbers the store reacts to.
const (
	mysqlDuplicateEntry = 1062 // ER_DUP_ENTRY
	mysqlLockDeadlock   = 1213 // ER_LOCK_DEADLOCK: the statement was rolled back, retry it
)

func openMySQL(dsn string, o Options) (*DB, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		// The parser's messages never repeat the DSN, so the password cannot leak here.
		return nil, fmt.Errorf("open store: mysql dsn: %w", err)
	}
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	cfg.ClientFoundRows = true // affected rows = matched rows, so a no-op UPDATE still counts
	cfg.MultiStatements = false
	if mysqlInterpolationSafe(dsn, cfg) {
		cfg.InterpolateParams = true
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = mysqlDialTimeout
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("open store: mysql: %s", redact.Secrets(err.Error(), cfg.Passwd))
	}
	sqlDB := sql.OpenDB(o.wrap(conn))
	setServerPool(sqlDB)
	d := newDB(sqlx.NewDb(sqlDB, DriverMySQL), mysqlDialect{})
	d.secret = cfg.Passwd
	d.hot = newStmtCache(d.db)
	return d, nil
}

// setServerPool applies the pool limits of a database server (MariaDB, PostgreSQL) to sqlDB.
func setServerPool(sqlDB *sql.DB) {
	sqlDB.SetMaxOpenConns(mysqlMaxOpenConns)
	sqlDB.SetMaxIdleConns(mysqlMaxIdleConns)
	sqlDB.SetConnMaxLifetime(mysqlConnMaxLifetime)
	sqlDB.SetConnMaxIdleTime(mysqlConnMaxIdleTime)
}

// mysqlDialect is MariaDB 10.6+ through go-sql-driver/mysql: ON DUPLICATE KEY UPDATE with
// VALUES(), RETURNING on INSERT (MariaDB 10.5+), DATETIME(6) columns read as time.Time.
type mysqlDialect struct{}

func init() { register(mysqlDialect{}) }

func (mysqlDialect) name() string               { return DriverMySQL }
func (mysqlDialect) rebind(query string) string { return query }
func (mysqlDialect) timeArg(t time.Time) any    { return t }

func (mysqlDialect) isDuplicate(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == mysqlDuplicateEntry
}

// isRetryable: an InnoDB deadlock victim or a Galera certification failure (both 1213).
func (mysqlDialect) isRetryable(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == mysqlLockDeadlock
}

func (mysqlDialect) bootstrap() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    VARCHAR(191) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    applied_at DATETIME(6)  NOT NULL,
    PRIMARY KEY (version)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
		`CREATE TABLE IF NOT EXISTS locks (
    name       VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    owner      VARCHAR(191) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    expires_at DATETIME(6)  NOT NULL,
    PRIMARY KEY (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
	}
}

func (mysqlDialect) migrationsTableQuery() string {
	return `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'schema_migrations'`
}

// transactionalDDL: MariaDB commits DDL implicitly.
func (mysqlDialect) transactionalDDL() bool { return false }

func (mysqlDialect) recordMigrationQuery() string {
	return `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?) ON DUPLICATE KEY UPDATE version = version`
}

func (mysqlDialect) insertEventFrom() string { return ` FROM DUAL` }

// insertEventConflict: a duplicate (account_id, event_id) fails with ER_DUP_ENTRY.
func (mysqlDialect) insertEventConflict() string { return "" }
func (mysqlDialect) insertedIDReturned() bool    { return false }

// claimBookingUpsert makes every assignment conditional on the old row, since ON DUPLICATE
// KEY UPDATE has no WHERE; fence_until comes last in takeoverSet because MariaDB evaluates the
// assignments left to right. RETURNING gives the row as it stands either way.
func (mysqlDialect) claimBookingUpsert(now any) (string, []any) {
	set := make([]string, len(takeoverSet))
	var args []any
	for i, c := range takeoverSet {
		set[i] = fmt.Sprintf("%[1]s = IF(state = ? AND fence_until < ?, VALUES(%[1]s), %[1]s)", c)
		args = append(args, connector.BookingInFlight, now)
	}
	return ` ON DUPLICATE KEY UPDATE ` + strings.Join(set, ", "), args
}

func (mysqlDialect) voidBookingUpsert() string {
	return ` ON DUPLICATE KEY UPDATE state = VALUES(state), doctype = IF(VALUES(doctype) = '', doctype, VALUES(doctype)),
		name = IF(VALUES(name) = '', name, VALUES(name)), updated_at = VALUES(updated_at)`
}

// acquireLockUpsert assigns owner first; expires_at's condition then holds exactly when owner
// now holds the row, whether MariaDB evaluates assignments left to right (the default) or
// simultaneously (sql_mode SIMULTANEOUS_ASSIGNMENT). RETURNING gives the row as the upsert
// left it.
func (mysqlDialect) acquireLockUpsert(now any) (string, []any) {
	return ` ON DUPLICATE KEY UPDATE
		owner = IF(owner = VALUES(owner) OR expires_at < ?, VALUES(owner), owner),
		expires_at = IF(owner = VALUES(owner) OR expires_at < ?, VALUES(expires_at), expires_at)`, []any{now, now}
}

// recordPaymentStateQuery keeps every old value unless the new rank is higher; state_rank
// comes last because MariaDB evaluates ON DUPLICATE KEY UPDATE assignments left to right and
// the earlier conditions must see the old rank. When the stored rank wins, LAST_INSERT_ID(1)
// marks the statement: the OK packet then reports insert id 1, while an insert (the table has
// no AUTO_INCREMENT column) or a move reports 0. This tells "inserted" from "left alone",
// which the affected-rows count cannot: with clientFoundRows both are 1 (a move is 2).
func (mysqlDialect) recordPaymentStateQuery() string {
	return `INSERT INTO payment_states (payment_id, state, state_rank, event_id, updated_at)
	VALUES (?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE
	state = IF(VALUES(state_rank) > state_rank, VALUES(state), state),
	event_id = IF(VALUES(state_rank) > state_rank, VALUES(event_id), event_id),
	updated_at = IF(VALUES(state_rank) > state_rank, VALUES(updated_at), updated_at),
	state_rank = IF(VALUES(state_rank) > state_rank, VALUES(state_rank), IF(LAST_INSERT_ID(1), state_rank, state_rank))`
}

func (mysqlDialect) paymentStateMoved(res sql.Result) (bool, error) {
	n, err := res.RowsAffected()
	if err != nil || n != 1 {
		return n > 0, err
	}
	marker, err := res.LastInsertId()
	return marker == 0, err
}

func (mysqlDialect) dueCandidatesQuery() string { return dueCandidatesQuery }

func (mysqlDialect) concat(a, b string) string { return "CONCAT(" + a + ", " + b + ")" }

// contains: INSTR is byte-exact on a LONGBLOB and case-sensitive on a binary collation.
func (mysqlDialect) contains(haystack, needle string) string {
	return "INSTR(" + haystack + ", " + needle + ") > 0"
}

func (mysqlDialect) bodyJSON(body, path string, integer bool) string {
	v := `JSON_VALUE(CONVERT(` + body + ` USING utf8mb4), '$.` + path + `')`
	if integer {
		return `CAST(` + v + ` AS SIGNED)`
	}
	return v
}
