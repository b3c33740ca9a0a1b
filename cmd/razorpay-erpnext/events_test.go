package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// Issue 14, first hour: `events list` run right after the README's curl showed the event
// still processing, not done as the README promised; `events show` said "attempts: 0" for a
// booking that succeeded first time. With --wait, list waits (bounded) until no listed event
// is pending or processing; show counts the attempt that finished the event.
func TestEventsListWaitsAndShowCountsTheFinishingAttempt(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	cfg := e.config()
	d := e.start(cfg)
	path, envs := e.writeConfig(cfg, "")
	e.site.SetLatency(300 * time.Millisecond) // each ERPNext call of the booking takes 0.3 s
	if code, resp := e.deliver(d, "T3stEvWait0001", e.payment("payment.captured", "pay_T3stWait000001", 1200000, nil)); code != http.StatusOK {
		t.Fatalf("deliver: %d %s", code, resp)
	}
	code, out, errs := run(t, envs, "events", "list", "--config", path)
	if code != exitOK || strings.Contains(out, " done ") || !strings.Contains(out, "T3stEvWait0001") {
		t.Fatalf("list without --wait: exit %d, want the event not yet done:\n%s%s", code, out, errs)
	}
	code, out, errs = run(t, envs, "events", "list", "--wait", "60s", "--config", path)
	fields := strings.Fields(lastLine(out))
	if code != exitOK || errs != "" || len(fields) < 9 || fields[0] != "T3stEvWait0001" || fields[3] != "done" ||
		fields[6] != "0" || !strings.HasPrefix(strings.Join(fields[7:], " "), "Payment Entry ACC-PAY-") {
		t.Fatalf("list --wait: exit %d, stderr %q, want the event done:\n%s", code, errs, out)
	}
	e.site.SetLatency(0)
	code, out, _ = run(t, envs, "events", "show", "pay_T3stWait000001", "--config", path)
	if code != exitOK || !strings.Contains(out, "\nattempts:        1\n") || strings.Contains(out, "failed attempts") {
		t.Errorf("show: exit %d, want \"attempts: 1\" for a booking made first time:\n%s", code, out)
	}
}

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
		// Issue 14: after a replay the attempt that parked the event still counts.
		{connector.StatusDone, 0, replayed, "attempts", "1 since the last replay (2 in all)"},
		{connector.StatusPending, 0, replayed, "failed attempts", "0 since the last replay (1 in all)"},
		{connector.StatusDismissed, 0, parkedThenDismissed, "attempts", "1"},
		{connector.StatusDone, 1, twice, "attempts", "2 since the last replay (6 in all)"},
	} {
		if l, v := connector.AttemptsLine(connector.InboxEvent{Status: c.status, Attempts: c.failed}, c.hist); l != c.label || v != c.value {
			t.Errorf("%s after %d failed, %d history entries: %s: %s, want %s: %s", c.status, c.failed, len(c.hist), l, v, c.label, c.value)
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}
