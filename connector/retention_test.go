package connector_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/wire"
)

// Raw bodies of finished rows older than retention.raw_bodies are purged; the row and its
// outcome stay. A row still waiting to be booked, or parked for a person (who may replay it),
// keeps its body.
func TestRetentionPurgesRawBodies(t *testing.T) {
	db := sqliteStore(t)
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	cfg := intakeConfig()
	cfg.Retention.RawBodies = connector.Duration(90 * 24 * time.Hour)
	c, err := wire.New(wire.Options{Config: cfg, Store: db, Log: zerolog.Nop(), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	ret := c.Retention(db) // retention.raw_bodies, the core's clock and logger, counted in its metrics
	ctx := context.Background()
	insert := func(id string, status connector.Status, age time.Duration) int64 {
		e := &connector.InboxEvent{AccountID: "acc_1", EventID: id, Event: "payment.captured", BusinessKey: "pay_" + id,
			RawBody: []byte(`{"email":"customer@example.com","contact":"+919000000001"}`), ReceivedAt: now.Add(-age)}
		if _, err := db.InsertEvent(ctx, e); err != nil {
			t.Fatal(err)
		}
		if status != connector.StatusPending {
			if err := db.SetEventStatus(ctx, e.ID, status, string(status)+" reason", now); err != nil {
				t.Fatal(err)
			}
		}
		return e.ID
	}
	oldDone := insert("old_done", connector.StatusDone, 91*24*time.Hour)
	oldParked := insert("old_parked", connector.StatusParked, 100*24*time.Hour)
	oldPending := insert("old_pending", connector.StatusPending, 100*24*time.Hour)
	young := insert("young", connector.StatusDone, 89*24*time.Hour)

	n, err := ret.PurgeRawBodies(ctx)
	if err != nil || n != 1 {
		t.Fatalf("PurgeRawBodies = %d, %v; want 1", n, err)
	}
	for id, wantBody := range map[int64]bool{oldDone: false, oldParked: true, oldPending: true, young: true} {
		ev, err := db.GetEvent(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if (ev.RawBody != nil) != wantBody {
			t.Errorf("event %s: body kept %v, want %v", ev.EventID, ev.RawBody != nil, wantBody)
		}
		if ev.LastError == "" && ev.Status != connector.StatusPending {
			t.Errorf("event %s lost its outcome", ev.EventID)
		}
	}
	if got := counterValue(t, c, connector.MetricRawBodiesPurged); got != 1 {
		t.Errorf("%s = %v, want 1", connector.MetricRawBodiesPurged, got)
	}
	// The ticker used by serve purges at start.
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { ret.Run(rctx, time.Hour); close(done) }()
	cancel()
	<-done
}

// counterValue gathers the connector's registry and returns the first sample of counter name.
func counterValue(t *testing.T, c *wire.Core, name string) float64 {
	t.Helper()
	mfs, err := c.Metrics().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	names := []string{}
	for _, mf := range mfs {
		names = append(names, mf.GetName())
	}
	t.Fatalf("%s not gathered (have %s)", name, strings.Join(names, ", "))
	return 0
}
