package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/console"
)

// A proxy answers ERPNext's get_balance_on 429 with `Retry-After: 86400`: the Today page (GET /
// on the admin port) still answers at once, its clearing balance "not available: ERPNext asked
// to slow down, N s left" and the ERPNext fault line saying the same, with the day it asked for
// capped at erpnext.max_retry_after. Before, the page's call had no deadline and waited out the
// whole pause.
func TestTodayAnswersWhileERPNextAsksForAPause(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	settlementSite(e)
	var throttled atomic.Int32
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "get_balance_on") && throttled.Add(1) == 1 {
			w.Header().Set("Retry-After", "86400")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"exc_type":"TooManyRequestsError"}`))
			return
		}
		e.site.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	cfg := e.config()
	settlementTune(&cfg)
	cfg.ERPNext.URL = front.URL
	rzp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"entity":"collection","count":0,"items":[]}`))
	}))
	t.Cleanup(rzp.Close)
	cfg.Razorpay.KeyID, cfg.Razorpay.KeySecret, cfg.Razorpay.APIURL = "rzp_test_T3stSlowDown01", "T3stSlowDownSecret", rzp.URL
	cfg.AdminToken = testAdminToken
	d := e.start(cfg)

	pause := regexp.MustCompile(`ERPNext asked to slow down, (\d+) s left \(it asked for 24h0m0s; erpnext.max_retry_after caps the wait\)`)
	client := &http.Client{Timeout: 30 * time.Second}
	for i := 1; i <= 2; i++ { // the call that gets the 429, then one inside the pause
		req, _ := http.NewRequest("GET", "http://"+d.adm.Addr().String()+"/", nil)
		req.Header.Set("Authorization", "Bearer "+testAdminToken)
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET / #%d: %v (the page waited for ERPNext's pause)", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || time.Since(start) > todayCallTimeout+5*time.Second {
			t.Fatalf("GET / #%d: %d after %v", i, resp.StatusCode, time.Since(start))
		}
		page := strings.ReplaceAll(string(body), "&#39;", "'")
		m := pause.FindAllStringSubmatch(page, -1)
		// The first page reads the fault line before the call that gets the 429.
		if len(m) != i || !strings.Contains(page, "not available: ERPNext asked to slow down") {
			t.Fatalf("GET / #%d: want the pause on the clearing balance (and from the second page on the fault line), got %q", i, m)
		}
		if left, _ := strconv.Atoi(m[0][1]); left < 240 || left > 301 {
			t.Errorf("GET / #%d: %d s left, want the 300 s cap (+ its jitter), not a day", i, left)
		}
	}
	if n := throttled.Load(); n != 1 {
		t.Errorf("get_balance_on reached the site %d times, want once (the second page waits for nobody)", n)
	}
	today, err := newConsoleBackend(context.Background(), d, time.UTC).Today(context.Background())
	if err != nil || today.Faults[0].State != console.FaultDown {
		t.Errorf("Today: %v, faults %+v", err, today.Faults)
	}
}
