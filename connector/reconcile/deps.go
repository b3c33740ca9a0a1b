package reconcile

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Store is the part of connector.Store a run uses: the coverage of Razorpay's items (bookings
// and inbox rows by business key), the rows it queues, retries and drains, the booked rows the
// audit reads, and the record of the run (reconcile_runs).
type Store interface {
	BookingsByBusinessKeys(ctx context.Context, keys []string) (map[string]connector.Booking, error)
	EventsByBusinessKeys(ctx context.Context, keys []string) (map[string][]connector.InboxEvent, error)
	GetBooking(ctx context.Context, businessKey string) (*connector.Booking, error)
	ListBookings(ctx context.Context, since time.Time) ([]connector.Booking, error)
	GetEvent(ctx context.Context, id int64) (*connector.InboxEvent, error)
	InsertEvent(ctx context.Context, e *connector.InboxEvent) (inserted bool, err error)
	InsertEventIfNoKey(ctx context.Context, e *connector.InboxEvent) (inserted bool, err error)
	SetEventStatusFrom(ctx context.Context, id int64, from, status connector.Status, reason string, now time.Time) error
	Waiters(ctx context.Context, waitFor connector.Wait, statuses ...connector.Status) ([]connector.InboxEvent, error)
	WakeWaiters(ctx context.Context, waitFor connector.Wait, now time.Time, more ...connector.Wait) (int, error)
	StartReconcileRun(ctx context.Context, r *connector.ReconcileRun) error
	FinishReconcileRun(ctx context.Context, r connector.ReconcileRun) error
}

var _ Store = connector.Store(nil)

// erpNext is the part of connector.ERPNext a run uses: it lists Integration Requests and the
// Payment Entries the audit checks.
type erpNext interface {
	List(ctx context.Context, doctype string, opt frappe.ListOptions, out any) error
}

// razorpayAPI is the part of connector.RazorpayAPI a run uses: the window's payments, refunds
// and settlements, a payment or order re-read, and the capture of reconcile.capture_authorized.
type razorpayAPI interface {
	GetPayment(ctx context.Context, id string) (*razorpay.Payment, error)
	GetOrder(ctx context.Context, id string) (*razorpay.Order, error)
	ListPayments(ctx context.Context, from, to time.Time, each func(*razorpay.Payment) error) error
	ListRefunds(ctx context.Context, from, to time.Time, each func(*razorpay.Refund) error) error
	ListSettlements(ctx context.Context, from, to time.Time, each func(*razorpay.Settlement) error) error
	Capture(ctx context.Context, paymentID string, amount int64, currency string) (*razorpay.Payment, error)
}

// Settlements is what the settlement report asks of the booking (connector.Booker): the bank statement match of a posted settlement (none reconciled when
// dryRun) and the breakdown of its line.
type Settlements interface {
	MatchSettlement(ctx context.Context, st *razorpay.Settlement, entry, owner string, dryRun bool) (connector.BankMatch, error)
	SettlementBreakdown(ctx context.Context, st *razorpay.Settlement, entry string, line *connector.SettlementLine) error
}

// Deps are what a run uses, each named: the Account it reconciles, the store, the clock, and
// what it shares with the workers of its process.
type Deps struct {
	// Account is whose money a run reconciles (connector.AccountOf): its id (stamped on the
	// synthetic rows a run queues), its mode of payment (the audit reads the Payment Entries of
	// it), config `reconcile` (window, lookback, since, Integration Requests, the age and
	// capture of authorized payments, the drain's timeout) and `settlements` (the settlement
	// sweep and report), its time zone (the day of since; UTC when nil), and its clients
	// behind the client edge (every failure a *connector.Failure, every call in the metrics, a
	// refused credential pausing the workers). Of the clients a run calls only what erpNext
	// and razorpayAPI name; Razorpay nil (the API not configured) makes Run ErrNoRazorpayAPI.
	Account connector.Account

	Store Store
	// Settlement answers the settlement report (settlements.enabled).
	Settlement Settlements

	// Now defaults to time.Now.
	Now func() time.Time
	Log zerolog.Logger

	// Owner, HoldLock, Drain and Backoff are required.
	//
	// Owner is a new owner id of this process for the role ("<instance>/<role>/<n>").
	Owner func(role string) string
	// HoldLock takes the named lock row and keeps it until release (connector.HoldLock's
	// contract: connector.ErrLockHeld when another owner holds it; lost is called once when
	// another owner takes it over).
	HoldLock func(ctx context.Context, name, owner string, ttl time.Duration, lost func()) (release func(), err error)
	// Drain books the rows ids in this process before returning (reconcile --drain),
	// reporting progress; Wake tells an idle worker a row is due.
	Drain func(ctx context.Context, ids []int64, progress func(done, total int)) error
	Wake  func()
	// Backoff is the delay before attempt n+1 of a read Razorpay failed transiently.
	Backoff func(attempts int) time.Duration

	// ObserveRun counts a run that took the lock (reconcile metrics); ObserveSettlements sets
	// the oldest posted settlement not matched with the bank (zero: none).
	ObserveRun         func(connector.ReconcileObservation)
	ObserveSettlements func(oldestUnmatched time.Time)
}

// core is a run's Deps with the defaults filled in.
type core struct {
	d     Deps
	a     connector.Account
	store Store
	erp   erpNext
	rzp   razorpayAPI // nil when the API is not configured
	loc   *time.Location
	now   func() time.Time
	log   zerolog.Logger
}

func coreOf(d Deps) *core {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Account.Location == nil {
		d.Account.Location = time.UTC
	}
	if d.Wake == nil {
		d.Wake = func() {}
	}
	if d.ObserveRun == nil {
		d.ObserveRun = func(connector.ReconcileObservation) {}
	}
	if d.ObserveSettlements == nil {
		d.ObserveSettlements = func(time.Time) {}
	}
	c := &core{d: d, a: d.Account, store: d.Store, erp: d.Account.ERP, loc: d.Account.Location, now: d.Now, log: d.Log}
	if d.Account.Razorpay != nil {
		c.rzp = d.Account.Razorpay
	}
	return c
}
