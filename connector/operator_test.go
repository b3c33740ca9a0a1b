package connector_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/operator"
)

// What a person may do with inbox rows: the policy events replay|dismiss and the console share.

func TestReplayAndDismiss(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	r.deliver("P1", captured(t, "pay_T3stOper000001", 50000, "ACC-SINV-2026-00001", nil))
	r.deliver("P2", envelope(t, "order.paid", "payment", payment("pay_T3stOper000001", 50000, map[string]any{"notes": map[string]any{"invoice": "ACC-SINV-2026-00001"}})))
	r.work()
	p1 := r.want("P1", connector.StatusParked, "no invoice matched")

	rows, err := r.conn.Operator().FindEvents(ctx, "pay_T3stOper000001")
	if err != nil || len(rows) != 2 {
		t.Fatalf("FindEvents(business key) = %d rows, %v", len(rows), err)
	}
	if rows, err := r.conn.Operator().FindEvents(ctx, headerID("P1")); err != nil || len(rows) != 1 || rows[0].EventID != headerID("P1") {
		t.Errorf("FindEvents(event id) = %+v, %v", rows, err)
	}
	byID, err := r.conn.Operator().FindEvents(ctx, "#"+itoa(p1.ID))
	if err != nil || len(byID) != 1 || byID[0].EventID != headerID("P1") {
		t.Errorf("FindEvents(#row) = %+v, %v", byID, err)
	}
	if _, err := r.conn.Operator().FindEvents(ctx, "nothing-like-it"); err == nil || !strings.Contains(err.Error(), `no inbox event has event id or business key "nothing-like-it"`) {
		t.Errorf("FindEvents(unknown) err %v", err)
	}

	// The invoice now exists: a replay books the payment.
	inv := r.invoice("Test Customer", "500.00")
	if inv != "ACC-SINV-2026-00001" {
		t.Fatalf("invoice %s", inv)
	}
	a, err := r.conn.Operator().Replay(ctx, p1, false, "hand")
	if err != nil || !a.Changed || a.Message != headerID("P1")+": parked → pending" {
		t.Fatalf("Replay = %+v, %v", a, err)
	}
	replayed := r.event("P1")
	if replayed.Status != connector.StatusPending || replayed.Attempts != 0 || !strings.HasPrefix(replayed.LastError, "replayed by hand (was parked: no invoice matched") {
		t.Errorf("replayed row %s attempts %d %q", replayed.Status, replayed.Attempts, replayed.LastError)
	}
	if a, _ := r.conn.Operator().Replay(ctx, replayed, false, "hand"); a.Changed || a.Refused || a.Message != headerID("P1")+": already pending" {
		t.Errorf("Replay of a pending row = %+v", a)
	}
	r.work()
	done := r.want("P1", connector.StatusDone)
	if a, _ := r.conn.Operator().Replay(ctx, done, false, "hand"); !a.Refused || !strings.Contains(a.Message, "not replayed: it is done (Payment Entry ") {
		t.Errorf("Replay of a done row = %+v", a)
	}
	if a, _ := r.conn.Operator().Dismiss(ctx, done, "priya", "typo"); !a.Refused || a.Message != headerID("P1")+": not dismissed: it is done" {
		t.Errorf("Dismiss of a done row = %+v", a)
	}
	r.want("P2", connector.StatusDuplicate)
}

func TestDismissPaymentDismissesEveryRowOfIt(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	r.deliver("D1", captured(t, "pay_T3stDism000001", 50000, "", nil))
	r.deliver("D2", envelope(t, "order.paid", "payment", payment("pay_T3stDism000001", 50000, nil)))
	r.deliver("D3", captured(t, "pay_T3stDism000002", 50000, "", nil))
	r.work()
	a, err := r.conn.Operator().DismissPayment(ctx, r.event("D1"), "priya", "test payment, refunded by hand")
	if err != nil || !a.Changed || a.Message != headerID("D1")+": parked → dismissed; "+headerID("D2")+": parked → dismissed" {
		t.Fatalf("DismissPayment = %+v, %v", a, err)
	}
	for _, id := range []string{"D1", "D2"} {
		r.want(id, connector.StatusDismissed, "dismissed by priya: test payment, refunded by hand")
	}
	r.want("D3", connector.StatusParked)
	if a, _ := r.conn.Operator().DismissPayment(ctx, r.event("D1"), "priya", "again"); a.Changed || !a.Refused {
		t.Errorf("dismissing a dismissed row again = %+v", a)
	}
	// A dismissed row may be replayed.
	if a, err := r.conn.Operator().Replay(ctx, r.event("D2"), false, "priya"); err != nil || !a.Changed {
		t.Errorf("Replay of a dismissed row = %+v, %v", a, err)
	}
}

