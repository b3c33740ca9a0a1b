package store

import (
	"context"
	"database/sql"
	"net/url"
	"strings"
	"sync"

	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"
)

// How a statement reaches the database. Without help, database/sql sends every statement that
// has arguments as PREPARE + EXECUTE + CLOSE: three round trips to MariaDB, and a fresh parse
// of the SQL text by SQLite on every call. The store avoids both:
//   - MariaDB: go-sql-driver's interpolateParams, when the connection's character set makes it
//     safe (mysqlInterpolationSafe), so a statement is one round trip (COM_QUERY);
//   - SQLite: the store's fixed statements are prepared once per store and kept (stmtCache);
//     the single connection re-uses the parsed program;
//   - the intake INSERT on MariaDB, the one statement on the webhook's path, is prepared once
//     per connection and kept (execHot): each webhook is then one COM_STMT_EXECUTE carrying the
//     raw body as bytes, where an interpolated statement makes the driver escape the body into
//     the SQL text and the server parse that text again. Measured on the 2-core development
//     machine (2026-12-02), alternating 1 s slices with the benchmark's floor server: intake
//     ÷ floor 0.82 / 0.82 / 0.84 at 1 / 8 / 32 senders interpolated, 0.86–0.91 / 0.87–0.92 /
//     0.90–0.95 prepared.

// safeCharsets are connection character sets in which a backslash (0x5c) never appears inside
// a multibyte character, so that the driver's client-side escaping cannot be undone by the
// server's reading of the bytes. go-sql-driver refuses interpolateParams only for a few unsafe
// collations given as collation=; a charset= (e.g. gbk, sjis, big5, cp932) or a
// character_set_* session variable in the DSN would slip past it, so the store allows a short
// list of known-safe sets instead of denying known-unsafe ones.
var safeCharsets = map[string]bool{
	"utf8mb4": true, "utf8mb3": true, "utf8": true, "latin1": true, "ascii": true, "binary": true,
}

// mysqlInterpolationSafe reports whether the store may turn on interpolateParams for dsn (already
// parsed as cfg): the DSN does not set interpolateParams itself (an explicit choice, true or
// false, is kept), names only safe character sets and collations (none means the driver's
// utf8mb4_general_ci, sent in the handshake), and sets no session variable about character sets.
func mysqlInterpolationSafe(dsn string, cfg *mysql.Config) bool {
	if cfg.InterpolateParams {
		return false // already on; nothing to add
	}
	params := dsnParams(dsn)
	if _, set := params["interpolateParams"]; set {
		return false
	}
	for _, cs := range strings.Split(params.Get("charset"), ",") {
		if cs != "" && !safeCharsets[strings.ToLower(strings.TrimSpace(cs))] {
			return false
		}
	}
	if col := strings.ToLower(cfg.Collation); col != "" {
		cs, _, _ := strings.Cut(col, "_")
		if !safeCharsets[cs] {
			return false
		}
	}
	for k := range cfg.Params {
		k = strings.ToLower(k)
		if strings.HasPrefix(k, "character_set") || strings.HasPrefix(k, "collation") || k == "names" {
			return false
		}
	}
	return true
}

// dsnParams returns the query parameters of a go-sql-driver DSN
// ([user[:password]@][net[(addr)]]/dbname[?param1=value1&...]). The parameters start at the first
// '?' after the last '/', as the driver reads them, so a '?' in the password is not mistaken
// for them. Undecodable values are kept as written.
func dsnParams(dsn string) url.Values {
	out := url.Values{}
	slash := strings.LastIndexByte(dsn, '/')
	if slash < 0 {
		return out
	}
	_, query, ok := strings.Cut(dsn[slash+1:], "?")
	if !ok {
		return out
	}
	for _, kv := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if dv, err := url.QueryUnescape(v); err == nil {
			v = dv
		}
		out.Add(k, v)
	}
	return out
}

// maxCachedStatements bounds stmtCache; past it, statements run unprepared as before. The
// store has a few dozen fixed statements; the bound only guards against a query built from
// data by mistake.
const maxCachedStatements = 128

// stmtCache keeps one prepared statement per query text for the life of the store (SQLite:
// parsed once instead of on every call). Safe for concurrent use; a nil cache prepares
// nothing. Only the store's fixed query texts may go through it, never text built from data.
type stmtCache struct {
	db *pool
	mu sync.Mutex
	m  map[string]*sqlx.Stmt
}

func newStmtCache(db *pool) *stmtCache {
	return &stmtCache{db: db, m: map[string]*sqlx.Stmt{}}
}

// get returns the prepared statement of query, preparing it on first use; nil when the cache
// is nil or full, or when preparing fails (the caller then runs the query unprepared, which
// reports the same error in the ordinary way). The lock is not held while preparing: with the
// database down, a MariaDB prepare waits for its dial time-out, and concurrent webhooks must
// each fail in that time, not queue behind one another's. Two callers preparing the same text
// at once keep the first statement and close the second.
func (c *stmtCache) get(ctx context.Context, query string) *sqlx.Stmt {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	st, ok := c.m[query]
	full := c.m == nil || len(c.m) >= maxCachedStatements
	c.mu.Unlock()
	if ok {
		return st
	}
	if full {
		return nil
	}
	st, err := c.db.PreparexContext(ctx, query)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if kept, ok := c.m[query]; ok {
		st.Close()
		return kept
	}
	if c.m == nil || len(c.m) >= maxCachedStatements { // closed or filled meanwhile
		st.Close()
		return nil
	}
	c.m[query] = st
	return st
}

// close closes every statement; the cache prepares nothing afterwards.
func (c *stmtCache) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, st := range c.m {
		st.Close()
		delete(c.m, q)
	}
	c.m = nil
}

// execContext runs a write statement, prepared once when the store keeps statements. String
// arguments are made valid UTF-8 (textArgs), as in getContext and selectContext.
func (d *DB) execContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	args = textArgs(args)
	if st := d.stmts.get(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return d.db.ExecContext(ctx, query, args...)
}

// execHot is execContext for the intake INSERT (and only for fixed texts run on every
// webhook): on MariaDB it runs as a statement prepared once per connection and kept (hot),
// also when the store interpolates every other statement; on SQLite through the store's
// statement cache as every statement does.
func (d *DB) execHot(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := d.hot.get(ctx, query); st != nil {
		return st.ExecContext(ctx, textArgs(args)...)
	}
	return d.execContext(ctx, query, args...)
}

// getContext reads one row into dest, prepared once when the store keeps statements.
func (d *DB) getContext(ctx context.Context, dest any, query string, args ...any) error {
	args = textArgs(args)
	if st := d.stmts.get(ctx, query); st != nil {
		return st.GetContext(ctx, dest, args...)
	}
	return d.db.GetContext(ctx, dest, query, args...)
}

// selectContext reads rows into dest, prepared once when the store keeps statements.
func (d *DB) selectContext(ctx context.Context, dest any, query string, args ...any) error {
	args = textArgs(args)
	if st := d.stmts.get(ctx, query); st != nil {
		return st.SelectContext(ctx, dest, args...)
	}
	return d.db.SelectContext(ctx, dest, query, args...)
}
