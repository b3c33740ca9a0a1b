package razorpay_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// seen is one request a recording handler passed on, with the status it got.
type seen struct {
	id     string // the payment id in the path: one per caller
	at     time.Time
	status int
	hint   string // Retry-After sent with a 429
}

// recorder wraps a handler and records every request with its answer.
type recorder struct {
	next http.Handler
	mu   sync.Mutex
	log  []seen
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) { w.status = code; w.ResponseWriter.WriteHeader(code) }

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	at := time.Now()
	sw := &statusWriter{ResponseWriter: w, status: 200}
	r.next.ServeHTTP(sw, req)
	r.mu.Lock()
	r.log = append(r.log, seen{id: req.URL.Path[strings.LastIndexByte(req.URL.Path, '/')+1:], at: at, status: sw.status, hint: w.Header().Get("Retry-After")})
	r.mu.Unlock()
}

// TestThrottleAgainstSimulatorTokenBucket: 30 callers fetch their own payment from razorpaysim
// with its token bucket at 4 requests/s (burst 12, ~12 per 3 s), with and without Retry-After.
// All complete; every failure on the way is IsThrottled; no caller sends again sooner than the
// pause it was given (Retry-After, or the client's 1 s first backoff when there is none); the
// client counted every 429.
func TestThrottleAgainstSimulatorTokenBucket(t *testing.T) {
	testtime.Long(t, "paces real 1 s buckets for ~10 s")
	for _, retryAfter := range []int{0, 1} {
		name := "NoRetryAfter"
		if retryAfter > 0 {
			name = "RetryAfter1s"
		}
		t.Run(name, func(t *testing.T) {
			sim := razorpaysim.New(razorpaysim.Options{KeyID: keyID, KeySecret: keySecret})
			t.Cleanup(sim.Close)
			ids := make([]string, 30)
			for i := range ids {
				p, err := sim.CreatePayment(razorpay.Payment{Amount: 10000 + int64(i)}, razorpaysim.PaymentOptions{Lose: true})
				if err != nil {
					t.Fatal(err)
				}
				ids[i] = p.ID
			}
			sim.SetFaults(razorpaysim.Faults{RateLimit: 4, Burst: 12, RetryAfter: retryAfter})
			rec := &recorder{next: sim}
			srv := httptest.NewServer(rec)
			t.Cleanup(srv.Close)
			c, err := razorpay.NewClient(razorpay.ClientConfig{BaseURL: srv.URL, KeyID: keyID, KeySecret: keySecret})
			if err != nil {
				t.Fatal(err)
			}
			calls := fetchUntilDone(t, c, ids)
			checkPaced(t, rec, c, calls)
		})
	}
}

// fetchUntilDone has one caller per id fetch its payment until it succeeds; every failure must
// be IsThrottled with a positive RetryAfter. It returns each caller's count of calls.
func fetchUntilDone(t *testing.T, c *razorpay.Client, ids []string) []int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	calls := make([]int, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				calls[i]++
				p, err := c.GetPayment(ctx, id)
				if err == nil {
					if p.ID != id {
						t.Errorf("got %s for %s", p.ID, id)
					}
					return
				}
				if !razorpay.IsThrottled(err) || razorpay.RetryAfter(err) <= 0 || !razorpay.Retryable(err) {
					t.Errorf("%s: %v (throttled %v, RetryAfter %v)", id, err, razorpay.IsThrottled(err), razorpay.RetryAfter(err))
					return
				}
			}
		}()
	}
	wg.Wait()
	return calls
}

// checkPaced checks the recorded requests: each caller's request after a 429 comes no sooner
// than that 429's Retry-After (or the client's first backoff of 1 s), and callers did not loop.
func checkPaced(t *testing.T, rec *recorder, c *razorpay.Client, calls []int) {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	last := map[string]time.Time{} // id → earliest next request allowed
	refused, ok := 0, 0
	for _, s := range rec.log {
		if s.at.Before(last[s.id]) {
			t.Errorf("%s sent %v after its 429, inside the pause", s.id, s.at.Sub(last[s.id].Add(-time.Second)))
		}
		if s.status == http.StatusTooManyRequests {
			refused++
			last[s.id] = s.at.Add(time.Second) // Retry-After: 1, or the first backoff
			continue
		}
		ok++
	}
	st := c.Throttle()
	if ok != len(calls) || refused == 0 || st.Throttled != uint64(refused) || st.Waiting != 0 {
		t.Fatalf("%d answered, %d refused; client %+v", ok, refused, st)
	}
	for i, n := range calls {
		if n > refused+1 || n > 20 {
			t.Errorf("caller %d made %d calls", i, n)
		}
	}
	t.Logf("%d callers: %d requests, %d refused, %d pauses", len(calls), len(rec.log), refused, st.Pauses)
}

// TestThrottledRazorpayCallHonoursContext: while a 30 s pause runs, a cancelled call returns
// promptly and a call whose deadline falls inside the pause returns at once, both as
// *ThrottledError, IsThrottled, never reaching Razorpay.
func TestThrottledRazorpayCallHonoursContext(t *testing.T) {
	var hits atomic.Int32
	c := setup(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"error":{"code":"BAD_REQUEST_ERROR","description":"Too many requests","source":"NA","step":"NA","reason":"NA","metadata":{}}}`))
	}, 0)
	_, err := c.GetOrder(context.Background(), "order_X")
	if !razorpay.IsThrottled(err) || razorpay.RetryAfter(err) != 30*time.Second || !razorpay.Retryable(err) {
		t.Fatalf("429: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err = c.GetOrder(ctx, "order_X")
	var thr *razorpay.ThrottledError
	if !errors.As(err, &thr) || !errors.Is(err, context.Canceled) || !razorpay.IsThrottled(err) || razorpay.RetryAfter(err) < 20*time.Second {
		t.Fatalf("cancelled: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the cancelled call returned after %v", d)
	}
	dl, cancel2 := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel2()
	_, err = c.ListOrderPayments(dl, "order_X")
	if !errors.Is(err, context.DeadlineExceeded) || dl.Err() != nil || !razorpay.IsThrottled(err) {
		t.Fatalf("deadline inside the pause: %v (ctx %v)", err, dl.Err())
	}
	if hits.Load() != 1 {
		t.Errorf("Razorpay hit %d times", hits.Load())
	}
	if st := c.Throttle(); st.Throttled != 1 || time.Until(st.Until) < 20*time.Second || strings.Contains(err.Error(), keySecret) {
		t.Errorf("state %+v, err %v", st, err)
	}
}

// A 500 is not a request to slow down: not throttled, and the next call goes at once.
func TestServerErrorIsNotThrottled(t *testing.T) {
	var hits atomic.Int32
	c := setup(t, func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte(`{"id":"order_X","entity":"order","amount":100}`))
	}, 0)
	_, err := c.GetOrder(context.Background(), "order_X")
	if razorpay.IsThrottled(err) || !razorpay.Retryable(err) || razorpay.RetryAfter(err) != 0 {
		t.Fatalf("500: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.GetOrder(ctx, "order_X"); err != nil || c.Throttle().Throttled != 0 {
		t.Fatalf("after a 500: %v, %+v", err, c.Throttle())
	}
}
