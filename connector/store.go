package connector

import (
	"context"
	"errors"
	"time"
)

// Booking kinds (DESIGN.md §8); the booking states are BookingState (lifecycle.go).
const (
	KindReceipt    = "receipt"
	KindRefund     = "refund"
	KindSettlement = "settlement" // a settlement's Journal Entry, keyed by setl_…
)

// ErrStoreUnavailable wraps every store failure that means "the database could not be reached
// or did not answer"; intake answers 503 for it so Razorpay retries (DESIGN.md §2 invariant 2).
var ErrStoreUnavailable = errors.New("store unavailable")

// ErrLeaseLost is returned by CompleteEvent when the caller no longer holds the event's lease
// (it expired and another worker claimed the event); the caller must drop its outcome.
var ErrLeaseLost = errors.New("event lease lost")

// ErrStatusChanged is returned (wrapped) by Store.SetEventStatusFrom when the row's status is no
// longer the one a person decided on: a worker finished it, or someone else replayed or
// dismissed it meanwhile. Read the row again before deciding.
var ErrStatusChanged = errors.New("event changed since it was read; look again")

// ErrNotFound is returned by lookups of a single row that does not exist.
var ErrNotFound = errors.New("not found")

// InboxEvent is one row of the inbox: a verified webhook (or a synthetic reconcile row) keyed by
// (AccountID, EventID). Times are UTC.
type InboxEvent struct {
	ID             int64      `db:"id"`
	AccountID      string     `db:"account_id"`
	EventID        string     `db:"event_id"`
	Event          string     `db:"event"`        // e.g. "payment.captured"
	BusinessKey    string     `db:"business_key"` // pay_… or rfnd_…; "" when none could be parsed
	RawBody        []byte     `db:"raw_body"`     // exact bytes received; nil after retention purge
	ReceivedAt     time.Time  `db:"received_at"`
	EventCreatedAt *time.Time `db:"event_created_at"` // envelope created_at, nil when absent
	Status         Status     `db:"status"`
	Attempts       int        `db:"attempts"`
	NextAttemptAt  time.Time  `db:"next_attempt_at"`
	LeaseOwner     string     `db:"lease_owner"`
	LeaseUntil     *time.Time `db:"lease_until"`
	LastError      string     `db:"last_error"`
	ResultDoctype  string     `db:"result_doctype"`
	ResultName     string     `db:"result_name"`
	UpdatedAt      time.Time  `db:"updated_at"`
	// WaitFor is what the row waits for (the zero Wait for nothing): see Outcome.WaitFor.
	WaitFor Wait `db:"-"`
}

// Outcome is what a worker writes back for a claimed event.
type Outcome struct {
	Status        Status    // StatusPending (retry), StatusDone, StatusParked, StatusDead, StatusSkipped, StatusDuplicate
	LastError     string    // reason a person can read; ERPNext's message verbatim (tags stripped)
	ResultDoctype string    // e.g. "Payment Entry"
	ResultName    string    // e.g. "ACC-PAY-2026-00001"
	NextAttemptAt time.Time // for StatusPending
	CountAttempt  bool      // false for waits that are not failures (contention, pause)
	// WaitFor names what ends the wait, so that whoever ends it wakes the row at once
	// (Store.WakeWaiters) instead of the row sleeping until NextAttemptAt: another worker's
	// claim (WaitOnBooking) or lock row (WaitOnLock), a payment's receipt (WaitOnReceipt: a
	// refund waiting, or parked, for it; a settlement waiting for one of its payments), a refund
	// (WaitOnRefund: a settlement waiting for it) or WaitReconcile (a dead row whose last
	// failure was transient). The zero Wait for none.
	WaitFor Wait
}

// Booking is one row of bookings: the claim on a business fact (a payment or refund id).
type Booking struct {
	BusinessKey string       `db:"business_key"`
	Kind        string       `db:"kind"`
	State       BookingState `db:"state"` // BookingInFlight, BookingBooked or BookingVoid
	Owner       string       `db:"owner"`
	FenceUntil  time.Time    `db:"fence_until"` // an in_flight row may be taken over after this
	Doctype     string       `db:"doctype"`
	Name        string       `db:"name"`
	AmountMinor int64        `db:"amount_minor"`
	Currency    string       `db:"currency"`
	Invoice     string       `db:"invoice"`
	CreatedAt   time.Time    `db:"created_at"`
	UpdatedAt   time.Time    `db:"updated_at"`
}

