package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// runAsCommand, set to 1 in a process started from the test binary, makes TestMain run the
// command (main) instead of the tests: the process tests start `serve` that way, so they run
// the code under test built as the tests are (with -race when they are) and need no go build.
const runAsCommand = "RAZORPAY_ERPNEXT_TEST_RUN_AS_COMMAND"

// binary returns the program to start as `razorpay-erpnext` (with runAsCommand=1 in its
// environment): the test binary itself. Under -short the process tests are skipped.
func binary(t *testing.T) string {
	t.Helper()
	testtime.Long(t, "starts serve processes")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// Twenty different event ids for one payment (payment.captured and order.paid mixed) spread
// over two `serve` processes sharing one database, ERPNext answering slower than the event
// lease: one Payment Entry, one insert.
func TestTwentyEventsTwoServeProcesses(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	forEachDriver(t, func(t *testing.T, driver string) {
		e := newEnv(t, driver)
		e.site.SetLatency(200 * time.Millisecond)
		path, envs := e.writeConfig(e.config(), "worker: {lease: 150ms, poll: 50ms, backoff_base: 50ms, backoff_max: 500ms, fence_margin: 200ms}")
		procs := []*serveProcess{startServe(t, bin, path, envs), startServe(t, bin, path, envs)}
		var wg sync.WaitGroup
		for i := 0; i < 20; i++ {
			event := "payment.captured"
			if i%2 == 1 {
				event = "order.paid"
			}
			wg.Add(1)
			go func(i int, event string, p *serveProcess) {
				defer wg.Done()
				body := e.payment(event, "pay_T3stProc000001", 1200000, nil)
				status, err := deliver(context.Background(), "http://"+p.addr+"/webhooks/razorpay", fmt.Sprintf("T3stEvtProc%03d", i), razorpay.Sign(testWebhook, body), body)
				if err != nil || status != "accepted" {
					t.Errorf("event %d: %q %v", i, status, err)
				}
			}(i, event, procs[i%2])
		}
		wg.Wait()
		db, err := store.Open(context.Background(), driver, e.dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := waitIdle(context.Background(), db, testtime.Bound); err != nil {
			t.Fatalf("%v\n%s\n%s", err, procs[0].logs.String(), procs[1].logs.String())
		}
		for _, p := range procs {
			p.stop(t)
		}
		sub, other := e.entries("pay_T3stProc000001")
		if len(sub) != 1 || len(other) != 0 {
			t.Fatalf("Payment Entries: %d submitted, %d other; want exactly 1", len(sub), len(other))
		}
		inserts := countInserts(e)
		if inserts != 1 {
			t.Errorf("%d inserts reached ERPNext, want 1", inserts)
		}
		counts, _ := db.CountByStatus(context.Background())
		if counts[connector.StatusDone]+counts[connector.StatusDuplicate] != 20 {
			t.Errorf("inbox %v: want 20 rows done or duplicate", counts)
		}
		if got := amountMinor(t, e.invoiceField("outstanding_amount")); got != 0 {
			t.Errorf("outstanding %d", got)
		}
	})
}

// Two ₹600.00 payments for one ₹1,000.00 invoice at the same moment, each to its own `serve`
// process: allocations 600.00 and 400.00, 200.00 unallocated, never a negative outstanding.
func TestTwoPaymentsRaceOnTwoServeProcesses(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	forEachDriver(t, func(t *testing.T, driver string) {
		e := newEnv(t, driver)
		inv := e.newInvoice("Test Customer", "1000.00")
		e.site.SetLatency(30 * time.Millisecond)
		path, envs := e.writeConfig(e.config(), "worker: {poll: 50ms, backoff_base: 50ms, backoff_max: 500ms, fence_margin: 200ms}")
		procs := []*serveProcess{startServe(t, bin, path, envs), startServe(t, bin, path, envs)}
		var wg sync.WaitGroup
		for i, p := range procs {
			wg.Add(1)
			go func(i int, p *serveProcess) {
				defer wg.Done()
				body := envelope(t, "payment.captured", "payment", capture(fmt.Sprintf("pay_T3stProcRace%03d", i), 60000,
					map[string]any{"notes": map[string]any{"invoice": inv}}))
				if status, err := deliver(context.Background(), "http://"+p.addr+"/webhooks/razorpay", fmt.Sprintf("T3stEvtRace%03d", i),
					razorpay.Sign(testWebhook, body), body); err != nil || status != "accepted" {
					t.Errorf("payment %d: %q %v", i, status, err)
				}
			}(i, p)
		}
		wg.Wait()
		db, err := store.Open(context.Background(), driver, e.dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := waitIdle(context.Background(), db, testtime.Bound); err != nil {
			t.Fatal(err)
		}
		for _, p := range procs {
			p.stop(t)
		}
		allocs, unallocated := e.allocations()
		if len(allocs) != 2 || allocs[0]+allocs[1] != 100000 || (allocs[0] != 60000 && allocs[1] != 60000) || unallocated != 20000 {
			t.Errorf("allocations %v, unallocated %s; want 600.00 and 400.00 with 200.00 unallocated", allocs, formatPaise(unallocated))
		}
		if out := amountMinor(t, e.doc("Sales Invoice", inv)["outstanding_amount"]); out != 0 {
			t.Errorf("outstanding %s, want 0.00", formatPaise(out))
		}
	})
}
