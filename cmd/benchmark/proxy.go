package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// ERPNext call kinds the latency profile tells apart (from a recording of a real site).
const (
	routeListPE     = "list Payment Entry" // GET /api/resource/Payment Entry?filters=…
	routeGetInvoice = "GET Sales Invoice"  // GET /api/resource/Sales Invoice/{name}
	routeGetPE      = "get_payment_entry"  // erpnext…payment_entry.get_payment_entry
	routeInsertPE   = "POST Payment Entry" // insert, docstatus 1: validate, submit, GL
	routeSubmitPE   = "PUT Payment Entry"  // submit of a draft
	routeOther      = "other"              // anything else (Mode of Payment, Company, …)
)

// profile is a site's speed: how many requests it serves at once (gunicorn workers) and how
// long each kind of call holds a worker.
type profile struct {
	Name    string                   `json:"name"`
	Slots   int                      `json:"request_workers"`
	Delays  map[string]time.Duration `json:"-"`
	Default time.Duration            `json:"-"`
}

// realV15 is the real site measured: ERPNext 15.71 / Frappe 15.72.4 with 2 gunicorn
// workers on 2 cores. Averages per call: lookup by reference_no 48 ms, GET Sales Invoice
// 101 ms, get_payment_entry 252 ms, POST Payment Entry with docstatus 1 776 ms. Calls the
// recording did not time (a submit of a draft, Mode of Payment, Company) take the lookup's
// 48 ms here, a light read's cost; a submit by PUT costs what an insert does.
var realV15 = profile{Name: "real-v15", Slots: 2, Default: 48 * time.Millisecond, Delays: map[string]time.Duration{
	routeListPE:     48 * time.Millisecond,
	routeGetInvoice: 101 * time.Millisecond,
	routeGetPE:      252 * time.Millisecond,
	routeInsertPE:   776 * time.Millisecond,
	routeSubmitPE:   776 * time.Millisecond,
}}

// delay is how long a call of route holds a worker (routes without a delay of their own,
// "other …", take Default).
func (p profile) delay(route string) time.Duration {
	if d, ok := p.Delays[route]; ok {
		return d
	}
	return p.Default
}

// classify names the kind of an ERPNext REST call from its method and unescaped path.
func classify(method, path string) string {
	path = strings.TrimSuffix(strings.Replace(path, "/api/v1/", "/api/", 1), "/")
	switch {
	case strings.HasSuffix(path, ".get_payment_entry"):
		return routeGetPE
	case path == "/api/resource/Payment Entry" && method == http.MethodGet:
		return routeListPE
	case path == "/api/resource/Payment Entry" && method == http.MethodPost:
		return routeInsertPE
	case strings.HasPrefix(path, "/api/resource/Payment Entry/") && method == http.MethodPut:
		return routeSubmitPE
	case strings.HasPrefix(path, "/api/resource/Sales Invoice/") && method == http.MethodGet:
		return routeGetInvoice
	}
	what := path
	if rest, ok := strings.CutPrefix(path, "/api/resource/"); ok {
		what, _, _ = strings.Cut(rest, "/") // the doctype, without the document's name
	} else if rest, ok := strings.CutPrefix(path, "/api/method/"); ok {
		what = rest
	}
	return routeOther + " " + method + " " + what
}

// latencyProxy stands in front of the ERPNext simulator and makes it as slow as a real site:
// at most Slots requests are served at once (the rest queue, as at gunicorn's socket), and
// each holds its slot for at least its route's delay (the simulator's own time counts
// towards it). It counts calls by route and notes when each reference_no first got a
// submitted Payment Entry back. Until the simulator has a profile of its own
// (`simulate erpnext` on branch sim), this is the real-v15 site of measurement (5).
type latencyProxy struct {
	target string // the simulator's base URL
	client *http.Client
	prof   profile
	slots  chan struct{}
	now    func() time.Time
	sleep  func(time.Duration)

	mu        sync.Mutex
	calls     map[string]int
	submitted map[string]time.Time
}

func newLatencyProxy(target string, prof profile) *latencyProxy {
	return &latencyProxy{target: strings.TrimSuffix(target, "/"), prof: prof, slots: make(chan struct{}, prof.Slots),
		client: &http.Client{Timeout: 5 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 64}},
		now:    time.Now, sleep: time.Sleep, calls: map[string]int{}, submitted: map[string]time.Time{}}
}

func (p *latencyProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	route := classify(r.Method, r.URL.Path)
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	p.slots <- struct{}{} // wait for a free worker
	start := p.now()
	status, header, answer, err := p.forward(r, body)
	if rest := p.prof.delay(route) - p.now().Sub(start); rest > 0 {
		p.sleep(rest)
	}
	<-p.slots
	if err != nil {
		http.Error(w, "proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	p.record(route, status, answer)
	for k, vs := range header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(status)
	_, _ = w.Write(answer)
}

// forward sends the request on to the simulator and reads the whole answer.
func (p *latencyProxy) forward(r *http.Request, body []byte) (int, http.Header, []byte, error) {
	out, err := http.NewRequestWithContext(r.Context(), r.Method, p.target+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	for k, vs := range r.Header {
		out.Header[k] = vs
	}
	resp, err := p.client.Do(out)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	resp.Header.Del("Content-Length")
	return resp.StatusCode, resp.Header, answer, err
}

// record counts the call and, for a Payment Entry answered as submitted, notes the time its
// reference_no was first booked.
func (p *latencyProxy) record(route string, status int, answer []byte) {
	at := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls[route]++
	if (route != routeInsertPE && route != routeSubmitPE) || status/100 != 2 {
		return
	}
	var doc struct {
		Data struct {
			ReferenceNo string `json:"reference_no"`
			Docstatus   int    `json:"docstatus"`
		} `json:"data"`
	}
	if json.Unmarshal(answer, &doc) != nil || doc.Data.Docstatus != 1 || doc.Data.ReferenceNo == "" {
		return
	}
	if _, seen := p.submitted[doc.Data.ReferenceNo]; !seen {
		p.submitted[doc.Data.ReferenceNo] = at
	}
}

// snapshot returns the call counts by route and the submit times by reference_no so far.
func (p *latencyProxy) snapshot() (map[string]int, map[string]time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	calls := make(map[string]int, len(p.calls))
	for k, v := range p.calls {
		calls[k] = v
	}
	sub := make(map[string]time.Time, len(p.submitted))
	for k, v := range p.submitted {
		sub[k] = v
	}
	return calls, sub
}

// submittedCount is how many reference_nos have a submitted entry.
func (p *latencyProxy) submittedCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.submitted)
}
