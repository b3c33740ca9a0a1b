package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

func TestMySQLInterpolationSafe(t *testing.T) {
	for _, c := range []struct {
		dsn  string
		want bool
	}{
		{"user:pw@tcp(db:3306)/rpe?parseTime=true", true},
		{"user:pw@tcp(db:3306)/rpe", true},
		{"user:pw@tcp(db:3306)/rpe?charset=utf8mb4", true},
		{"user:pw@tcp(db:3306)/rpe?charset=utf8mb4,utf8", true},
		{"user:pw@tcp(db:3306)/rpe?collation=utf8mb4_unicode_ci", true},
		{"user:pw@tcp(db:3306)/rpe?charset=latin1", true},
		// Multibyte sets whose trailing bytes may be 0x5c: the driver checks only collation=.
		{"user:pw@tcp(db:3306)/rpe?charset=gbk", false},
		{"user:pw@tcp(db:3306)/rpe?charset=utf8mb4,sjis", false},
		{"user:pw@tcp(db:3306)/rpe?charset=cp932", false},
		{"user:pw@tcp(db:3306)/rpe?collation=big5_chinese_ci&charset=big5", false},
		{"user:pw@tcp(db:3306)/rpe?character_set_client=gbk", false},
		{"user:pw@tcp(db:3306)/rpe?collation_connection=gbk_bin", false},
		// An explicit choice is the operator's.
		{"user:pw@tcp(db:3306)/rpe?interpolateParams=false", false},
		{"user:pw@tcp(db:3306)/rpe?interpolateParams=true", false},
		// A '?' or "charset=gbk" inside the password is not a parameter.
		{"user:p?charset=gbk@tcp(db:3306)/rpe", true},
	} {
		cfg, err := mysql.ParseDSN(c.dsn)
		if err != nil {
			// The driver itself refuses some of these; the store never gets to decide.
			t.Logf("%s: %v", c.dsn, err)
			continue
		}
		if got := mysqlInterpolationSafe(c.dsn, cfg); got != c.want {
			t.Errorf("mysqlInterpolationSafe(%q) = %v; want %v", c.dsn, got, c.want)
		}
	}
}

func TestDSNParams(t *testing.T) {
	p := dsnParams("u:pa/ss?x@tcp(h:1)/db?charset=utf8mb4&sql_mode=%27NO_BACKSLASH_ESCAPES%27&parseTime")
	if p.Get("charset") != "utf8mb4" || p.Get("sql_mode") != "'NO_BACKSLASH_ESCAPES'" || !p.Has("parseTime") || len(p) != 3 {
		t.Fatalf("dsnParams = %v", p)
	}
	if p := dsnParams("u:pw@tcp(h:1)/db"); len(p) != 0 {
		t.Fatalf("no parameters: %v", p)
	}
}

// The SQLite store parses each fixed statement once: InsertEvent and GetEvent, called many
// times, leave one kept statement each, and answers stay right.
func TestSQLiteKeepsFixedStatementsPrepared(t *testing.T) {
	ctx := context.Background()
	d, err := Open(ctx, DriverSQLite, filepath.Join(t.TempDir(), "stmts.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	kept := func() int {
		d.stmts.mu.Lock()
		defer d.stmts.mu.Unlock()
		return len(d.stmts.m)
	}
	base := kept()
	for i := 0; i < 20; i++ {
		e := &connector.InboxEvent{AccountID: "acc_1", EventID: fmt.Sprintf("evt_%d", i), BusinessKey: fmt.Sprintf("pay_%d", i)}
		if ok, err := d.InsertEvent(ctx, e); err != nil || !ok {
			t.Fatalf("InsertEvent %d = %v, %v", i, ok, err)
		}
		got, err := d.GetEvent(ctx, e.ID)
		if err != nil || got.BusinessKey != e.BusinessKey {
			t.Fatalf("GetEvent(%d) = %+v, %v", e.ID, got, err)
		}
	}
	if n := kept() - base; n != 2 {
		t.Fatalf("%d statements kept after 20 InsertEvent + GetEvent; want 2", n)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if kept := d.stmts.m; kept != nil {
		t.Fatalf("Close left %d statements", len(kept))
	}
}

// Past maxCachedStatements, statements run unprepared and still work.
func TestStatementCacheIsBounded(t *testing.T) {
	ctx := context.Background()
	d, err := Open(ctx, DriverSQLite, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for i := 0; i < maxCachedStatements+10; i++ {
		var n int
		if err := d.getContext(ctx, &n, fmt.Sprintf("SELECT %d + ?", i), 1); err != nil || n != i+1 {
			t.Fatalf("query %d = %d, %v", i, n, err)
		}
	}
	if len(d.stmts.m) != maxCachedStatements {
		t.Fatalf("%d statements kept; want the bound %d", len(d.stmts.m), maxCachedStatements)
	}
}
