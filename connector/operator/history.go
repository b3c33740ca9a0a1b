package operator

import (
	"context"
	"fmt"
	"strconv"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// History returns what people did to the inbox row id, oldest first.
func (o *Operator) History(ctx context.Context, id int64) ([]connector.HistoryEntry, error) {
	return o.store.EventHistory(ctx, id)
}

// AttemptsMade is how many times workers ran r since it was last replayed, as far as the row
// alone tells: its failed attempts, plus the run that finished it when a worker did (done,
// parked, skipped). A dismissed row counts what its dismissal recorded (hist, oldest first):
// the dismissal did not run it.
func AttemptsMade(r connector.InboxEvent, hist []connector.HistoryEntry) int {
	switch r.Status {
	case connector.StatusDone, connector.StatusParked, connector.StatusSkipped:
		return r.Attempts + 1
	case connector.StatusDismissed:
		if n := len(hist); n > 0 && hist[n-1].To == connector.StatusDismissed {
			return hist[n-1].Attempts
		}
	}
	return r.Attempts
}

// Attempts counts r's worker attempts with hist (its history, oldest first): since the last
// replay, and in all (across every replay). replayed is false when r was never replayed.
func Attempts(r connector.InboxEvent, hist []connector.HistoryEntry) (since, total int, replayed bool) {
	since = AttemptsMade(r, hist)
	total = since
	for _, h := range hist {
		if h.To == connector.StatusPending {
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
func AttemptsLine(r connector.InboxEvent, hist []connector.HistoryEntry) (label, value string) {
	since, total, replayed := Attempts(r, hist)
	finished := r.Status == connector.StatusDone || r.Status == connector.StatusParked || r.Status == connector.StatusSkipped
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
