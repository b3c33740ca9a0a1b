package store_test

import (
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/pgtest"
)

func TestRetentionAndMonitoring(t *testing.T) {
	for _, b := range []backend{sqliteBackend, mariadbBackend, postgresBackend} {
		t.Run(b.driver, func(t *testing.T) {
			switch b.driver {
			case "mysql":
				mariadbDSN(t)
			case "postgres":
				pgtest.DSN(t)
			}
			t.Run("PurgeKeepsRowAndOutcomeAndUnfinishedBodies", func(t *testing.T) { purgeCase(t, b.fresh(t)) })
			t.Run("OldestPendingAndLastReconcile", func(t *testing.T) { oldestCase(t, b.fresh(t)) })
		})
	}
}

func purgeCase(t *testing.T, db *store.DB) {
	old := mustInsert(t, db, newEvent("acc_1", "evt_old_done", "pay_1", t0.Add(-100*24*time.Hour)))
	wantNoErr(t, "SetEventStatus", db.SetEventStatus(ctx, old.ID, connector.StatusDismissed, "paid in cash", t0))
	oldPending := mustInsert(t, db, newEvent("acc_1", "evt_old_pending", "pay_2", t0.Add(-100*24*time.Hour)))
	recent := mustInsert(t, db, newEvent("acc_1", "evt_recent", "pay_3", t0.Add(-time.Hour)))
	wantNoErr(t, "SetEventStatus", db.SetEventStatus(ctx, recent.ID, connector.StatusDone, "", t0))

	n, err := db.PurgeRawBodies(ctx, t0.Add(-90*24*time.Hour))
	wantNoErr(t, "PurgeRawBodies", err)
	if n != 1 {
		t.Fatalf("purged %d rows, want 1", n)
	}
	got := mustGet(t, db, old.ID)
	if got.RawBody != nil || got.Status != connector.StatusDismissed || got.LastError != "paid in cash" || got.BusinessKey != "pay_1" {
		t.Errorf("purged row %+v: want no body, status and reason kept", got)
	}
	if mustGet(t, db, oldPending.ID).RawBody == nil {
		t.Error("a pending row lost its body: it still has to be booked")
	}
	if mustGet(t, db, recent.ID).RawBody == nil {
		t.Error("a row younger than the cutoff lost its body")
	}
	if n, err := db.PurgeRawBodies(ctx, t0.Add(-90*24*time.Hour)); err != nil || n != 0 {
		t.Errorf("second purge = %d, %v; want 0", n, err)
	}
}

func oldestCase(t *testing.T, db *store.DB) {
	if _, ok, err := db.OldestPending(ctx); err != nil || ok {
		t.Fatalf("empty inbox: ok %v err %v", ok, err)
	}
	a := mustInsert(t, db, newEvent("acc_1", "evt_a", "pay_a", t0.Add(-time.Hour)))
	mustInsert(t, db, newEvent("acc_1", "evt_b", "pay_b", t0.Add(-time.Minute)))
	got, ok, err := db.OldestPending(ctx)
	wantNoErr(t, "OldestPending", err)
	if !ok {
		t.Fatal("no oldest pending")
	}
	wantTime(t, "oldest", got, t0.Add(-time.Hour))
	wantNoErr(t, "SetEventStatus", db.SetEventStatus(ctx, a.ID, connector.StatusDone, "", t0))
	got, _, _ = db.OldestPending(ctx)
	wantTime(t, "oldest after done", got, t0.Add(-time.Minute))

	if _, ok, err := db.LastReconcileSuccess(ctx); err != nil || ok {
		t.Fatalf("no runs: ok %v err %v", ok, err)
	}
	ins := `INSERT INTO reconcile_runs (window_from, window_to, started_at, finished_at, error) VALUES (?, ?, ?, ?, ?)`
	ts := func(x time.Time) any {
		if db.Driver() != "sqlite" {
			return x
		}
		return x.Format("2006-01-02 15:04:05.000000")
	}
	for _, r := range []struct {
		fin time.Time
		err string
	}{{t0.Add(-2 * time.Hour), ""}, {t0.Add(-time.Hour), ""}, {t0, "razorpay 401"}} {
		if _, err := db.SQL().ExecContext(ctx, db.SQL().Rebind(ins), ts(t0), ts(t0), ts(t0), ts(r.fin), r.err); err != nil {
			t.Fatal(err)
		}
	}
	got, ok, err = db.LastReconcileSuccess(ctx)
	wantNoErr(t, "LastReconcileSuccess", err)
	if !ok {
		t.Fatal("no success found")
	}
	wantTime(t, "last success", got, t0.Add(-time.Hour))
}