func TestRowsBeingProcessedAreLeftAlone(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	r.deliver("B1", captured(t, "pay_T3stBusy000001", 50000, "", nil))
	// A worker claimed the row and holds its lease.
	claimed, err := r.db.ClaimNextEvent(ctx, "another-worker", r.clock.now(), time.Minute)
	if err != nil || claimed == nil {
		t.Fatal(claimed, err)
	}
	row := r.event("B1")
	if a, _ := r.conn.Operator().Dismiss(ctx, row, "priya", "x"); !a.Refused || a.Message != headerID("B1")+": not dismissed: it is processing" {
		t.Errorf("Dismiss of a processing row = %+v", a)
	}
	row.Status = connector.StatusParked // as listed a moment before the worker claimed it
	if a, err := r.conn.Operator().Dismiss(ctx, row, "priya", "x"); err != nil || !a.Busy || a.Message != headerID("B1")+": not dismissed: it is being processed right now; try again" {
		t.Errorf("Dismiss of a leased row = %+v, %v", a, err)
	}
	if a, err := r.conn.Operator().Replay(ctx, row, false, "priya"); err != nil || !a.Busy {
		t.Errorf("Replay of a leased row = %+v, %v", a, err)
	}
	if got := r.event("B1"); got.Status != connector.StatusProcessing {
		t.Errorf("the worker's row became %s", got.Status)
	}
}

func TestReplayRefusals(t *testing.T) {
	for _, tc := range []struct {
		row     connector.InboxEvent
		rebook  bool
		why     string
		refused bool
	}{
		{connector.InboxEvent{Status: connector.StatusParked}, false, "not replayed: its raw body is gone", true},
		{connector.InboxEvent{Status: connector.StatusParked, RawBody: []byte("{}")}, false, "", false},
		{connector.InboxEvent{Status: connector.StatusProcessing, RawBody: []byte("{}")}, false, "already processing", false},
		{connector.InboxEvent{Status: connector.StatusDuplicate, RawBody: []byte("{}"), ResultDoctype: "Payment Entry", ResultName: "ACC-PAY-1"}, false,
			"not replayed: it is duplicate (Payment Entry ACC-PAY-1)", true},
		{connector.InboxEvent{Status: connector.StatusDuplicate, RawBody: []byte("{}")}, true, "", false},
		{connector.InboxEvent{Status: connector.StatusDone, RawBody: []byte("{}"), LastError: strings.Repeat("x", 300)}, false, "…)", true},
		{connector.InboxEvent{Status: connector.StatusDead, RawBody: []byte(`{"event":"payment.captured","payload":{"payment":{"entity":{"id":5}}}}`)}, false,
			"not replayed: its body cannot be parsed, so no replay can book it (razorpay: parse event: payment.id: ", true},
		{connector.InboxEvent{Status: connector.StatusDead, RawBody: []byte("\xff\xfe{}")}, true, "not replayed: its body cannot be parsed", true},
	} {
		why, refused := operator.ReplayRefusal(tc.row, tc.rebook)
		if refused != tc.refused || !strings.Contains(why, tc.why) || (tc.why == "") != (why == "") {
			t.Errorf("ReplayRefusal(%s, rebook %v) = %q %v, want %q %v", tc.row.Status, tc.rebook, why, refused, tc.why, tc.refused)
		}
	}
	for s, want := range map[connector.Status][2]bool{connector.StatusParked: {true, true}, connector.StatusDead: {true, true},
		connector.StatusPending: {false, true}, connector.StatusDone: {false, false}, connector.StatusDismissed: {true, false},
		connector.StatusProcessing: {false, false}} {
		if s.Replayable() != want[0] || s.Dismissible() != want[1] || s.Final() == (s == connector.StatusPending || s == connector.StatusProcessing) {
			t.Errorf("%s: replayable %v dismissible %v final %v", s, s.Replayable(), s.Dismissible(), s.Final())
		}
	}
	if connector.Status("lost").Known() || !connector.StatusSkipped.Known() {
		t.Error("Known")
	}
}

func itoa(n int64) string {
	var b []byte
	for n > 0 || len(b) == 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// A payment a person dismissed stays unbooked when a later event of it arrives — an order.paid
// with a new event id that names a real open invoice: it finishes dismissed, saying why and how
// to book it after all. Replaying that event lifts the dismissal (the first row says so) and
// books the payment once.
func TestDismissedPaymentIsNotBookedByALaterEvent(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	r.deliver("D1", captured(t, "pay_T3stDism000009", 50000, "NOPE-1", nil))
	r.work()
	r.want("D1", connector.StatusParked)
	if a, err := r.conn.Operator().DismissPayment(ctx, r.event("D1"), "hand", "booked by hand"); err != nil || !a.Changed {
		t.Fatalf("DismissPayment = %+v, %v", a, err)
	}
	inv := r.invoice("Test Customer", "500.00")
	r.deliver("D2", envelope(t, "order.paid", "payment", payment("pay_T3stDism000009", 50000, map[string]any{"notes": map[string]any{"invoice": inv}})))
	r.work()
	r.want("D2", connector.StatusDismissed, "not booked: payment pay_T3stDism000009 was dismissed with event D1Z00000000000 (dismissed by hand: booked by hand); to book it after all, replay this event (events replay D2Z00000000000)")
	if n := len(r.entries("pay_T3stDism000009")); n != 0 {
		t.Fatalf("%d Payment Entries for a dismissed payment, want 0", n)
	}

	if a, err := r.conn.Operator().Replay(ctx, r.event("D2"), false, "priya"); err != nil || !a.Changed {
		t.Fatalf("Replay = %+v, %v", a, err)
	}
	r.want("D1", connector.StatusDismissed, "dismissal lifted: D2Z00000000000 replayed by priya (was dismissed by hand: booked by hand)")
	r.work()
	r.want("D2", connector.StatusDone)
	if n := len(r.entries("pay_T3stDism000009")); n != 1 {
		t.Errorf("%d Payment Entries after the replay, want 1", n)
	}
}
