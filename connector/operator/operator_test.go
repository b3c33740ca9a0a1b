package operator_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/operator"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
)

// The actions on a store of their own, without a Connector: what they change, what they
// refuse, what they record. The booking flows around them are tested in connector_test.

var t0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

type rig struct {
	t     *testing.T
	db    *store.DB
	erp   *fakeERP
	ops   *operator.Operator
	wakes int
}

func newRig(t *testing.T) *rig {
	t.Helper()
	db, err := store.Open(context.Background(), "sqlite", filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, db: db, erp: &fakeERP{docstatus: map[string]int{}}}
	r.ops = operator.New(operator.Deps{Store: db, ERP: r.erp, Now: func() time.Time { return t0 }, Wake: func() { r.wakes++ }})
	return r
}

// fakeERP answers Get for the Payment Entries in docstatus; any other name is not found.
type fakeERP struct{ docstatus map[string]int }

func (f *fakeERP) Get(_ context.Context, _, name string, out any) error {
	ds, ok := f.docstatus[name]
	if !ok {
		return &frappe.Error{Status: 404, ExcType: "DoesNotExistError"}
	}
	out.(*frappe.PaymentEntry).Docstatus = ds
	return nil
}

// insert stores a payment.captured row of key with status (reason as its last error).
func (r *rig) insert(eventID, key string, status connector.Status, reason string) connector.InboxEvent {
	r.t.Helper()
	body := fmt.Sprintf(`{"entity":"event","account_id":"acc_1","event":"payment.captured","contains":["payment"],"created_at":1780000000,`+
		`"payload":{"payment":{"entity":{"id":%q,"entity":"payment","amount":50000,"currency":"INR","status":"captured","method":"upi","captured":true,"created_at":1780000000}}}}`, key)
	e := &connector.InboxEvent{AccountID: "acc_1", EventID: eventID, Event: "payment.captured", BusinessKey: key, RawBody: []byte(body), ReceivedAt: t0.Add(-time.Hour)}
	ctx := context.Background()
	if _, err := r.db.InsertEvent(ctx, e); err != nil {
		r.t.Fatal(err)
	}
	if status != connector.StatusPending {
		if err := r.db.SetEventStatus(ctx, e.ID, status, reason, t0.Add(-time.Minute)); err != nil {
			r.t.Fatal(err)
		}
	}
	return r.get(e.ID)
}

func (r *rig) get(id int64) connector.InboxEvent {
	r.t.Helper()
	e, err := r.db.GetEvent(context.Background(), id)
	if err != nil {
		r.t.Fatal(err)
	}
	return *e
}

func TestFindEvents(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	a := r.insert("EvtA", "pay_A", connector.StatusParked, "no invoice")
	r.insert("EvtB", "pay_A", connector.StatusParked, "no invoice")
	if rows, err := r.ops.FindEvents(ctx, "pay_A"); err != nil || len(rows) != 2 {
		t.Fatalf("by business key: %d rows, %v", len(rows), err)
	}
	if rows, err := r.ops.FindEvents(ctx, "EvtA"); err != nil || len(rows) != 1 || rows[0].ID != a.ID {
		t.Fatalf("by event id: %+v, %v", rows, err)
	}
	if rows, err := r.ops.FindEvents(ctx, fmt.Sprintf("#%d", a.ID)); err != nil || len(rows) != 1 || rows[0].ID != a.ID {
		t.Fatalf("by #id: %+v, %v", rows, err)
	}
	if _, err := r.ops.FindEvents(ctx, "nothing"); err == nil || !strings.Contains(err.Error(), `no inbox event has event id or business key "nothing"`) {
		t.Fatalf("nothing: %v", err)
	}
}

func TestDismissPaymentThenReplayLiftsTheDismissal(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	a := r.insert("EvtA", "pay_A", connector.StatusParked, "no invoice")
	b := r.insert("EvtB", "pay_A", connector.StatusDead, "timeout")
	done := r.insert("EvtC", "pay_C", connector.StatusDone, "")
	if act, _ := r.ops.Dismiss(ctx, done, "priya", "typo"); !act.Refused || act.Message != "EvtC: not dismissed: it is done" {
		t.Fatalf("dismiss a done row: %+v", act)
	}
	act, err := r.ops.DismissPayment(ctx, a, "priya\xff", "test payment")
	if err != nil || !act.Changed || act.Message != "EvtA: parked → dismissed; EvtB: dead → dismissed" {
		t.Fatalf("DismissPayment = %+v, %v", act, err)
	}
	if got := r.get(b.ID); got.Status != connector.StatusDismissed || got.LastError != "dismissed by priya\uFFFD: test payment" {
		t.Fatalf("the payment's other row: %s %q", got.Status, got.LastError)
	}
	hist, err := r.ops.History(ctx, a.ID)
	if err != nil || len(hist) != 1 || hist[0].Action != connector.HistoryDismissed || hist[0].Actor != "priya\uFFFD" || hist[0].Attempts != 1 {
		t.Fatalf("history: %+v, %v", hist, err)
	}
	act, err = r.ops.Replay(ctx, r.get(a.ID), false, "Ravi (console)")
	if err != nil || !act.Changed || act.Message != "EvtA: dismissed → pending" || r.wakes != 1 {
		t.Fatalf("Replay = %+v, %v, %d wakes", act, err, r.wakes)
	}
	if got := r.get(b.ID); got.Status != connector.StatusDismissed || !strings.HasPrefix(got.LastError, "dismissal lifted: EvtA replayed by Ravi (console) (was dismissed by priya") {
		t.Fatalf("the other row after the replay: %s %q", got.Status, got.LastError)
	}
	if act, _ := r.ops.Replay(ctx, r.get(a.ID), false, "hand"); act.Changed || act.Refused || act.Message != "EvtA: already pending" {
		t.Fatalf("replay of a pending row: %+v", act)
	}
	stale := b
	stale.Status = connector.StatusDead // read before it was dismissed
	if act, err := r.ops.Replay(ctx, stale, false, "hand"); err != nil || !act.Busy || !strings.Contains(act.Message, "it changed since it was read") {
		t.Fatalf("replay of a row read before it changed: %+v, %v", act, err)
	}
}

