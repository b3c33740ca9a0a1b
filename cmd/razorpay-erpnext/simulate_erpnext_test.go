package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
)

// startERPNextSim runs `simulate erpnext --listen 127.0.0.1:0 --api-key k --api-secret s` with
// the extra args and returns its base URL and a stop function giving the exit code.
func startERPNextSim(t *testing.T, args ...string) (base string, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	m := &Main{Stdout: out, Stderr: out, Getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() {
		done <- m.Run(ctx, append([]string{"simulate", "erpnext", "--listen", "127.0.0.1:0", "--api-key", "k", "--api-secret", "s"}, args...))
	}()
	stop = func() int { cancel(); return <-done }
	if testtime.Poll(testtime.Bound, func() bool { return strings.Contains(out.String(), "http://") }) {
		s := out.String()
		base = strings.Fields(s[strings.Index(s, "http://"):])[0]
	} else {
		stop()
		t.Fatalf("no address printed: %q", out.String())
	}
	return base, stop
}

func simGet(t *testing.T, url string) (int, time.Duration) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "token k:s")
	start := time.Now()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode, time.Since(start)
}

// TestSimulateERPNextProfileAndRoles: --profile real-v15 serves a Payment Entry list in no less
// than the recorded 48 ms; the API user has Accounts User + Sales User unless --api-roles says
// otherwise (Integration Requests: 403, then 200 as a System Manager); an unknown profile is a
// usage error.
func TestSimulateERPNextProfileAndRoles(t *testing.T) {
	t.Parallel()
	base, stop := startERPNextSim(t, "--profile", "real-v15")
	if st, took := simGet(t, base+"/api/resource/Payment%20Entry"); st != 200 || took < 48*time.Millisecond {
		t.Errorf("list: %d in %v, want 200 in at least 48ms", st, took)
	}
	if st, _ := simGet(t, base+"/api/resource/Integration%20Request"); st != 403 {
		t.Errorf("Integration Request list as Accounts User + Sales User: %d, want 403", st)
	}
	if code := stop(); code != exitOK {
		t.Errorf("exit %d", code)
	}
	base, stop = startERPNextSim(t, "--api-roles", "Accounts User, Sales User, System Manager")
	if st, _ := simGet(t, base+"/api/resource/Integration%20Request"); st != 200 {
		t.Errorf("Integration Request list as a System Manager: %d, want 200", st)
	}
	stop()
	if code, _, _ := run(t, nil, "simulate", "erpnext", "--listen", "127.0.0.1:0", "--api-key", "k", "--api-secret", "s", "--profile", "real-v99"); code != exitUsage {
		t.Errorf("unknown profile: exit %d, want 2", code)
	}
}
