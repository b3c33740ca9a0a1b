package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// Reconcile is measurement (6): one `reconcile --dry-run` over Payments captured payments in
// the Razorpay simulator, all of them booked, then with 1 % unbooked. A dry run lists what it
// would queue without booking it: booking the 1 % would measure ERPNext, not the sweep.
type Reconcile struct {
	Payments  int           `json:"payments"`
	DryRun    bool          `json:"dry_run"`
	Runs      int           `json:"runs"`
	AllBooked ReconcileCase `json:"all_booked"`
	Unbooked  ReconcileCase `json:"one_percent_unbooked"`
	Note      string        `json:"note"`
}

// ReconcileCase is one case's median wall time and peak resident set of the reconcile process.
type ReconcileCase struct {
	Unbooked   int     `json:"unbooked"`
	Seconds    float64 `json:"seconds"`
	PeakRSSMiB float64 `json:"peak_rss_mib"` // VmHWM of the reconcile process, read every 20 ms
	PerPayment float64 `json:"ms_per_payment"`
}

const reconcileNote = "bookings are seeded straight into the store, created 30 days before the run, so the " +
	"audit of booked entries against ERPNext (which holds none of them) leaves them out; the sweep looks " +
	"every payment up in the store as it would"

// measureReconcile runs (6) on e.
func (b *bench) measureReconcile(ctx context.Context, e *engine) (Reconcile, error) {
	out := Reconcile{Payments: b.reconcileN, DryRun: true, Runs: b.runs, Note: reconcileNote}
	for _, every := range []int{0, 100} {
		var secs, rss []float64
		unbooked := 0
		for run := 1; run <= b.runs; run++ {
			s, peak, n, err := b.reconcileRun(ctx, e, every)
			if err != nil {
				return out, fmt.Errorf("reconcile run %d (unbooked 1 in %d): %w", run, every, err)
			}
			b.progress("reconcile %d payments, %d unbooked, run %d/%d: %.1f s, peak RSS %.1f MiB", b.reconcileN, n, run, b.runs, s, peak)
			secs, rss, unbooked = append(secs, s), append(rss, peak), n
		}
		c := ReconcileCase{Unbooked: unbooked, Seconds: round3(median(secs)), PeakRSSMiB: round3(median(rss))}
		c.PerPayment = round3(c.Seconds * 1000 / float64(b.reconcileN))
		if every == 0 {
			out.AllBooked = c
		} else {
			out.Unbooked = c
		}
	}
	return out, nil
}

