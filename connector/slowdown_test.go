package connector_test

import (
	"bytes"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// A proxy answering one ERPNext call 429 with `Retry-After: 86400` does not stop booking for a
// day: the client honours erpnext.max_retry_after (5 min by default), the event is due again
// within that plus a quarter, last_error and the log say the hint was capped, and the pause
// left is visible (SlowDowns, razorpay_erpnext_throttle_seconds_left) and counted
// (razorpay_erpnext_retry_after_capped_total).
func TestLongRetryAfterIsCappedForTheEvent(t *testing.T) {
	var once atomic.Bool
	var logs bytes.Buffer
	r := newRig(t, withLog(&logs), withFront(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if once.CompareAndSwap(false, true) {
				w.Header().Set("Retry-After", "86400")
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = w.Write([]byte("<html>429 Too Many Requests</html>"))
				return
			}
			next.ServeHTTP(w, req)
		})
	}))
	r.deliver("E1", captured(t, "pay_T3stCapped001", 50000, r.invoice("Test Customer", "1000.00"), nil))
	r.work()
	e := r.want("E1", connector.StatusPending, "not now: ", "ERPNext 429", "asked to wait 24h0m0s, honoured 5m0s (erpnext.max_retry_after); no attempt spent")
	if wait := e.NextAttemptAt.Sub(r.clock.now()); e.Attempts != 0 || wait < 5*time.Minute || wait > 375*time.Second {
		t.Fatalf("attempts %d, next in %s; want none spent and 5 min plus at most a quarter, not 24 h", e.Attempts, wait)
	}
	sd := r.conn.SlowDowns()
	if len(sd) != 1 || sd[0].System != connector.SystemERPNext || !sd[0].Active() || sd[0].Left > 5*time.Minute+time.Second ||
		sd[0].Left < 4*time.Minute || sd[0].Capped != 1 || sd[0].Asked != 24*time.Hour {
		t.Fatalf("SlowDowns %+v: want ERPNext paused ≤ 5 min, capped once, asked 24h", sd)
	}
	if left := gauge(t, r.conn, connector.MetricThrottleSecondsLeft); left < 240 || left > 301 {
		t.Errorf("%s = %v, want the ≤ 300 s left", connector.MetricThrottleSecondsLeft, left)
	}
	if n := counterValue(t, r.conn, connector.MetricRetryAfterCapped); n != 1 {
		t.Errorf("%s = %v, want 1", connector.MetricRetryAfterCapped, n)
	}
	if !strings.Contains(logs.String(), `"message":"Retry-After longer than erpnext.max_retry_after: capped"`) {
		t.Errorf("no log line for the capped Retry-After:\n%s", logs.String())
	}
}
