// Package reconcile is the sweep that finds what webhooks missed (DESIGN.md §2 invariant 3):
// Razorpay's payment and refund lists and ERPNext's Integration Requests over a window, each
// payment or refund not yet booked or on its way queued as a synthetic inbox row that the
// workers book through the same path as a webhook, and an audit of ERPNext for anomalies a
// person must see. It runs under a lock row on one process at a time, and records each run.
// It is given what it uses (Deps): a narrowed store, the two clients, the configuration
// sections it reads, a clock, and funcs for what it shares with the workers of its process.
package reconcile

import (
	"errors"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// ErrBusy is returned by Run when another process (or goroutine) holds the
// reconcile lock row: reconcile runs on one process at a time (DESIGN.md §10).
var ErrBusy = errors.New("another reconcile is running (lock row \"reconcile\" is held)")

// ErrNoRazorpayAPI is returned by Run when razorpay.key_id and razorpay.key_secret are not
// configured: the sweep reads Razorpay's payment list.
var ErrNoRazorpayAPI = errors.New("reconcile needs the Razorpay API: set razorpay.key_id and razorpay.key_secret")

const (
	reconcileLock = "reconcile"
	// reconcileLockTTL is how long the lock row outlives a reconciler that died (kill -9):
	// a live one extends it every TTL/4, so it can be short.
	reconcileLockTTL = 30 * time.Second
)

// Request says what one reconcile run does. A zero To is now; a zero From is To minus
// reconcile.window.
type Request struct {
	From, To time.Time
	// DryRun reads everything and writes nothing anywhere: no inbox rows, no run record, no
	// lock row, no ERPNext or Razorpay write. The report lists what would be queued.
	DryRun bool
	// Drain processes the rows this run queued with the worker's own code (ProcessNext) until
	// each is final or reconcile.drain_timeout passes, and reports how they ended. Without it
	// the rows are left to the daemon's workers (the scheduled run in serve).
	Drain bool
	// Progress, when set, is called as the run advances (from the calling goroutine or a
	// drain goroutine, never concurrently).
	Progress func(Progress)
	// WaitForLock is how long to wait for a run in progress elsewhere (a scheduled one) to
	// finish before giving up with ErrBusy; 0 gives up at once (the schedule does).
	WaitForLock time.Duration
}

// Progress is one step of a reconcile run: Phase names what is being done; Done counts items
// handled so far and Total is the number expected, 0 when unknown (Razorpay's lists have no
// total).
type Progress struct {
	Phase string
	Done  int
	Total int
}

// SweepCounts are the counts of one sweep. Scanned: captured payments (processed refunds, or
// Integration Requests naming a payment) seen in the window. AlreadyBooked: booked before the
// run. InInbox: an inbox row was already on its way to booking. Queued: synthetic rows this run
// inserted (or, dry-run, would insert). Booked, Parked, Pending, NotBooked: how the queued rows
// ended when the run drained them; Parked also counts existing parked or dead rows.
// BeforeSince: left out because they were created before reconcile.since. Captured: authorized
// payments this run captured (reconcile.capture_authorized) and then queued.
type SweepCounts struct {
	Scanned       int `json:"scanned"`
	AlreadyBooked int `json:"already_booked"`
	InInbox       int `json:"in_inbox"`
	Queued        int `json:"queued"`
	Booked        int `json:"booked"`
	Parked        int `json:"parked"`
	Pending       int `json:"pending"`
	NotBooked     int `json:"not_booked"`
	BeforeSince   int `json:"before_since"`
	Captured      int `json:"captured"`
}

// Item is one payment or refund the report names. AmountMinor is in minor units of
// Currency; Status and Reason are the inbox row's status and last_error after the run.
type Item struct {
	Kind               string    `json:"kind"`   // "payment" or "refund"
	ID                 string    `json:"id"`     // pay_… or rfnd_…
	Source             string    `json:"source"` // "razorpay" (list sweep) or "integration_request"
	EventID            string    `json:"event_id,omitempty"`
	AmountMinor        int64     `json:"amount_minor"`
	Currency           string    `json:"currency"`
	CreatedAt          time.Time `json:"created_at"`
	IntegrationRequest string    `json:"integration_request,omitempty"`
	PaymentRequest     string    `json:"payment_request,omitempty"`
	Status             string    `json:"status,omitempty"`
	Reason             string    `json:"reason,omitempty"`
	Result             string    `json:"result,omitempty"` // the ERPNext document, e.g. "Payment Entry ACC-PAY-…"

	rowID int64
}

// Anomaly is something the audit found in ERPNext that a person must look at; reconcile never
// re-books or changes it.
type Anomaly struct {
	Kind      string   `json:"kind"` // one of the Anomaly kinds below
	Detail    string   `json:"detail"`
	Documents []string `json:"documents"`
}

// Anomaly kinds.
const (
	// AnomalyDuplicateReference: submitted Payment Entries share one reference_no.
	AnomalyDuplicateReference = "duplicate_reference_no"
	// AnomalyBookingCancelled: a booking's ERPNext entry was cancelled or deleted.
	AnomalyBookingCancelled = "booking_cancelled"
	// AnomalyInvoicePaidTwice: a Sales Invoice was allocated beyond its total by submitted
	// entries under different reference_no; Documents are the invoice, then the entries.
	AnomalyInvoicePaidTwice = "invoice_paid_twice"
	// AnomalyPaymentRequestPaidTwice: the same for a Payment Request (reference rows linking it,
	// or reference_no = its name).
	AnomalyPaymentRequestPaidTwice = "payment_request_paid_twice"
	// AnomalySettlementBankAmbiguous: several Bank Transactions carry a posted settlement's UTR
	// and amount; a person reconciles one (Documents: the Journal Entry, then the candidates).
	AnomalySettlementBankAmbiguous = "settlement_bank_ambiguous"
)

// Report is what a reconcile run found and did; `reconcile --json` prints it.
type Report struct {
	RunID      int64     `json:"run_id,omitempty"`
	DryRun     bool      `json:"dry_run"`
	WindowFrom time.Time `json:"window_from"`
	WindowTo   time.Time `json:"window_to"`
	ListedFrom time.Time `json:"listed_from"` // window start minus reconcile.lookback
	Since      string    `json:"since,omitempty"`

	Payments            SweepCounts `json:"payments"`
	Refunds             SweepCounts `json:"refunds"`
	IntegrationRequests SweepCounts `json:"integration_requests"`
	// SettlementsOn is settlements.enabled: the settlement sweep ran.
	SettlementsOn bool `json:"settlements_enabled"`
	// SettlementCounts are the settlement sweep's counts (settlements.enabled): processed
	// settlements listed over settlements.window, queued when neither posted nor on their way.
	SettlementCounts SweepCounts `json:"settlements"`
	// Settlements has one line per settlement of the window, or older ones not yet posted or
	// matched with the bank statement: items, gross, fees, GST, refunds, adjustments, net,
	// UTR, entry, bank match and clearing residue.
	Settlements []connector.SettlementLine `json:"settlement_lines"`

	Queued []Item `json:"queued"` // queued by this run (dry-run: would be)
	// Retried are the dead events whose last failure was transient, sent back to pending by
	// this run (dry-run: would be); ID is the business key, CreatedAt when the event arrived.
	Retried    []Item    `json:"retried"`
	Parked     []Item    `json:"parked"`     // need a person, with the reason
	NotBooked  []Item    `json:"not_booked"` // the worker skipped them (e.g. refunds before the refund engine)
	Authorized []Item    `json:"authorized"` // authorized past reconcile.authorized_age, not captured
	Anomalies  []Anomaly `json:"anomalies"`
	Warnings   []string  `json:"warnings"`

	NeedsAttention bool `json:"needs_attention"`
}

// Totals adds up the three sweeps.
func (r *Report) Totals() SweepCounts {
	var t SweepCounts
	for _, s := range []SweepCounts{r.Payments, r.Refunds, r.IntegrationRequests} {
		t.Scanned += s.Scanned
		t.AlreadyBooked += s.AlreadyBooked
		t.InInbox += s.InInbox
		t.Queued += s.Queued
		t.Booked += s.Booked
		t.Parked += s.Parked
		t.Pending += s.Pending
		t.NotBooked += s.NotBooked
		t.BeforeSince += s.BeforeSince
		t.Captured += s.Captured
	}
	return t
}

// NamedCounts is one sweep's counts under the name a report prints.
type NamedCounts struct {
	Name   string
	Counts SweepCounts
}

// Sweeps lists the sweeps' counts in report order: payments, refunds, integration requests,
// and settlements when settlements are on.
func (r *Report) Sweeps() []NamedCounts {
	out := []NamedCounts{{"payments", r.Payments}, {"refunds", r.Refunds}, {"integration requests", r.IntegrationRequests}}
	if r.SettlementsOn {
		out = append(out, NamedCounts{"settlements", r.SettlementCounts})
	}
	return out
}
