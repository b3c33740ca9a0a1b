package main

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// `events list` run right after the README's curl must show the event done, as the README
// promises, not still processing; `events show` must not say "attempts: 0" for a booking that
// succeeded first time. With --wait, list waits (bounded) until no listed event
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

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}
