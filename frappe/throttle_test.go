package frappe_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
)

// arrival is one request a limiter saw.
type arrival struct {
	caller string // the document name: one per caller
	at     time.Time
	window int64
	status int
	until  time.Time // for a 429: the instant its Retry-After named
}

// windowLimiter is Frappe's site-wide limiter reduced to a request count (frappe/rate_limiter.py:
// fixed windows numbered unix-seconds ÷ window; past the budget every request of the window is
// refused with 429 TooManyRequestsError and Retry-After = whole seconds left, rounded up).
type windowLimiter struct {
	window time.Duration
	budget int

	mu       sync.Mutex
	used     map[int64]int
	arrivals []arrival
}

func (l *windowLimiter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	l.mu.Lock()
	id := now.UnixNano() / int64(l.window)
	end := time.Unix(0, (id+1)*int64(l.window))
	a := arrival{caller: r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:], at: now, window: id, status: 200}
	l.used[id]++
	if l.used[id] > l.budget {
		secs := int64((end.Sub(now) + time.Second - 1) / time.Second)
		a.status, a.until = 429, now.Add(time.Duration(secs)*time.Second)
		w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	}
	l.arrivals = append(l.arrivals, a)
	l.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	if a.status == 429 {
		_, _ = w.Write([]byte(`{"exception":"frappe.exceptions.TooManyRequestsError","exc_type":"TooManyRequestsError"}`))
		return
	}
	_, _ = fmt.Fprintf(w, `{"data":{"name":%q,"docstatus":1}}`, a.caller)
}

// getUntilDone has each of n callers read its own invoice through c until it succeeds, every
// failure being required to be ClassThrottled (no attempt spent). It returns each caller's count
// of calls.
func getUntilDone(t *testing.T, c *frappe.Client, n int) []int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	calls := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				calls[i]++
				var doc map[string]any
				err := c.Get(ctx, frappe.DoctypeSalesInvoice, fmt.Sprintf("ACC-SINV-2026-%05d", i+1), &doc)
				if err == nil {
					return
				}
				if cl := frappe.Classify(err, false); cl != frappe.ClassThrottled || frappe.RetryAfter(err) <= 0 {
					t.Errorf("caller %d: %v classified %v, RetryAfter %v", i, err, cl, frappe.RetryAfter(err))
					return
				}
			}
		}()
	}
	wg.Wait()
	return calls
}

// noLoops checks that no caller was refused more than once per limiter window: after a 429 a
// caller waits for the window's end, so its calls number at most the windows spanned + 1.
func noLoops(t *testing.T, calls []int, elapsed, window time.Duration) {
	t.Helper()
	windows := int(elapsed/window) + 2
	for i, n := range calls {
		if n > windows+1 {
			t.Errorf("caller %d made %d calls in %d windows: it loops on 429", i, n, windows)
		}
	}
}

// TestThrottleSharesOnePauseAcrossCallers: 30 callers against a site that takes 12 requests per
// 3 s window. All complete; no caller sends again inside the Retry-After window it was given;
// after a window's first 429 each caller has at most one request arriving in that window (the
// one already in flight); so nobody loops on 429s.
func TestThrottleSharesOnePauseAcrossCallers(t *testing.T) {
	testtime.Long(t, "waits out a real 3 s rate-limit window")
	lim := &windowLimiter{window: 3 * time.Second, budget: 12, used: map[int64]int{}}
	srv := httptest.NewServer(lim)
	t.Cleanup(srv.Close)
	c := newClient(t, frappe.Config{URL: srv.URL})
	start := time.Now()
	calls := getUntilDone(t, c, 30)
	elapsed := time.Since(start)

	lim.mu.Lock()
	defer lim.mu.Unlock()
	ok, refused := 0, 0
	first429 := map[int64]time.Time{}
	lastUntil := map[string]time.Time{}
	afterFirst := map[string]int{} // caller/window → arrivals after the window's first 429
	for _, a := range lim.arrivals {
		if a.at.Before(lastUntil[a.caller]) {
			t.Errorf("%s sent at %v, inside the Retry-After window it was given (until %v)", a.caller, a.at.Format("15:04:05.000"), lastUntil[a.caller].Format("15:04:05.000"))
		}
		if f, seen := first429[a.window]; seen && a.at.After(f) {
			key := fmt.Sprintf("%s/%d", a.caller, a.window)
			if afterFirst[key]++; afterFirst[key] > 1 {
				t.Errorf("%s sent %d requests in window %d after its first 429", a.caller, afterFirst[key], a.window)
			}
		}
		if a.status == 429 {
			refused++
			lastUntil[a.caller] = a.until
			if _, seen := first429[a.window]; !seen {
				first429[a.window] = a.at
			}
			continue
		}
		ok++
	}
	noLoops(t, calls, elapsed, lim.window)
	st := c.Throttle()
	if ok != 30 || refused == 0 || st.Throttled != uint64(refused) || st.Waiting != 0 {
		t.Fatalf("%d answered, %d refused; client state %+v", ok, refused, st)
	}
	t.Logf("30 callers, 12 requests per 3 s: done in %v, %d requests, %d refused, %d pauses", elapsed.Round(time.Millisecond), len(lim.arrivals), refused, st.Pauses)
}

