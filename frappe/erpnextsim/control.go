package erpnextsim

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The control endpoints (no authentication; a test site only):
//
//	GET  /__sim/state   ground truth: {"payment_entries": [every Payment Entry as GET returns it,
//	                    references and deductions included], "sales_invoices": [{"name",
//	                    "customer", "docstatus", "is_return", "grand_total", "outstanding_amount",
//	                    "status", "modified"}], "payment_requests": [{"name", "reference_name",
//	                    "outstanding_amount", "status"}], "journal_entries": [names], "comments": [every Comment
//	                    as GET returns it: reference_doctype, reference_name, content, comment_email, comment_by, …]},
//	                    sorted by name
//	POST /__sim/reset   back to the state New built (default company and chart, no customers)
//	POST /__sim/setup/settlements  SetUpSettlements: the Bank, the Bank-type GL account, its
//	                    company Bank Account and the adjustments account a settlement needs;
//	                    answers the SettlementSetup (every name for config `settlements`)
//	GET  /__sim/requests the request log: {"total": requests handled since New or Reset,
//	                    "requests": [{"method", "path", "query", "status", "at", "committed"}]},
//	                    oldest first, the last Options.RequestLogLimit of them
//	GET  /__sim/faults  the current fault settings
//	POST /__sim/faults  set faults; every key is optional:
//	                    {"latency_ms": 50, "latency_max_ms": 200,          (fixed or random latency)
//	                     "fail_next": 2, "status": 502,                     (FailNext)
//	                     "fault": "deadlock"|"lock-timeout"|"maintenance"|"rate-limited"|"bad-gateway"|"gateway-timeout", (FailNextWith, with fail_next)
//	                     "drop_after_commit": 1,                            (DropResponseAfterCommit: 504 at once)
//	                     "drop_status": 502, "drop_delay_ms": 3000,         (with drop_after_commit: GatewayErrorAfterCommit,
//	                                                                         the 502/504 HTML page sent that long after the commit)
//	                     "commit_late": 1, "commit_late_ms": 3000,          (CommitLate)
//	                     "rate_limit": {"budget_ms": 1000, "window_ms": 60000, "cost_ms": 100}} (SetRateLimit; budget 0 turns it off)
//	                    answers the settings like GET.

// FaultSettings is the body of POST /__sim/faults and the answer of GET.
type FaultSettings struct {
	LatencyMS       *int64         `json:"latency_ms,omitempty"`
	LatencyMaxMS    *int64         `json:"latency_max_ms,omitempty"`
	FailNext        *int           `json:"fail_next,omitempty"`
	Status          int            `json:"status,omitempty"`
	Fault           Fault          `json:"fault,omitempty"`
	DropAfterCommit *int           `json:"drop_after_commit,omitempty"`
	DropStatus      int            `json:"drop_status,omitempty"`   // 502 or 504 (default) for drop_after_commit
	DropDelayMS     int64          `json:"drop_delay_ms,omitempty"` // wait after the commit before the gateway page
	CommitLate      *int           `json:"commit_late,omitempty"`
	CommitLateMS    int64          `json:"commit_late_ms,omitempty"`
	RateLimit       *RateLimitJSON `json:"rate_limit,omitempty"`
}

// RateLimitJSON is the rate_limit member of FaultSettings, in milliseconds.
type RateLimitJSON struct {
	BudgetMS int64 `json:"budget_ms"`
	WindowMS int64 `json:"window_ms"`
	CostMS   int64 `json:"cost_ms"`
}

func (s *Site) control(w http.ResponseWriter, r *http.Request) {
	reply := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	switch strings.TrimSuffix(r.URL.Path, "/") {
	case "/__sim/state":
		reply(http.StatusOK, s.State())
	case "/__sim/reset":
		if r.Method != http.MethodPost {
			reply(http.StatusMethodNotAllowed, map[string]string{"error": "POST only"})
			return
		}
		s.Reset()
		reply(http.StatusOK, map[string]string{"status": "reset"})
	case "/__sim/setup/settlements":
		if r.Method != http.MethodPost {
			reply(http.StatusMethodNotAllowed, map[string]string{"error": "POST only"})
			return
		}
		out, err := s.SetUpSettlements()
		if err != nil {
			reply(http.StatusInternalServerError, map[string]string{"error": err.Error()})
			return
		}
		reply(http.StatusOK, out)
	case "/__sim/requests":
		reply(http.StatusOK, map[string]any{"total": s.faults.RequestCount(), "requests": s.faults.Requests()})
	case "/__sim/faults":
		if r.Method == http.MethodPost {
			var fs FaultSettings
			b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			if err := json.Unmarshal(b, &fs); err != nil {
				reply(http.StatusBadRequest, map[string]string{"error": err.Error()})
				return
			}
			s.faults.applyFaults(fs)
		}
		reply(http.StatusOK, s.faults.faultSettings())
	default:
		reply(http.StatusNotFound, map[string]string{"error": "unknown control endpoint"})
	}
}

