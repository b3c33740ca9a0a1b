package console

import (
	"context"
	"errors"
	"time"
)

// Backend is everything the console reads and does. cmd/razorpay-erpnext implements it over
// the running daemon (its store, connector and clients); tests use fakes. The console holds no
// policy of its own: which actions an event allows (EventDetail.Actions) and what they do are
// the backend's, the same functions the CLI calls.
//
// Errors: ErrNotFound for an event id that does not exist; ErrUnavailable (wrapped) when a
// feature is off in this configuration (e.g. reconcile without Razorpay API keys); anything
// else is shown as "could not …" with its message, which must never hold a secret.
type Backend interface {
	// Today gathers the Today page: counts, fault state and the 14-day money series.
	Today(ctx context.Context) (Today, error)
	// Events lists inbox events matching q, newest first.
	Events(ctx context.Context, q EventQuery) ([]EventRow, error)
	// Event returns one event with its body, booking, resulting document, history and the
	// actions a person may take on it now.
	Event(ctx context.Context, id int64) (EventDetail, error)
	// Explain is the plan booking the event would follow now, reading ERPNext only (explain).
	Explain(ctx context.Context, id int64) (Plan, error)
	// Replay sends the event back to pending (events replay ID), recorded as done by actor.
	Replay(ctx context.Context, id int64, actor string) (ActionResult, error)
	// Rebook forgets the event's cancelled or deleted entry and replays it (events replay
	// --rebook); refused while the entry is live.
	Rebook(ctx context.Context, id int64, actor string) (ActionResult, error)
	// Dismiss marks the event dismissed with reason (events dismiss --reason), by actor.
	Dismiss(ctx context.Context, id int64, actor, reason string) (ActionResult, error)
	// ReconcileRuns returns the latest limit reconcile runs of every replica, newest first.
	ReconcileRuns(ctx context.Context, limit int) ([]ReconcileRun, error)
	// LastReconcileReport is the report the latest recorded reconcile run saved (any replica,
	// read from the store: the same on every replica and after a restart); nil when no run has
	// saved one yet.
	LastReconcileReport(ctx context.Context) (*RunReport, error)
	// DryRunReconcile runs `reconcile --dry-run` over the default window: it writes nothing.
	DryRunReconcile(ctx context.Context) (ReconcileReport, error)
	// Check returns the `check` lines for the running configuration.
	Check(ctx context.Context) ([]CheckLine, error)
}

// ErrNotFound is returned by Backend methods for an event id that does not exist.
var ErrNotFound = errors.New("not found")

// ErrUnavailable wraps the error of a feature this configuration does not have.
var ErrUnavailable = errors.New("not available in this configuration")

// EventQuery filters the Events page. Zero fields do not filter. From and To bound the time
// the event was received: [From, To).
type EventQuery struct {
	Status  string
	Event   string
	Key     string // event id, payment or refund id, or the resulting document's name
	Invoice string // Sales Invoice or Payment Request name
	From    time.Time
	To      time.Time
	Limit   int
	Offset  int
}

// EventRow is one inbox event in the list. Reason is why it stands as it does: how a finished
// event ended, why it is parked or dead (the connector's reason, with ERPNext's message
// verbatim when ERPNext refused a call), or who replayed it. Attempts counts failed attempts.
type EventRow struct {
	ID            int64
	EventID       string
	Event         string
	BusinessKey   string
	Status        string
	Attempts      int
	ReceivedAt    time.Time
	UpdatedAt     time.Time
	Reason        string
	ResultDoctype string
	ResultName    string
	BodyPurged    bool
}

// EventDetail is one event with everything the detail page shows.
type EventDetail struct {
	EventRow
	AccountID      string
	EventCreatedAt *time.Time
	NextAttemptAt  *time.Time // pending events only
	// Body is the raw webhook body as received; nil when retention purged it.
	Body []byte
	// Booking is the business key's bookings row, nil when there is none.
	Booking *Booking
	// Document is the resulting ERPNext document as ERPNext has it now; nil when the event
	// has none. DocumentErr says why it could not be read.
	Document    *Document
	DocumentErr string
	// ReasonFromERPNext is true when Reason holds ERPNext's own answer to a call (its status,
	// exception and message), false when it is the connector's own (e.g. "no invoice matched").
	ReasonFromERPNext bool
	// History lists who did what to the event (replays, rebooks, dismissals), oldest first.
	History []HistoryEntry
	// AttemptsLabel and AttemptsValue are the attempts line `events show` prints, e.g.
	// "attempts", "1 since the last replay (2 in all)"; the page shows Attempts as failed
	// attempts when AttemptsLabel is "".
	AttemptsLabel, AttemptsValue string
	Actions                      Actions
}

