package reconcile_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/reconcile"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/wire"
)

// mariaDBStore opens a migrated store on a fresh MariaDB database dropped after the test.
// Without TEST_MARIADB_DSN the test skips, except under CI where that is a failure.
func mariaDBStore(t *testing.T) *store.DB {
	t.Helper()
	base := os.Getenv("TEST_MARIADB_DSN")
	if base == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TEST_MARIADB_DSN is not set under CI: the MariaDB tests must run")
		}
		t.Skip("TEST_MARIADB_DSN not set")
	}
	cfg, err := mysql.ParseDSN(base)
	if err != nil {
		t.Fatalf("TEST_MARIADB_DSN: %v", err)
	}
	name := fmt.Sprintf("rzp_conn_%d", time.Now().UnixNano()%1e12)
	cfg.DBName = ""
	admin, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() { _, _ = admin.Exec("DROP DATABASE IF EXISTS " + name) })
	cfg.DBName, cfg.ParseTime = name, true
	db, err := store.Open(context.Background(), "mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// labelled returns the value of counter name with label = value in reg (0 when absent).
func labelled(t *testing.T, reg *prometheus.Registry, name, label, value string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// gate holds the first Razorpay payment-list request until release is closed, so a test can
// act while a reconcile is in the middle of its sweep.
type gate struct {
	once    sync.Once
	entered chan struct{}
	release chan struct{}
}

func newGate() *gate { return &gate{entered: make(chan struct{}), release: make(chan struct{})} }

func (g *gate) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/v1/payments" {
			first := false
			g.once.Do(func() { first = true; close(g.entered) })
			if first {
				<-g.release
			}
		}
		next.ServeHTTP(w, r)
	})
}

// Two serve replicas on one store with the reconcile schedule: while one sweeps, the other's
// run is refused by the lock row "reconcile" (ErrReconcileBusy, not counted as a run); one run
// record, every lost payment queued once, and the run counted in the metrics of the replica
// that ran it.
func TestReconcileReplicasRunOneAtATime(t *testing.T) {
	for _, driver := range []string{"sqlite", "mysql"} {
		t.Run(driver, func(t *testing.T) {
			g := newGate()
			e := newReconcileEnv(t, nil)
			e.rzpFront(g.wrap)
			if driver == "mysql" {
				e.db = mariaDBStore(t)
			}
			for i := 0; i < 12; i++ {
				e.payment(payID(i), "", e.now.Add(-time.Duration(i+1)*time.Hour), nil)
			}
			a, b := e.connector(), e.connector()
			ctx := context.Background()
			var (
				repA *reconcile.Report
				errA error
				done = make(chan struct{})
			)
			go func() {
				defer close(done)
				repA, errA = reconcile.Run(ctx, a.Reconcile(), reconcile.Request{})
			}()
			select {
			case <-g.entered:
			case <-time.After(10 * time.Second):
				t.Fatal("the first reconcile never listed payments")
			}
			_, errB := reconcile.Run(ctx, b.Reconcile(), reconcile.Request{})
			close(g.release)
			<-done
			if errA != nil {
				t.Fatalf("first replica: %v", errA)
			}
			if !errors.Is(errB, reconcile.ErrBusy) {
				t.Fatalf("second replica: %v, want ErrReconcileBusy while the first sweeps", errB)
			}
			if repA.Payments.Queued != 12 {
				t.Errorf("first replica queued %d, want 12", repA.Payments.Queued)
			}
			for i := 0; i < 12; i++ {
				rows, err := e.db.FindEvents(ctx, payID(i))
				if err != nil || len(rows) != 1 {
					t.Errorf("payment %s: %d inbox rows (%v), want 1", payID(i), len(rows), err)
				}
			}
			runs, err := e.db.ListReconcileRuns(ctx, 0)
			if err != nil || len(runs) != 1 || runs[0].Queued != 12 || runs[0].Booked != 0 || runs[0].FinishedAt == nil {
				t.Errorf("runs %+v (%v): want one finished run that queued 12", runs, err)
			}
			if got := labelled(t, a.Metrics(), connector.MetricReconcileRuns, "result", "success"); got != 1 {
				t.Errorf("first replica %s{result=success} = %v, want 1", connector.MetricReconcileRuns, got)
			}
			if got := labelled(t, a.Metrics(), connector.MetricReconcilePayments, "outcome", "booked"); got != 12 {
				t.Errorf("first replica %s{outcome=booked} = %v, want 12", connector.MetricReconcilePayments, got)
			}
			for _, result := range []string{"success", "failure"} {
				if got := labelled(t, b.Metrics(), connector.MetricReconcileRuns, "result", result); got != 0 {
					t.Errorf("refused replica counted a %s run", result)
				}
			}

			// Once the lock is free, the other replica runs and queues nothing.
			repB, err := reconcile.Run(ctx, b.Reconcile(), reconcile.Request{})
			if err != nil || repB.Payments.Queued != 0 || repB.Payments.InInbox != 12 {
				t.Fatalf("second replica afterwards: %+v (%v), want 0 queued, 12 in the inbox", repB.Payments, err)
			}
			if got := labelled(t, b.Metrics(), connector.MetricReconcileRuns, "result", "success"); got != 1 {
				t.Errorf("second replica %s{result=success} = %v, want 1", connector.MetricReconcileRuns, got)
			}
		})
	}
}

// Replicas started by the same schedule tick race for the lock with no gate: whatever the
// interleaving, each payment is queued once and there is one run record per run that took the
// lock.
func TestReconcileReplicasRacingQueueOnce(t *testing.T) {
	e := newReconcileEnv(t, nil)
	for i := 0; i < 30; i++ {
		e.payment(payID(i), "", e.now.Add(-time.Duration(i+1)*time.Hour), nil)
	}
	conns := []*wire.Core{e.connector(), e.connector(), e.connector()}
	ctx := context.Background()
	var wg sync.WaitGroup
	reps := make([]*reconcile.Report, len(conns))
	errs := make([]error, len(conns))
	for i, c := range conns {
		wg.Add(1)
		go func(i int, c *wire.Core) {
			defer wg.Done()
			reps[i], errs[i] = reconcile.Run(ctx, c.Reconcile(), reconcile.Request{})
		}(i, c)
	}
	wg.Wait()
	ran, queued := 0, 0
	for i, err := range errs {
		switch {
		case err == nil:
			ran++
			queued += reps[i].Payments.Queued
		case !errors.Is(err, reconcile.ErrBusy):
			t.Fatalf("replica %d: %v", i, err)
		}
	}
	if ran == 0 || queued != 30 {
		t.Errorf("%d runs queued %d in all, want 30", ran, queued)
	}
	runs, err := e.db.ListReconcileRuns(ctx, 0)
	if err != nil || len(runs) != ran {
		t.Errorf("%d run records (%v) for %d runs", len(runs), err, ran)
	}
	for i := 0; i < 30; i++ {
		if rows, _ := e.db.FindEvents(ctx, payID(i)); len(rows) != 1 {
			t.Errorf("payment %s: %d inbox rows, want 1", payID(i), len(rows))
		}
	}
}