func (ft *faults) applyFaults(fs FaultSettings) {
	ms := func(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
	if fs.LatencyMS != nil || fs.LatencyMaxMS != nil {
		var lo, hi int64
		if fs.LatencyMS != nil {
			lo = *fs.LatencyMS
		}
		if fs.LatencyMaxMS != nil {
			hi = *fs.LatencyMaxMS
		}
		ft.SetLatencyRange(ms(lo), ms(hi))
	}
	if fs.FailNext != nil {
		if fs.Fault != "" {
			ft.FailNextWith(*fs.FailNext, fs.Fault)
		} else {
			ft.FailNext(*fs.FailNext, fs.Status)
		}
	}
	if fs.DropAfterCommit != nil {
		ft.GatewayErrorAfterCommit(*fs.DropAfterCommit, fs.DropStatus, ms(fs.DropDelayMS))
	}
	if fs.CommitLate != nil {
		ft.CommitLate(*fs.CommitLate, ms(fs.CommitLateMS))
	}
	if rl := fs.RateLimit; rl != nil {
		ft.SetRateLimit(ms(rl.BudgetMS), ms(rl.WindowMS), ms(rl.CostMS))
	}
}

func (ft *faults) faultSettings() FaultSettings {
	ft.fmu.Lock()
	defer ft.fmu.Unlock()
	lo, hi := ft.latency.Milliseconds(), ft.latencyMax.Milliseconds()
	fail, drop, late := ft.failN, ft.dropN, ft.lateN
	return FaultSettings{LatencyMS: &lo, LatencyMaxMS: &hi, FailNext: &fail, Status: ft.failSt, Fault: ft.failKind,
		DropAfterCommit: &drop, DropStatus: ft.dropSt, DropDelayMS: ft.dropD.Milliseconds(), CommitLate: &late, CommitLateMS: ft.lateD.Milliseconds(),
		RateLimit: &RateLimitJSON{BudgetMS: ft.rl.budget.Milliseconds(), WindowMS: ft.rl.window.Milliseconds(), CostMS: ft.rl.cost.Milliseconds()}}
}

// State returns the ground truth /__sim/state serves (see the control endpoint comment).
func (s *Site) State() map[string]any {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	s.invoices.refreshStatuses()
	pes := []any{}
	for _, r := range s.db.all(peDT) {
		pes = append(pes, toPlain(r.render(false)))
	}
	sis := []any{}
	for _, r := range s.db.all(siDT) {
		sis = append(sis, map[string]any{"name": r.name(), "customer": r.str("customer"), "docstatus": r.docstatus(),
			"is_return": r.int("is_return"), "grand_total": r.dec("grand_total").num(), "outstanding_amount": r.dec("outstanding_amount").num(),
			"status": r.str("status"), "modified": r.str("modified")})
	}
	prs := []any{}
	for _, r := range s.db.all(prDT) {
		prs = append(prs, map[string]any{"name": r.name(), "reference_name": r.str("reference_name"), "docstatus": r.docstatus(),
			"outstanding_amount": r.dec("outstanding_amount").num(), "status": r.str("status")})
	}
	jes := []string{}
	for _, r := range s.db.all(jeDT) {
		jes = append(jes, r.name())
	}
	cms := []any{}
	for _, r := range s.db.all(commentDT) {
		cms = append(cms, toPlain(r.render(false)))
	}
	return map[string]any{"payment_entries": pes, "sales_invoices": sis, "payment_requests": prs, "journal_entries": jes, "comments": cms}
}

// Reset drops every document and series counter and rebuilds the default site, as New did.
// Fault settings and the request log are cleared too.
func (s *Site) Reset() {
	s.db.mu.Lock()
	s.db.reset()
	s.accounts.setupDefaults()
	s.db.mu.Unlock()
	s.faults.reset()
}

// reset clears every fault, the rate limiter, held row locks and the request log.
func (ft *faults) reset() {
	ft.fmu.Lock()
	ft.latency, ft.latencyMax, ft.failN, ft.failSt, ft.failKind, ft.dropN, ft.lateN, ft.lateD = 0, 0, 0, 0, "", 0, 0, 0
	ft.rl = rateLimit{}
	ft.meet, ft.lastMeet = nil, nil
	ft.rowLocks = nil
	ft.reqLog, ft.reqTotal = nil, 0
	ft.fmu.Unlock()
}

// rateLimit is Frappe's site-wide limiter (spec §8.1, recordings 31-*): every request spends
// cost of a time budget per fixed window; once spent, requests are refused with 429.
type rateLimit struct {
	budget, window, cost time.Duration
	windowID             int64
	used                 time.Duration
}

// SetRateLimit is Site.SetRateLimit.
func (ft *faults) SetRateLimit(budget, window, cost time.Duration) {
	ft.fmu.Lock()
	ft.rl = rateLimit{budget: budget, window: window, cost: cost}
	ft.fmu.Unlock()
}

// rateCheck charges one request and returns the headers to send and whether to refuse it.
func (ft *faults) rateCheck() (map[string]string, bool) {
	ft.fmu.Lock()
	defer ft.fmu.Unlock()
	rl := &ft.rl
	if rl.budget <= 0 || rl.window <= 0 {
		return nil, false
	}
	now := ft.now()
	id := now.UnixNano() / int64(rl.window)
	if id != rl.windowID {
		rl.windowID, rl.used = id, 0
	}
	reset := time.Duration((id+1)*int64(rl.window) - now.UnixNano())
	resetS := strconv.FormatInt(int64((reset+time.Second-1)/time.Second), 10)
	h := map[string]string{"X-RateLimit-Limit": strconv.FormatInt(rl.budget.Microseconds(), 10), "X-RateLimit-Reset": resetS}
	if rl.used > rl.budget {
		h["X-RateLimit-Remaining"] = "0"
		h["Retry-After"] = resetS
		return h, true
	}
	rl.used += rl.cost
	left := rl.budget - rl.used
	if left < 0 {
		left = 0
	}
	h["X-RateLimit-Remaining"] = strconv.FormatInt(left.Microseconds(), 10)
	return h, false
}