// Dismissal is a person's decision that an inbox row's payment is never booked (events dismiss,
// the console's Dismiss), one row of the store's dismissals table, recorded in the same
// transaction as the row's move to dismissed (Store.SetEventStatusBy). While it holds, no other
// receipt event of BusinessKey is booked (the worker finishes them dismissed); a replay or rebook
// of the row, or of another receipt event of the payment, lifts it. Times are UTC.
type Dismissal struct {
	ID          int64
	InboxID     int64      // the inbox row dismissed
	EventID     string     // its event id
	Event       string     // its event, e.g. "payment.captured"
	BusinessKey string     // its business key (pay_…); "" when it has none
	Actor       string     // who: $USER for events dismiss, "Priya Sharma (console)"
	Reason      string     // why, as the person typed it
	At          time.Time  // when
	LiftedBy    string     // who lifted it (replayed or rebooked an event of the payment); "" while it holds
	LiftedAt    *time.Time // when it was lifted; nil while it holds
}

// DismissedBy starts the LastError of a row a person dismissed (operator.Dismiss).
const DismissedBy = "dismissed by "

// Holds reports whether the dismissal still keeps its payment from being booked.
func (d Dismissal) Holds() bool { return d.LiftedAt == nil }

// Text is the dismissal as the row's LastError says it: "dismissed by <who>: <why>".
func (d Dismissal) Text() string { return DismissedBy + d.Actor + ": " + d.Reason }

// EventFilter selects inbox rows for listing.
type EventFilter struct {
	Status Status    // "" = any
	Since  time.Time // zero = any; compared with received_at
	Limit  int       // 0 = no limit
}

