package store_test

import (
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

var dismissalCases = []contractCase{
	{"DismissalRecordsWhoWhyAndWhenAndAReplayLiftsIt", dismissalRecordedCase},
	{"LiftDismissalLiftsItAndSaysSoOnTheRow", liftDismissalCase},
	{"MigrationCopiesTheDismissalsTheInboxHeld", dismissalMigrationCase},
}

// dismissAs is a person's dismissal of row id (from from) through SetEventStatusBy.
func dismissAs(t *testing.T, db *store.DB, id int64, from connector.Status, who, why string, at time.Time) {
	t.Helper()
	wantNoErr(t, "dismiss", db.SetEventStatusBy(ctx, id, from, connector.StatusDismissed, "dismissed by "+who+": "+why,
		connector.HistoryEntry{Actor: who, Action: connector.HistoryDismissed, Detail: why}, at))
}

// mustDismissals returns the dismissals of key and fails unless there are want of them.
func mustDismissals(t *testing.T, db *store.DB, key string, want int) []connector.Dismissal {
	t.Helper()
	ds, err := db.Dismissals(ctx, key)
	wantNoErr(t, "Dismissals "+key, err)
	if len(ds) != want {
		t.Fatalf("Dismissals(%q) = %+v; want %d", key, ds, want)
	}
	return ds
}

func dismissalRecordedCase(t *testing.T, b backend) {
	db := b.fresh(t)
	e := newEvent("acc_1", "evt_1", "pay_1", t0)
	e.Status, e.LastError = connector.StatusParked, "no invoice matched"
	mustInsert(t, db, e)
	mustInsert(t, db, newEvent("acc_1", "evt_2", "pay_2", t0))
	dismissAs(t, db, e.ID, connector.StatusParked, "Priya Sharma (console)", "refunded: by hand", t0.Add(time.Minute))
	d := mustDismissals(t, db, "pay_1", 1)[0]
	if d.InboxID != e.ID || d.EventID != "evt_1" || d.Event != "payment.captured" || d.BusinessKey != "pay_1" ||
		d.Actor != "Priya Sharma (console)" || d.Reason != "refunded: by hand" || !d.At.Equal(t0.Add(time.Minute)) || !d.Holds() || d.LiftedBy != "" {
		t.Fatalf("dismissal %+v", d)
	}
	if d.Text() != mustGet(t, db, e.ID).LastError {
		t.Errorf("Text %q; the row says %q", d.Text(), mustGet(t, db, e.ID).LastError)
	}
	mustDismissals(t, db, "pay_2", 0)
	mustDismissals(t, db, "", 0)

	// The worker finishing a row dismissed (another event's dismissal holds) is no dismissal.
	w := mustClaim(t, db, "w1", t0.Add(2*time.Minute), time.Hour)
	wantNoErr(t, "complete dismissed", db.CompleteEvent(ctx, w.ID, "w1", t0.Add(2*time.Minute),
		connector.Outcome{Status: connector.StatusDismissed, LastError: "not booked: payment pay_2 was dismissed"}))
	mustDismissals(t, db, "pay_2", 0)

	// A replay of the row lifts its dismissal in the same transaction; a new dismissal holds again.
	wantNoErr(t, "replay", db.SetEventStatusBy(ctx, e.ID, connector.StatusDismissed, connector.StatusPending, "replayed by Ravi",
		connector.HistoryEntry{Actor: "Ravi", Action: connector.HistoryReplayed}, t0.Add(3*time.Minute)))
	d = mustDismissals(t, db, "pay_1", 1)[0]
	if d.Holds() || d.LiftedBy != "Ravi" || !d.LiftedAt.Equal(t0.Add(3*time.Minute)) || d.Actor != "Priya Sharma (console)" {
		t.Fatalf("dismissal after the replay %+v; want lifted by Ravi, its who kept", d)
	}
	dismissAs(t, db, e.ID, connector.StatusPending, "Ravi", "cash", t0.Add(4*time.Minute))
	ds := mustDismissals(t, db, "pay_1", 2)
	if ds[0].Holds() || !ds[1].Holds() || ds[1].Actor != "Ravi" || ds[1].Reason != "cash" {
		t.Errorf("dismissals %+v; want the lifted one, then Ravi's holding", ds)
	}
}

func liftDismissalCase(t *testing.T, b backend) {
	db := b.fresh(t)
	e1 := mustInsert(t, db, newEvent("acc_1", "evt_1", "pay_1", t0))
	e2 := mustInsert(t, db, newEvent("acc_1", "evt_2", "pay_1", t0))
	dismissAs(t, db, e1.ID, connector.StatusPending, "hand", "booked by hand", t0.Add(time.Minute))
	dismissAs(t, db, e2.ID, connector.StatusPending, "hand", "booked by hand", t0.Add(time.Minute))
	ds := mustDismissals(t, db, "pay_1", 2)
	wantNoErr(t, "lift", db.LiftDismissal(ctx, ds[0], "priya", "dismissal lifted: evt_2 replayed by priya", t0.Add(2*time.Minute)))
	if status, action := statusAction(t, db, e1.ID); status != connector.StatusDismissed || action != connector.ActionLift ||
		mustGet(t, db, e1.ID).LastError != "dismissal lifted: evt_2 replayed by priya" {
		t.Fatalf("row after the lift: %s by %s, %q", status, action, mustGet(t, db, e1.ID).LastError)
	}
	wantNoErr(t, "lift again", db.LiftDismissal(ctx, ds[0], "ravi", "lifted twice", t0.Add(3*time.Minute)))
	ds = mustDismissals(t, db, "pay_1", 2)
	if ds[0].Holds() || ds[0].LiftedBy != "priya" || !ds[0].LiftedAt.Equal(t0.Add(2*time.Minute)) || !ds[1].Holds() {
		t.Fatalf("dismissals %+v; want the first lifted by priya once, the second holding", ds)
	}
	if got := mustGet(t, db, e1.ID).LastError; got != "dismissal lifted: evt_2 replayed by priya" {
		t.Errorf("a second lift rewrote the row: %q", got)
	}
	// A repair tool's change of a dismissed row lifts its dismissal too.
	wantNoErr(t, "correct", db.SetEventStatus(ctx, e2.ID, connector.StatusParked, "set by hand", t0.Add(4*time.Minute)))
	if d := mustDismissals(t, db, "pay_1", 2)[1]; d.Holds() || d.LiftedBy != string(connector.ActionCorrect) {
		t.Errorf("dismissal of a row set parked by hand %+v; want lifted", d)
	}
}

// dismissalMigrationCase fills a store as the release before the dismissals table left it and
// migrates it: every dismissal a person made is copied with who, why and when, and nothing else.
func dismissalMigrationCase(t *testing.T, b backend) {
	db := b.open(t, b.newDatabase(t))
	wantNoErr(t, "migrate to 0021", store.MigrateTo(ctx, db, "0021_inbox_last_action"))
	row := func(eventID, key string, status connector.Status, lastError string, at time.Time) int64 {
		e := mustInsert(t, db, newEvent("acc_1", eventID, key, t0))
		wantNoErr(t, "set "+eventID, rawExec(db, `UPDATE inbox SET status = ?, last_error = ?, updated_at = ? WHERE id = ?`,
			status, lastError, store.TimeArg(db, at), e.ID))
		return e.ID
	}
	history := func(id int64, actor, detail string, at time.Time) {
		wantNoErr(t, "history", rawExec(db, `INSERT INTO inbox_history (inbox_id, at, actor, action, from_status, to_status, detail, attempts)
			VALUES (?, ?, ?, ?, ?, ?, ?, 0)`, id, store.TimeArg(db, at), actor, connector.HistoryDismissed, connector.StatusParked,
			connector.StatusDismissed, detail))
	}
	a := row("evt_a", "pay_a", connector.StatusDismissed, "dismissed by Priya Sharma (console): refunded: by hand", t0.Add(9*time.Minute))
	history(a, "Ravi", "an earlier dismissal, replayed since", t0)
	history(a, "Priya Sharma (console)", "refunded: by hand", t0.Add(time.Minute))
	bID := row("evt_b", "pay_b", connector.StatusDismissed, "dismissed by ravi: cash: paid at the counter", t0.Add(2*time.Minute))
	b2 := row("evt_b2", "pay_b", connector.StatusDismissed, "dismissed by ravi", t0.Add(3*time.Minute))
	row("evt_c", "pay_a", connector.StatusDismissed, "not booked: payment pay_a was dismissed with event evt_a (dismissed by Priya)", t0)
	row("evt_d", "pay_d", connector.StatusDismissed, "dismissal lifted: evt_x replayed by priya (was dismissed by hand: booked)", t0)
	row("evt_e", "pay_e", connector.StatusParked, "dismissed by nobody: a parked row's text", t0)

	wantNoErr(t, "Migrate", db.Migrate(ctx))
	want := func(d connector.Dismissal, id int64, eventID, actor, reason string, at time.Time) {
		t.Helper()
		if d.InboxID != id || d.EventID != eventID || d.Actor != actor || d.Reason != reason || !d.At.Equal(at) || !d.Holds() {
			t.Errorf("migrated %+v; want row %d (%s) dismissed by %q: %q at %v, holding", d, id, eventID, actor, reason, at)
		}
	}
	want(mustDismissals(t, db, "pay_a", 1)[0], a, "evt_a", "Priya Sharma (console)", "refunded: by hand", t0.Add(time.Minute))
	pb := mustDismissals(t, db, "pay_b", 2)
	want(pb[0], bID, "evt_b", "ravi", "cash: paid at the counter", t0.Add(2*time.Minute))
	want(pb[1], b2, "evt_b2", "ravi", "", t0.Add(3*time.Minute))
	mustDismissals(t, db, "pay_d", 0)
	mustDismissals(t, db, "pay_e", 0)

	// The copy runs again after a crash before its record, and copies nothing twice.
	wantNoErr(t, "forget the copy", rawExec(db, `DELETE FROM schema_migrations WHERE version = ?`, "0025_dismissals_from_inbox"))
	wantNoErr(t, "Migrate again", db.Migrate(ctx))
	mustDismissals(t, db, "pay_a", 1)
	mustDismissals(t, db, "pay_b", 2)
}
