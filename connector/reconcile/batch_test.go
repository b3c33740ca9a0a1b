package reconcile_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/reconcile"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// lookupCount is the store of a connector that counts the look-ups reconcile makes: the
// batched ones with the number of keys each asked about, and the per-key ones.
type lookupCount struct {
	*store.DB
	mu          sync.Mutex
	bookingKeys []int // keys per BookingsByBusinessKeys call
	eventKeys   []int // keys per EventsByBusinessKeys call
	perKey      int   // GetBooking + FindEvents calls
}

func (s *lookupCount) BookingsByBusinessKeys(ctx context.Context, keys []string) (map[string]connector.Booking, error) {
	s.mu.Lock()
	s.bookingKeys = append(s.bookingKeys, len(keys))
	s.mu.Unlock()
	return s.DB.BookingsByBusinessKeys(ctx, keys)
}

func (s *lookupCount) EventsByBusinessKeys(ctx context.Context, keys []string) (map[string][]connector.InboxEvent, error) {
	s.mu.Lock()
	s.eventKeys = append(s.eventKeys, len(keys))
	s.mu.Unlock()
	return s.DB.EventsByBusinessKeys(ctx, keys)
}

func (s *lookupCount) GetBooking(ctx context.Context, key string) (*connector.Booking, error) {
	s.mu.Lock()
	s.perKey++
	s.mu.Unlock()
	return s.DB.GetBooking(ctx, key)
}

func (s *lookupCount) FindEvents(ctx context.Context, key string) ([]connector.InboxEvent, error) {
	s.mu.Lock()
	s.perKey++
	s.mu.Unlock()
	return s.DB.FindEvents(ctx, key)
}

func (s *lookupCount) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bookingKeys, s.eventKeys, s.perKey = nil, nil, 0
}

// book writes a booked row for key, as a worker that booked it leaves it.
func (e *reconcileEnv) book(key, kind, name string) {
	e.t.Helper()
	ctx := context.Background()
	if _, _, err := e.db.ClaimBooking(ctx, connector.Booking{BusinessKey: key, Kind: kind, Owner: "t", FenceUntil: e.now}, e.now); err != nil {
		e.t.Fatal(err)
	}
	if err := e.db.FinishBooking(ctx, connector.Booking{BusinessKey: key, Doctype: "Payment Entry", Name: name}, e.now); err != nil {
		e.t.Fatal(err)
	}
}

// A sweep of 250 payments (pages of 100, 100 and 50) and 120 refunds asks the store about a
// whole page at once: one bookings statement per page, one inbox statement per page for the
// keys not booked (none when the whole page is booked), and no look-up per payment. The
// counts are the same as one look-up per payment gave.
func TestReconcileLooksUpAPageAtOnce(t *testing.T) {
	e := newReconcileEnv(t, nil)
	// Oldest first: payments 0–99 (the last page Razorpay lists) are all booked; of 100–249,
	// every fifth is booked, every seventh has a parked capture, 240–249 are pending in the inbox.
	for i := 0; i < 250; i++ {
		e.payment(payID(i), "", e.now.Add(-time.Duration(250-i)*time.Minute), nil)
	}
	booked, parked, pending := 0, 0, 0
	for i := 0; i < 250; i++ {
		switch {
		case i < 100 || i%5 == 0:
			e.book(payID(i), connector.KindReceipt, fmt.Sprintf("ACC-PAY-2026-%05d", i+1))
			booked++
		case i >= 240:
			pending++
			insertRow(t, e.db, "evt_T3stPend"+payID(i), "payment.captured", payID(i), connector.StatusPending, "")
		case i%7 == 0:
			parked++
			insertRow(t, e.db, "evt_T3stPark"+payID(i), "payment.captured", payID(i), connector.StatusParked, "no invoice matched: test")
		}
	}
	for i := 0; i < 120; i++ { // refunds of payments 100–219, created after them, none booked
		_, err := e.sim.CreateRefund(razorpay.Refund{ID: fmt.Sprintf("rfnd_T3stBatch%05d", i), PaymentID: payID(100 + i), Amount: 100,
			CreatedAt: e.now.Add(-time.Duration(120-i) * time.Second).Unix()}, razorpaysim.RefundOptions{Lose: true})
		if err != nil {
			t.Fatal(err)
		}
	}
	s := &lookupCount{DB: e.db}
	rep := e.reconcile(e.connectorWith(s), reconcile.Request{DryRun: true})
	want := reconcile.SweepCounts{Scanned: 250, AlreadyBooked: booked, InInbox: pending, Parked: parked, Queued: 250 - booked - pending - parked}
	if rep.Payments != want || len(rep.Queued) != want.Queued+120 || len(rep.Parked) != parked {
		t.Errorf("payments %+v (%d listed to queue, %d parked); want %+v", rep.Payments, len(rep.Queued), len(rep.Parked), want)
	}
	if rf := rep.Refunds; rf.Scanned != 120 || rf.Queued != 120 || rf.AlreadyBooked != 0 {
		t.Errorf("refunds %+v; want 120 scanned, 120 to queue", rf)
	}
	// Pages, newest first: payments 249–150, 149–50, 49–0; then refunds 119–20 and 19–0.
	// Unbooked per page: 80 and 40 of the payment pages, none of the last; every refund.
	if fmt.Sprint(s.bookingKeys) != "[100 100 50 100 20]" || fmt.Sprint(s.eventKeys) != "[80 40 100 20]" || s.perKey != 0 {
		t.Errorf("store asked about %v keys (bookings), %v (inbox), %d single look-ups; want [100 100 50 100 20], [80 40 100 20], 0",
			s.bookingKeys, s.eventKeys, s.perKey)
	}
	// Not a dry run: the same look-ups, and the rows queued are the ones the dry run named.
	s.reset()
	rep = e.reconcile(e.connectorWith(s), reconcile.Request{})
	if rep.Payments != want || rep.Refunds.Queued != 120 || fmt.Sprint(s.bookingKeys) != "[100 100 50 100 20]" || s.perKey != 0 {
		t.Errorf("run: payments %+v, refunds %+v, bookings look-ups %v, %d single; want %+v, 120 queued, [100 100 50 100 20], 0",
			rep.Payments, rep.Refunds, s.bookingKeys, s.perKey, want)
	}
	if n := total(t, e.db); n != pending+parked+want.Queued+120 {
		t.Errorf("inbox holds %d rows, want %d", n, pending+parked+want.Queued+120)
	}
}

