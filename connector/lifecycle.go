package connector

//go:generate go test -run ^TestLifecycleDoc$ -update .

import "slices"

// Action names what moves an inbox row from one Status to another. The store writes the action
// of every status change into the row (column last_action) in the same UPDATE, and the
// database's guard (installed by the store's Migrate, generated from Transitions) refuses a
// status change whose (from, to, action) is not in Transitions: an UPDATE written by hand that
// does not name an allowed action is refused. The words are stored, so they never change.
type Action string

// The actions, by who takes them.
const (
	// The worker.
	ActionClaim    Action = "claim"     // a worker leases a due pending row (Store.ClaimNextEvent)
	ActionTakeover Action = "takeover"  // a worker leases a processing row whose lease ended (its worker died)
	ActionComplete Action = "complete"  // the worker writes its outcome and clears the lease (Store.CompleteEvent)
	ActionWake     Action = "wake"      // whoever ends a row's wait makes it due now (Store.WakeWaiters)
	ActionMark     Action = "duplicate" // a booking marks the key's other unfinished rows duplicate (Store.MarkDuplicates)
	ActionPurge    Action = "purge"     // retention drops the raw body of a finished row; the status stays

	// A person (events replay|rebook|dismiss, the console).
	ActionReplay  Action = "replay"  // back to pending, attempts 0, due now
	ActionRebook  Action = "rebook"  // replay of a booked row whose entry was cancelled in ERPNext
	ActionDismiss Action = "dismiss" // never booked: the person's decision is kept
	ActionLift    Action = "lift"    // a dismissal lifted by a replay of another event of the payment

	// Reconcile and the store's own repair primitive.
	ActionRequeue Action = "requeue" // reconcile sends a settlement skipped while settlements were off back to pending
	ActionCorrect Action = "correct" // Store.SetEventStatus: a status set as is by a repair tool, never by the worker
)

// Transition is one row of the lifecycle table: Action moves a row in any of From to To.
// Doc says what the move means (the reason it is made).
type Transition struct {
	Action Action
	From   []Status
	To     Status
	Doc    string
}

// finals are the statuses no worker leaves on its own.
var finals = []Status{StatusDone, StatusParked, StatusDead, StatusSkipped, StatusDismissed, StatusDuplicate}

// Transitions is the inbox lifecycle: every status change the connector makes, and the only
// ones the store's guard lets through. Rows arrive (Arrivals) without a transition. A change
// from a status to itself (a lease extended, a body purged) is not a status change; the ones
// that rewrite the row are listed to give them their action.
var Transitions = []Transition{
	{ActionClaim, []Status{StatusPending}, StatusProcessing, "a worker leases a row due at NextAttemptAt"},
	{ActionTakeover, []Status{StatusProcessing}, StatusProcessing, "a worker takes over a row whose lease ended"},
	{ActionComplete, []Status{StatusProcessing}, StatusPending, "a retry or a wait, due at NextAttemptAt"},
	{ActionComplete, []Status{StatusProcessing}, StatusDone, "booked, or a final action done"},
	{ActionComplete, []Status{StatusProcessing}, StatusParked, "needs a person: LastError says why"},
	{ActionComplete, []Status{StatusProcessing}, StatusDead, "gave up after worker.max_attempts counted failures"},
	{ActionComplete, []Status{StatusProcessing}, StatusSkipped, "nothing to book for this event"},
	{ActionComplete, []Status{StatusProcessing}, StatusDismissed, "another event of its payment was dismissed"},
	{ActionComplete, []Status{StatusProcessing}, StatusDuplicate, "its business key is booked by another row"},
	{ActionWake, []Status{StatusPending, StatusParked, StatusDead}, StatusPending, "what it waited for happened"},
	{ActionMark, []Status{StatusPending, StatusParked, StatusDead}, StatusDuplicate, "another row of its key was booked"},
	{ActionPurge, []Status{StatusDone, StatusDuplicate, StatusSkipped, StatusDismissed}, "", "raw body dropped after retention.raw_bodies"},
	{ActionReplay, []Status{StatusParked, StatusDead, StatusSkipped, StatusDismissed}, StatusPending, "a person asks for another try"},
	{ActionRebook, []Status{StatusParked, StatusDead, StatusSkipped, StatusDismissed, StatusDone, StatusDuplicate}, StatusPending,
		"a person replays, forgetting a booking whose entry was cancelled"},
	{ActionDismiss, []Status{StatusPending, StatusParked, StatusDead, StatusSkipped}, StatusDismissed, "a person decides it is never booked"},
	{ActionLift, []Status{StatusDismissed}, StatusDismissed, "a replay of another event of the payment lifts the dismissal"},
	{ActionRequeue, []Status{StatusSkipped}, StatusPending, "reconcile queues a settlement skipped while settlements were off"},
	{ActionCorrect, Statuses, StatusPending, "set by hand through the store (a lease still live is refused)"},
	{ActionCorrect, Statuses, StatusDone, ""}, {ActionCorrect, Statuses, StatusParked, ""},
	{ActionCorrect, Statuses, StatusDead, ""}, {ActionCorrect, Statuses, StatusSkipped, ""},
	{ActionCorrect, Statuses, StatusDismissed, ""}, {ActionCorrect, Statuses, StatusDuplicate, ""},
}

