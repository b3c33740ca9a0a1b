package razorpaysim_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// seeded returns a simulator holding n captured payments one second apart from t0, each with
// notes.invoice and an order with a receipt, as the reconcile benchmark uses them.
func seeded(tb testing.TB, n int) *razorpaysim.Sim {
	tb.Helper()
	s := razorpaysim.New(razorpaysim.Options{Now: func() time.Time { return time.Unix(t0+int64(n)+60, 0) }})
	tb.Cleanup(s.Close)
	_, err := s.Seed(razorpaysim.SeedSpec{Count: n, From: t0, To: t0 + int64(n-1),
		Invoice: "ACC-SINV-2026-{n:6}", Receipt: "ACC-SINV-2026-{n:6}"})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// discard is a ResponseWriter that keeps only the status and the body size, so that a
// benchmark measures the simulator and not a recorder's buffer.
type discard struct {
	h      http.Header
	status int
	n      int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) WriteHeader(status int)      { d.status = status }
func (d *discard) Write(b []byte) (int, error) { d.n += len(b); return len(b), nil }

// BenchmarkListPage is one GET /v1/payments page of 100 (the connector's page size) at 100 and
// at 100,000 payments: the newest page, a page 50,000 deep, and a one-hour from/to window in
// the middle. The target: the page at 100,000 within 2× of the page at 100.
func BenchmarkListPage(b *testing.B) {
	for _, n := range []int{100, 100_000} {
		s := seeded(b, n)
		queries := map[string]string{"newest": "count=100"}
		if n > 100 {
			queries["skip50000"] = "count=100&skip=50000"
			queries["window"] = fmt.Sprintf("count=100&from=%d&to=%d", t0+50000, t0+53599)
		}
		for name, q := range queries {
			req := httptest.NewRequest("GET", "/v1/payments?"+q, nil)
			b.Run(fmt.Sprintf("payments=%d/%s", n, name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					w := &discard{h: http.Header{}}
					s.ServeHTTP(w, req)
					if w.status != http.StatusOK || w.n < 100*500 {
						b.Fatalf("status %d, %d bytes", w.status, w.n)
					}
				}
			})
		}
	}
}

// BenchmarkSeed adds 100,000 payments through Seed and reports the live heap they hold.
func BenchmarkSeed(b *testing.B) {
	const n = 100_000
	for b.Loop() {
		heap := liveHeap()
		s := seeded(b, n)
		b.ReportMetric(float64(liveHeap()-heap)/n, "heap-B/payment")
		runtime.KeepAlive(s)
	}
}

// liveHeap returns the bytes of live heap objects after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestHeapPerPayment bounds what a seeded payment (with notes.invoice and an order) costs in
// live heap, so that a regression back to kilobytes per payment fails. Measured: see README,
// Performance.
func TestHeapPerPayment(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates ~100 MB")
	}
	const n = 50_000
	before := liveHeap()
	s := seeded(t, n)
	per := (liveHeap() - before) / n
	t.Logf("live heap per seeded payment: %d B", per)
	if per > 1400 {
		t.Errorf("a seeded payment holds %d B of heap, want ≤ 1400", per)
	}
	runtime.KeepAlive(s)
}

// TestSeed checks the seeded payments are real ones: listed, fetched with their order and
// receipt, spread over the window, settled like others, with no webhook event.
func TestSeed(t *testing.T) {
	s := newSim(t, nil, razorpaysim.Options{Now: newClock().Now})
	ids, err := s.Seed(razorpaysim.SeedSpec{Count: 250, From: t0 - 249, To: t0, Amount: 12345,
		Invoice: "INV-{n:4}", Receipt: "R{n}"})
	if err != nil || len(ids) != 250 {
		t.Fatalf("Seed: %d ids, %v", len(ids), err)
	}
	_, m, _ := apiCall(t, s, "GET", "/v1/payments/"+ids[6], "", nil)
	if num(t, m["created_at"]) != t0-243 || m["status"] != "captured" || num(t, m["amount"]) != 12345 ||
		m["notes"].(map[string]any)["invoice"] != "INV-0007" {
		t.Fatalf("seeded payment 7: %v", m)
	}
	_, o, _ := apiCall(t, s, "GET", "/v1/orders/"+m["order_id"].(string), "", nil)
	if o["receipt"] != "R7" || o["status"] != "attempted" {
		t.Errorf("seeded order: %v", o)
	}
	_, page, _ := apiCall(t, s, "GET", "/v1/payments?count=100&skip=200", "", nil)
	items := page["items"].([]any)
	if len(items) != 50 || items[0].(map[string]any)["id"] != ids[49] || items[49].(map[string]any)["id"] != ids[0] {
		t.Errorf("last page: %d items", len(items))
	}
	if st := s.State(); len(st.Events) != 0 || len(st.Payments) != 250 {
		t.Errorf("seeding made %d events and %d payments", len(st.Events), len(st.Payments))
	}
	setl, err := s.Settle()
	if err != nil || setl.Amount != 250*(12345-247) { // fee: 2 % of 12345 rounded = 247
		t.Errorf("settlement of seeded payments: %+v %v", setl, err)
	}
	code, m, _ := apiCall(t, s, "POST", "/__sim/seed/payments", "", map[string]any{"count": 3, "invoice": "X-{n:3}"})
	if code != 200 || num(t, m["count"]) != 3 {
		t.Fatalf("control seed: %d %v", code, m)
	}
	if _, p, _ := apiCall(t, s, "GET", "/v1/payments/"+m["last_id"].(string), "", nil); p["notes"].(map[string]any)["invoice"] != "X-003" {
		t.Errorf("control seed payment: %v", p)
	}
	for want, body := range map[string]map[string]any{
		"count":    {"count": 0},
		"amount":   {"count": 1, "amount": 10},
		"currency": {"count": 1, "currency": "XYZ"},
	} {
		if code, m, _ := apiCall(t, s, "POST", "/__sim/seed/payments", "", body); code != 400 || errOf(t, m)["field"] != want {
			t.Errorf("seed %v: %d %v", body, code, m)
		}
	}
}