// TestThrottleAgainstSimulatorLimiter runs the same 30 callers against erpnextsim's own
// site-wide limiter (SetRateLimit: 1.2 s of budget per 3 s window at 100 ms a request).
func TestThrottleAgainstSimulatorLimiter(t *testing.T) {
	testtime.Long(t, "waits out the simulator's real rate-limit window")
	site := erpnextsim.New(erpnextsim.Options{APIKey: testKey, APISecret: testSecret})
	if err := site.AddCustomer("Test Customer"); err != nil {
		t.Fatal(err)
	}
	for range 30 {
		if _, err := site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", DueDate: "2026-12-30", Submit: true,
			Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "1000.00"}}}); err != nil {
			t.Fatal(err)
		}
	}
	site.SetRateLimit(1200*time.Millisecond, 3*time.Second, 100*time.Millisecond)
	srv := httptest.NewServer(site)
	t.Cleanup(srv.Close)
	c := newClient(t, frappe.Config{URL: srv.URL})
	start := time.Now()
	calls := getUntilDone(t, c, 30)
	elapsed := time.Since(start)
	refused := 0
	for _, r := range site.Requests() {
		if r.Status == http.StatusTooManyRequests {
			refused++
		}
	}
	noLoops(t, calls, elapsed, 3*time.Second)
	if st := c.Throttle(); st.Throttled != uint64(refused) || refused == 0 {
		t.Fatalf("simulator refused %d, client saw %+v", refused, st)
	}
	t.Logf("simulator limiter: 30 callers done in %v with %d refusals", elapsed.Round(time.Millisecond), refused)
}