// reconcileRun seeds the Razorpay simulator (in this process) with the payments and the store
// with bookings of all but every `every`-th (none when 0), runs one reconcile as its own
// process and checks its report. It returns the wall time in seconds, the peak RSS in MiB and
// the number left unbooked.
func (b *bench) reconcileRun(ctx context.Context, e *engine, every int) (float64, float64, int, error) {
	sim := razorpaysim.New(razorpaysim.Options{KeyID: razorpayKeyID, KeySecret: b.erpSecret, AccountID: benchAccount})
	defer sim.Close()
	ids, err := sim.Seed(razorpaysim.SeedSpec{Count: b.reconcileN, Invoice: "BENCH-SINV-{n:7}"})
	if err != nil {
		return 0, 0, 0, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, 0, err
	}
	srv := &http.Server{Handler: sim, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(l)
	defer srv.Close()
	erp, err := b.startERPNext(ctx, nil, 0)
	if err != nil {
		return 0, 0, 0, err
	}
	defer erp.stop()
	db, err := e.fresh(ctx)
	if err != nil {
		return 0, 0, 0, err
	}
	defer db.drop()
	unbooked, err := seedBookings(ctx, db, ids, every)
	if err != nil {
		return 0, 0, 0, err
	}
	spec := daemonSpec{db: db, erpURL: erp.url, razorpayURL: "http://" + l.Addr().String()}
	path, err := spec.writeConfig(b.dir)
	if err != nil {
		return 0, 0, 0, err
	}
	var stdout bytes.Buffer
	tail := &tailLines{max: 40}
	cmd := exec.CommandContext(ctx, b.bin, "reconcile", "--config", path, "--dry-run", "--json")
	cmd.Env = append(os.Environ(), b.env(spec)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Stdout, cmd.Stderr = &stdout, lineWriter{tail}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, err
	}
	hwm := watchHWM(cmd.Process.Pid)
	err = cmd.Wait()
	secs := time.Since(start).Seconds()
	peak := round3(float64(hwm()) / 1024)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("reconcile: %v\n%s", err, tail)
	}
	// The parts of `reconcile --json`'s report (README "Reconcile") the check needs.
	var rep struct {
		Payments struct {
			Scanned       int `json:"scanned"`
			AlreadyBooked int `json:"already_booked"`
			Queued        int `json:"queued"`
		} `json:"payments"`
		Queued []json.RawMessage `json:"queued"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		return 0, 0, 0, fmt.Errorf("reconcile report: %w", err)
	}
	p := rep.Payments
	if p.Scanned != b.reconcileN || p.AlreadyBooked != b.reconcileN-unbooked || p.Queued != unbooked || len(rep.Queued) != unbooked {
		return 0, 0, 0, fmt.Errorf("reconcile report: scanned %d, already booked %d, would queue %d (%d listed); want %d, %d, %d",
			p.Scanned, p.AlreadyBooked, p.Queued, len(rep.Queued), b.reconcileN, b.reconcileN-unbooked, unbooked)
	}
	return round3(secs), peak, unbooked, nil
}

// seedBookings writes a booked row for each id but every `every`-th (none skipped when 0), in
// multi-row INSERTs of 1,000, and returns how many it left out.
func seedBookings(ctx context.Context, db *database, ids []string, every int) (int, error) {
	s, err := store.Open(ctx, db.Driver, db.DSN)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	at := time.Now().UTC().Add(-30 * 24 * time.Hour).Truncate(time.Microsecond)
	var ts any = at
	if db.Driver == store.DriverSQLite {
		ts = at.Format("2006-01-02 15:04:05.000000")
	}
	skipped := 0
	var rows []string
	var args []any
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		_, err := s.SQL().ExecContext(ctx, `INSERT INTO bookings (business_key, kind, state, owner, fence_until, doctype, name,
			amount_minor, currency, invoice, created_at, updated_at) VALUES `+strings.Join(rows, ", "), args...)
		rows, args = rows[:0], args[:0]
		return err
	}
	for i, id := range ids {
		if every > 0 && i%every == every-1 {
			skipped++
			continue
		}
		rows = append(rows, "(?, 'receipt', 'booked', 'benchmark', ?, 'Payment Entry', ?, 50000, 'INR', ?, ?, ?)")
		args = append(args, id, ts, fmt.Sprintf("ACC-PAY-BENCH-%07d", i+1), fmt.Sprintf("BENCH-SINV-%07d", i+1), ts, ts)
		if len(rows) == 1000 {
			if err := flush(); err != nil {
				return 0, fmt.Errorf("seed bookings: %w", err)
			}
		}
	}
	if err := flush(); err != nil {
		return 0, fmt.Errorf("seed bookings: %w", err)
	}
	return skipped, nil
}

// watchHWM reads VmHWM of pid every 20 ms until the returned function is called (after the
// process has exited), which returns the last value read, in KiB. The kernel's rusage
// ru_maxrss cannot be used: the child is forked from this process and starts its count
// from this process's own resident set. Only a process of the same name counts, so a pid
// reused after the exit is not read.
func watchHWM(pid int) func() int {
	path := fmt.Sprintf("/proc/%d/status", pid)
	name := procField(path, "Name")
	var last atomic.Int64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			if kib := procKiB(path, "VmHWM"); kib > 0 && procField(path, "Name") == name {
				last.Store(int64(kib))
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() int {
		close(stop)
		<-done
		return int(last.Load())
	}
}

// lineWriter feeds written bytes to a tailLines, line by line.
type lineWriter struct{ t *tailLines }

func (w lineWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if line != "" {
			w.t.add(line)
		}
	}
	return len(p), nil
}
