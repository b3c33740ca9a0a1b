package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/httpapi"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/wire"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// newConnector is newIntake's connector, with max in flight and a logger of the test's.
func newConnector(t testing.TB, s connector.Store, maxInFlight int, log zerolog.Logger) *wire.Core {
	t.Helper()
	cfg := intakeConfig()
	if maxInFlight > 0 {
		cfg.Server.MaxInFlight = maxInFlight
	}
	c, err := wire.New(wire.Options{Config: cfg, Store: s, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// metric returns the value of the series named (with its labels, as /metrics prints them), or
// "absent".
func metric(t *testing.T, c *wire.Core, series string) string {
	t.Helper()
	w := httptest.NewRecorder()
	httpapi.Admin(c, c.Metrics(), "").ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for _, line := range strings.Split(w.Body.String(), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			return v
		}
	}
	return "absent"
}

// TestSenderGoneIsNotStoreUnavailable: a sender that disconnects while its insert runs (the
// request's context canceled) is counted in webhooks_abandoned_total, not as
// store_unavailable, and logged below error level.
func TestSenderGoneIsNotStoreUnavailable(t *testing.T) {
	var logs bytes.Buffer
	c := newConnector(t, sqliteStore(t), 0, zerolog.New(&logs))
	h := httpapi.Public(c.Intake(), "/webhooks/razorpay")
	body := readSample(t, "payment.captured.json")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest(http.MethodPost, "/webhooks/razorpay", bytes.NewReader(body)).WithContext(ctx)
	req.Header.Set("X-Razorpay-Signature", razorpay.Sign(secretNew, body))
	req.Header.Set("X-Razorpay-Event-Id", "T3stEvtCapNb01")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusServiceUnavailable {
		t.Errorf("status %d; want 503 (nobody reads it)", w.Code)
	}
	if got := metric(t, c, connector.MetricWebhooksAbandoned); got != "1" {
		t.Errorf("%s = %s; want 1", connector.MetricWebhooksAbandoned, got)
	}
	unavailable := connector.MetricWebhooks + `{event="payment.captured",outcome="store_unavailable"}`
	if got := metric(t, c, unavailable); got != "absent" {
		t.Errorf("%s = %s; want absent", unavailable, got)
	}
	if strings.Contains(logs.String(), `"level":"error"`) || !strings.Contains(logs.String(), "webhook sender gone") {
		t.Errorf("log %s; want one line below error level naming the sender gone", logs.String())
	}
}

// blockingStore holds every InsertEvent until release is closed, telling entered first.
type blockingStore struct {
	connector.Store
	entered chan struct{}
	release chan struct{}
	inserts atomic.Int64
}

func (b *blockingStore) InsertEvent(ctx context.Context, e *connector.InboxEvent) (bool, error) {
	b.inserts.Add(1)
	b.entered <- struct{}{}
	<-b.release
	return b.Store.InsertEvent(ctx, e)
}

// readFlag is a request body that notes whether anything read it.
type readFlag struct {
	r    io.Reader
	read atomic.Bool
}

func (f *readFlag) Read(p []byte) (int, error) { f.read.Store(true); return f.r.Read(p) }

// TestInFlightWebhooksAreBounded: with server.max_in_flight requests inside the store, the
// next is answered 503 with Retry-After at once, its body unread and nothing stored; once they
// finish, the next is accepted (never queue without limit).
func TestInFlightWebhooksAreBounded(t *testing.T) {
	const bound = 3
	db := sqliteStore(t)
	bs := &blockingStore{Store: db, entered: make(chan struct{}), release: make(chan struct{})}
	c := newConnector(t, bs, bound, zerolog.Nop())
	h := httpapi.Public(c.Intake(), "/webhooks/razorpay")
	body := readSample(t, "payment.captured.json")
	post := func(eventID string, b io.Reader) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/webhooks/razorpay", b)
		req.Header.Set("X-Razorpay-Signature", razorpay.Sign(secretNew, body))
		req.Header.Set("X-Razorpay-Event-Id", eventID)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	codes := make([]int, bound)
	var wg sync.WaitGroup
	for i := range bound {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = post(fmt.Sprintf("T3stEvtHeld%03d", i), bytes.NewReader(body)).Code
		}()
	}
	for range bound {
		<-bs.entered // all three are inside the store
	}
	over := &readFlag{r: bytes.NewReader(body)}
	w := post("T3stEvtOver001", over)
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" {
		t.Errorf("request %d: %d, Retry-After %q; want 503 with Retry-After 1", bound+1, w.Code, w.Header().Get("Retry-After"))
	}
	if over.read.Load() || bs.inserts.Load() != bound {
		t.Errorf("body read %v, inserts %d; want the body unread and %d inserts", over.read.Load(), bs.inserts.Load(), bound)
	}
	close(bs.release)
	wg.Wait()
	for i, code := range codes {
		if code != http.StatusOK {
			t.Errorf("held request %d: %d; want 200", i, code)
		}
	}
	go func() { <-bs.entered }()
	if w := post("T3stEvtAfter01", bytes.NewReader(body)); w.Code != http.StatusOK {
		t.Errorf("after release: %d %s; want 200", w.Code, w.Body)
	}
	if n := total(t, db); n != bound+1 {
		t.Errorf("%d rows stored; want %d (the refused one not among them)", n, bound+1)
	}
	if rows, _ := db.FindEvents(context.Background(), "T3stEvtOver001"); len(rows) != 0 {
		t.Errorf("the refused webhook was stored: %+v", rows)
	}
	overloaded := connector.MetricWebhooks + `{event="unknown",outcome="overloaded"}`
	if got := metric(t, c, overloaded); got != "1" {
		t.Errorf("%s = %s; want 1", overloaded, got)
	}
}
