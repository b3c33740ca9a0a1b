package erpnextsim

import "time"

// The fault-injection and request-log half of the Go API: each method is faults', the part of
// the site that holds them.

// HoldRowLock holds the row of document (doctype, name) FOR UPDATE for d, as another
// connection (a report, a console session) would: writes that update it wait, and those that
// wait longer than Options.LockWaitTimeout fail with 500 QueryTimeoutError and commit nothing
// (erpnext-recorded-connector/R05). A Payment Entry updates the Sales Invoices it references.
func (s *Site) HoldRowLock(doctype, name string, d time.Duration) {
	s.faults.HoldRowLock(doctype, name, d)
}

// SetRateLimit turns on the site-wide rate limiter: a budget of request time per window, each
// request costing cost (Frappe measures the real duration; the simulator charges a fixed cost
// so tests are deterministic). budget 0 turns it off. Headers as recorded: X-RateLimit-Limit,
// X-RateLimit-Remaining (µs), X-RateLimit-Reset (s) on every answer; Retry-After on a 429.
func (s *Site) SetRateLimit(budget, window, cost time.Duration) {
	s.faults.SetRateLimit(budget, window, cost)
}

// SetLatency makes every request wait d before it is handled (the wait holds
// no lock). 0 turns it off.
func (s *Site) SetLatency(d time.Duration) { s.faults.SetLatency(d) }

// FailNext makes the next n requests fail with status without touching the
// site: a Frappe JSON error for 4xx and 500 (429 TooManyRequestsError with
// Retry-After: 1; 500 QueryDeadlockError, which spec §8.2 says to retry), the
// HTML page of a proxy for 502, 503 and 504.
func (s *Site) FailNext(n int, status int) { s.faults.FailNext(n, status) }

// FailNextWith makes the next n requests fail with the named fault without touching the site.
func (s *Site) FailNextWith(n int, f Fault) { s.faults.FailNextWith(n, f) }

// SetLatencyRange makes every request wait a random time in [min, max] before it is handled.
func (s *Site) SetLatencyRange(min, max time.Duration) { s.faults.SetLatencyRange(min, max) }

// DropResponseAfterCommit makes the next n writes (POST, PUT, DELETE; not read-only methods such
// as get_payment_entry) run and
// commit normally, then answer a 504 HTML gateway page instead of the result:
// the ambiguous write of DESIGN.md §4 step 7.
func (s *Site) DropResponseAfterCommit(n int) { s.faults.DropResponseAfterCommit(n) }

// GatewayErrorAfterCommit is the delayed variant of DropResponseAfterCommit: the next n
// writes run and commit normally, then the client waits delay (holding no lock: the
// write is already visible to other requests) and gets the HTML page of the proxy in
// front of gunicorn with status (502 Bad Gateway or 504 Gateway Timeout; any other
// status is taken as 504), as when nginx gives up on, or loses, a worker that has
// committed. The client cannot tell from the answer whether anything was written.
func (s *Site) GatewayErrorAfterCommit(n int, status int, delay time.Duration) {
	s.faults.GatewayErrorAfterCommit(n, status, delay)
}

// CommitLate makes the next n writes validate, wait delay, then commit (even
// if the client has gone away) and answer, like a slow Frappe worker that
// keeps running after the client's timeout (spec §2.1 step 3, §8.2). With
// Options.NoInvoiceLock (default) the commit uses the outstanding amounts read
// before the wait (§3.7).
func (s *Site) CommitLate(n int, delay time.Duration) { s.faults.CommitLate(n, delay) }

// Requests returns a copy of the log of the requests handled so far, oldest first: every one,
// or the last Options.RequestLogLimit of them (DefaultRequestLogLimit when 0).
func (s *Site) Requests() []RequestLog { return s.faults.Requests() }

// RequestCount is how many requests the site has handled since New or Reset, logged or not.
func (s *Site) RequestCount() int { return s.faults.RequestCount() }

// CommitTogether makes the next n writes validate, then wait until all n have validated (or
// bound has passed since the first arrived), then commit one by one and answer: the
// deterministic form of "two requests saved at once" (spec/erpnext.md §3.7, with
// Options.NoInvoiceLock each commits against the outstanding it validated), which CommitLate
// gives only when both requests arrive within its delay — not on a busy machine. A write that
// fails validation still counts as arrived, so the others are never held for the whole bound.
func (s *Site) CommitTogether(n int, bound time.Duration) { s.faults.CommitTogether(n, bound) }

// HeldToCommit is how many writes of the latest CommitTogether have validated and are held
// waiting for the others (0 when none is held).
func (s *Site) HeldToCommit() int { return s.faults.HeldToCommit() }