// Arrivals are the statuses a row is inserted with: pending (a webhook, a reconcile row), dead
// (a webhook whose body cannot be read).
var Arrivals = []Status{StatusPending, StatusDead}

// Edge is one (from, to, action) triple of Transitions; To is From for a status-keeping action.
type Edge struct {
	From, To Status
	Action   Action
}

// Edges expands Transitions into its triples, in table order.
func Edges() []Edge {
	var out []Edge
	for _, t := range Transitions {
		for _, f := range t.From {
			to := t.To
			if to == "" {
				to = f
			}
			out = append(out, Edge{From: f, To: to, Action: t.Action})
		}
	}
	return out
}

// Allowed reports whether a moves a row from from to to.
func Allowed(from, to Status, a Action) bool {
	return slices.Contains(Edges(), Edge{From: from, To: to, Action: a})
}

// Accepts returns the statuses action a moves a row out of, in table order, without repeats.
func Accepts(a Action) []Status {
	var out []Status
	for _, e := range Edges() {
		if e.Action == a && !slices.Contains(out, e.From) {
			out = append(out, e.From)
		}
	}
	return out
}

// Actions lists every Action, in table order.
func Actions() []Action {
	var out []Action
	for _, t := range Transitions {
		if !slices.Contains(out, t.Action) {
			out = append(out, t.Action)
		}
	}
	return out
}

// ActionOf is the action a person's change from → to through the store is recorded as when
// the caller names none: the first of lift, requeue that makes it, else ActionCorrect.
func ActionOf(from, to Status) Action {
	for _, a := range []Action{ActionLift, ActionRequeue} {
		if Allowed(from, to, a) {
			return a
		}
	}
	return ActionCorrect
}

// BookingState is the state of a bookings row, the claim on one business fact (DESIGN.md §8).
// The words are stored, so they never change.
type BookingState string

// The booking states.
const (
	// BookingInFlight: a worker (Booking.Owner) is writing the entry; until FenceUntil no other
	// worker may, after it another may take the claim over (Store.ClaimBooking).
	BookingInFlight BookingState = "in_flight"
	// BookingBooked: the entry exists in ERPNext as Doctype Name; the key is never booked again
	// unless a person forgets it (Store.ForgetBooking, after the entry was cancelled).
	BookingBooked BookingState = "booked"
	// BookingVoid is final: the business fact must never be booked (a refund Razorpay reported
	// failed, DESIGN.md §4 step 4). Doctype and Name keep the entry that was cancelled, if any.
	BookingVoid BookingState = "void"
)

// BookingStates lists every BookingState.
var BookingStates = []BookingState{BookingInFlight, BookingBooked, BookingVoid}

// BookingTransition is one allowed change of a bookings row's state, with what makes it.
// A row is inserted in_flight (a claim) or void; it is deleted in flight (released: nothing
// was written) or booked (forgotten), which are not state changes.
type BookingTransition struct {
	From, To BookingState
	Doc      string
}

// BookingTransitions is the bookings lifecycle; the store's guard refuses any other state change.
var BookingTransitions = []BookingTransition{
	{BookingInFlight, BookingInFlight, "another worker takes over a claim whose fence ended (Store.ClaimBooking)"},
	{BookingInFlight, BookingBooked, "the entry was written or found (Store.FinishBooking)"},
	{BookingInFlight, BookingVoid, "the fact must never be booked (Store.VoidBooking)"},
	{BookingBooked, BookingVoid, "the fact must never be booked; its entry was cancelled (Store.VoidBooking)"},
	{BookingVoid, BookingVoid, "voided again (Store.VoidBooking)"},
}

// FromOf returns the statuses action a moves to to, in table order (none when a never does).
func FromOf(a Action, to Status) []Status {
	var out []Status
	for _, e := range Edges() {
		if e.Action == a && e.To == to && !slices.Contains(out, e.From) {
			out = append(out, e.From)
		}
	}
	return out
}
