package connector_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Edges of the body: an optional field of an unusable type is a warning, not a dead event.

const notesWarning = "body warnings: payment.notes: expected an object, got a string; treated as absent"

// A notes value that is free text, not JSON, is read as absent with a warning kept on the row:
// the event keeps its name and business key and goes on — booked when something else names
// the invoice (order.paid's order receipt), parked for want of an invoice otherwise — never
// dead with an empty event name.
func TestNotesThatAreFreeTextAreReadAsAbsent(t *testing.T) {
	r := newRig(t)
	inv := r.invoice("Test Customer", "1180.00")
	free := map[string]any{"notes": "please deliver by friday", "order_id": "order_T3stNotes0001"}
	e := r.deliver("E1", envelope(t, "payment.captured", "payment", payment("pay_T3stNotes00001", 118000, free)))
	// Intake reads only the head: the warning comes with the worker's outcome.
	if e.Status != connector.StatusPending || e.Event != "payment.captured" || e.BusinessKey != "pay_T3stNotes00001" || e.LastError != "" {
		t.Fatalf("stored %s %q key %q reason %q; want pending payment.captured of pay_T3stNotes00001, no reason yet", e.Status, e.Event, e.BusinessKey, e.LastError)
	}
	r.work()
	r.want("E1", connector.StatusParked, "no invoice matched", notesWarning)

	r.deliver("E2", envelope(t, "order.paid", "payment", payment("pay_T3stNotes00001", 118000, free),
		"order", map[string]any{"id": "order_T3stNotes0001", "entity": "order", "amount": 118000, "currency": "INR", "receipt": inv, "status": "paid"}))
	r.work()
	r.want("E2", connector.StatusDone, "created", notesWarning)
	r.want("E1", connector.StatusDuplicate)
	if pe := r.one("pay_T3stNotes00001"); minor(t, pe["paid_amount"], 2) != 118000 {
		t.Errorf("paid_amount %v", pe["paid_amount"])
	}
	x, err := r.conn.Explain(context.Background(), mustParse(t, envelope(t, "payment.captured", "payment", payment("pay_T3stNotes00002", 100, free))))
	if err != nil || len(x.Warnings) != 1 {
		t.Errorf("explain warnings %v, %v", x, err)
	}
}

// A body whose head (event, account, created_at, entity ids) reads but whose payment does not
// — an amount that is a string, or beyond int64 — is stored pending by intake, which reads
// only the head, and made dead by the worker with the parse error as the reason; nothing is
// sent to ERPNext.
func TestBodyTheHeadReadsButNotTheWorkerGoesDead(t *testing.T) {
	var calls atomic.Int64
	r := newRig(t, withFront(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { calls.Add(1); h.ServeHTTP(w, req) })
	}))
	inv := r.invoice("Test Customer", "1180.00")
	before := calls.Load() // the invoice's own set-up
	for id, amount := range map[string]any{"E1": "118000", "E2": json.Number("99999999999999999999")} {
		p := payment("pay_T3stBadAmt0"+id[1:]+"0", 118000, map[string]any{"notes": map[string]any{"invoice": inv}})
		p["amount"] = amount
		if e := r.deliver(id, envelope(t, "payment.captured", "payment", p)); e.Status != connector.StatusPending || e.BusinessKey == "" {
			t.Fatalf("%s stored %s key %q; want pending with its payment id", id, e.Status, e.BusinessKey)
		}
	}
	r.work()
	r.want("E1", connector.StatusDead, `webhook body does not parse: razorpay: parse event: payment.amount: not an integer: "\"118000\""`)
	r.want("E2", connector.StatusDead, `webhook body does not parse: razorpay: parse event: payment.amount: not an integer: "99999999999999999999"`)
	if n := calls.Load() - before; n != 0 {
		t.Fatalf("%d calls to ERPNext for two bodies that do not parse; want none", n)
	}
	// The count sees the worker's calls: a body that parses, on the same invoice, makes some.
	r.deliver("E3", captured(t, "pay_T3stBadAmt030", 118000, inv, nil))
	r.work()
	r.want("E3", connector.StatusDone)
	if calls.Load() == before {
		t.Fatal("no ERPNext call counted for a booking; the count sees nothing")
	}
}

func mustParse(t *testing.T, body []byte) *razorpay.Event {
	t.Helper()
	e, err := razorpay.ParseEvent(body)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// A signed event of another Razorpay account than razorpay.account_id parks with that reason,
// in the worker and in explain alike, and books nothing; listed in razorpay.accept_accounts,
// the same event books once replayed.
func TestEventOfAnotherAccountParksUnlessAccepted(t *testing.T) {
	r := newRig(t)
	inv := r.invoice("Test Customer", "1180.00")
	body := bytes.Replace(captured(t, "pay_T3stAccount001", 118000, inv, nil), []byte(`"account_id":"`+account+`"`), []byte(`"account_id":"acc_0therAcc0unt99"`), 1)
	r.deliver("E1", body)
	r.work()
	const why = "another account: the event is of Razorpay account acc_0therAcc0unt99, not razorpay.account_id " + account
	e := r.want("E1", connector.StatusParked, why, "list acc_0therAcc0unt99 in razorpay.accept_accounts")
	if len(r.entries("pay_T3stAccount001")) != 0 {
		t.Fatal("an event of another account was booked")
	}
	x, err := r.conn.Explain(context.Background(), mustParse(t, body))
	if err != nil || x.Action != connector.ExplainPark || x.Reason != e.LastError {
		t.Errorf("explain %+v %v, want the worker's park", x, err)
	}

	cfg := r.cfg
	cfg.Razorpay.AcceptAccounts = []string{"acc_0therAcc0unt99"}
	r.conn = r.connector(cfg)
	if a, err := r.conn.Operator().Replay(context.Background(), e, false, "test"); err != nil || !a.Changed {
		t.Fatalf("replay %+v %v", a, err)
	}
	r.work()
	r.want("E1", connector.StatusDone, "created")
	r.one("pay_T3stAccount001")
}
