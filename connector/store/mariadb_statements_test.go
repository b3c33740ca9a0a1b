package store_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

// withParam adds one go-sql-driver DSN parameter (key=value, value already escaped).
func withParam(dsn, kv string) string {
	if strings.Contains(dsn[strings.LastIndexByte(dsn, '/'):], "?") {
		return dsn + "&" + kv
	}
	return dsn + "?" + kv
}

// freshMariaDB returns a migrated store on a new database opened with dsn's extra parameters,
// its pool narrowed to one connection so the session counters of the server describe exactly
// the store's own statements.
func freshMariaDB(t *testing.T, params ...string) *store.DB {
	t.Helper()
	dsn := mariadbBackend.newDatabase(t)
	for _, p := range params {
		dsn = withParam(dsn, p)
	}
	db := mariadbBackend.open(t, dsn)
	wantNoErr(t, "Migrate", db.Migrate(ctx))
	db.SQL().SetMaxOpenConns(1)
	return db
}

// serverPrepares is the session's count of COM_STMT_PREPARE, read on the store's one connection.
func serverPrepares(t *testing.T, db *store.DB) int {
	t.Helper()
	var row struct {
		Name  string `db:"Variable_name"`
		Value int    `db:"Value"`
	}
	wantNoErr(t, "SHOW SESSION STATUS", db.SQL().GetContext(ctx, &row, `SHOW SESSION STATUS LIKE 'Com_stmt_prepare'`))
	return row.Value
}

// storeCalls makes the intake write, the booking claim (one INSERT … RETURNING) and the look-up
// once: 3 statements with arguments.
func storeCalls(t *testing.T, db *store.DB, key string) {
	t.Helper()
	mustInsert(t, db, newEvent("acc_1", "evt_"+key, key, t0))
	claimBooking(t, db, newBooking(key, "w1", t0.Add(time.Minute)), t0, true) // INSERT … RETURNING
	if _, err := db.FindEvents(ctx, key); err != nil {
		t.Fatal(err)
	}
}

// Each store statement is one round trip to MariaDB (interpolateParams), not PREPARE + EXECUTE
// + CLOSE; the intake INSERT alone is prepared on the server, once per connection, and then
// only executed (execHot): 9 store statements on one connection, 1 server prepare.
func TestMariaDBPreparesOnlyTheIntakeInsertOncePerConnection(t *testing.T) {
	db := freshMariaDB(t)
	before := serverPrepares(t, db)
	for _, key := range []string{"pay_1", "pay_2", "pay_3"} {
		storeCalls(t, db, key)
	}
	if got := serverPrepares(t, db) - before; got != 1 {
		t.Fatalf("the server prepared %d statements for 9 store statements; want 1 (the intake INSERT, once)", got)
	}
}

// A connection character set in which a multibyte character can end in a backslash makes
// client-side escaping unsafe: then every statement is prepared on the server, as before.
func TestMariaDBUnsafeCharsetKeepsServerPrepares(t *testing.T) {
	db := freshMariaDB(t, "charset=gbk")
	before := serverPrepares(t, db)
	storeCalls(t, db, "pay_1")
	if got := serverPrepares(t, db) - before; got != 3 {
		t.Fatalf("the server prepared %d statements; want 3 (no interpolation under charset gbk)", got)
	}
}

// Values written through interpolation (reconcile's InsertEventIfNoKey, FindEvents' key) and
// through the prepared intake INSERT come back byte for byte: quotes, backslashes, NUL, a '?'
// that is not a placeholder, bytes that are not UTF-8; also when the server's sql_mode makes
// backslash an ordinary character (the driver then escapes by doubling quotes).
func TestMariaDBInterpolatedValuesRoundTrip(t *testing.T) {
	body := []byte("{\"note\":\"it's a \\\"quote\\\" \\\\ back\\slash ? not a placeholder\"}\x00\x5c\x27\xbf\x5c\xff\xfe'; DROP TABLE inbox; --")
	reason := `O'Brien said "no" \ ? ` + "\u20b9 \U0001F600 \x00end"
	inserts := map[string]struct {
		insert   func(*store.DB, *connector.InboxEvent) (bool, error)
		prepares int // server prepares the insert and the read-backs cost
	}{
		"Prepared":     {func(db *store.DB, e *connector.InboxEvent) (bool, error) { return db.InsertEvent(ctx, e) }, 1},
		"Interpolated": {func(db *store.DB, e *connector.InboxEvent) (bool, error) { return db.InsertEventIfNoKey(ctx, e) }, 0},
	}
	for name, params := range map[string][]string{
		"Default":           nil,
		"NoBackslashEscape": {"sql_mode=%27NO_BACKSLASH_ESCAPES,STRICT_TRANS_TABLES%27"},
	} {
		for how, ins := range inserts {
			t.Run(name+"/"+how, func(t *testing.T) {
				db := freshMariaDB(t, params...)
				e := newEvent("acc_1", "evt_'?\\", "pay_'\\?", t0)
				e.RawBody, e.LastError, e.Status = body, reason, connector.StatusParked
				if ok, err := ins.insert(db, e); err != nil || !ok {
					t.Fatalf("insert = %v, %v; want inserted", ok, err)
				}
				got := mustGet(t, db, e.ID)
				if !bytes.Equal(got.RawBody, body) || got.LastError != reason || got.EventID != e.EventID || got.BusinessKey != e.BusinessKey {
					t.Fatalf("read back %q / %q / %q / %q; want %q / %q / %q / %q", got.RawBody, got.LastError, got.EventID,
						got.BusinessKey, body, reason, e.EventID, e.BusinessKey)
				}
				if rows, err := db.FindEvents(ctx, e.BusinessKey); err != nil || len(rows) != 1 || rows[0].ID != e.ID {
					t.Fatalf("FindEvents(%q) = %d rows, %v", e.BusinessKey, len(rows), err)
				}
				if n := serverPrepares(t, db); n != ins.prepares {
					t.Fatalf("%d server prepares; want %d", n, ins.prepares)
				}
			})
		}
	}
}

// A burst of connections released at once (MariaDB's group commit ends many webhooks' INSERTs
// together) stays in the pool: none is closed for want of an idle slot and dialled again for
// the next burst.
func TestMariaDBPoolKeepsABurstOfConnections(t *testing.T) {
	db := mariadbBackend.open(t, mariadbBackend.newDatabase(t))
	open := db.SQL().Stats().MaxOpenConnections
	if open < 2 {
		t.Fatalf("pool allows %d open connections", open)
	}
	for round := 0; round < 2; round++ {
		conns := make([]interface{ Close() error }, open)
		for i := range conns {
			c, err := db.SQL().Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.PingContext(ctx); err != nil {
				t.Fatal(err)
			}
			conns[i] = c
		}
		for _, c := range conns {
			c.Close()
		}
	}
	st := db.SQL().Stats()
	if st.MaxIdleClosed != 0 || st.Idle != open {
		t.Fatalf("after two bursts of %d: %d closed for want of an idle slot, %d idle; want 0 and %d", open, st.MaxIdleClosed, st.Idle, open)
	}
}
