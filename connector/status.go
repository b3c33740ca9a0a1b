package connector

import "slices"

// Status is the state of an inbox row (DESIGN.md §8). An event moves pending → processing →
// one of the final statuses; retries go back to pending with a later NextAttemptAt. Every
// allowed move is a row of Transitions (lifecycle.go, drawn in the package documentation). The
// words are stored as they are and printed by `events list`, so they never change.
type Status string

// The inbox statuses.
const (
	StatusPending    Status = "pending"    // due at NextAttemptAt (new, or a retry or a wait)
	StatusProcessing Status = "processing" // leased to a worker until LeaseUntil
	StatusDone       Status = "done"       // booked (ResultDoctype, ResultName), or a final action done
	StatusParked     Status = "parked"     // needs a person: LastError says why
	StatusDead       Status = "dead"       // gave up after worker.max_attempts failures, or unreadable
	StatusSkipped    Status = "skipped"    // nothing to book for this event
	StatusDismissed  Status = "dismissed"  // a person decided it is never booked
	StatusDuplicate  Status = "duplicate"  // its business key is booked by another row or document
)

// Statuses lists every Status, in the order the command line names them.
var Statuses = []Status{StatusPending, StatusProcessing, StatusDone, StatusParked, StatusDead, StatusSkipped,
	StatusDismissed, StatusDuplicate}

// Known reports whether s is one of Statuses.
func (s Status) Known() bool {
	for _, k := range Statuses {
		if s == k {
			return true
		}
	}
	return false
}

// Final reports whether no worker touches a row in s again unless a person replays it.
func (s Status) Final() bool { return s != StatusPending && s != StatusProcessing }

// Replayable reports whether a person may send a row in s back to pending (events replay):
// the statuses ActionReplay accepts in Transitions (parked, dead, skipped or dismissed). A done
// or duplicate row is replayed only with --rebook (operator.Replay, ActionRebook).
func (s Status) Replayable() bool { return slices.Contains(Accepts(ActionReplay), s) }

// Rebookable reports whether a person may replay a row in s with --rebook: the statuses
// ActionRebook accepts (the replayable ones, and done or duplicate).
func (s Status) Rebookable() bool { return slices.Contains(Accepts(ActionRebook), s) }

// Dismissible reports whether a person may dismiss a row in s: the statuses ActionDismiss
// accepts (parked, dead, pending or skipped), never a booked or in-progress one.
func (s Status) Dismissible() bool { return slices.Contains(Accepts(ActionDismiss), s) }

// bookingOutcome is the outcome label of the bookings_total metric for a booking event that
// ended in s.
func (s Status) bookingOutcome() string {
	switch s {
	case StatusDone:
		return "booked"
	case StatusPending:
		return "retry"
	}
	return string(s)
}