func TestRebook(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	done := r.insert("EvtA", "pay_A", connector.StatusDone, "")
	if _, claimed, err := r.db.ClaimBooking(ctx, connector.Booking{BusinessKey: "pay_A", Kind: connector.KindReceipt, Owner: "w", FenceUntil: t0.Add(time.Hour)}, t0); err != nil || !claimed {
		t.Fatal(err)
	}
	if err := r.db.FinishBooking(ctx, connector.Booking{BusinessKey: "pay_A", Doctype: frappe.DoctypePaymentEntry, Name: "ACC-PAY-1", AmountMinor: 50000, Currency: "INR"}, t0); err != nil {
		t.Fatal(err)
	}
	r.erp.docstatus["ACC-PAY-1"] = 1
	if act, err := r.ops.Rebook(ctx, done, "hand"); err != nil || !act.Refused || !strings.Contains(act.Message, "EvtA: not rebooked: Payment Entry ACC-PAY-1 (docstatus 1)") {
		t.Fatalf("rebook of a live entry: %+v, %v", act, err)
	}
	if _, err := r.ops.ForgetCancelledBooking(ctx, "pay_A"); !errors.Is(err, operator.ErrStillBooked) {
		t.Fatalf("forget of a live entry: %v", err)
	}
	r.erp.docstatus["ACC-PAY-1"] = 2
	act, err := r.ops.Rebook(ctx, done, "hand")
	if err != nil || !act.Changed || act.Message != "EvtA: done → pending; forgot Payment Entry ACC-PAY-1 (cancelled or deleted in ERPNext): it will be booked again" {
		t.Fatalf("Rebook = %+v, %v", act, err)
	}
	if _, err := r.db.GetBooking(ctx, "pay_A"); !errors.Is(err, connector.ErrNotFound) {
		t.Fatalf("the booking is still there: %v", err)
	}
	hist, _ := r.ops.History(ctx, done.ID)
	if len(hist) != 1 || hist[0].Action != connector.HistoryRebooked || !strings.HasPrefix(hist[0].Detail, "forgot Payment Entry ACC-PAY-1") {
		t.Fatalf("history: %+v", hist)
	}
	if forgot, err := r.ops.ForgetCancelledBooking(ctx, "pay_A"); forgot != "" || err != nil {
		t.Fatalf("forget without a booking: %q, %v", forgot, err)
	}
	if act, _ := r.ops.Rebook(ctx, r.get(done.ID), "hand"); !act.Refused || act.Message != "EvtA: already pending" {
		t.Fatalf("rebook of a pending row: %+v", act)
	}
}

func TestRetention(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	old := r.insert("EvtA", "pay_A", connector.StatusDone, "")
	purged := []int{}
	ret := operator.Retention{Store: r.db, Keep: time.Minute, Now: func() time.Time { return t0 }, Purged: func(n int) { purged = append(purged, n) }}
	if n, err := (operator.Retention{Store: r.db}).PurgeRawBodies(ctx); n != 0 || err != nil {
		t.Fatalf("a zero Keep purged %d, %v", n, err)
	}
	if _, err := (operator.Retention{Keep: time.Minute}).PurgeRawBodies(ctx); err == nil {
		t.Fatal("no store: no error")
	}
	if n, err := ret.PurgeRawBodies(ctx); n != 1 || err != nil || len(purged) != 1 || purged[0] != 1 {
		t.Fatalf("PurgeRawBodies = %d, %v; told %v", n, err, purged)
	}
	if got := r.get(old.ID); got.RawBody != nil {
		t.Fatal("the body stayed")
	}
	if why, refused := operator.ReplayRefusal(r.get(old.ID), true); !refused || !strings.HasPrefix(why, "not replayed: its raw body is gone") {
		t.Fatalf("replay of a purged row: %q %v", why, refused)
	}
	ran := make(chan int, 1)
	ret.Purged = func(n int) { ran <- n }
	rctx, cancel := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() { ret.Run(rctx, 0); close(stopped) }() // purges at start, then hourly until ctx ends
	select {
	case n := <-ran:
		if n != 0 {
			t.Errorf("the second purge removed %d bodies", n)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not purge at start")
	}
	cancel()
	<-stopped
}
