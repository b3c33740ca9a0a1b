package store_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

// explainDue returns the plan lines of ClaimNextEvent's candidate query on a store holding 300
// pending rows, 40 of them claimed with leases that have ended: MariaDB's EXPLAIN as
// "table key extra" lines, SQLite's EXPLAIN QUERY PLAN details.
func explainDue(t *testing.T, b backend) []string {
	t.Helper()
	db := b.fresh(t)
	for i := 0; i < 300; i++ {
		mustInsert(t, db, newEvent("acc_1", fmt.Sprintf("evt_%d", i), fmt.Sprintf("pay_%d", i), t0.Add(time.Duration(i)*time.Second)))
	}
	for i := 0; i < 40; i++ {
		mustClaim(t, db, fmt.Sprintf("w%d", i), t0.Add(time.Hour), time.Minute)
	}
	prefix := "EXPLAIN QUERY PLAN "
	if b.driver == "mysql" {
		if _, err := db.SQL().Exec("ANALYZE TABLE inbox"); err != nil {
			t.Fatal(err)
		}
		prefix = "EXPLAIN "
	}
	rows, err := db.SQL().Queryx(prefix+store.DueCandidatesQuery, store.DueCandidatesArgs(db, t0.Add(2*time.Hour))...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		m := map[string]any{}
		if err := rows.MapScan(m); err != nil {
			t.Fatal(err)
		}
		text := func(k string) string {
			if b, ok := m[k].([]byte); ok {
				return string(b)
			}
			return fmt.Sprint(m[k])
		}
		if b.driver == "mysql" {
			lines = append(lines, text("table")+" "+text("key")+" "+text("Extra"))
		} else {
			lines = append(lines, text("detail"))
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// The one candidate statement reads each index in its own order, without sorting the table:
// on MariaDB the expired arm ranges over inbox_lease and the due arm over inbox_due, both
// index-only with no filesort (only the ≤ 16 rows of the union are sorted).
func TestMariaDBDueCandidatesReadTheirIndexes(t *testing.T) {
	lines := explainDue(t, mariadbBackend)
	t.Logf("EXPLAIN:\n%s", strings.Join(lines, "\n"))
	found := map[string]bool{}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 2 || f[0] != "inbox" {
			continue
		}
		found[f[1]] = true
		if strings.Contains(l, "filesort") || !strings.Contains(l, "Using index") {
			t.Errorf("arm %q sorts or reads the table; want an index-only range in index order", l)
		}
	}
	if !found["inbox_lease"] || !found["inbox_due"] || len(found) != 2 {
		t.Errorf("indexes read %v; want inbox_lease and inbox_due", found)
	}
}

// On SQLite each arm searches its covering index; no arm scans inbox.
func TestSQLiteDueCandidatesReadTheirIndexes(t *testing.T) {
	lines := explainDue(t, sqliteBackend)
	plan := strings.Join(lines, "\n")
	t.Logf("EXPLAIN QUERY PLAN:\n%s", plan)
	for _, want := range []string{"SEARCH inbox USING COVERING INDEX inbox_lease", "SEARCH inbox USING COVERING INDEX inbox_due"} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan lacks %q", want)
		}
	}
	if strings.Contains(plan, "SCAN inbox") {
		t.Errorf("an arm scans inbox")
	}
}
