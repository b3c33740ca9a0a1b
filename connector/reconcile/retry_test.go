package reconcile_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/reconcile"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// dead stores an inbox row for the captured payment p and ends it dead as the worker does,
// waiting for waitFor.
func (e *reconcileEnv) dead(eventID string, p razorpay.Payment, body []byte, waitFor connector.Wait) int64 {
	e.t.Helper()
	ctx := context.Background()
	if body == nil {
		var err error
		if body, err = connector.SyntheticEvent(e.cfg.Razorpay.AccountID, "payment.captured", e.now, &p, nil, nil); err != nil {
			e.t.Fatal(err)
		}
	}
	ev := &connector.InboxEvent{AccountID: e.cfg.Razorpay.AccountID, EventID: eventID, Event: "payment.captured", BusinessKey: p.ID,
		RawBody: body, ReceivedAt: e.now.Add(-time.Hour)}
	if ok, err := e.db.InsertEvent(ctx, ev); !ok || err != nil {
		e.t.Fatal(ok, err)
	}
	got, err := e.db.ClaimNextEvent(ctx, "worker", e.now, time.Minute)
	if err != nil || got == nil || got.ID != ev.ID {
		e.t.Fatalf("claim %s: %+v %v", eventID, got, err)
	}
	if err := e.db.CompleteEvent(ctx, ev.ID, "worker", e.now, connector.Outcome{Status: connector.StatusDead, CountAttempt: true,
		WaitFor: waitFor, LastError: "gave up after 12 attempts (the next reconcile run tries again): ERPNext 503"}); err != nil {
		e.t.Fatal(err)
	}
	return ev.ID
}

func counter(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	return 0
}

// A dead event whose last failure was transient (the worker gave up after its attempts, marked
// to wait for reconcile) is sent back to pending by the next run, listed and counted; a dry run
// only lists it; a dead event that can never succeed (a body that does not parse) stays dead.
func TestReconcileRetriesDeadEventsWhoseFailureWasTransient(t *testing.T) {
	e := newReconcileEnv(t, nil)
	e.cfg.Reconcile.DrainTimeout = connector.Duration(30 * time.Second)
	inv := e.invoice("500.00")
	p := razorpay.Payment{ID: payID(7), Entity: "payment", Amount: 50000, Currency: "INR", Status: "captured", Captured: true, Method: "upi",
		CreatedAt: e.now.Add(-2 * time.Hour).Unix(), Notes: razorpay.Notes{"invoice": inv}}
	if _, err := e.sim.CreatePayment(p, razorpaysim.PaymentOptions{Lose: true, NoOrder: true}); err != nil {
		t.Fatal(err)
	}
	retried := e.dead("E-transient", p, nil, connector.WaitReconcile)
	poison := e.dead("E-poison", razorpay.Payment{ID: payID(8)}, []byte(`{"event":"payment.captured","payload":`), connector.Wait{})

	dry := e.reconcile(e.connector(), reconcile.Request{DryRun: true})
	if len(dry.Retried) != 1 || dry.Retried[0].EventID != "E-transient" || dry.Retried[0].Status != "would retry" {
		t.Fatalf("dry run retried %+v, want E-transient listed", dry.Retried)
	}
	if ev, _ := e.db.GetEvent(context.Background(), retried); ev.Status != connector.StatusDead {
		t.Fatalf("dry run changed the row: %s", ev.Status)
	}

	conn := e.connector()
	rep := e.reconcile(conn, reconcile.Request{Drain: true})
	if len(rep.Retried) != 1 || rep.Retried[0].ID != payID(7) || rep.Retried[0].Status != string(connector.StatusDone) ||
		!strings.HasPrefix(rep.Retried[0].Result, "Payment Entry ") {
		t.Fatalf("retried %+v, want the dead payment retried and booked", rep.Retried)
	}
	if rep.Payments.InInbox != 1 || rep.Payments.Queued != 0 {
		t.Errorf("payments %+v: the retried row is on its way, nothing to queue", rep.Payments)
	}
	if got := counter(t, conn.Metrics(), connector.MetricDeadRetried); got != 1 {
		t.Errorf("%s = %v, want 1", connector.MetricDeadRetried, got)
	}
	ev, err := e.db.GetEvent(context.Background(), retried)
	if err != nil || ev.Status != connector.StatusDone || !ev.WaitFor.IsZero() {
		t.Fatalf("retried row %+v %v", ev, err)
	}
	if ev, _ := e.db.GetEvent(context.Background(), poison); ev.Status != connector.StatusDead {
		t.Errorf("the unreadable event was retried: %s", ev.Status)
	}
	if again := e.reconcile(e.connector(), reconcile.Request{}); len(again.Retried) != 0 {
		t.Errorf("a later run retried %+v again", again.Retried)
	}
}
