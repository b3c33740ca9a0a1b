// Package testtime is how tests treat time on a loaded machine: they wait on a condition with a
// generous bound, never for a fixed time, and the slow end-to-end tests step aside under -short
// (never under CI, which must run them).
package testtime

import (
	"os"
	"testing"
	"time"
)

// Bound is the default limit of Until: far longer than anything a test waits for takes on a
// busy 2-core machine running the race detector. It only runs out when the test is failing.
const Bound = 2 * time.Minute

// Until polls cond until it returns true and fails the test (t.Fatalf naming what) when it has
// not within Bound. Polling starts at 1 ms and backs off to 50 ms.
func Until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	Within(t, Bound, what, cond)
}

// Within is Until with its own limit, for a wait whose bound is part of what is tested.
func Within(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Poll(limit, cond) {
		t.Fatalf("timed out after %s waiting for %s", limit, what)
	}
}

// Poll polls cond until it returns true (true) or limit has passed (false), backing off from
// 1 ms to 50 ms between calls.
func Poll(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	pause := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
		if pause < 50*time.Millisecond {
			pause *= 2
		}
	}
	return true
}

// Long skips a slow end-to-end test (a real process, a browser, a large scenario) under
// -short, with why; under CI (env CI set) it never skips: CI runs everything.
func Long(t testing.TB, why string) {
	t.Helper()
	if skipLong(testing.Short(), os.Getenv("CI")) {
		t.Skipf("-short: %s (run without -short for it)", why)
	}
}

func skipLong(short bool, ci string) bool { return short && ci == "" }