// Actions says which buttons the detail page shows; a false one carries why not.
type Actions struct {
	Replay, Rebook, Dismiss bool
	ReplayWhy               string // why Replay is not offered
}

// Booking is a bookings row: the claim on a payment or refund id and the document it became.
// AmountMinor is in minor units of Currency.
type Booking struct {
	State       string
	Kind        string
	Doctype     string
	Name        string
	AmountMinor int64
	Currency    string
	Invoice     string
	CreatedAt   time.Time
}

// Document states, as ERPNext's docstatus (0, 1, 2) or its absence says.
const (
	DocDraft     = "draft"
	DocSubmitted = "submitted"
	DocCancelled = "cancelled"
	DocDeleted   = "deleted" // ERPNext answers 404 for it
)

// Document is an ERPNext document as it stands now.
type Document struct {
	Doctype string
	Name    string
	State   string // DocDraft, DocSubmitted, DocCancelled or DocDeleted
}

// HistoryEntry is one thing a person did to an event: At, who (Actor, e.g. "Priya (console)"
// or "hand" for the CLI), Action ("replayed", "rebooked", "dismissed") and Detail (the
// dismiss reason; what a replay found: "was parked: …").
type HistoryEntry struct {
	At     time.Time
	Actor  string
	Action string
	Detail string
}

// ActionResult is what a Replay, Rebook or Dismiss did. Changed is false when nothing
// changed (refused: the event is not in a state that allows it, or a worker holds it right
// now); Message says so in the CLI's words.
type ActionResult struct {
	Changed bool
	Message string
}

// Plan is what explain says booking the event would do now: Action (create, reuse,
// submit-draft, park, skip, cancel, wait), the existing entry it reuses, the reason, each
// planned field with its source, and the document that would be inserted as indented JSON.
type Plan struct {
	Action   string
	Existing string
	Reason   string
	Fields   []PlanField
	Document string
}

// PlanField is one value of a planned entry and where it came from.
type PlanField struct {
	Field, Value, Source string
}

// ReconcileRun is one recorded reconcile run (any replica), counted as `reconcile` reports it:
// Queued payments, refunds and Integration Requests it queued, Booked those it booked itself
// (a run by hand; a scheduled run leaves that to the workers), SettlementsQueued apart, Parked
// what needs a person. FinishedAt is nil while it runs; Error is "" for a run that finished.
type ReconcileRun struct {
	ID                                     int64
	WindowFrom, WindowTo                   time.Time
	Scanned, Booked, AlreadyBooked, Parked int
	Queued, SettlementsQueued              int
	StartedAt                              time.Time
	FinishedAt                             *time.Time
	Error                                  string
}

// RunReport is a recorded reconcile run with the report it saved.
type RunReport struct {
	Run    ReconcileRun
	Report ReconcileReport
}

// ReconcileReport is what a reconcile found: the window, one row of counts per sweep, the
// payments it queued (DryRun: would queue) and those that need a person, audit anomalies and
// warnings.
type ReconcileReport struct {
	DryRun                           bool
	WindowFrom, WindowTo, ListedFrom time.Time
	Sweeps                           []SweepRow
	WouldQueue                       []ReconcileItem
	NeedsPerson                      []ReconcileItem
	Anomalies                        []string
	Warnings                         []string
}

// SweepRow is the counts of one sweep (payments, refunds, integration requests); WouldQueue
// is what it queued (dry run: would queue).
type SweepRow struct {
	Name                                              string
	Scanned, AlreadyBooked, InInbox, WouldQueue, Park int
}

// ReconcileItem is a payment or refund a reconcile report names; AmountMinor is in minor
// units of Currency.
type ReconcileItem struct {
	Kind        string
	ID          string
	AmountMinor int64
	Currency    string
	CreatedAt   time.Time
	Note        string
}