// TestThrottledCallsHonourTheCallersContext: while a 30 s pause runs, a call whose context is
// cancelled returns promptly and one whose deadline falls inside the pause returns at once, both
// as *ThrottledError (ClassThrottled) without reaching the site.
func TestThrottledCallsHonourTheCallersContext(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"exc_type":"TooManyRequestsError"}`))
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, frappe.Config{URL: srv.URL})
	get := func(ctx context.Context) error {
		var doc map[string]any
		return c.Get(ctx, frappe.DoctypeSalesInvoice, "ACC-SINV-2026-00001", &doc)
	}
	err := get(context.Background())
	if frappe.Classify(err, false) != frappe.ClassThrottled || frappe.RetryAfter(err) != 30*time.Second {
		t.Fatalf("429: %v (%v, RetryAfter %v)", err, frappe.Classify(err, false), frappe.RetryAfter(err))
	}
	if st := c.Throttle(); time.Until(st.Until) < 29*time.Second || st.Throttled != 1 || st.Pauses != 1 || st.LastPause != 30*time.Second {
		t.Fatalf("state %+v", st)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	err = get(ctx)
	var thr *frappe.ThrottledError
	if !errors.As(err, &thr) || !errors.Is(err, context.Canceled) || frappe.Classify(err, true) != frappe.ClassThrottled ||
		frappe.RetryAfter(err) < 20*time.Second || thr.Path != "/api/resource/Sales Invoice/ACC-SINV-2026-00001" {
		t.Fatalf("cancelled: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the cancelled call returned after %v", d)
	}

	dl, cancel2 := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel2()
	err = get(dl)
	if !errors.Is(err, context.DeadlineExceeded) || dl.Err() != nil || !errors.As(err, &thr) {
		t.Fatalf("deadline inside the pause: %v (ctx %v), want an immediate *ThrottledError", err, dl.Err())
	}
	if hits.Load() != 1 || c.Throttle().Waiting != 0 {
		t.Errorf("site hit %d times, %d waiting", hits.Load(), c.Throttle().Waiting)
	}
	if strings.Contains(err.Error(), testSecret) {
		t.Errorf("error shows the secret: %v", err)
	}
}

// TestThrottleWithoutRetryAfter: a proxy's 429 without Retry-After pauses the client 1 s (its
// own backoff, returned by RetryAfter); a 503 with Retry-After (Frappe's maintenance answer)
// pauses too; a 503 without it is an ordinary retry and pauses nothing.
func TestThrottleWithoutRetryAfter(t *testing.T) {
	var mu sync.Mutex
	var answers []func(http.ResponseWriter)
	var at []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		at = append(at, time.Now())
		answer := answers[0]
		answers = answers[1:]
		mu.Unlock()
		answer(w)
	}))
	t.Cleanup(srv.Close)
	status := func(code int, retryAfter, body string) func(http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			w.WriteHeader(code)
			_, _ = w.Write([]byte(body))
		}
	}
	maintenance := `{"exc_type":"SessionStopped","exception":"frappe.exceptions.SessionStopped: Session Stopped"}`
	answers = []func(http.ResponseWriter){
		status(429, "", "<html>429 Too Many Requests</html>"),
		status(503, "1", maintenance),
		status(503, "", maintenance),
		status(200, "", `{"data":{"name":"X"}}`),
	}
	c := newClient(t, frappe.Config{URL: srv.URL})
	get := func() error {
		var doc map[string]any
		return c.Get(context.Background(), frappe.DoctypeSalesInvoice, "X", &doc)
	}
	err := get()
	if frappe.Classify(err, true) != frappe.ClassThrottled || frappe.RetryAfter(err) != time.Second {
		t.Fatalf("proxy 429: %v, %v, RetryAfter %v", err, frappe.Classify(err, true), frappe.RetryAfter(err))
	}
	err = get()
	if frappe.Classify(err, false) != frappe.ClassThrottled || frappe.RetryAfter(err) != time.Second {
		t.Fatalf("503 with Retry-After: %v, %v", err, frappe.Classify(err, false))
	}
	err = get()
	if frappe.Classify(err, false) != frappe.ClassRetry || frappe.RetryAfter(err) != 0 {
		t.Fatalf("503 without Retry-After: %v, %v", err, frappe.Classify(err, false))
	}
	if err := get(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if gap := at[1].Sub(at[0]); gap < time.Second {
		t.Errorf("second request %v after the 429 without Retry-After, want ≥ 1s", gap)
	}
	if gap := at[2].Sub(at[1]); gap < time.Second {
		t.Errorf("third request %v after the 503 with Retry-After: 1, want ≥ 1s", gap)
	}
	if st := c.Throttle(); st.Throttled != 2 || st.Pauses != 2 {
		t.Errorf("state %+v", st)
	}
}

// TestLongRetryAfterIsCapped: a proxy's `Retry-After: 86400` (or an HTTP date a day away)
// pauses the client for the cap — 5 min by default, Config.MaxRetryAfter otherwise — not a day;
// the error says the pause honoured and what the site asked for.
func TestLongRetryAfterIsCapped(t *testing.T) {
	var hits atomic.Int32
	retryAfter := "86400"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Retry-After", retryAfter)
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"exc_type":"TooManyRequestsError"}`))
	}))
	t.Cleanup(srv.Close)
	get := func(c *frappe.Client) error {
		var doc map[string]any
		return c.Get(context.Background(), frappe.DoctypeSalesInvoice, "X", &doc)
	}
	c := newClient(t, frappe.Config{URL: srv.URL})
	err := get(c)
	var fe *frappe.Error
	if !errors.As(err, &fe) || fe.RetryAfter != 5*time.Minute || fe.RetryAfterAsked != 24*time.Hour || frappe.RetryAfter(err) != 5*time.Minute {
		t.Fatalf("default cap: %v (%+v), want RetryAfter 5m, asked 24h", err, fe)
	}
	if st := c.Throttle(); time.Until(st.Until) > 5*time.Minute+time.Second || st.Capped != 1 || st.LastAsked != 24*time.Hour {
		t.Fatalf("state %+v: want a pause of at most 5 min, capped 1", st)
	}

	retryAfter = time.Now().Add(25 * time.Hour).UTC().Format(http.TimeFormat)
	c = newClient(t, frappe.Config{URL: srv.URL, MaxRetryAfter: 2 * time.Second})
	start := time.Now()
	if err := get(c); frappe.RetryAfter(err) != 2*time.Second || !errors.As(err, &fe) || fe.RetryAfterAsked < 24*time.Hour {
		t.Fatalf("2 s cap, HTTP date: %v (asked %v)", err, fe.RetryAfterAsked)
	}
	_ = get(c) // waits out the capped pause, then asks again
	if d := time.Since(start); d < 2*time.Second || hits.Load() != 3 {
		t.Errorf("second call after %v (site hit %d times), want it sent after the 2 s cap", d, hits.Load())
	}
}
