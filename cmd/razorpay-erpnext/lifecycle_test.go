package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// serveProcess is `razorpay-erpnext serve` running as a real process.
type serveProcess struct {
	cmd  *exec.Cmd
	addr string // public listener
	logs *syncBuffer
	done chan error
}

func startServe(t *testing.T, bin, config string, envs map[string]string) *serveProcess {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--config", config)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), runAsCommand + "=1"}
	for k, v := range envs {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serveProcess{cmd: cmd, logs: &syncBuffer{}, done: make(chan error, 1)}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			p.logs.Write([]byte(line + "\n"))
			var l struct{ Message, Listen string }
			if json.Unmarshal([]byte(line), &l) == nil && l.Message == "serving" {
				addr <- l.Listen
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	select {
	case p.addr = <-addr:
	case err := <-p.done:
		t.Fatalf("serve exited at start: %v\n%s", err, p.logs.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("serve did not start\n%s", p.logs.String())
	}
	return p
}

// stop sends SIGTERM and waits for a clean exit.
func (p *serveProcess) stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.done:
		if err != nil {
			t.Fatalf("serve after SIGTERM: %v\n%s", err, p.logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not stop after SIGTERM\n%s", p.logs.String())
	}
}

// SIGTERM in the middle of a burst of webhooks: the process exits 0, and after a restart on the
// same store every webhook that was answered "accepted" is booked exactly once. The burst is
// sent one webhook after another; SIGTERM goes out once a third of them have been accepted
// (bookings are then in flight) while the rest keep coming.
func TestSIGTERMDuringBurstLosesNothing(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	e := newEnv(t, "sqlite")
	const n = 24
	invoices := make([]string, n)
	for i := range invoices {
		inv, err := e.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true,
			Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "12000.00"}}})
		if err != nil {
			t.Fatal(err)
		}
		invoices[i] = inv
	}
	e.site.SetLatency(40 * time.Millisecond) // bookings are in flight when SIGTERM arrives
	cfg := e.config()
	path, envs := e.writeConfig(cfg, "")
	p := startServe(t, bin, path, envs)

	var mu sync.Mutex
	accepted := map[string]string{} // event id → payment id
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(accepted) }
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := 0; i < n; i++ {
			pay, evt := fmt.Sprintf("pay_T3stLife%06d", i), fmt.Sprintf("T3stEvLife%04d", i)
			body := e.payment("payment.captured", pay, 1200000, map[string]string{"invoice": invoices[i]})
			status, err := deliver(context.Background(), "http://"+p.addr+cfg.WebhookPath, evt, razorpay.Sign(testWebhook, body), body)
			if err == nil && (status == "accepted" || status == "duplicate") {
				mu.Lock()
				accepted[evt] = pay
				mu.Unlock()
			}
		}
	}()
	testtime.Until(t, "a third of the burst accepted", func() bool { return count() >= n/3 })
	p.stop(t)
	<-sent
	t.Logf("accepted %d of %d webhooks before the process stopped listening", len(accepted), n)
	if !strings.Contains(p.logs.String(), `"stopped"`) {
		t.Errorf("no orderly stop in the logs:\n%s", p.logs.String())
	}

	p = startServe(t, bin, path, envs)
	db, err := store.Open(context.Background(), cfg.Database.Driver, cfg.Database.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := waitIdle(context.Background(), db, testtime.Bound); err != nil {
		t.Fatalf("%v\n%s", err, p.logs.String())
	}
	for evt, pay := range accepted {
		rows, err := db.FindEvents(context.Background(), evt)
		if err != nil || len(rows) != 1 || rows[0].Status != connector.StatusDone {
			t.Errorf("accepted event %s: %+v %v, want one done row", evt, rows, err)
		}
		if sub, other := e.entries(pay); len(sub) != 1 || len(other) != 0 {
			t.Errorf("payment %s: %d submitted entries, %d other; want 1, 0", pay, len(sub), len(other))
		}
	}
	p.stop(t)
}