// CheckLine is one `check` line: Status is "ok", "warn" or "fail"; Fix says what to do.
type CheckLine struct {
	Item, Status, Detail, Fix string
}

// Today is the Today page. Times are absolute; the console shows them in its location.
type Today struct {
	// Stored counts rows every replica stored since local midnight: webhooks accepted (a
	// duplicate delivery is not stored again) and rows reconcile added.
	StoredWebhooks, ReconcileRows int
	// Replica counts what this process's webhook endpoint answered since it started.
	Replica ReplicaCounts
	// BookedToday and RefundedToday are the receipts and refunds booked since local
	// midnight, one entry per currency.
	BookedToday, RefundedToday []Money
	// Statuses counts inbox rows by status, all time (parked and dead wait for a person).
	Statuses map[string]int
	// OldestPending is when the oldest pending or processing event arrived (zero: none).
	OldestPending time.Time
	// LastWebhook is when the latest webhook was stored by any replica (zero: never).
	LastWebhook time.Time
	// Faults is the state of each outside system.
	Faults []Fault
	// Series is the last 14 days of money booked vs captured, one per currency.
	Series []MoneySeries
	// SeriesNote says why a series is missing or partial (e.g. no Razorpay API keys).
	SeriesNote string
	// Settlements is nil until settlement posting exists; the page shows a placeholder.
	Settlements *Settlements
}

// ReplicaCounts are this process's webhook answers since Since. Rejected counts refused
// requests (bad signature, malformed, too large, store unavailable), by reason.
type ReplicaCounts struct {
	Since                                   time.Time
	Received, Accepted, Duplicate, Rejected int
	RejectedBy                              map[string]int
}

// Money is an amount in minor units of Currency over Count documents.
type Money struct {
	Currency    string
	AmountMinor int64
	Count       int
}

// Fault states.
const (
	FaultOK    = "ok"
	FaultDown  = "fault"
	FaultOff   = "off" // not configured
	FaultCheck = "unknown"
)

// Fault is the state of one outside system (ERPNext, Razorpay API, the store).
type Fault struct {
	System string
	State  string // FaultOK, FaultDown, FaultOff or FaultCheck
	Detail string
}

// MoneySeries is one currency's last days: what the connector booked (receipts, by the day it
// booked them) and what Razorpay captured (payments created that day and captured), in minor
// units. Days are local midnights, oldest first. CapturedKnown is false when Razorpay could not
// be read; CapturedAsOf is when it was.
type MoneySeries struct {
	Currency      string
	Days          []MoneyDay
	CapturedKnown bool
	CapturedAsOf  time.Time
}

// MoneyDay is one day of a MoneySeries.
type MoneyDay struct {
	Day                        time.Time
	BookedMinor, CapturedMinor int64
	BookedCount, CapturedCount int
}

// Settlements is the settlement summary: per day what was settled and what was booked, and
// the clearing account's balance, in minor units of Currency. Razorpay settles the receipts
// less its fees (with GST) and the refunds, so a day is compared as settled vs booked net of
// those (SettlementDay.BookedNetMinor).
type Settlements struct {
	Currency             string
	Days                 []SettlementDay
	ClearingAccount      string
	ClearingBalanceMinor int64
	// ClearingUnknown says why the balance could not be read ("" when it was).
	ClearingUnknown string
}

// SettlementDay is one day of Settlements: SettledMinor what the settlements posted that day
// paid out (net); BookedMinor the receipts booked that day (gross, fee included), FeesMinor
// Razorpay's fees with GST on those receipts (the merchant's; a customer-borne fee is not in
// BookedMinor) and RefundsMinor the refunds booked that day.
type SettlementDay struct {
	Day                                                time.Time
	SettledMinor, BookedMinor, FeesMinor, RefundsMinor int64
}

// BookedNetMinor is what Razorpay owes for the day's bookings: BookedMinor − FeesMinor −
// RefundsMinor, the figure a settlement of that day's receipts pays out.
func (d SettlementDay) BookedNetMinor() int64 { return d.BookedMinor - d.FeesMinor - d.RefundsMinor }
