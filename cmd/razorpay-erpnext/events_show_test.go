package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
)

// `events show --wait D ID` waits for an event that is not stored yet (the README's settlement
// try-it: the Razorpay simulator answers POST /__sim/settlements before its webhook reaches the
// daemon) and then for it to be booked; without --wait, or past D, an id naming nothing is an
// error.
func TestEventsShowWaitsForTheEventToArriveAndBeBooked(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	cfg := e.config()
	d := e.start(cfg)
	path, envs := e.writeConfig(cfg, "")
	const id = "pay_T3stShowWait01"
	if code, out, errs := run(t, envs, "events", "show", id, "--config", path); code != exitFailure ||
		!strings.Contains(errs, `no inbox event has event id or business key "`+id+`"`) {
		t.Fatalf("show before the webhook: exit %d, stderr %q, stdout %q; want exit 1, nothing named", code, errs, out)
	}
	start := time.Now()
	if code, _, errs := run(t, envs, "events", "show", id, "--wait", "300ms", "--config", path); code != exitFailure ||
		!strings.Contains(errs, "no inbox event") || time.Since(start) < 300*time.Millisecond {
		t.Fatalf("show --wait 300ms with nothing stored: exit %d after %s, stderr %q; want exit 1 after the wait", code, time.Since(start), errs)
	}
	type shown struct {
		code      int
		out, errs string
	}
	done := make(chan shown, 1)
	go func() {
		code, out, errs := run(t, envs, "events", "show", id, "--wait", "60s", "--config", path)
		done <- shown{code, out, errs}
	}()
	e.site.SetLatency(300 * time.Millisecond) // the booking takes a while: show also waits for it
	if code, resp := e.deliver(d, "T3stEvShowWt01", e.payment("payment.captured", id, 1200000, nil)); code != http.StatusOK {
		t.Fatalf("deliver: %d %s", code, resp)
	}
	select {
	case s := <-done:
		if s.code != exitOK || s.errs != "" || !strings.Contains(s.out, "\nstatus:          done\n") ||
			!strings.Contains(s.out, "\nresult:          Payment Entry ACC-PAY-") || !strings.HasPrefix(s.out, "event id:        T3stEvShowWt01\n") {
			t.Fatalf("show --wait 60s: exit %d, stderr %q, want the event done:\n%s", s.code, s.errs, s.out)
		}
	case <-time.After(testtime.Bound):
		t.Fatal("show --wait 60s did not return")
	}
}
