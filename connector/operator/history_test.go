package operator_test

import (
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/operator"
)

func TestAttemptsLineCountsTheFinishingAttemptAndEveryReplay(t *testing.T) {
	t.Parallel()
	replayed := []connector.HistoryEntry{{Action: connector.HistoryReplayed, From: connector.StatusParked, To: connector.StatusPending, Attempts: 1}}
	parkedThenDismissed := []connector.HistoryEntry{{Action: connector.HistoryDismissed, From: connector.StatusParked, To: connector.StatusDismissed, Attempts: 1}}
	twice := []connector.HistoryEntry{{To: connector.StatusPending, Attempts: 3}, {To: connector.StatusDismissed, Attempts: 1}, {To: connector.StatusPending, Attempts: 1}}
	for _, c := range []struct {
		status       connector.Status
		failed       int
		hist         []connector.HistoryEntry
		label, value string
	}{
		{connector.StatusDone, 0, nil, "attempts", "1"},
		{connector.StatusDone, 2, nil, "attempts", "3 (2 failed before the last)"},
		{connector.StatusParked, 0, nil, "attempts", "1"},
		{connector.StatusSkipped, 0, nil, "attempts", "1"},
		{connector.StatusPending, 2, nil, "failed attempts", "2"},
		{connector.StatusDead, 12, nil, "failed attempts", "12"},
		{connector.StatusDismissed, 0, nil, "failed attempts", "0"},
		// After a replay the attempt that parked the event still counts.
		{connector.StatusDone, 0, replayed, "attempts", "1 since the last replay (2 in all)"},
		{connector.StatusPending, 0, replayed, "failed attempts", "0 since the last replay (1 in all)"},
		{connector.StatusDismissed, 0, parkedThenDismissed, "attempts", "1"},
		{connector.StatusDone, 1, twice, "attempts", "2 since the last replay (6 in all)"},
	} {
		if l, v := operator.AttemptsLine(connector.InboxEvent{Status: c.status, Attempts: c.failed}, c.hist); l != c.label || v != c.value {
			t.Errorf("%s after %d failed, %d history entries: %s: %s, want %s: %s", c.status, c.failed, len(c.hist), l, v, c.label, c.value)
		}
	}
}
