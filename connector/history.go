package connector

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// HistoryEntry is one thing a person did to an inbox row (events replay|dismiss, the console's
// Replay, Rebook and Dismiss), kept with the row (Store.SetEventStatusBy).
type HistoryEntry struct {
	EventID  int64     // the inbox row's id
	At       time.Time // when, UTC
	Actor    string    // who: "hand" (the CLI's replay), $USER (its dismiss), "Priya (console)"
	Action   string    // HistoryReplayed, HistoryRebooked or HistoryDismissed
	From, To Status    // the row's status before and after
	Detail   string    // the dismiss reason; what a replay found ("was parked: …"); what a rebook forgot
	// Attempts is how many times workers had run the row since its previous replay when the
	// person acted (AttemptsMade): a replay resets the row's own count, so totals add these up.
	Attempts int
}

// The actions of a HistoryEntry.
const (
	HistoryReplayed  = "replayed"
	HistoryRebooked  = "rebooked"
	HistoryDismissed = "dismissed"
)

// History returns what people did to the inbox row id, oldest first.
func (c *Connector) History(ctx context.Context, id int64) ([]HistoryEntry, error) {
	return c.store.EventHistory(ctx, id)
}

// AttemptsMade is how many times workers ran r since it was last replayed, as far as the row
// alone tells: its failed attempts, plus the run that finished it when a worker did (done,
// parked, skipped). A dismissed row counts what its dismissal recorded (hist, oldest first):
// the dismissal did not run it.
func AttemptsMade(r InboxEvent, hist []HistoryEntry) int {
	switch r.Status {
	case StatusDone, StatusParked, StatusSkipped:
		return r.Attempts + 1
	case StatusDismissed:
		if n := len(hist); n > 0 && hist[n-1].To == StatusDismissed {
			return hist[n-1].Attempts
		}
	}
	return r.Attempts
}

// Attempts counts r's worker attempts with hist (its history, oldest first): since the last
// replay, and in all (across every replay). replayed is false when r was never replayed.
func Attempts(r InboxEvent, hist []HistoryEntry) (since, total int, replayed bool) {
	since = AttemptsMade(r, hist)
	total = since
	for _, h := range hist {
		if h.To == StatusPending {
			total += h.Attempts
			replayed = true
		}
	}
	return since, total, replayed
}

// AttemptsLine is the attempts line of `events show` and the console's event page, label and
// value: "attempts: 1" for a booking made first time (the run that finished it counts), "failed
// attempts: N" for an event no worker finished, and after a replay the count since it with the
// total across replays, e.g. "attempts: 1 since the last replay (2 in all)".
func AttemptsLine(r InboxEvent, hist []HistoryEntry) (label, value string) {
	since, total, replayed := Attempts(r, hist)
	finished := r.Status == StatusDone || r.Status == StatusParked || r.Status == StatusSkipped
	label = "failed attempts"
	if finished || since != r.Attempts { // a dismissed row counts the run that parked it
		label = "attempts"
	}
	value = strconv.Itoa(since)
	if finished && r.Attempts > 0 {
		value += fmt.Sprintf(" (%d failed before the last)", r.Attempts)
	}
	if replayed {
		value = fmt.Sprintf("%d since the last replay (%d in all)", since, total)
	}
	return label, value
}