// Store is what the connector needs from its database (connector/store implements it on
// MariaDB and SQLite). Every method returns an error wrapping ErrStoreUnavailable when the
// database cannot be reached. Claims are rows, never connection-scoped locks (DESIGN.md §4.3).
type Store interface {
	// InsertEvent stores a new inbox row (ID, Status pending, NextAttemptAt = ReceivedAt are set
	// by the store when zero). It returns inserted=false, without error, when a row with the
	// same (AccountID, EventID) exists already.
	InsertEvent(ctx context.Context, e *InboxEvent) (inserted bool, err error)
	// InsertEventIfNoKey inserts e only when no inbox row has e.BusinessKey (reconcile rows).
	InsertEventIfNoKey(ctx context.Context, e *InboxEvent) (inserted bool, err error)
	// ClaimNextEvent leases the next due event (status pending with NextAttemptAt <= now, or
	// processing with an expired lease) to owner until now+lease, sets status processing and
	// returns it; nil, nil when nothing is due. Safe across processes (SKIP LOCKED on MariaDB).
	ClaimNextEvent(ctx context.Context, owner string, now time.Time, lease time.Duration) (*InboxEvent, error)
	// ExtendLease moves the lease of a claimed event; ErrLeaseLost when owner no longer holds it.
	ExtendLease(ctx context.Context, id int64, owner string, until time.Time) error
	// CompleteEvent writes the outcome (WaitFor included) and clears the lease; ErrLeaseLost
	// when owner no longer holds the lease. Attempts is incremented when o.CountAttempt.
	CompleteEvent(ctx context.Context, id int64, owner string, now time.Time, o Outcome) error
	// WakeWaiters ends the wait of every row whose WaitFor is waitFor or one of more, in one
	// statement: a pending row becomes due at now (unless due earlier); a parked or dead row goes
	// back to pending, due now, its attempts kept. WaitFor is cleared. It returns how many rows
	// changed; 0 for the zero Wait.
	WakeWaiters(ctx context.Context, waitFor Wait, now time.Time, more ...Wait) (int, error)
	// Waiters returns the rows whose WaitFor is waitFor and whose status is one of statuses (any
	// when none is given), oldest first.
	Waiters(ctx context.Context, waitFor Wait, statuses ...Status) ([]InboxEvent, error)
	// GetEvent returns one row by id (ErrNotFound).
	GetEvent(ctx context.Context, id int64) (*InboxEvent, error)
	// FindEvents returns rows whose event_id or business_key equals key, oldest first.
	FindEvents(ctx context.Context, key string) ([]InboxEvent, error)
	// ListEvents returns rows matching f, newest first.
	ListEvents(ctx context.Context, f EventFilter) ([]InboxEvent, error)
	// CountByStatus returns the number of inbox rows per status.
	CountByStatus(ctx context.Context) (map[Status]int, error)
	// SetEventStatus moves a row to status (replay → pending with NextAttemptAt now and
	// Attempts 0, dismiss → dismissed with reason in LastError); ErrNotFound when absent. A row
	// processing under a lease still live at now is left unchanged and an error wrapping
	// ErrLeaseLost is returned (the lease is another's; connector/store also wraps
	// store.ErrBusy): overwriting it would drop the worker's outcome. Try again later.
	SetEventStatus(ctx context.Context, id int64, status Status, reason string, now time.Time) error
	// SetEventStatusFrom is SetEventStatus only while the row's status is still from, in the
	// same single statement (a replay or dismiss never lands on a row a worker finished
	// meanwhile, on any Galera node); otherwise nothing changes and the error wraps
	// ErrStatusChanged.
	SetEventStatusFrom(ctx context.Context, id int64, from, status Status, reason string, now time.Time) error
	// SetEventStatusBy is SetEventStatusFrom for a person's decision, with h recorded as the
	// row's history entry in the same transaction (both or neither; From, To and EventID are
	// the call's). Nothing is recorded when the row did not change. A dismissal (status
	// dismissed, h.Action HistoryDismissed) also inserts the row's Dismissal (who h.Actor, why
	// h.Detail, when h.At); a move to any status but dismissed lifts the row's dismissals that
	// hold (LiftedBy h.Actor), in the same transaction.
	SetEventStatusBy(ctx context.Context, id int64, from, status Status, reason string, h HistoryEntry, now time.Time) error
	// EventHistory returns the history entries of row id, oldest first.
	EventHistory(ctx context.Context, id int64) ([]HistoryEntry, error)
	// Dismissals returns the dismissals of businessKey, held and lifted, in the order of the
	// rows dismissed (then of the dismissals); none for an empty key.
	Dismissals(ctx context.Context, businessKey string) ([]Dismissal, error)
	// LiftDismissal lifts dismissal d (LiftedBy by, LiftedAt now) and, while its row is still
	// dismissed, sets that row's LastError to reason (the lifecycle's lift), in one transaction.
	// Lifting a dismissal lifted already changes nothing.
	LiftDismissal(ctx context.Context, d Dismissal, by, reason string, now time.Time) error
	// MarkDuplicates turns the parked, pending and dead rows of businessKey other than exceptID into
	// StatusDuplicate, with LastError naming the booked document; returns how many changed.
	// Rows of EventRefundFailed are never touched: they reverse the booking, not repeat it.
	MarkDuplicates(ctx context.Context, businessKey string, exceptID int64, result string, now time.Time) (int, error)

	// ClaimBooking claims businessKey for owner in one statement: it inserts an in_flight row
	// (fence fenceUntil), or takes over an in_flight row whose fence is before now. It returns
	// the row as it stands afterwards and claimed=true when owner now holds it. A booked row or
	// an in_flight row of another owner with a live fence is returned with claimed=false.
	ClaimBooking(ctx context.Context, b Booking, now time.Time) (row Booking, claimed bool, err error)
	// SetBookingFence moves the fence of an in_flight row held by owner (ErrLeaseLost otherwise).
	SetBookingFence(ctx context.Context, businessKey, owner string, fenceUntil time.Time) error
	// FinishBooking marks businessKey booked with the ERPNext document (doctype, name, amount,
	// currency, invoice from b). It succeeds when the row is in_flight (any owner: the document
	// exists) or already booked with the same name; booked with another name is an error.
	FinishBooking(ctx context.Context, b Booking, now time.Time) error
	// ReleaseBooking deletes the in_flight row of businessKey held by owner (nothing was or can
	// have been written to ERPNext); no error when the row is absent or held by someone else.
	ReleaseBooking(ctx context.Context, businessKey, owner string) error
	// ForgetBooking deletes a booked row whose ERPNext document no longer counts (cancelled).
	ForgetBooking(ctx context.Context, businessKey string) error
	// GetBooking returns the row of businessKey (ErrNotFound).
	GetBooking(ctx context.Context, businessKey string) (*Booking, error)
	// VoidBooking makes b.BusinessKey's row void (inserting it when absent, whatever its
	// state otherwise), keeping Doctype and Name from b when set. A void row is never claimed.
	VoidBooking(ctx context.Context, b Booking, now time.Time) error
	// BookingsForDocument returns the rows that name the ERPNext document doctype/name (a
	// Payment Entry must account for one payment id only).
	BookingsForDocument(ctx context.Context, doctype, name string) ([]Booking, error)
	// BookingsByBusinessKeys is GetBooking for many keys at once (reconcile looks a page of
	// payments up in one statement): the rows of keys in any state, keyed by business key; a
	// key without a row is absent, and empty or repeated keys are ignored.
	BookingsByBusinessKeys(ctx context.Context, keys []string) (map[string]Booking, error)
	// EventsByBusinessKeys returns the inbox rows whose business_key is one of keys, grouped by
	// key, each group oldest first (received_at, then id); keys without rows are absent. Only
	// the status columns are read: RawBody is nil. Unlike FindEvents, an event id equal to a key
	// does not match.
	EventsByBusinessKeys(ctx context.Context, keys []string) (map[string][]InboxEvent, error)

	// AcquireLock takes the named lock row for owner until expiresAt, or takes over an expired
	// one, in one statement; re-acquiring one's own lock extends it. false when another owner
	// holds a live lock.
	AcquireLock(ctx context.Context, name, owner string, now, expiresAt time.Time) (bool, error)
	// ReleaseLock deletes the lock row if owner holds it.
	ReleaseLock(ctx context.Context, name, owner string) error
	// LockHeld reports whether some owner holds the named lock row live at now (expires_at not
	// before now).
	LockHeld(ctx context.Context, name string, now time.Time) (bool, error)

	// Ping checks the database answers and migrations are applied.
	Ping(ctx context.Context) error
	// Close releases the connection pool.
	Close() error

	// StartReconcileRun inserts a reconcile run record (WindowFrom, WindowTo, StartedAt) and
	// sets r.ID (DESIGN.md §8 reconcile_runs).
	StartReconcileRun(ctx context.Context, r *ReconcileRun) error
	// FinishReconcileRun writes the counts, FinishedAt and Error ("" = success) of the run r.ID;
	// ErrNotFound when absent.
	FinishReconcileRun(ctx context.Context, r ReconcileRun) error
	// ListReconcileRuns returns the latest limit runs, newest first (0 = all).
	ListReconcileRuns(ctx context.Context, limit int) ([]ReconcileRun, error)
	// ListBookings returns the booked rows (state booked) created at or after since, oldest
	// first (the reconcile audit of cancelled documents).
	ListBookings(ctx context.Context, since time.Time) ([]Booking, error)

	// RecordPaymentState records s.State (with s.Rank and s.EventID, UpdatedAt now) for
	// s.PaymentID unless the stored rank is higher or equal: states only move forward (DESIGN.md
	// §4 step 4), in one statement. It returns the state as stored afterwards and whether this
	// call moved it (true when it inserted the first state). The rank orders states only: it
	// never blocks a receipt.
	RecordPaymentState(ctx context.Context, s PaymentState, now time.Time) (stored PaymentState, moved bool, err error)
	// GetPaymentState returns the stored state of paymentID (ErrNotFound).
	GetPaymentState(ctx context.Context, paymentID string) (*PaymentState, error)
}

