package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// upstream counts the requests that reached it and answers 200 with a body.
func upstream(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("X-Upstream", "yes")
		_, _ = io.WriteString(w, `{"data":{"name":"ACC-PAY-2026-00001"}}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func post(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Post(url+"/api/resource/Payment%20Entry", "application/json", strings.NewReader(`{"docstatus":1}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Commit-then-drop: ERPNext gets the write, the client gets a 504 gateway page.
func TestProxyDropAfterCommitReachesUpstreamAndAnswers504(t *testing.T) {
	up, reached := upstream(t)
	p := newFaultProxy(up.URL, proxyFaults{DropAfterCommit: 1}, 1)
	srv := httptest.NewServer(p)
	defer srv.Close()
	status, body := post(t, srv.URL)
	if status != http.StatusGatewayTimeout || !strings.Contains(body, "504 Gateway Time-out") && !strings.Contains(body, "504 Gateway Timeout") || reached.Load() != 1 {
		t.Fatalf("status %d, body %q, upstream saw %d; want 504 page after the write reached ERPNext once", status, body, reached.Load())
	}
	if c := p.counts(); c.DropAfterCommit != 1 || c.Writes != 1 {
		t.Fatalf("counts %+v", c)
	}
}

// A 5xx never reaches ERPNext; a commit-late write reaches it after the client got its 504;
// a read is never dropped or delayed.
func TestProxyFaultKinds(t *testing.T) {
	up, reached := upstream(t)
	p := newFaultProxy(up.URL, proxyFaults{Err5xx: 1}, 1)
	srv := httptest.NewServer(p)
	if status, _ := post(t, srv.URL); status/100 != 5 || reached.Load() != 0 {
		t.Fatalf("5xx fault: status %d, upstream saw %d; want 5xx and nothing sent", status, reached.Load())
	}
	srv.Close()

	p = newFaultProxy(up.URL, proxyFaults{CommitLate: 1, LateDelay: 200 * time.Millisecond}, 1)
	srv = httptest.NewServer(p)
	defer srv.Close()
	if status, _ := post(t, srv.URL); status != http.StatusGatewayTimeout {
		t.Fatalf("commit-late: status %d; want 504 at once", status)
	}
	p.lateWG.Wait()
	if reached.Load() != 1 {
		t.Fatalf("commit-late: upstream saw %d writes after the wait; want 1", reached.Load())
	}
	resp, err := http.Get(srv.URL + "/api/resource/Payment%20Entry")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Upstream") != "yes" || reached.Load() != 2 {
		t.Fatalf("read through a write-only fault: %d; want 200 from upstream", resp.StatusCode)
	}
}
