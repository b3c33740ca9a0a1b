package store_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

var inboxCases = []contractCase{
	{"InsertStoresEveryFieldAndDuplicateIsIgnored", func(t *testing.T, b backend) {
		db := b.fresh(t)
		ist := time.FixedZone("IST", 5*3600+1800)
		created := t0.Add(-time.Minute).In(ist)
		e := newEvent("acc_1", "evt_1", "pay_1", t0.In(ist).Add(987*time.Nanosecond))
		e.EventCreatedAt = &created
		mustInsert(t, db, e)
		if e.ID == 0 || e.Status != connector.StatusPending {
			t.Fatalf("after insert: ID %d, Status %q; want an id and pending", e.ID, e.Status)
		}
		got := mustGet(t, db, e.ID)
		if got.AccountID != "acc_1" || got.EventID != "evt_1" || got.Event != "payment.captured" ||
			got.BusinessKey != "pay_1" || !bytes.Equal(got.RawBody, e.RawBody) ||
			got.Status != connector.StatusPending || got.Attempts != 0 || got.LeaseOwner != "" ||
			got.LeaseUntil != nil || got.LastError != "" {
			t.Fatalf("stored row = %+v", got)
		}
		wantTime(t, "ReceivedAt", got.ReceivedAt, t0)
		wantTime(t, "NextAttemptAt", got.NextAttemptAt, t0)
		wantTime(t, "UpdatedAt", got.UpdatedAt, t0)
		wantTime(t, "e.ReceivedAt (normalised in place)", e.ReceivedAt, t0)
		if got.EventCreatedAt == nil {
			t.Fatal("EventCreatedAt = nil")
		}
		wantTime(t, "EventCreatedAt", *got.EventCreatedAt, t0.Add(-time.Minute))

		again := newEvent("acc_1", "evt_1", "pay_other", t0.Add(time.Hour))
		inserted, err := db.InsertEvent(ctx, again)
		if err != nil || inserted {
			t.Fatalf("duplicate InsertEvent = %v, %v; want false, nil", inserted, err)
		}
		if got := mustGet(t, db, e.ID); got.BusinessKey != "pay_1" {
			t.Fatalf("duplicate overwrote the row: %+v", got)
		}
	}},
	{"EventIDsDifferingOnlyInCaseAreDistinct", func(t *testing.T, b backend) {
		db := b.fresh(t)
		mustInsert(t, db, newEvent("acc_1", "KyQ5vx8Bwp8bgk", "pay_Abc", t0))
		mustInsert(t, db, newEvent("acc_1", "kyq5vx8bwp8bgk", "pay_abc", t0))
		mustInsert(t, db, newEvent("ACC_1", "KyQ5vx8Bwp8bgk", "pay_ABC", t0))
		mustInsert(t, db, newEvent("acc_2", "KyQ5vx8Bwp8bgk", "pay_Abc", t0))
		inserted, err := db.InsertEvent(ctx, newEvent("acc_1", "KyQ5vx8Bwp8bgk", "pay_Abc", t0))
		if err != nil || inserted {
			t.Fatalf("exact duplicate = %v, %v; want false, nil", inserted, err)
		}
	}},
	{"InsertFillsDefaultsAndKeepsGivenStatus", func(t *testing.T, b backend) {
		db := b.fresh(t)
		due := t0.Add(time.Hour)
		e := newEvent("acc_1", "evt_1", "", t0)
		e.Status, e.NextAttemptAt, e.LastError, e.RawBody = connector.StatusDead, due, "body does not parse", nil
		mustInsert(t, db, e)
		got := mustGet(t, db, e.ID)
		if got.Status != connector.StatusDead || got.LastError != "body does not parse" || got.RawBody != nil {
			t.Fatalf("stored row = %+v", got)
		}
		wantTime(t, "NextAttemptAt", got.NextAttemptAt, due)

		noTime := newEvent("acc_1", "evt_2", "pay_2", time.Time{})
		mustInsert(t, db, noTime)
		if noTime.ReceivedAt.IsZero() || !noTime.NextAttemptAt.Equal(noTime.ReceivedAt) {
			t.Fatalf("zero ReceivedAt not filled: %+v", noTime)
		}
	}},
	{"InsertRefusesBadRowsWithoutUnavailable", func(t *testing.T, b backend) {
		db := b.fresh(t)
		for name, e := range map[string]*connector.InboxEvent{
			"empty event id":  newEvent("acc_1", "", "pay_1", t0),
			"long event id":   newEvent("acc_1", string(bytes.Repeat([]byte("e"), 256)), "pay_1", t0),
			"unknown status":  {EventID: "evt_1", Status: "weird", ReceivedAt: t0},
			"long account id": newEvent(string(bytes.Repeat([]byte("a"), 65)), "evt_1", "pay_1", t0),
		} {
			inserted, err := db.InsertEvent(ctx, e)
			if err == nil || inserted || errors.Is(err, connector.ErrStoreUnavailable) {
				t.Errorf("%s: InsertEvent = %v, %v; want a plain error", name, inserted, err)
			}
		}
		_, err := db.InsertEventIfNoKey(ctx, newEvent("acc_1", "reconcile:", "", t0))
		if err == nil || errors.Is(err, connector.ErrStoreUnavailable) {
			t.Errorf("InsertEventIfNoKey with empty key: err = %v; want a plain error", err)
		}
	}},
	{"InsertEventIfNoKeyInsertsOnlyForUnknownKeys", func(t *testing.T, b backend) {
		db := b.fresh(t)
		webhook := mustInsert(t, db, newEvent("acc_1", "evt_1", "pay_Known", t0))
		for _, c := range []struct {
			eventID, key string
			want         bool
		}{
			{"reconcile:pay_Known", "pay_Known", false}, // a webhook row has the key
			{"reconcile:pay_New", "pay_New", true},
			{"reconcile:pay_New", "pay_New", false}, // now it exists
			{"reconcile:pay_new", "pay_new", true},  // keys are case-sensitive
			{"evt_1", "pay_Other", false},           // (account, event id) taken
		} {
			e := newEvent("acc_1", c.eventID, c.key, t0.Add(time.Minute))
			inserted, err := db.InsertEventIfNoKey(ctx, e)
			if err != nil || inserted != c.want {
				t.Fatalf("InsertEventIfNoKey(%s, %s) = %v, %v; want %v", c.eventID, c.key, inserted, err, c.want)
			}
			if inserted && (e.ID == 0 || e.ID == webhook.ID) {
				t.Fatalf("InsertEventIfNoKey(%s) set ID %d", c.eventID, e.ID)
			}
		}
		found, err := db.FindEvents(ctx, "pay_Known")
		if err != nil || len(found) != 1 {
			t.Fatalf("FindEvents(pay_Known) = %d rows, %v; want 1", len(found), err)
		}
	}},
	{"GetEventOfMissingIDIsNotFound", func(t *testing.T, b backend) {
		db := b.fresh(t)
		_, err := db.GetEvent(ctx, 424242)
		wantErr(t, "GetEvent", err, connector.ErrNotFound)
	}},
	{"FindEventsByEventIDOrBusinessKeyOldestFirst", func(t *testing.T, b backend) {
		db := b.fresh(t)
		second := mustInsert(t, db, newEvent("acc_1", "evt_2", "pay_A", t0.Add(2*time.Second)))
		first := mustInsert(t, db, newEvent("acc_1", "evt_1", "pay_A", t0.Add(time.Second)))
		other := mustInsert(t, db, newEvent("acc_1", "evt_3", "pay_B", t0))
		mustInsert(t, db, newEvent("acc_1", "evt_4", "pay_a", t0))

		got, err := db.FindEvents(ctx, "pay_A")
		if err != nil || len(got) != 2 || got[0].ID != first.ID || got[1].ID != second.ID {
			t.Fatalf("FindEvents(pay_A) = %v, %v; want [%d %d]", ids(got), err, first.ID, second.ID)
		}
		got, err = db.FindEvents(ctx, "evt_3")
		if err != nil || len(got) != 1 || got[0].ID != other.ID {
			t.Fatalf("FindEvents(evt_3) = %v, %v; want [%d]", ids(got), err, other.ID)
		}
		for _, key := range []string{"EVT_3", "pay_none", ""} {
			got, err = db.FindEvents(ctx, key)
			if err != nil || len(got) != 0 {
				t.Fatalf("FindEvents(%q) = %v, %v; want none", key, ids(got), err)
			}
		}
	}},
	{"ListEventsFiltersNewestFirst", func(t *testing.T, b backend) {
		db := b.fresh(t)
		var rows []*connector.InboxEvent
		for i, status := range []connector.Status{connector.StatusPending, connector.StatusDead, connector.StatusPending,
			connector.StatusParked, connector.StatusPending} {
			e := newEvent("acc_1", "evt_"+string(rune('a'+i)), "pay_1", t0.Add(time.Duration(i)*time.Minute))
			e.Status = status
			rows = append(rows, mustInsert(t, db, e))
		}
		check := func(f connector.EventFilter, want ...*connector.InboxEvent) {
			t.Helper()
			got, err := db.ListEvents(ctx, f)
			if err != nil {
				t.Fatalf("ListEvents(%+v): %v", f, err)
			}
			if len(got) != len(want) {
				t.Fatalf("ListEvents(%+v) = %v; want %d rows", f, ids(got), len(want))
			}
			for i := range want {
				if got[i].ID != want[i].ID {
					t.Fatalf("ListEvents(%+v) = %v; want %v", f, ids(got), ptrIDs(want))
				}
			}
		}
		check(connector.EventFilter{}, rows[4], rows[3], rows[2], rows[1], rows[0])
		check(connector.EventFilter{Status: connector.StatusPending}, rows[4], rows[2], rows[0])
		check(connector.EventFilter{Since: t0.Add(2 * time.Minute)}, rows[4], rows[3], rows[2])
		check(connector.EventFilter{Status: connector.StatusPending, Since: t0.Add(time.Minute), Limit: 1}, rows[4])
		check(connector.EventFilter{Limit: 2}, rows[4], rows[3])
		check(connector.EventFilter{Status: connector.StatusDone})
	}},
	{"CountByStatusCountsEveryStatus", func(t *testing.T, b backend) {
		db := b.fresh(t)
		for i, status := range []connector.Status{connector.StatusPending, connector.StatusPending, connector.StatusDead} {
			e := newEvent("acc_1", "evt_"+string(rune('a'+i)), "", t0)
			e.Status = status
			mustInsert(t, db, e)
		}
		mustClaim(t, db, "w1", t0, time.Minute)
		counts, err := db.CountByStatus(ctx)
		wantNoErr(t, "CountByStatus", err)
		want := map[connector.Status]int{connector.StatusPending: 1, connector.StatusProcessing: 1, connector.StatusDead: 1,
			connector.StatusDone: 0, connector.StatusParked: 0, connector.StatusSkipped: 0,
			connector.StatusDismissed: 0, connector.StatusDuplicate: 0}
		if len(counts) != len(want) {
			t.Fatalf("CountByStatus = %v; want %v", counts, want)
		}
		for s, n := range want {
			if counts[s] != n {
				t.Fatalf("CountByStatus = %v; want %v", counts, want)
			}
		}
	}},
	{"SetEventStatusReplaysAndDismisses", func(t *testing.T, b backend) {
		db := b.fresh(t)
		e := mustInsert(t, db, newEvent("acc_1", "evt_1", "pay_1", t0))
		for i := 0; i < 3; i++ {
			ev := mustClaim(t, db, "w1", t0.Add(time.Duration(i)*time.Hour), time.Minute)
			status := connector.StatusPending
			if i == 2 {
				status = connector.StatusDead
			}
			wantNoErr(t, "CompleteEvent", db.CompleteEvent(ctx, ev.ID, "w1", t0, connector.Outcome{
				Status: status, LastError: "ERPNext said no", NextAttemptAt: t0.Add(time.Duration(i+1) * time.Hour), CountAttempt: true}))
		}
		if got := mustGet(t, db, e.ID); got.Status != connector.StatusDead || got.Attempts != 3 {
			t.Fatalf("before replay: %+v", got)
		}
		replayAt := t0.Add(24 * time.Hour)
		wantNoErr(t, "replay", db.SetEventStatus(ctx, e.ID, connector.StatusPending, "", replayAt))
		got := mustGet(t, db, e.ID)
		if got.Status != connector.StatusPending || got.Attempts != 0 || got.LastError != "ERPNext said no" {
			t.Fatalf("after replay: %+v", got)
		}
		wantTime(t, "NextAttemptAt after replay", got.NextAttemptAt, replayAt)
		wantTime(t, "UpdatedAt after replay", got.UpdatedAt, replayAt)

		// A worker that died leaves a processing row whose lease ends: a person may dismiss it.
		claimed := mustClaim(t, db, "w2", replayAt, time.Minute)
		dismissAt := replayAt.Add(2 * time.Minute)
		wantNoErr(t, "dismiss", db.SetEventStatus(ctx, claimed.ID, connector.StatusDismissed, "paid in cash", dismissAt))
		got = mustGet(t, db, e.ID)
		if got.Status != connector.StatusDismissed || got.LastError != "paid in cash" || got.LeaseOwner != "" || got.LeaseUntil != nil {
			t.Fatalf("after dismiss: %+v", got)
		}
		wantErr(t, "worker completing a dismissed event",
			db.CompleteEvent(ctx, claimed.ID, "w2", dismissAt, connector.Outcome{Status: connector.StatusDone}), connector.ErrLeaseLost)

		wantErr(t, "SetEventStatus(missing)", db.SetEventStatus(ctx, 424242, connector.StatusPending, "", t0), connector.ErrNotFound)
		if err := db.SetEventStatus(ctx, e.ID, connector.StatusProcessing, "", t0); err == nil {
			t.Fatal("SetEventStatus(processing) succeeded; want an error")
		}
	}},
	{"SetEventStatusLeavesALiveLeaseAlone", func(t *testing.T, b backend) {
		// events dismiss|replay read a row, then a worker claims it: the person's change must not
		// overwrite the claim, or the worker's CompleteEvent fails and its booking is dropped.
		db := b.fresh(t)
		e := mustInsert(t, db, newEvent("acc_1", "evt_1", "pay_1", t0))
		claimed := mustClaim(t, db, "w1", t0, time.Minute)
		for _, status := range []connector.Status{connector.StatusDismissed, connector.StatusPending, connector.StatusParked} {
			for _, at := range []time.Time{t0, t0.Add(30 * time.Second), t0.Add(time.Minute)} {
				err := db.SetEventStatus(ctx, e.ID, status, "by hand", at)
				wantErr(t, "SetEventStatus("+string(status)+") under a live lease", err, store.ErrBusy)
				wantErr(t, "SetEventStatus("+string(status)+") under a live lease", err, connector.ErrLeaseLost)
				if errors.Is(err, connector.ErrNotFound) || errors.Is(err, connector.ErrStoreUnavailable) {
					t.Fatalf("SetEventStatus under a live lease: err = %v; want neither not found nor unavailable", err)
				}
			}
		}
		got := mustGet(t, db, e.ID)
		if got.Status != connector.StatusProcessing || got.LeaseOwner != "w1" || got.LastError != "" {
			t.Fatalf("row after refused SetEventStatus: %+v; want still processing under w1", got)
		}
		wantNoErr(t, "worker completes after the refused dismiss", db.CompleteEvent(ctx, claimed.ID, "w1", t0.Add(40*time.Second),
			connector.Outcome{Status: connector.StatusDone, ResultDoctype: "Payment Entry", ResultName: "ACC-PAY-2026-00001"}))
		got = mustGet(t, db, e.ID)
		if got.Status != connector.StatusDone || got.ResultName != "ACC-PAY-2026-00001" {
			t.Fatalf("worker's outcome lost: %+v", got)
		}
		// Once done, a person may set it again (the CLI refuses; the store does not).
		wantNoErr(t, "SetEventStatus after completion", db.SetEventStatus(ctx, e.ID, connector.StatusPending, "", t0.Add(time.Hour)))
	}},
	{"MarkDuplicatesTouchesOnlyParkedPendingAndDeadRows", func(t *testing.T, b backend) {
		db := b.fresh(t)
		byStatus := map[connector.Status]*connector.InboxEvent{}
		for i, status := range []connector.Status{connector.StatusParked, connector.StatusPending, connector.StatusDead,
			connector.StatusDone, connector.StatusSkipped, connector.StatusDismissed} {
			e := newEvent("acc_1", "evt_"+string(rune('a'+i)), "pay_1", t0)
			e.Status = status
			byStatus[status] = mustInsert(t, db, e)
		}
		processing := mustInsert(t, db, newEvent("acc_1", "evt_processing", "pay_1", t0.Add(-time.Hour)))
		mustClaim(t, db, "w1", t0, time.Minute) // the oldest due pending row: processing
		booked := mustInsert(t, db, newEvent("acc_1", "evt_booked", "pay_1", t0))
		otherKey := mustInsert(t, db, newEvent("acc_1", "evt_other", "pay_2", t0))
		caseKey := mustInsert(t, db, newEvent("acc_1", "evt_case", "PAY_1", t0))

		n, err := db.MarkDuplicates(ctx, "pay_1", booked.ID, "Payment Entry ACC-PAY-2026-00001", t0.Add(time.Hour))
		if err != nil || n != 3 {
			t.Fatalf("MarkDuplicates = %d, %v; want 3", n, err)
		}
		for status, e := range byStatus {
			got := mustGet(t, db, e.ID)
			switch status {
			case connector.StatusParked, connector.StatusPending, connector.StatusDead:
				if got.Status != connector.StatusDuplicate || got.LastError != "duplicate of Payment Entry ACC-PAY-2026-00001" {
					t.Fatalf("%s row after MarkDuplicates: %+v", status, got)
				}
				wantTime(t, "UpdatedAt", got.UpdatedAt, t0.Add(time.Hour))
			default:
				if got.Status != status {
					t.Fatalf("%s row changed to %s", status, got.Status)
				}
			}
		}
		for want, e := range map[connector.Status]*connector.InboxEvent{connector.StatusProcessing: processing,
			connector.StatusPending: booked, connector.StatusPending + " (other key)": otherKey,
			connector.StatusPending + " (case)": caseKey} {
			if got := mustGet(t, db, e.ID); got.Status == connector.StatusDuplicate {
				t.Fatalf("%s row %s was marked duplicate", want, e.EventID)
			}
		}
		if n, err := db.MarkDuplicates(ctx, "", 0, "x", t0); err != nil || n != 0 {
			t.Fatalf("MarkDuplicates(\"\") = %d, %v; want 0, nil", n, err)
		}
	}},
}

func ids(events []connector.InboxEvent) []int64 {
	out := make([]int64, len(events))
	for i, e := range events {
		out[i] = e.ID
	}
	return out
}

func ptrIDs(events []*connector.InboxEvent) []int64 {
	out := make([]int64, len(events))
	for i, e := range events {
		out[i] = e.ID
	}
	return out
}