// RetentionStore is the part of Store that retention and monitoring use (operator.Retention,
// connector/metrics). It is a separate interface so fakes of Store need not grow with it; store.DB
// implements both.
type RetentionStore interface {
	// PurgeRawBodies clears the raw body of every row received before cutoff whose status needs
	// nothing more (done, duplicate, skipped, dismissed); pending and processing rows still have
	// to be booked, and parked and dead rows wait for a person who may replay them, so they keep
	// their body. The row, its status and outcome stay. It returns how many rows lost their body.
	PurgeRawBodies(ctx context.Context, cutoff time.Time) (int, error)
	// OldestPending returns the received_at of the oldest pending or processing row; ok is
	// false when there is none.
	OldestPending(ctx context.Context) (t time.Time, ok bool, err error)
	// LastReconcileSuccess returns finished_at of the latest reconcile run that finished
	// without error (any process); ok is false when none has.
	LastReconcileSuccess(ctx context.Context) (t time.Time, ok bool, err error)
}

// PaymentState is the furthest state a payment has reached as far as the connector knows
// (DESIGN.md §4 step 4): State is e.g. "captured", Rank its place in failed < authorized <
// captured < refunded, EventID the event that recorded it. UpdatedAt is UTC.
type PaymentState struct {
	PaymentID, State, EventID string
	Rank                      int
	UpdatedAt                 time.Time
}

// ReconcileRun is one row of reconcile_runs (DESIGN.md §8): the window swept and the counts of
// the run, with the meaning of `reconcile`'s own report (payments, refunds and Integration
// Requests together): Queued counts the rows the run queued; Booked those it then booked itself
// (a run by hand drains what it queued; a scheduled run leaves booking to the workers: 0);
// SettlementsQueued counts the settlements it queued, apart; Parked counts everything that
// needs a person (parked or dead rows, authorized payments past their age, audit anomalies).
// Error is "" for a run that finished; FinishedAt is nil while it runs. Times are UTC.
type ReconcileRun struct {
	ID                int64      `json:"id"`
	WindowFrom        time.Time  `json:"window_from"`
	WindowTo          time.Time  `json:"window_to"`
	Scanned           int        `json:"scanned"`
	Queued            int        `json:"queued"`
	SettlementsQueued int        `json:"settlements_queued"`
	Booked            int        `json:"booked"`
	AlreadyBooked     int        `json:"already_booked"`
	Parked            int        `json:"parked"`
	StartedAt         time.Time  `json:"started_at"`
	FinishedAt        *time.Time `json:"finished_at"`
	Error             string     `json:"error"`
	// Report is the run's report as JSON, the shape `reconcile --json` prints (package
	// reconcile writes it: StoredReport), saved by FinishReconcileRun with the counts; nil while
	// the run runs. ListReconcileRuns leaves it nil; LastReconcileReport reads it.
	Report []byte `json:"-"`
}
