package erpnextsim_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
)

func (h *harness) entriesWithReference(ref string) int {
	h.t.Helper()
	r := h.do("GET", list(pePath, map[string]string{"filters": `[["reference_no","=","` + ref + `"]]`}), nil)
	return len(names(r))
}

func TestFaultDropResponseAfterCommit(t *testing.T) {
	h := seeded(t)
	h.site.DropResponseAfterCommit(1)
	r := h.do("POST", pePath, pe(map[string]any{"reference_no": "pay_dropped", "docstatus": 1}))
	if r.status != 504 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") || !strings.Contains(r.raw, "504 Gateway Time-out") && !strings.Contains(r.raw, "504 Gateway Timeout") {
		t.Fatalf("got %d %q %s", r.status, r.header.Get("Content-Type"), r.raw)
	}
	if n := h.entriesWithReference("pay_dropped"); n != 1 {
		t.Fatalf("%d entries after a dropped answer, want 1 (committed)", n)
	}
	if got := field(h.invoice("ACC-SINV-2026-00001"), "status"); got != "Paid" {
		t.Errorf("invoice status %s", got)
	}
	log := h.site.Requests()
	var last = log[len(log)-2] // the POST; the list came after
	if last.Method != "POST" || last.Status != 504 || !last.Committed {
		t.Errorf("request log %+v", last)
	}
	if r := h.do("POST", pePath, pe(map[string]any{"reference_no": "pay_after", "references": refs("ACC-SINV-2026-00002", 1000)})); r.status != 200 {
		t.Errorf("drop applied to more than one write: %d", r.status)
	}
}

func TestFaultCommitLate(t *testing.T) {
	h := seeded(t)
	h.site.CommitLate(1, 1500*time.Millisecond)
	body, _ := json.Marshal(pe(map[string]any{"reference_no": "pay_late", "docstatus": 1}))
	req, _ := http.NewRequest("POST", h.srv.URL+pePath, bytes.NewReader(body))
	req.Header.Set("Authorization", "token "+key+":"+secret)
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Timeout: time.Second}
	start := time.Now()
	if res, err := client.Do(req); err == nil {
		res.Body.Close()
		t.Fatalf("client with a 1 s timeout got %d after %v", res.StatusCode, time.Since(start))
	}
	if n := h.entriesWithReference("pay_late"); n != 0 {
		t.Fatalf("entry visible before the late commit")
	}
	testtime.Until(t, "the late commit", func() bool { return h.entriesWithReference("pay_late") != 0 })
	if elapsed := time.Since(start); elapsed < 1400*time.Millisecond {
		t.Errorf("committed after %v, before the delay", elapsed)
	}
}

// CommitTogether holds a validated write until the other has validated too (so both commit
// against what they validated, whatever the scheduling), and a write left alone is held for
// the bound only.
func TestFaultCommitTogether(t *testing.T) {
	h := seeded(t)
	h.site.CommitTogether(2, testtime.Bound)
	first := make(chan resp, 1)
	go func() { first <- h.do("POST", pePath, pe(map[string]any{"reference_no": "pay_meet1", "docstatus": 1})) }()
	testtime.Until(t, "the first write to reach the rendezvous", func() bool { return h.site.HeldToCommit() == 1 })
	select {
	case r := <-first:
		t.Fatalf("first write answered %d before the second validated", r.status)
	default:
	}
	if n := h.entriesWithReference("pay_meet1"); n != 0 {
		t.Fatalf("first write committed before the second arrived")
	}
	if r := h.do("POST", pePath, pe(map[string]any{"reference_no": "pay_meet2", "docstatus": 1})); r.status != 200 {
		t.Fatalf("second write: %d", r.status)
	}
	if r := <-first; r.status != 200 || h.entriesWithReference("pay_meet1") != 1 {
		t.Fatalf("first write: %d", r.status)
	}

	h.site.CommitTogether(2, 50*time.Millisecond)
	start := time.Now()
	if r := h.do("POST", pePath, pe(map[string]any{"reference_no": "pay_alone", "docstatus": 1, "references": refs("ACC-SINV-2026-00002", 1000)})); r.status != 200 {
		t.Fatalf("lone write: %d", r.status)
	}
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Errorf("lone write answered after %v, before the bound", waited)
	}
}

func TestFaultFailNext(t *testing.T) {
	h := seeded(t)
	h.site.FailNext(2, 429)
	for i := 0; i < 2; i++ {
		r := h.do("POST", pePath, pe(map[string]any{"reference_no": "pay_429"}))
		r.expectError(t, 429, "TooManyRequestsError")
		if r.header.Get("Retry-After") != "1" {
			t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
		}
	}
	if n := h.entriesWithReference("pay_429"); n != 0 {
		t.Fatalf("a failed request committed")
	}
	h.site.FailNext(1, 502)
	r := h.do("GET", siPath, nil)
	if r.status != 502 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") || r.body != nil {
		t.Errorf("502: %d %s", r.status, r.raw)
	}
	h.site.FailNext(1, 500)
	h.do("POST", pePath, pe(nil)).expectError(t, 500, "QueryDeadlockError")
	h.site.FailNext(1, 417)
	h.do("GET", siPath, nil).expectError(t, 417, "ValidationError", "erpnextsim: injected failure")
	if r := h.do("GET", siPath, nil); r.status != 200 {
		t.Errorf("FailNext outlived its count: %d", r.status)
	}
}

