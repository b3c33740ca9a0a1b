package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// proxyFaults are the fault proxy's rates, each a probability per request: Err5xx (any request
// answered 502, 503 or 504 without reaching ERPNext), DropAfterCommit (a write ERPNext commits
// whose answer is replaced by a 504 gateway page) and CommitLate (a write answered 504 at once
// and delivered to ERPNext only CommitLateDelay later, as a request Frappe keeps running after
// the gateway gave up). LateDelay must stay below the connector's erpnext.server_timeout, which
// is what makes such a late commit harmless (DESIGN.md §4 step 7).
type proxyFaults struct {
	Err5xx          float64       `json:"err_5xx"`
	DropAfterCommit float64       `json:"drop_after_commit"`
	CommitLate      float64       `json:"commit_late"`
	LateDelay       time.Duration `json:"-"`
	LateDelayMS     int64         `json:"commit_late_delay_ms"`
}

// proxyCounts are what the proxy did, for the report.
type proxyCounts struct {
	Requests        int64 `json:"requests"`
	Writes          int64 `json:"writes"`
	Err5xx          int64 `json:"injected_5xx"`
	DropAfterCommit int64 `json:"dropped_after_commit"`
	CommitLate      int64 `json:"committed_late"`
	Upstream429     int64 `json:"answered_429"`
}

// faultProxy sits between the replicas and the ERPNext simulator.
type faultProxy struct {
	upstream string // http://host:port of the simulator
	faults   proxyFaults
	hc       *http.Client

	mu  sync.Mutex
	rnd *rand.Rand

	requests, writes, err5xx, dropped, late, saw429 atomic.Int64
	lateWG                                          sync.WaitGroup
}

func newFaultProxy(upstream string, f proxyFaults, seed uint64) *faultProxy {
	return &faultProxy{upstream: upstream, faults: f, rnd: rand.New(rand.NewPCG(seed, 0x70726f7879)),
		hc: &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
}

// fault decides one request's fault: "" (none), "5xx", "drop" or "late".
func (p *faultProxy) fault(write bool) (string, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	x := p.rnd.Float64()
	status := []int{http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout}[p.rnd.IntN(3)]
	switch {
	case x < p.faults.Err5xx:
		return "5xx", status
	case !write:
		return "", 0
	case x < p.faults.Err5xx+p.faults.DropAfterCommit:
		return "drop", http.StatusGatewayTimeout
	case x < p.faults.Err5xx+p.faults.DropAfterCommit+p.faults.CommitLate:
		return "late", http.StatusGatewayTimeout
	}
	return "", 0
}

// isWrite reports whether r may change the site: every method but GET and HEAD (Frappe's
// /api/method calls that write are POSTs).
func isWrite(r *http.Request) bool { return r.Method != http.MethodGet && r.Method != http.MethodHead }

func (p *faultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.requests.Add(1)
	write := isWrite(r)
	if write {
		p.writes.Add(1)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		gatewayPage(w, http.StatusBadGateway)
		return
	}
	kind, status := p.fault(write)
	switch kind {
	case "5xx":
		p.err5xx.Add(1)
		gatewayPage(w, status)
		return
	case "late":
		p.late.Add(1)
		p.mu.Lock()
		delay := p.faults.LateDelay/2 + time.Duration(p.rnd.Int64N(int64(p.faults.LateDelay/2)+1))
		p.mu.Unlock()
		req := r.Clone(r.Context())
		p.lateWG.Add(1)
		go func() {
			defer p.lateWG.Done()
			time.Sleep(delay) // the fault itself: the request reaches ERPNext this late (not synchronisation)
			if resp, err := p.forward(req, body, true); err == nil {
				resp.Body.Close()
			}
		}()
		gatewayPage(w, status)
		return
	}
	resp, err := p.forward(r, body, false)
	if err != nil {
		gatewayPage(w, http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if kind == "drop" || err != nil {
		if kind == "drop" {
			p.dropped.Add(1)
		}
		gatewayPage(w, http.StatusGatewayTimeout)
		return
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		p.saw429.Add(1)
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(answer)
}

// forward sends r with body to the simulator; detached requests (late commits) do not end with
// the client's connection.
func (p *faultProxy) forward(r *http.Request, body []byte, detached bool) (*http.Response, error) {
	ctx := r.Context()
	if detached {
		ctx = context.WithoutCancel(ctx)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, p.upstream+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range r.Header {
		if !strings.EqualFold(k, "Connection") {
			req.Header[k] = v
		}
	}
	return p.hc.Do(req)
}

// counts returns what the proxy did so far.
func (p *faultProxy) counts() proxyCounts {
	return proxyCounts{Requests: p.requests.Load(), Writes: p.writes.Load(), Err5xx: p.err5xx.Load(),
		DropAfterCommit: p.dropped.Load(), CommitLate: p.late.Load(), Upstream429: p.saw429.Load()}
}

// gatewayPage answers like nginx in front of a Frappe site whose upstream failed: an HTML page.
func gatewayPage(w http.ResponseWriter, status int) {
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(status)
	text := http.StatusText(status)
	fmt.Fprintf(w, "<html>\r\n<head><title>%d %s</title></head>\r\n<body>\r\n<center><h1>%d %s</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
		status, text, status, text)
}
