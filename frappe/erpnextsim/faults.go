package erpnextsim

import (
	"net/http"
	"time"
)

// RequestLog is one request the site handled, for assertions.
type RequestLog struct {
	Method string    // HTTP method
	Path   string    // URL path, unescaped ("/api/resource/Payment Entry")
	Status int       // status code sent
	At     time.Time // when the handler started on the request (after injected latency), by the wall clock
	// Committed reports whether the request changed the site (a successful
	// write, including one whose answer was dropped or came late).
	Committed bool
}

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
	s.failN, s.failSt = n, status
	s.fmu.Unlock()
}

// DropResponseAfterCommit makes the next n writes (POST, PUT, DELETE; not read-only methods such
// as get_payment_entry) run and
// commit normally, then answer a 504 HTML gateway page instead of the result:
// the ambiguous write of DESIGN.md §4 step 7.
func (s *Site) DropResponseAfterCommit(n int) {
	s.fmu.Lock()
	s.dropN = n
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

// Requests returns a copy of the log of every request handled so far.
func (s *Site) Requests() []RequestLog {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	return append([]RequestLog(nil), s.reqLog...)
}

func (s *Site) logRequest(l RequestLog) {
	s.fmu.Lock()
	s.reqLog = append(s.reqLog, l)
	s.fmu.Unlock()
}

// faultPlan is what the fault settings decided for one request.
type faultPlan struct {
	latency time.Duration
	fail    int
	drop    bool
	late    time.Duration
}

func (s *Site) planFaults(write bool) faultPlan {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	p := faultPlan{latency: s.latency}
	if s.failN > 0 {
		s.failN--
		p.fail = s.failSt
		return p
	}
	if write && s.dropN > 0 {
		s.dropN--
		p.drop = true
	}
	if write && s.lateN > 0 {
		s.lateN--
		p.late = s.lateD
	}
	return p
}

// injected is the answer of a FailNext request.
func injected(status int) (string, string, map[string]string) {
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
