package store

import (
	"strings"
	"testing"
)

// TestMigrationSetsMatch keeps the drivers' schemas in step: every driver has the same
// versions as MariaDB, in the same order, each file one statement.
func TestMigrationSetsMatch(t *testing.T) {
	mysql, err := loadMigrations(DriverMySQL)
	if err != nil {
		t.Fatal(err)
	}
	if len(mysql) == 0 || len(dialects) != 3 {
		t.Fatalf("%d mysql migrations, %d dialects; want some, and 3 drivers", len(mysql), len(dialects))
	}
	for name := range dialects {
		other, err := loadMigrations(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(other) != len(mysql) {
			t.Fatalf("%d mysql migrations, %d %s migrations; want the same", len(mysql), len(other), name)
		}
		for i := range mysql {
			if mysql[i].version != other[i].version {
				t.Errorf("migration %d: mysql %s, %s %s", i, mysql[i].version, name, other[i].version)
			}
			if n := countStatements(other[i].sql); n != 1 {
				t.Errorf("%s %s holds %d statements; want 1", name, other[i].version, n)
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
