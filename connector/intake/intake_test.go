package intake_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/config"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/intake"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Intake on a store of its own, without a Connector: what it stores, what it refuses, what it
// counts. Over HTTP and with a real store it is tested in connector/httpapi and connector_test.

var t0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

const secret = "whsec-intake-test"

// fakeStore keeps the rows it is given, keyed by (account, event id); err, when set, is every
// insert's answer, and block holds each insert until ctx ends.
type fakeStore struct {
	mu    sync.Mutex
	rows  map[[2]string]connector.InboxEvent
	err   error
	block bool
}

func (s *fakeStore) InsertEvent(ctx context.Context, e *connector.InboxEvent) (bool, error) {
	if s.block {
		<-ctx.Done()
		return false, ctx.Err()
	}
	if s.err != nil {
		return false, s.err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := [2]string{e.AccountID, e.EventID}
	if _, ok := s.rows[k]; ok {
		return false, nil
	}
	s.rows[k] = *e
	return true, nil
}

type counts struct {
	mu        sync.Mutex
	by        map[string]int // "event/outcome"
	abandoned int
}

func (c *counts) Webhook(event, outcome string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.by[event+"/"+outcome]++
}

func (c *counts) Abandoned() { c.mu.Lock(); c.abandoned++; c.mu.Unlock() }

type rig struct {
	store *fakeStore
	count *counts
	wakes int
	in    *intake.Intake
}

func newRig() *rig {
	r := &rig{store: &fakeStore{rows: map[[2]string]connector.InboxEvent{}}, count: &counts{by: map[string]int{}}}
	r.in = intake.New(intake.Deps{Secrets: []string{"whsec-new", secret}, AccountID: "acc_Default", Store: r.store,
		Now: func() time.Time { return t0 }, Wake: func() { r.wakes++ }, Counters: r.count})
	return r
}

func body(account string) []byte {
	return []byte(`{"entity":"event","account_id":"` + account + `","event":"payment.captured","contains":["payment"],"created_at":1780000000,` +
		`"payload":{"payment":{"entity":{"id":"pay_T3stIntake0001","entity":"payment","amount":50000,"currency":"INR","status":"captured"}}}}`)
}

func (r *rig) receive(ctx context.Context, b []byte, eventID string) (bool, error) {
	return r.in.Receive(ctx, intake.Delivery{Body: b, Signature: razorpay.Sign(secret, b), EventID: eventID, Remote: "192.0.2.1"})
}

func TestReceiveStoresVerifiedWebhooksOnce(t *testing.T) {
	r := newRig()
	ctx := context.Background()
	if dup, err := r.receive(ctx, body("acc_T3stAcc0unt001"), " T3stEvtIntake1 "); dup || err != nil {
		t.Fatalf("first: %v, %v", dup, err)
	}
	row, ok := r.store.rows[[2]string{"acc_T3stAcc0unt001", "T3stEvtIntake1"}]
	if !ok || row.Status != connector.StatusPending || row.BusinessKey != "pay_T3stIntake0001" || row.Event != "payment.captured" ||
		!row.ReceivedAt.Equal(t0) || !row.NextAttemptAt.Equal(t0) || row.EventCreatedAt == nil || row.EventCreatedAt.Unix() != 1780000000 {
		t.Fatalf("stored %+v (found %v)", row, ok)
	}
	if dup, err := r.receive(ctx, body("acc_T3stAcc0unt001"), "T3stEvtIntake1"); !dup || err != nil {
		t.Fatalf("second: %v, %v", dup, err)
	}
	if _, err := r.receive(ctx, body(""), "T3stEvtIntake2"); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.store.rows[[2]string{"acc_Default", "T3stEvtIntake2"}]; !ok {
		t.Error("a body naming no account is not stored under razorpay.account_id")
	}
	bad := []byte(`{"entity":"event","event":1}`)
	if dup, err := r.receive(ctx, bad, "T3stEvtIntake3"); dup || err != nil {
		t.Fatalf("signed but unparseable: %v, %v", dup, err)
	}
	if row := r.store.rows[[2]string{"acc_Default", "T3stEvtIntake3"}]; row.Status != connector.StatusDead ||
		!strings.HasPrefix(row.LastError, "webhook body does not parse: ") {
		t.Errorf("unparseable body stored as %s %q", row.Status, row.LastError)
	}
	want := map[string]int{"payment.captured/accepted": 2, "payment.captured/duplicate": 1, "/malformed": 1}
	if r.wakes != 2 || len(r.count.by) != len(want) {
		t.Errorf("%d wakes, counted %v; want 2 wakes, %v", r.wakes, r.count.by, want)
	}
	for k, n := range want {
		if r.count.by[k] != n {
			t.Errorf("%s counted %d, want %d", k, r.count.by[k], n)
		}
	}
}

func TestReceiveRefuses(t *testing.T) {
	r := newRig()
	ctx := context.Background()
	b := body("acc_1")
	if _, err := r.in.Receive(ctx, intake.Delivery{Body: b, Signature: razorpay.Sign("other", b), EventID: "T3stEvtIntake1"}); !errors.Is(err, intake.ErrBadSignature) {
		t.Errorf("bad signature: %v", err)
	}
	for _, id := range []string{"", "short", strings.Repeat("x", 65), "T3stEvtIntak!1"} {
		if _, err := r.receive(ctx, b, id); !errors.Is(err, intake.ErrBadEventID) {
			t.Errorf("event id %q: %v", id, err)
		}
	}
	r.store.err = connector.ErrStoreUnavailable
	if _, err := r.receive(ctx, b, "T3stEvtIntake1"); !errors.Is(err, connector.ErrStoreUnavailable) {
		t.Errorf("store down: %v", err)
	}
	r.store.err, r.store.block = nil, true
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(10*time.Millisecond, cancel)
	if _, err := r.receive(cctx, b, "T3stEvtIntake1"); !errors.Is(err, intake.ErrSenderGone) {
		t.Errorf("sender gone: %v", err)
	}
	r.in.RefuseOverloaded()
	r.in.RefuseTooLarge()
	want := map[string]int{"/bad_signature": 1, "/malformed": 4, "payment.captured/store_unavailable": 1, "/overloaded": 1, "/too_large": 1}
	for k, n := range want {
		if r.count.by[k] != n {
			t.Errorf("%s counted %d, want %d (all: %v)", k, r.count.by[k], n, r.count.by)
		}
	}
	if r.count.abandoned != 1 || len(r.store.rows) != 0 || r.wakes != 0 {
		t.Errorf("abandoned %d, %d rows stored, %d wakes", r.count.abandoned, len(r.store.rows), r.wakes)
	}
}

func TestDefaults(t *testing.T) {
	in := intake.New(intake.Deps{Store: &fakeStore{rows: map[[2]string]connector.InboxEvent{}}, Secrets: []string{secret}})
	if in.MaxInFlight() != config.DefaultMaxInFlight {
		t.Errorf("MaxInFlight = %d, want %d", in.MaxInFlight(), config.DefaultMaxInFlight)
	}
	in.RefuseOverloaded() // no counters: counts nothing, and does not panic
	b := body("acc_1")
	if dup, err := in.Receive(context.Background(), intake.Delivery{Body: b, Signature: razorpay.Sign(secret, b), EventID: "T3stEvtIntake1"}); dup || err != nil {
		t.Errorf("Receive without clock, wake or counters: %v, %v", dup, err)
	}
	if n := intake.New(intake.Deps{MaxInFlight: 3}).MaxInFlight(); n != 3 {
		t.Errorf("MaxInFlight = %d, want 3", n)
	}
}
