package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct{ method, path, want string }{
		{"GET", "/api/resource/Payment Entry", routeListPE},
		{"GET", "/api/v1/resource/Payment Entry/", routeListPE},
		{"POST", "/api/resource/Payment Entry", routeInsertPE},
		{"PUT", "/api/resource/Payment Entry/ACC-PAY-2026-00001", routeSubmitPE},
		{"GET", "/api/resource/Payment Entry/ACC-PAY-2026-00001", "other GET Payment Entry"},
		{"GET", "/api/resource/Sales Invoice/ACC-SINV-2026-00001", routeGetInvoice},
		{"GET", "/api/resource/Sales Invoice", "other GET Sales Invoice"},
		{"POST", "/api/method/erpnext.accounts.doctype.payment_entry.payment_entry.get_payment_entry", routeGetPE},
		{"GET", "/api/method/erpnext.accounts.doctype.payment_entry.payment_entry.get_payment_entry", routeGetPE},
		{"GET", "/api/resource/Mode of Payment/Razorpay", "other GET Mode of Payment"},
		{"POST", "/api/method/frappe.client.cancel", "other POST frappe.client.cancel"},
	} {
		if got := classify(c.method, c.path); got != c.want {
			t.Errorf("classify(%s %s) = %q; want %q", c.method, c.path, got, c.want)
		}
	}
}

// fakeSleeps stands in for time.Sleep: the clock does not move, so every call's remaining
// delay is its whole route delay, and the sleeps are recorded instead of slept.
type fakeSleeps struct {
	mu  sync.Mutex
	got []time.Duration
}

func (f *fakeSleeps) sleep(d time.Duration) {
	f.mu.Lock()
	f.got = append(f.got, d)
	f.mu.Unlock()
}

func proxyTo(t *testing.T, backend http.HandlerFunc) (*latencyProxy, *httptest.Server, *fakeSleeps) {
	t.Helper()
	sim := httptest.NewServer(backend)
	t.Cleanup(sim.Close)
	p := newLatencyProxy(sim.URL, realV15)
	fixed := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	sleeps := &fakeSleeps{}
	p.now, p.sleep = func() time.Time { return fixed }, sleeps.sleep
	front := httptest.NewServer(p)
	t.Cleanup(front.Close)
	return p, front, sleeps
}

func do(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Each call holds its worker for the recorded time of its kind; the answer is the simulator's.
func TestProxyHoldsEachCallForItsRecordedTime(t *testing.T) {
	p, front, sleeps := proxyTo(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Seen", r.Method+" "+r.URL.RequestURI())
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write(append([]byte("echo:"), b...))
	})
	calls := []struct{ method, path string }{
		{"GET", "/api/resource/Payment%20Entry?filters=x"},
		{"GET", "/api/resource/Sales%20Invoice/SINV-1"},
		{"POST", "/api/method/erpnext.accounts.doctype.payment_entry.payment_entry.get_payment_entry"},
		{"POST", "/api/resource/Payment%20Entry"},
		{"GET", "/api/resource/Company/Example%20Company"},
	}
	for _, c := range calls {
		status, body := do(t, c.method, front.URL+c.path, "payload")
		if status != http.StatusTeapot || body != "echo:payload" {
			t.Fatalf("%s %s answered %d %q; want the simulator's 418 echo", c.method, c.path, status, body)
		}
	}
	want := []time.Duration{48 * time.Millisecond, 101 * time.Millisecond, 252 * time.Millisecond, 776 * time.Millisecond, 48 * time.Millisecond}
	if len(sleeps.got) != len(want) {
		t.Fatalf("sleeps %v; want %v", sleeps.got, want)
	}
	for i := range want {
		if sleeps.got[i] != want[i] {
			t.Fatalf("call %d held %v; want %v", i, sleeps.got[i], want[i])
		}
	}
	got, _ := p.snapshot()
	if got[routeListPE] != 1 || got[routeGetInvoice] != 1 || got[routeGetPE] != 1 || got[routeInsertPE] != 1 || got["other GET Company"] != 1 {
		t.Fatalf("calls %v; want one of each", got)
	}
}

// The site serves two requests at once: the simulator never sees a third before one ends.
func TestProxyServesTwoRequestsAtOnce(t *testing.T) {
	const requests = 6
	var mu sync.Mutex
	inFlight, most, arrived := 0, 0, 0
	_, front, _ := proxyTo(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		arrived++
		inFlight++
		defer func() { inFlight-- }()
		// Stay until a third request is in (what the bound forbids), or 50 ms after a second
		// one joined, or when no other can come; 5 s at most.
		start, paired := time.Now(), time.Time{}
		for time.Since(start) < 5*time.Second {
			most = max(most, inFlight)
			if inFlight >= 3 || arrived == requests {
				return
			}
			if inFlight == 2 && paired.IsZero() {
				paired = time.Now()
			}
			if !paired.IsZero() && time.Since(paired) > 50*time.Millisecond {
				return
			}
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
		}
	})
	var wg sync.WaitGroup
	for i := 0; i < requests; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("GET", front.URL+"/api/resource/Payment%20Entry", nil)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	if most > 2 || most < 1 {
		t.Fatalf("the simulator saw %d requests at once; want at most 2 (real-v15 has 2 workers)", most)
	}
}

// A Payment Entry answered as submitted records its reference_no once, at its first answer;
// drafts, failures and other calls record nothing.
func TestProxyRecordsSubmittedEntries(t *testing.T) {
	answers := map[string]struct {
		status int
		body   string
	}{
		"pay_Sub": {200, `{"data":{"name":"ACC-PAY-2026-00001","reference_no":"pay_Sub","docstatus":1}}`},
		"pay_Dft": {200, `{"data":{"name":"ACC-PAY-2026-00002","reference_no":"pay_Dft","docstatus":0}}`},
		"pay_Bad": {417, `{"exc_type":"ValidationError","data":{"reference_no":"pay_Bad","docstatus":1}}`},
	}
	p, front, _ := proxyTo(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		a := answers[string(b)]
		w.WriteHeader(a.status)
		_, _ = io.WriteString(w, a.body)
	})
	for _, key := range []string{"pay_Sub", "pay_Dft", "pay_Bad", "pay_Sub"} {
		do(t, "POST", front.URL+"/api/resource/Payment%20Entry", key)
	}
	do(t, "PUT", front.URL+"/api/resource/Payment%20Entry/ACC-PAY-2026-00002", "pay_Sub")
	calls, sub := p.snapshot()
	if len(sub) != 1 || sub["pay_Sub"].IsZero() {
		t.Fatalf("submitted %v; want only pay_Sub", sub)
	}
	if calls[routeInsertPE] != 4 || calls[routeSubmitPE] != 1 {
		t.Fatalf("calls %v", calls)
	}
}
