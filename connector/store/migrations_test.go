package store

import (
	"strings"
	"testing"
)

// TestMigrationSetsMatch keeps the two drivers' schemas in step: the same versions, in the
// same order, each file one statement.
func TestMigrationSetsMatch(t *testing.T) {
	mysql, err := loadMigrations(DriverMySQL)
	if err != nil {
		t.Fatal(err)
	}
	sqlite, err := loadMigrations(DriverSQLite)
	if err != nil {
		t.Fatal(err)
	}
	if len(mysql) == 0 || len(mysql) != len(sqlite) {
		t.Fatalf("%d mysql migrations, %d sqlite migrations; want the same, non-zero", len(mysql), len(sqlite))
	}
	for i := range mysql {
		if mysql[i].version != sqlite[i].version {
			t.Errorf("migration %d: mysql %s, sqlite %s", i, mysql[i].version, sqlite[i].version)
		}
		for _, m := range []migration{mysql[i], sqlite[i]} {
			if n := countStatements(m.sql); n != 1 {
				t.Errorf("%s holds %d statements; want 1", m.version, n)
			}
		}
	}
}

// countStatements counts ';'-separated non-empty statements, ignoring "--" comment lines.
func countStatements(sql string) int {
	n, inStmt := 0, false
	for _, line := range strings.Split(sql, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "--") {
			continue
		}
		for _, r := range line {
			switch {
			case r == ';':
				if inStmt {
					n++
				}
				inStmt = false
			case r != ' ' && r != '\t':
				inStmt = true
			}
		}
	}
	if inStmt {
		n++
	}
	return n
}
