package store_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

// TestGaleraClaimsHaveOneWinnerPerRow runs the claim race with each store handle on a
// different node of a multi-writer Galera cluster: TEST_GALERA_DSNS holds one DSN per node,
// comma-separated (deploy/galera/cluster.sh start, then `cluster.sh dsns`). It is skipped
// without them, also under CI: a cluster is not part of the CI machine. TEST_GALERA_ROUNDS
// (default 40) sets the number of rounds. It logs one line per claim kind that
// deploy/galera/measure.sh collects:
//
//	galera events: 640 rows, 640 claims, 0 double claims, 0 unclaimed, 0 errors
func TestGaleraClaimsHaveOneWinnerPerRow(t *testing.T) {
	list := os.Getenv("TEST_GALERA_DSNS")
	if list == "" {
		t.Skip("TEST_GALERA_DSNS is not set (deploy/galera/cluster.sh start; TEST_GALERA_DSNS=$(deploy/galera/cluster.sh dsns))")
	}
	rounds := 40
	if v, err := strconv.Atoi(os.Getenv("TEST_GALERA_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	dsns := galeraDatabase(t, strings.Split(list, ","))
	var handles []*store.DB
	for _, dsn := range dsns {
		handles = append(handles, mariadbBackend.open(t, dsn))
	}
	wantNoErr(t, "Migrate", handles[0].Migrate(ctx))
	rep := claimRace(t, handles, rounds, 16, 2)
	t.Logf("galera events: %v", rep.Events)
	t.Logf("galera bookings: %v", rep.Bookings)
	t.Logf("galera locks: %v", rep.Locks)
	for i, h := range handles {
		if cr, ok := any(h).(interface{ ClaimRetries() (uint64, uint64) }); ok {
			conflicts, lost := cr.ClaimRetries()
			t.Logf("galera node %d claim retries: %d conflicts, %d lost candidates", i+1, conflicts, lost)
		}
	}
	for _, e := range []error{rep.Events.FirstError, rep.Bookings.FirstError, rep.Locks.FirstError} {
		if e != nil {
			t.Logf("galera first error: %v", e)
		}
	}
	wantOneWinner(t, "inbox events", rep.Events)
	wantOneWinner(t, "bookings", rep.Bookings)
	wantOneWinner(t, "locks", rep.Locks)
}

// galeraDatabase creates a database with a random name through the first node (Galera
// replicates the DDL to every node before it returns), drops it when the test ends, and
// returns the node DSNs pointed at it.
func galeraDatabase(t *testing.T, nodes []string) []string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "rpe_galera_" + hex.EncodeToString(b[:])
	var out []string
	for i, dsn := range nodes {
		cfg, err := mysql.ParseDSN(strings.TrimSpace(dsn))
		if err != nil {
			t.Fatalf("TEST_GALERA_DSNS[%d]: %v", i, err)
		}
		if i == 0 {
			admin := cfg.Clone()
			admin.DBName = ""
			c, err := mysql.NewConnector(admin)
			if err != nil {
				t.Fatal(err)
			}
			db := sql.OpenDB(c)
			t.Cleanup(func() { db.Close() })
			if _, err := db.ExecContext(context.Background(), "CREATE DATABASE `"+name+"`"); err != nil {
				t.Fatalf("create database %s on node 1: %v", name, err)
			}
			t.Cleanup(func() {
				if _, err := db.ExecContext(context.Background(), "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
					t.Errorf("drop database %s: %v", name, err)
				}
			})
		}
		cfg.DBName = name
		out = append(out, cfg.FormatDSN())
	}
	return out
}
