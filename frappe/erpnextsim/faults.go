package erpnextsim

import (
	mrand "math/rand/v2"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// RequestLog is one request the site handled, for assertions.
type RequestLog struct {
	Method string     `json:"method"`          // HTTP method
	Path   string     `json:"path"`            // URL path, unescaped ("/api/resource/Payment Entry")
	Query  url.Values `json:"query,omitempty"` // query parameters as sent (a GET list's fields, filters, order_by)
	Status int        `json:"status"`          // status code sent
	At     time.Time  `json:"at"`              // when the handler started on the request (after injected latency), by the wall clock
	// Committed reports whether the request changed the site (a successful
	// write, including one whose answer was dropped or came late).
	Committed bool `json:"committed"`
}

// DefaultRequestLogLimit is how many requests the log keeps when Options.RequestLogLimit is 0.
const DefaultRequestLogLimit = 100_000

// SetLatency makes every request wait d before it is handled (the wait holds
// no lock). 0 turns it off.
func (s *Site) SetLatency(d time.Duration) {
	s.fmu.Lock()
	s.latency = d
	s.fmu.Unlock()
}

// FailNext makes the next n requests fail with status without touching the
// site: a Frappe JSON error for 4xx and 500 (429 TooManyRequestsError with
// Retry-After: 1; 500 QueryDeadlockError, which spec §8.2 says to retry), the
// HTML page of a proxy for 502, 503 and 504.
func (s *Site) FailNext(n int, status int) {
	s.fmu.Lock()
	s.failN, s.failSt, s.failKind = n, status, ""
	s.fmu.Unlock()
}

// Fault is a named failure for FailNextWith.
type Fault string

// Faults FailNextWith injects; none of them changes the site.
const (
	FaultDeadlock       Fault = "deadlock"        // 500 QueryDeadlockError (spec §8.2)
	FaultQueryTimeout   Fault = "lock-timeout"    // 500 QueryTimeoutError, as recording 32-lock-wait-timeout-on-submit
	FaultMaintenance    Fault = "maintenance"     // 503 JSON SessionStopped, as a site in maintenance mode answers
	FaultRateLimited    Fault = "rate-limited"    // 429 TooManyRequestsError with Retry-After: 1
	FaultBadGateway     Fault = "bad-gateway"     // 502 nginx HTML page
	FaultGatewayTimeout Fault = "gateway-timeout" // 504 nginx HTML page
)

var faultStatus = map[Fault]int{FaultDeadlock: 500, FaultQueryTimeout: 500, FaultMaintenance: 503, FaultRateLimited: 429,
	FaultBadGateway: 502, FaultGatewayTimeout: 504}

// FailNextWith makes the next n requests fail with the named fault without touching the site.
func (s *Site) FailNextWith(n int, f Fault) {
	s.fmu.Lock()
	s.failN, s.failSt, s.failKind = n, faultStatus[f], f
	s.fmu.Unlock()
}

// SetLatencyRange makes every request wait a random time in [min, max] before it is handled.
func (s *Site) SetLatencyRange(min, max time.Duration) {
	s.fmu.Lock()
	s.latency, s.latencyMax = min, max
	s.fmu.Unlock()
}

// DropResponseAfterCommit makes the next n writes (POST, PUT, DELETE; not read-only methods such
// as get_payment_entry) run and
// commit normally, then answer a 504 HTML gateway page instead of the result:
// the ambiguous write of DESIGN.md §4 step 7.
func (s *Site) DropResponseAfterCommit(n int) {
	s.GatewayErrorAfterCommit(n, http.StatusGatewayTimeout, 0)
}

// GatewayErrorAfterCommit is the delayed variant of DropResponseAfterCommit: the next n
// writes run and commit normally, then the client waits delay (holding no lock: the
// write is already visible to other requests) and gets the HTML page of the proxy in
// front of gunicorn with status (502 Bad Gateway or 504 Gateway Timeout; any other
// status is taken as 504), as when nginx gives up on, or loses, a worker that has
// committed. The client cannot tell from the answer whether anything was written.
func (s *Site) GatewayErrorAfterCommit(n int, status int, delay time.Duration) {
	if status != http.StatusBadGateway {
		status = http.StatusGatewayTimeout
	}
	s.fmu.Lock()
	s.dropN, s.dropSt, s.dropD = n, status, delay
	s.fmu.Unlock()
}

// CommitLate makes the next n writes validate, wait delay, then commit (even
// if the client has gone away) and answer, like a slow Frappe worker that
// keeps running after the client's timeout (spec §2.1 step 3, §8.2). With
// Options.NoInvoiceLock (default) the commit uses the outstanding amounts read
// before the wait (§3.7).
func (s *Site) CommitLate(n int, delay time.Duration) {
	s.fmu.Lock()
	s.lateN, s.lateD = n, delay
	s.fmu.Unlock()
}

// Requests returns a copy of the log of the requests handled so far, oldest first: every one,
// or the last Options.RequestLogLimit of them (DefaultRequestLogLimit when 0).
func (s *Site) Requests() []RequestLog {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	return append([]RequestLog(nil), s.reqLog...)
}

// RequestCount is how many requests the site has handled since New or Reset, logged or not.
func (s *Site) RequestCount() int {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	return s.reqTotal
}

func (s *Site) logRequest(l RequestLog) {
	limit := s.opt.RequestLogLimit
	if limit == 0 {
		limit = DefaultRequestLogLimit
	}
	s.fmu.Lock()
	s.reqTotal++
	if limit > 0 {
		s.reqLog = append(s.reqLog, l)
		if len(s.reqLog) >= 2*limit {
			s.reqLog = append(s.reqLog[:0:0], s.reqLog[len(s.reqLog)-limit:]...)
		}
	}
	s.fmu.Unlock()
}

// faultPlan is what the fault settings decided for one request.
type faultPlan struct {
	latency time.Duration
	fail    int
	kind    Fault
	drop    bool
	dropSt  int           // status of the gateway page sent instead of the answer
	dropD   time.Duration // wait after the commit before sending it
	late    time.Duration
	meet    *meeting // CommitTogether: wait here after validating, before committing
}

func (s *Site) planFaults(write bool) faultPlan {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	p := faultPlan{latency: s.latency}
	if s.latencyMax > s.latency {
		p.latency += time.Duration(mrand.Int64N(int64(s.latencyMax - s.latency + 1)))
	}
	if s.failN > 0 {
		s.failN--
		p.fail, p.kind = s.failSt, s.failKind
		return p
	}
	if write && s.dropN > 0 {
		s.dropN--
		p.drop, p.dropSt, p.dropD = true, s.dropSt, s.dropD
	}
	if write && s.lateN > 0 {
		s.lateN--
		p.late = s.lateD
	}
	if write && s.meet != nil {
		p.meet = s.meet
		if s.meet.planned++; s.meet.planned == s.meet.n {
			s.meet = nil
		}
	}
	return p
}

// CommitTogether makes the next n writes validate, then wait until all n have validated (or
// bound has passed since the first arrived), then commit one by one and answer: the
// deterministic form of "two requests saved at once" (spec/erpnext.md §3.7, with
// Options.NoInvoiceLock each commits against the outstanding it validated), which CommitLate
// gives only when both requests arrive within its delay — not on a busy machine. A write that
// fails validation still counts as arrived, so the others are never held for the whole bound.
func (s *Site) CommitTogether(n int, bound time.Duration) {
	if n < 1 {
		return
	}
	s.fmu.Lock()
	s.meet = &meeting{n: n, bound: bound, all: make(chan struct{})}
	s.lastMeet = s.meet
	s.fmu.Unlock()
}

// HeldToCommit is how many writes of the latest CommitTogether have validated and are held
// waiting for the others (0 when none is held).
func (s *Site) HeldToCommit() int {
	s.fmu.Lock()
	m := s.lastMeet
	s.fmu.Unlock()
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.arrived == m.n {
		return 0
	}
	return m.arrived
}

// meeting is the rendezvous of CommitTogether.
type meeting struct {
	n, planned int // writes that meet; writes planned into it so far (under Site.fmu)
	bound      time.Duration
	mu         sync.Mutex
	arrived    int
	all        chan struct{} // closed when the n-th write arrives
}

// arrive records one write at the rendezvous and, when wait, blocks until all have arrived or
// the bound has passed.
func (m *meeting) arrive(wait bool) {
	m.mu.Lock()
	if m.arrived++; m.arrived == m.n {
		close(m.all)
	}
	m.mu.Unlock()
	if !wait {
		return
	}
	t := time.NewTimer(m.bound)
	defer t.Stop()
	select {
	case <-m.all:
	case <-t.C:
	}
}

// injected is the answer of a FailNext request.
func injected(status int, kind Fault) (string, string, map[string]string) {
	switch kind {
	case FaultQueryTimeout:
		e := serverError("QueryTimeoutError", "frappe.exceptions.QueryTimeoutError: (1205, 'Lock wait timeout exceeded; try restarting transaction')")
		return e.body(), "application/json", nil
	case FaultMaintenance:
		e := serverError("SessionStopped", "frappe.exceptions.SessionStopped: Session Stopped")
		e.status = 503
		return e.body(), "application/json", nil
	}
	switch status {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return gatewayPage(status), "text/html", nil
	}
	var e *fErr
	switch status {
	case http.StatusUnauthorized:
		e = &fErr{excType: "AuthenticationError", bare: true}
	case http.StatusForbidden:
		e = &fErr{excType: "PermissionError", bare: true}
	case http.StatusNotFound:
		e = routeMiss()
	case http.StatusConflict:
		e = throw("erpnextsim: injected duplicate").as("DuplicateEntryError")
	case http.StatusTooManyRequests:
		e = &fErr{excType: "TooManyRequestsError", bare: true, headers: map[string]string{"Retry-After": "1"}}
	case http.StatusInternalServerError:
		e = serverError("QueryDeadlockError", "frappe.exceptions.QueryDeadlockError: (1213, 'Deadlock found when trying to get lock; try restarting transaction')")
	default:
		e = throw("erpnextsim: injected failure")
	}
	e.status = status
	return e.body(), "application/json", e.headers
}