// insertRow stores an inbox row of key in status, as a webhook (or a worker) left it.
func insertRow(t *testing.T, db *store.DB, eventID, event, key string, status connector.Status, reason string) {
	t.Helper()
	r := connector.InboxEvent{AccountID: "acc_T3stAcc0unt001", EventID: eventID, Event: event, BusinessKey: key,
		Status: status, LastError: reason, RawBody: []byte("{}")}
	if _, err := db.InsertEvent(context.Background(), &r); err != nil {
		t.Fatal(err)
	}
}

// The report lists at most ListLimit items of each kind and says how many more it counted;
// the rows left out of Queued are drained and counted all the same.
func TestReconcileListsAreBounded(t *testing.T) {
	reconcile.SetListLimit(t, 3)
	e := newReconcileEnv(t, nil)
	e.cfg.Reconcile.DrainTimeout = connector.Duration(30 * time.Second)
	for i := 0; i < 5; i++ { // none names an invoice: each parks when drained
		if _, err := e.sim.CreatePayment(razorpay.Payment{ID: payID(i), Amount: 50000, Currency: "INR", Method: "upi",
			CreatedAt: e.now.Add(-time.Duration(10-i) * time.Minute).Unix()}, razorpaysim.PaymentOptions{Lose: true, NoOrder: true}); err != nil {
			t.Fatal(err)
		}
	}
	dry := e.reconcile(e.connector(), reconcile.Request{DryRun: true})
	if dry.Payments.Queued != 5 || len(dry.Queued) != 3 || len(dry.Warnings) != 1 ||
		dry.Warnings[0] != "2 more items queued (dry run: would queue) are counted but not listed (a report lists at most 3 of each kind); events list --status pending shows the inbox rows" {
		t.Errorf("dry run: %d would queue, %d listed, warnings %q", dry.Payments.Queued, len(dry.Queued), dry.Warnings)
	}
	rep := e.reconcile(e.connector(), reconcile.Request{Drain: true})
	if p := rep.Payments; p.Queued != 5 || p.Parked != 5 || p.Booked != 0 || p.Pending != 0 || len(rep.Queued) != 3 || len(rep.Parked) != 3 {
		t.Errorf("payments %+v, %d listed queued, %d listed parked; want 5 queued and 5 parked, 3 of each listed", p, len(rep.Queued), len(rep.Parked))
	}
	for _, it := range rep.Parked {
		if it.Status != string(connector.StatusParked) || !strings.Contains(it.Reason, "no invoice matched") {
			t.Errorf("parked item %+v", it)
		}
	}
	if w := strings.Join(rep.Warnings, "\n"); !strings.Contains(w, "2 more items queued") || !strings.Contains(w, "2 more items parked are counted but not listed") {
		t.Errorf("warnings %q", rep.Warnings)
	}
	runs, err := e.db.ListReconcileRuns(context.Background(), 1)
	if err != nil || len(runs) != 1 || runs[0].Parked != 5 || runs[0].Booked != 0 || runs[0].Scanned != 5 {
		t.Errorf("run record %+v %v: want 5 scanned, 5 parked, none booked", runs, err)
	}
}
