package store_test

import (
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

// guardCases check the lifecycle guard (guard.go): the triggers Migrate installs from
// connector.Transitions and connector.BookingTransitions.
var guardCases = []contractCase{
	{"GuardRefusesStatusChangesTheTableDoesNotAllow", guardRefusesCase},
	{"GuardAllowsEveryTransitionInTheTable", guardAllowsCase},
	{"StoreWritesTheActionOfEachStatusChange", storeActionsCase},
}

// rawExec runs a hand-written statement, as a person at the SQL prompt would.
func rawExec(db *store.DB, query string, args ...any) error {
	_, err := db.SQL().ExecContext(ctx, db.SQL().Rebind(query), args...)
	return err
}

// statusAction reads a row's status and last_action.
func statusAction(t *testing.T, db *store.DB, id int64) (connector.Status, connector.Action) {
	t.Helper()
	var row struct {
		Status connector.Status `db:"status"`
		Action connector.Action `db:"last_action"`
	}
	wantNoErr(t, "read status", db.SQL().GetContext(ctx, &row, db.SQL().Rebind(`SELECT status, last_action FROM inbox WHERE id = ?`), id))
	return row.Status, row.Action
}

// insertWith inserts a row of eventID in status (an insert is an arrival, not a transition).
func insertWith(t *testing.T, db *store.DB, eventID string, status connector.Status) int64 {
	t.Helper()
	e := newEvent("acc_1", eventID, "pay_"+eventID, t0)
	e.Status = status
	return mustInsert(t, db, e).ID
}

// wantRefused fails unless err is the guard's refusal and the row kept status and action.
func wantRefused(t *testing.T, db *store.DB, what string, err error, id int64, status connector.Status, action connector.Action) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), "lifecycle guard: inbox status change not in connector.Transitions") {
		t.Errorf("%s: err = %v; want the lifecycle guard's refusal", what, err)
	}
	if s, a := statusAction(t, db, id); s != status || a != action {
		t.Errorf("%s: row is %s (by %q) after the refusal; want %s (by %q)", what, s, a, status, action)
	}
}

