package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// startRazorpaySim runs `simulate razorpay --listen 127.0.0.1:0 --key-id k --key-secret s`
// with the extra args and returns its address and a stop function giving the exit code.
func startRazorpaySim(t *testing.T, args ...string) (addr string, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	m := &Main{Stdout: out, Stderr: out, Getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() {
		done <- m.Run(ctx, append([]string{"simulate", "razorpay", "--listen", "127.0.0.1:0", "--key-id", "k", "--key-secret", "s"}, args...))
	}()
	stop = func() int { cancel(); return <-done }
	if testtime.Poll(testtime.Bound, func() bool { return strings.Contains(out.String(), "http://") }) {
		s := out.String()
		addr = strings.Fields(s[strings.Index(s, "http://"):])[0]
	} else {
		stop()
		t.Fatalf("no address printed: %q", out.String())
	}
	return addr, stop
}

// TestSimulateRazorpaySeedsAndSettles: --seed-payments fills the account before it serves,
// with the --seed-invoice pattern, and POST /__sim/settlements settles them.
func TestSimulateRazorpaySeedsAndSettles(t *testing.T) {
	t.Parallel()
	addr, stop := startRazorpaySim(t, "--seed-payments", "250", "--seed-invoice", "ACC-SINV-2026-{n:5}")
	defer stop()
	client, _ := razorpay.NewClient(razorpay.ClientConfig{BaseURL: addr, KeyID: "k", KeySecret: "s"})
	ctx := context.Background()
	invoices := map[string]bool{}
	err := client.ListPayments(ctx, time.Time{}, time.Time{}, func(p *razorpay.Payment) error {
		if p.Status != "captured" || p.Amount != 50000 {
			t.Errorf("seeded payment %+v", p)
		}
		invoices[p.Notes["invoice"]] = true
		return nil
	})
	if err != nil || len(invoices) != 250 || !invoices["ACC-SINV-2026-00001"] || !invoices["ACC-SINV-2026-00250"] {
		t.Fatalf("listed %d distinct invoices: %v", len(invoices), err)
	}
	resp, err := http.Post(addr+"/__sim/settlements", "application/json", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("settle: %v %v", resp, err)
	}
	resp.Body.Close()
	var got []razorpay.Settlement
	if err := client.ListSettlements(ctx, time.Time{}, time.Time{}, func(s *razorpay.Settlement) error { got = append(got, *s); return nil }); err != nil ||
		len(got) != 1 || got[0].Amount != 250*(50000-1000) || got[0].UTR == "" {
		t.Errorf("settlements %+v: %v", got, err)
	}
	if code, _, _ := run(t, nil, "simulate", "razorpay", "--listen", "127.0.0.1:0", "--key-id", "k", "--key-secret", "s", "--seed-payments", "-1"); code != exitUsage {
		t.Errorf("negative --seed-payments: exit %d, want 2", code)
	}
}