func TestFaultLatency(t *testing.T) {
	h := seeded(t)
	h.site.SetLatency(150 * time.Millisecond)
	start := time.Now()
	h.do("GET", siPath, nil)
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Fatalf("answered after %v", d)
	}
	h.site.SetLatency(0)
	// A slow request must not block others: latency is spent outside the lock. The slow
	// request has reached the site (a wrapper tells) before the latency is turned off for the
	// fast one; if it still took the new setting (it read it just after arriving) the round
	// proves nothing and is run again.
	arrived := make(chan struct{}, 1)
	wrapped := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		h.site.ServeHTTP(w, r)
	}))
	t.Cleanup(wrapped.Close)
	slow := &harness{t: t, site: h.site, srv: wrapped}
	const latency = time.Second
	for round := 1; ; round++ {
		if round > 5 {
			t.Fatal("in 5 rounds the slow request never took its latency")
		}
		h.site.SetLatency(latency)
		took := make(chan time.Duration, 1)
		go func() { start := time.Now(); slow.do("GET", siPath, nil); took <- time.Since(start) }()
		<-arrived
		h.site.SetLatency(0)
		h.do("GET", siPath, nil)
		select {
		case d := <-took: // the slow one was answered first
			if d >= latency {
				t.Fatalf("a request waited behind a slow one (%v)", d)
			}
			continue // it was not slow: again
		default: // answered while the slow one still waits
		}
		if d := <-took; d >= latency {
			break
		}
	}
}

// TestFaultDelayedGatewayErrorAfterCommit sets the delayed variant over /__sim/faults: the write
// commits at once (visible to other requests), and only later does the client get the 502 page.
func TestFaultDelayedGatewayErrorAfterCommit(t *testing.T) {
	h := seeded(t)
	if r := h.do("POST", "/__sim/faults", map[string]any{"drop_after_commit": 1, "drop_status": 502, "drop_delay_ms": 400}); r.status != 200 ||
		num(r.body["drop_status"]) != "502" || num(r.body["drop_delay_ms"]) != "400" {
		t.Fatalf("faults: %d %s", r.status, r.raw)
	}
	body, _ := json.Marshal(pe(map[string]any{"reference_no": "pay_gateway_late", "docstatus": 1}))
	type answer struct {
		status  int
		ctype   string
		raw     string
		elapsed time.Duration
		err     error
	}
	done := make(chan answer, 1)
	start := time.Now()
	go func() {
		req, _ := http.NewRequest("POST", h.srv.URL+pePath, bytes.NewReader(body))
		req.Header.Set("Authorization", "token "+key+":"+secret)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- answer{err: err}
			return
		}
		defer res.Body.Close()
		var b bytes.Buffer
		_, _ = b.ReadFrom(res.Body)
		done <- answer{status: res.StatusCode, ctype: res.Header.Get("Content-Type"), raw: b.String(), elapsed: time.Since(start)}
	}()
	// Committed and visible while the answer is still held back.
	var a answer
	testtime.Until(t, "the write committed", func() bool { return h.entriesWithReference("pay_gateway_late") != 0 })
	select {
	case a = <-done:
		t.Fatalf("the answer (%d after %v) came before the write was seen committed", a.status, a.elapsed)
	default:
	}
	a = <-done
	if a.err != nil {
		t.Fatal(a.err)
	}
	if a.status != 502 || !strings.HasPrefix(a.ctype, "text/html") || !strings.Contains(a.raw, "502 Bad Gateway") || a.elapsed < 400*time.Millisecond {
		t.Fatalf("got %d %q after %v: %s", a.status, a.ctype, a.elapsed, a.raw)
	}
	if got := field(h.invoice("ACC-SINV-2026-00001"), "status"); got != "Paid" {
		t.Errorf("invoice status %s", got)
	}
	if r := h.do("POST", pePath, pe(map[string]any{"reference_no": "pay_after", "references": refs("ACC-SINV-2026-00002", 1000)})); r.status != 200 {
		t.Errorf("fault applied to more than one write: %d", r.status)
	}
}

// TestRequestLogKeepsQueriesAndStaysBounded: the log records each list's query parameters (what
// a test checks the client sent), GET /__sim/requests serves it, and RequestLogLimit keeps only
// the newest requests while RequestCount counts them all.
func TestRequestLogKeepsQueriesAndStaysBounded(t *testing.T) {
	h := newHarness(t, erpnextsim.Options{RequestLogLimit: 3})
	q := map[string]string{"filters": `[["reference_no","=","pay_1"]]`, "order_by": "`tabPayment Entry`.`creation` asc"}
	for i := 0; i < 7; i++ {
		h.do("GET", list(pePath, q), nil)
	}
	log := h.site.Requests()
	if len(log) < 3 || len(log) >= 6 || h.site.RequestCount() != 7 {
		t.Fatalf("%d entries kept of %d, want between 3 and 5 of 7", len(log), h.site.RequestCount())
	}
	last := log[len(log)-1]
	if last.Path != "/api/resource/Payment Entry" || last.Query.Get("order_by") != q["order_by"] || last.Query.Get("filters") != q["filters"] {
		t.Errorf("last entry %+v", last)
	}
	res, err := http.Get(h.srv.URL + "/__sim/requests")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var got struct {
		Total    int                     `json:"total"`
		Requests []erpnextsim.RequestLog `json:"requests"`
	}
	if err := json.NewDecoder(res.Body).Decode(&got); err != nil || got.Total != 7 || len(got.Requests) != len(log) ||
		got.Requests[len(got.Requests)-1].Query.Get("order_by") != q["order_by"] {
		t.Fatalf("/__sim/requests = %+v, %v", got, err)
	}
	h.site.Reset()
	if h.site.RequestCount() != 0 || len(h.site.Requests()) != 0 {
		t.Error("Reset kept the log")
	}
}