func guardRefusesCase(t *testing.T, b backend) {
	db := b.fresh(t)
	// Naming no action: the example, a booked row sent back to pending by hand.
	done := insertWith(t, db, "evt_done", connector.StatusPending)
	c := mustClaim(t, db, "w1", t0, time.Minute)
	wantNoErr(t, "book", db.CompleteEvent(ctx, c.ID, "w1", t0, connector.Outcome{Status: connector.StatusDone,
		ResultDoctype: "Payment Entry", ResultName: "ACC-PAY-2026-00001"}))
	wantRefused(t, db, "done → pending naming no action",
		rawExec(db, `UPDATE inbox SET status = 'pending' WHERE status = 'done'`), done, connector.StatusDone, connector.ActionComplete)
	// An action that does not make the move: only rebook sends a done row back.
	wantRefused(t, db, "done → pending by replay",
		rawExec(db, `UPDATE inbox SET status = 'pending', last_action = 'replay' WHERE id = ?`, done), done, connector.StatusDone, connector.ActionComplete)
	// Into processing other than by a claim (no lease, no claimer).
	parked := insertWith(t, db, "evt_parked", connector.StatusParked)
	wantRefused(t, db, "parked → processing by correct",
		rawExec(db, `UPDATE inbox SET status = 'processing', last_action = 'correct' WHERE id = ?`, parked), parked, connector.StatusParked, "")
	wantRefused(t, db, "parked → processing by claim",
		rawExec(db, `UPDATE inbox SET status = 'processing', last_action = 'claim' WHERE id = ?`, parked), parked, connector.StatusParked, "")
	// A status the lifecycle does not have, and an action it does not have.
	wantRefused(t, db, "parked → booked",
		rawExec(db, `UPDATE inbox SET status = 'booked', last_action = 'correct' WHERE id = ?`, parked), parked, connector.StatusParked, "")
	wantRefused(t, db, "parked → pending by an unknown action",
		rawExec(db, `UPDATE inbox SET status = 'pending', last_action = 'magic' WHERE id = ?`, parked), parked, connector.StatusParked, "")
	// A row that never changed status names no action either.
	wantRefused(t, db, "parked → pending naming no action",
		rawExec(db, `UPDATE inbox SET status = 'pending' WHERE id = ?`, parked), parked, connector.StatusParked, "")
	// Through the store: a person's dismiss of a booked row never reaches the guard.
	err := db.SetEventStatusBy(ctx, done, connector.StatusDone, connector.StatusDismissed, "x",
		connector.HistoryEntry{Actor: "Ravi", Action: connector.HistoryDismissed}, t0)
	wantErr(t, "dismiss of a done row", err, store.ErrTransition)
	if strings.Contains(err.Error(), connector.ErrStoreUnavailable.Error()) {
		t.Errorf("dismiss of a done row: %v; want no store-unavailable", err)
	}

	// Bookings: a booked or void fact never goes back in flight, a void one is never booked.
	for _, bk := range []struct{ key, from, to string }{{"pay_B", "booked", "in_flight"}, {"pay_V", "void", "booked"},
		{"pay_W", "void", "in_flight"}, {"pay_X", "booked", "limbo"}} {
		wantNoErr(t, "insert booking", rawExec(db, `INSERT INTO bookings (business_key, kind, state, owner, fence_until, created_at, updated_at)
			VALUES (?, 'receipt', ?, 'w1', ?, ?, ?)`, bk.key, bk.from, dbText(t0), dbText(t0), dbText(t0)))
		err := rawExec(db, `UPDATE bookings SET state = ? WHERE business_key = ?`, bk.to, bk.key)
		if err == nil || !strings.Contains(err.Error(), "lifecycle guard: bookings state change not in connector.BookingTransitions") {
			t.Errorf("booking %s → %s: err = %v; want the lifecycle guard's refusal", bk.from, bk.to, err)
		}
		if got, err := db.GetBooking(ctx, bk.key); err != nil || string(got.State) != bk.from {
			t.Errorf("booking %s after the refusal: %+v, %v; want still %s", bk.key, got, err, bk.from)
		}
	}
}

