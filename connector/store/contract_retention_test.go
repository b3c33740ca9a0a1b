package store_test

import (
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

var retentionCases = []contractCase{
	{"PurgeRawBodiesKeepsRowsAPersonMustStillActOn", func(t *testing.T, b backend) {
		// Parked and dead rows wait for a person, who may replay them: that needs the body,
		// however old the row is. Only rows that need nothing more lose it.
		db := b.fresh(t)
		old := t0.Add(-100 * 24 * time.Hour)
		cutoff := t0.Add(-90 * 24 * time.Hour)
		wantBody := map[connector.Status]bool{
			connector.StatusPending: true, connector.StatusProcessing: true,
			connector.StatusParked: true, connector.StatusDead: true,
			connector.StatusDone: false, connector.StatusDuplicate: false,
			connector.StatusSkipped: false, connector.StatusDismissed: false,
		}
		ids := map[connector.Status]int64{}
		// Processing first: it is inserted pending and is then the oldest due row to claim.
		for _, status := range []connector.Status{connector.StatusProcessing, connector.StatusPending, connector.StatusParked,
			connector.StatusDead, connector.StatusDone, connector.StatusDuplicate, connector.StatusSkipped, connector.StatusDismissed} {
			e := newEvent("acc_1", "evt_"+string(status), "pay_"+string(status), old)
			if status != connector.StatusProcessing {
				e.Status = status
			}
			ids[status] = mustInsert(t, db, e).ID
		}
		if ev := mustClaim(t, db, "w1", t0, time.Hour); ev.ID != ids[connector.StatusProcessing] {
			t.Fatalf("claimed %s; want evt_processing", ev.EventID)
		}

		n, err := db.PurgeRawBodies(ctx, cutoff)
		wantNoErr(t, "PurgeRawBodies", err)
		if n != 4 {
			t.Errorf("purged %d rows; want 4 (done, duplicate, skipped, dismissed)", n)
		}
		for status, keep := range wantBody {
			got := mustGet(t, db, ids[status])
			if got.Status != status {
				t.Fatalf("row %s is %s; want %s", got.EventID, got.Status, status)
			}
			if (got.RawBody != nil) != keep {
				t.Errorf("%s row older than the cutoff: body kept %v; want %v", status, got.RawBody != nil, keep)
			}
		}
		// A parked row kept its body, so a person can still replay it.
		wantNoErr(t, "replay parked", db.SetEventStatus(ctx, ids[connector.StatusParked], connector.StatusPending, "", t0))
		if got := mustGet(t, db, ids[connector.StatusParked]); got.RawBody == nil {
			t.Fatal("replayed parked row has no body")
		}
	}},
}
