package connector

import (
	"context"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Plan actions: what booking an event comes to. Explain prints them; apply carries them out.
const (
	ExplainCreate      = "create"       // insert Document (a new Payment Entry) with docstatus 1
	ExplainReuse       = "reuse"        // an entry that books it exists already (Existing): record it
	ExplainSubmitDraft = "submit-draft" // a draft with this reference_no matches the plan: submit it
	ExplainDuplicate   = "duplicate"    // the connector booked it already (its bookings row, Existing)
	ExplainPark        = "park"         // a person must decide (Reason)
	ExplainWait        = "wait"         // not now: try again at WaitUntil (Reason)
	ExplainSkip        = "skip"         // nothing to book for this event
	ExplainCancel      = "cancel"       // refund.failed: cancel the refund entry Existing, never book it
	ExplainVoid        = "void"         // refund.failed: nothing (more) to cancel; it is never booked
	ExplainDismissed   = "dismissed"    // a person dismissed the payment (Reason): not booked until one replays it
)

// Plan is the decision for one event (DESIGN.md §4 steps 5–6, "decide, then apply"): what to
// write, or why nothing is written now. Decide computes it from reads only; the worker applies
// it (connector/kernel apply.go) and Explain prints it. Amounts in Ledger are minor units; Document holds the
// decimal text Frappe is sent.
type Plan struct {
	Event    string // e.g. "payment.captured"
	Key      string // the business key: payment or refund id
	Action   string // one of the Explain* actions
	Reason   string // why (park, wait, skip, duplicate, void), or how it was found (reuse)
	Existing string // the entry reused, submitted, already booked or cancelled

	// Doctype and Document are the document to insert (create): a Payment Entry today; a
	// settlement's Journal Entry goes the same way.
	Doctype  string
	Document map[string]any
	Ledger   *Ledger          // the money of Document (create, submit-draft)
	Fields   []ExplainedField // where each value of the document came from

	WaitUntil time.Time // ExplainWait: when the event is tried again

	// Booking is the bookings row the plan records: business key, kind, amount, currency and
	// invoice; apply fills Doctype and Name of the document it writes.
	Booking Booking
	// Record, when set, is an existing document recorded as the key's booking before the
	// action (reuse; or park after recording ERPNext's checkout entry whose fee is missing).
	Record *Booking
	// QueuePayment (ExplainWait of a refund): the payment whose receipt is missing, which apply
	// fetches from Razorpay and queues as a synthetic payment.captured first.
	QueuePayment string
	// Note is the outcome kept when apply succeeds (create, submit-draft, cancel, void).
	Note string
	// Settlement is the Journal Entry of a settlement in minor units (create; connector/settlement settle_decide.go).
	Settlement *mapping.Settlement
	// QueueItems (ExplainWait of a settlement): payments and refunds of it that were never
	// seen, which apply fetches from Razorpay and queues first.
	QueueItems []QueuedItem

	Op string // the write in reasons, e.g. "insert Payment Entry for pay_…"
	// Refind is the lookup before create run again after a 409 under
	// erpnext.name_entries_by_payment_id; nil is the Payment Entry lookup by reference_no.
	Refind func(ctx context.Context) (string, error)
	// WaitFor is what ends a wait, or un-parks a park, without a person (Outcome.WaitFor).
	WaitFor Wait
}

// Ledger is the money of a planned entry in minor units. Currency is the party currency of
// Paid, Allocated and Unallocated; ReceivedCurrency the company currency of Received and
// Deductions. The entry balances: in one currency Received + Deductions = Allocated +
// Unallocated; across two, Paid = Allocated + Unallocated and Received + Deductions is
// Razorpay's base amount. Allocated is negative on a refund against a credit note.
type Ledger struct {
	Currency         string `json:"currency"`
	Paid             int64  `json:"paid"`
	Allocated        int64  `json:"allocated"`
	Unallocated      int64  `json:"unallocated"`
	ReceivedCurrency string `json:"received_currency"`
	Received         int64  `json:"received"`
	Deductions       int64  `json:"deductions"`
}

// NewPlan starts the plan of event e for key with its booking row.
func NewPlan(e *razorpay.Event, b Booking) *Plan {
	return &Plan{Event: e.Event, Key: b.BusinessKey, Booking: b}
}

// Park makes pl a park with reason.
func (pl *Plan) Park(reason string) *Plan {
	pl.Action, pl.Reason = ExplainPark, reason
	return pl
}

// Wait makes pl a wait until t.
func (pl *Plan) Wait(until time.Time, reason string) *Plan {
	pl.Action, pl.Reason, pl.WaitUntil = ExplainWait, reason, until
	return pl
}

// Skip makes pl a skip.
func (pl *Plan) Skip(reason string) *Plan {
	pl.Action, pl.Reason = ExplainSkip, reason
	return pl
}

// Dismissed makes pl finish the event as dismissed.
func (pl *Plan) Dismissed(reason string) *Plan {
	pl.Action, pl.Reason = ExplainDismissed, reason
	return pl
}

// Reuse makes pl record the existing entry name as the key's booking.
func (pl *Plan) Reuse(name, how string) *Plan {
	b := pl.Booking
	b.Doctype, b.Name, b.Invoice = frappe.DoctypePaymentEntry, name, ""
	pl.Action, pl.Existing, pl.Reason, pl.Record = ExplainReuse, name, how, &b
	return pl
}

// QueuedItem is a payment or refund a settlement found with neither a booking nor an inbox
// row; apply fetches it from Razorpay and queues it as a synthetic event (reconcile:<id>).
type QueuedItem struct {
	Kind string `json:"kind"` // KindReceipt or KindRefund
	ID   string `json:"id"`   // pay_… or rfnd_…
}

// ExplainedField is one value of the planned entry and where it came from.
type ExplainedField struct {
	Field  string `json:"field"`
	Value  string `json:"value"`
	Source string `json:"source"`
}