// dbText is t as both drivers accept it in a hand-written statement.
func dbText(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05.000000") }

func guardAllowsCase(t *testing.T, b backend) {
	db := b.fresh(t)
	for i, e := range connector.Edges() {
		id := insertWith(t, db, "evt_edge_"+string(rune('a'+i%26))+strings.Repeat("x", i/26), e.From)
		err := rawExec(db, `UPDATE inbox SET status = ?, last_action = ? WHERE id = ?`, e.To, e.Action, id)
		wantNoErr(t, string(e.From)+" → "+string(e.To)+" by "+string(e.Action), err)
		if s, a := statusAction(t, db, id); s != e.To || a != e.Action {
			t.Errorf("%s → %s by %s: row is %s by %s", e.From, e.To, e.Action, s, a)
		}
	}
	for i, bt := range connector.BookingTransitions {
		key := "pay_bk" + string(rune('a'+i))
		wantNoErr(t, "insert booking", rawExec(db, `INSERT INTO bookings (business_key, kind, state, owner, fence_until, created_at, updated_at)
			VALUES (?, 'receipt', ?, 'w1', ?, ?, ?)`, key, bt.From, dbText(t0), dbText(t0), dbText(t0)))
		wantNoErr(t, string(bt.From)+" → "+string(bt.To), rawExec(db, `UPDATE bookings SET state = ?, owner = 'w2' WHERE business_key = ?`, bt.To, key))
		if got, err := db.GetBooking(ctx, key); err != nil || got.State != bt.To {
			t.Errorf("booking %s → %s: %+v, %v", bt.From, bt.To, got, err)
		}
	}
}

// storeActionsCase walks one row through every kind of store write that changes a status and
// checks the action each names.
func storeActionsCase(t *testing.T, b backend) {
	db := b.fresh(t)
	want := func(what string, id int64, status connector.Status, action connector.Action) {
		t.Helper()
		if s, a := statusAction(t, db, id); s != status || a != action {
			t.Fatalf("after %s: %s by %q; want %s by %q", what, s, a, status, action)
		}
	}
	id := insertWith(t, db, "evt_1", connector.StatusPending)
	mustClaim(t, db, "w1", t0, time.Minute)
	want("claim", id, connector.StatusProcessing, connector.ActionClaim)
	mustClaim(t, db, "w2", t0.Add(2*time.Minute), time.Minute)
	want("takeover", id, connector.StatusProcessing, connector.ActionTakeover)
	wantNoErr(t, "park", db.CompleteEvent(ctx, id, "w2", t0.Add(2*time.Minute), connector.Outcome{Status: connector.StatusParked,
		LastError: "waits for its receipt", WaitFor: connector.Wait{Kind: connector.WaitOnReceipt, Key: "pay_1"}}))
	want("complete", id, connector.StatusParked, connector.ActionComplete)
	n, err := db.WakeWaiters(ctx, connector.Wait{Kind: connector.WaitOnReceipt, Key: "pay_1"}, t0.Add(3*time.Minute))
	if err != nil || n != 1 {
		t.Fatalf("WakeWaiters = %d, %v; want 1", n, err)
	}
	want("wake", id, connector.StatusPending, connector.ActionWake)
	n, err = db.MarkDuplicates(ctx, "pay_evt_1", 0, "Payment Entry ACC-PAY-2026-00001", t0.Add(4*time.Minute))
	if err != nil || n != 1 {
		t.Fatalf("MarkDuplicates = %d, %v; want 1", n, err)
	}
	want("mark duplicate", id, connector.StatusDuplicate, connector.ActionMark)
	wantNoErr(t, "rebook", db.SetEventStatusBy(ctx, id, connector.StatusDuplicate, connector.StatusPending, "rebooked",
		connector.HistoryEntry{Actor: "Priya", Action: connector.HistoryRebooked}, t0.Add(5*time.Minute)))
	want("rebook", id, connector.StatusPending, connector.ActionRebook)
	wantNoErr(t, "dismiss", db.SetEventStatusBy(ctx, id, connector.StatusPending, connector.StatusDismissed, "dismissed by Ravi: cash",
		connector.HistoryEntry{Actor: "Ravi", Action: connector.HistoryDismissed}, t0.Add(6*time.Minute)))
	want("dismiss", id, connector.StatusDismissed, connector.ActionDismiss)
	wantNoErr(t, "lift", db.SetEventStatusFrom(ctx, id, connector.StatusDismissed, connector.StatusDismissed, "dismissal lifted", t0.Add(7*time.Minute)))
	want("lift", id, connector.StatusDismissed, connector.ActionLift)
	wantNoErr(t, "replay", db.SetEventStatusBy(ctx, id, connector.StatusDismissed, connector.StatusPending, "replayed",
		connector.HistoryEntry{Actor: "Priya", Action: connector.HistoryReplayed}, t0.Add(8*time.Minute)))
	want("replay", id, connector.StatusPending, connector.ActionReplay)
	wantNoErr(t, "correct", db.SetEventStatus(ctx, id, connector.StatusSkipped, "settlements off", t0.Add(9*time.Minute)))
	want("correct", id, connector.StatusSkipped, connector.ActionCorrect)
	wantNoErr(t, "requeue", db.SetEventStatusFrom(ctx, id, connector.StatusSkipped, connector.StatusPending, "", t0.Add(10*time.Minute)))
	want("requeue", id, connector.StatusPending, connector.ActionRequeue)
}
