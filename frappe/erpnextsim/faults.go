package erpnextsim

import (
	mrand "math/rand/v2"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// faults holds the injected faults (latency, failures, dropped and late commits,
// CommitTogether's rendezvous, held row locks, the rate limiter) and the request log, under
// their own lock fmu so that a test may set them while calls are served.
type faults struct {
	opt Options
	now func() time.Time

	fmu        sync.Mutex
	latency    time.Duration
	latencyMax time.Duration
	failN      int
	failSt     int
	failKind   Fault
	dropN      int
	dropSt     int
	dropD      time.Duration
	lateN      int
	lateD      time.Duration
	meet       *meeting // CommitTogether's rendezvous for the writes still to be planned
	lastMeet   *meeting // the latest CommitTogether's, for HeldToCommit
	reqLog     []RequestLog
	reqTotal   int
	rowLocks   map[string]time.Time // HoldRowLock: row → held until
	rl         rateLimit
}

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

// SetLatency is Site.SetLatency.
func (ft *faults) SetLatency(d time.Duration) {
	ft.fmu.Lock()
	ft.latency = d
	ft.fmu.Unlock()
}

// FailNext is Site.FailNext.
func (ft *faults) FailNext(n int, status int) {
	ft.fmu.Lock()
	ft.failN, ft.failSt, ft.failKind = n, status, ""
	ft.fmu.Unlock()
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

// FailNextWith is Site.FailNextWith.
func (ft *faults) FailNextWith(n int, f Fault) {
	ft.fmu.Lock()
	ft.failN, ft.failSt, ft.failKind = n, faultStatus[f], f
	ft.fmu.Unlock()
}

// SetLatencyRange is Site.SetLatencyRange.
func (ft *faults) SetLatencyRange(min, max time.Duration) {
	ft.fmu.Lock()
	ft.latency, ft.latencyMax = min, max
	ft.fmu.Unlock()
}

// DropResponseAfterCommit is Site.DropResponseAfterCommit.
func (ft *faults) DropResponseAfterCommit(n int) {
	ft.GatewayErrorAfterCommit(n, http.StatusGatewayTimeout, 0)
}

// GatewayErrorAfterCommit is Site.GatewayErrorAfterCommit.
func (ft *faults) GatewayErrorAfterCommit(n int, status int, delay time.Duration) {
	if status != http.StatusBadGateway {
		status = http.StatusGatewayTimeout
	}
	ft.fmu.Lock()
	ft.dropN, ft.dropSt, ft.dropD = n, status, delay
	ft.fmu.Unlock()
}

// CommitLate is Site.CommitLate.
func (ft *faults) CommitLate(n int, delay time.Duration) {
	ft.fmu.Lock()
	ft.lateN, ft.lateD = n, delay
	ft.fmu.Unlock()
}

// Requests is Site.Requests.
func (ft *faults) Requests() []RequestLog {
	ft.fmu.Lock()
	defer ft.fmu.Unlock()
	return append([]RequestLog(nil), ft.reqLog...)
}

// RequestCount is Site.RequestCount.
func (ft *faults) RequestCount() int {
	ft.fmu.Lock()
	defer ft.fmu.Unlock()
	return ft.reqTotal
}

func (ft *faults) logRequest(l RequestLog) {
	limit := ft.opt.RequestLogLimit
	if limit == 0 {
		limit = DefaultRequestLogLimit
	}
	ft.fmu.Lock()
	ft.reqTotal++
	if limit > 0 {
		ft.reqLog = append(ft.reqLog, l)
		if len(ft.reqLog) >= 2*limit {
			ft.reqLog = append(ft.reqLog[:0:0], ft.reqLog[len(ft.reqLog)-limit:]...)
		}
	}
	ft.fmu.Unlock()
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

func (ft *faults) planFaults(write bool) faultPlan {
	ft.fmu.Lock()
	defer ft.fmu.Unlock()
	p := faultPlan{latency: ft.latency}
	if ft.latencyMax > ft.latency {
		p.latency += time.Duration(mrand.Int64N(int64(ft.latencyMax - ft.latency + 1)))
	}
	if ft.failN > 0 {
		ft.failN--
		p.fail, p.kind = ft.failSt, ft.failKind
		return p
	}
	if write && ft.dropN > 0 {
		ft.dropN--
		p.drop, p.dropSt, p.dropD = true, ft.dropSt, ft.dropD
	}
	if write && ft.lateN > 0 {
		ft.lateN--
		p.late = ft.lateD
	}
	if write && ft.meet != nil {
		p.meet = ft.meet
		if ft.meet.planned++; ft.meet.planned == ft.meet.n {
			ft.meet = nil
		}
	}
	return p
}

// CommitTogether is Site.CommitTogether.
func (ft *faults) CommitTogether(n int, bound time.Duration) {
	if n < 1 {
		return
	}
	ft.fmu.Lock()
	ft.meet = &meeting{n: n, bound: bound, all: make(chan struct{})}
	ft.lastMeet = ft.meet
	ft.fmu.Unlock()
}

// HeldToCommit is Site.HeldToCommit.
func (ft *faults) HeldToCommit() int {
	ft.fmu.Lock()
	m := ft.lastMeet
	ft.fmu.Unlock()
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
