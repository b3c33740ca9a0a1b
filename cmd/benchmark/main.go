// Command benchmark measures the connector against this machine's own limits:
// durable inserts of the database, intake against a floor server doing only HMAC and one
// INSERT, acknowledgement times on a clock at 1,000 webhooks/s (also with a slow ERPNext and
// overloaded), booking throughput against a real-v15 latency profile compared with a minimal
// direct client, and one reconcile of 100,000 payments. Every figure is the median of several
// runs; the output names the machine and the settings.
//
//	go run ./cmd/benchmark [--json] [--short] [--mariadb-dsn DSN] [--only LIST] [--reconcile-payments N]
//
// MariaDB comes from --mariadb-dsn or TEST_MARIADB_DSN (a database is created per run and
// dropped after); SQLite files live in a temporary directory. The daemon, the ERPNext
// simulator and the floor server each run as their own process, so memory figures are theirs.
// Missed targets are reported, not failed: the exit code is 0 unless a measurement could not
// be made (1) or the flags are wrong (2).
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"
)

// bench holds the settings of one benchmark and what its measurements share.
type bench struct {
	short         bool
	runs          int
	concurrencies []int
	closedFor     time.Duration // each closed-loop measurement
	warmFor       time.Duration // closed-loop warm-up before it, not counted
	openWarmFor   time.Duration // open-loop warm-up at the rate, not counted
	rate          float64       // (3)
	rateFor       time.Duration
	slowDelay     time.Duration // (4)
	overloadRate  float64
	overloadFor   time.Duration
	maxInFlight   int
	bookings      int // (5)
	oneInvoice    int
	reconcileN    int       // (6)
	variants      []variant // the daemons (2) and (3) compare; the first is the tree measured

	bin       string // razorpay-erpnext
	self      string // this program (the floor server)
	dir       string // temporary files
	secret    string // webhook secret
	erpSecret string // API secrets of the simulators
	log       io.Writer
	started   time.Time
}

// progress reports a step on the log (stderr), with the time since the benchmark started.
func (b *bench) progress(format string, a ...any) {
	fmt.Fprintf(b.log, "benchmark %5.1fs: "+format+"\n", append([]any{time.Since(b.started).Seconds()}, a...)...)
}

// measurements that --only may name.
var measurements = []string{"intake", "fixed", "slow", "overload", "booking", "reconcile"}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "floor" {
		if err := runFloor(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "benchmark floor:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchmark", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object instead of the table")
	short := fs.Bool("short", false, "small sizes and one run each: under a minute, for CI")
	dsn := fs.String("mariadb-dsn", os.Getenv("TEST_MARIADB_DSN"), "MariaDB server (go-sql-driver DSN); default TEST_MARIADB_DSN")
	bin := fs.String("bin", "", "razorpay-erpnext binary to measure; default: go build ./cmd/razorpay-erpnext")
	runs := fs.Int("runs", 0, "runs per figure (median); default 3, 1 with --short")
	only := fs.String("only", strings.Join(measurements, ","), "measurements to run: "+strings.Join(measurements, ","))
	noSQLite := fs.Bool("no-sqlite", false, "leave SQLite out of (1)-(3)")
	reconcileN := fs.Int("reconcile-payments", 0, "captured payments in (6); default 100000, 2000 with --short")
	table := fs.String("table", "", "print the table of a report saved with --json from FILE; measure nothing")
	before := fs.String("before", "", "also measure (2) and (3) on ./cmd/razorpay-erpnext built at this git revision, as it is and with worker.intake_first_above 0, alternating with the tree measured")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *table != "" {
		return printSaved(*table, stdout, stderr)
	}
	chosen := strings.Split(*only, ",")
	for _, m := range chosen {
		if !slices.Contains(measurements, m) {
			fmt.Fprintf(stderr, "benchmark: --only: unknown measurement %q (want %s)\n", m, strings.Join(measurements, ","))
			return 2
		}
	}
	if *dsn == "" {
		fmt.Fprintln(stderr, "benchmark: no MariaDB: set TEST_MARIADB_DSN or --mariadb-dsn (e.g. root@tcp(127.0.0.1:3306)/x?parseTime=true)")
		return 2
	}
	if *reconcileN < 0 || *reconcileN > 0 && *reconcileN < 100 {
		fmt.Fprintln(stderr, "benchmark: --reconcile-payments: want at least 100 (1 % of them are left unbooked)")
		return 2
	}
	b := newBench(*short, *runs, stderr)
	if *reconcileN > 0 {
		b.reconcileN = *reconcileN
	}
	rep, err := b.run(ctx, *dsn, *bin, *before, !*noSQLite, chosen)
	if rep != nil {
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			_ = enc.Encode(rep)
		} else {
			rep.printTable(stdout)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "benchmark:", err)
		return 1
	}
	return 0
}

// printSaved prints the table of a report saved with --json.
func printSaved(path string, stdout, stderr io.Writer) int {
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(stderr, "benchmark:", err)
		return 1
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		fmt.Fprintf(stderr, "benchmark: %s: %v\n", path, err)
		return 1
	}
	rep.printTable(stdout)
	return 0
}

// newBench returns the full sizes, or the --short ones.
func newBench(short bool, runs int, log io.Writer) *bench {
	b := &bench{short: short, runs: 3, concurrencies: []int{1, 8, 32}, closedFor: 5 * time.Second, warmFor: 500 * time.Millisecond,
		openWarmFor: time.Second,
		rate:        1000, rateFor: 10 * time.Second, slowDelay: 2 * time.Second, overloadRate: 8000, overloadFor: 5 * time.Second,
		maxInFlight: 4096, bookings: 300, oneInvoice: 20, reconcileN: 100_000, log: log, started: time.Now()}
	if short {
		b.runs, b.closedFor, b.warmFor, b.openWarmFor = 1, 300*time.Millisecond, 100*time.Millisecond, 300*time.Millisecond
		b.rateFor, b.overloadRate, b.overloadFor = time.Second, 4000, 700*time.Millisecond
		b.bookings, b.oneInvoice, b.reconcileN = 3, 2, 2000
	}
	if runs > 0 {
		b.runs = runs
	}
	b.secret, b.erpSecret = randomHex(16), randomHex(16)
	return b
}

func randomHex(n int) string {
	buf := make([]byte, n)
	_, _ = rand.Read(buf)
	return hex.EncodeToString(buf)
}

// run makes the chosen measurements and returns the report (also, with the error, when one
// of them failed: what was measured until then).
func (b *bench) run(ctx context.Context, dsn, bin, before string, withSQLite bool, chosen []string) (*Report, error) {
	rep := &Report{Machine: describeMachine(), Intake: map[string][]IntakePoint{}, FixedRate: map[string]FixedRate{}}
	dir, err := os.MkdirTemp("", "rpe-benchmark-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	b.dir = dir
	if b.self, err = os.Executable(); err != nil {
		return nil, err
	}
	if b.bin = bin; b.bin == "" {
		b.progress("building ./cmd/razorpay-erpnext")
		if b.bin, err = buildDaemon(ctx, dir); err != nil {
			return nil, err
		}
	}
	b.variants = []variant{{bin: b.bin}}
	if before != "" {
		b.progress("building ./cmd/razorpay-erpnext at %s", before)
		vs, err := beforeVariants(ctx, dir, before)
		if err != nil {
			return nil, err
		}
		b.variants = append(b.variants, vs...)
	}
	maria, version, err := newMariaDB(ctx, dsn)
	if err != nil {
		return nil, err
	}
	rep.Machine.MariaDBServer = version
	engines := []*engine{maria}
	if withSQLite {
		engines = append(engines, newSQLite(dir))
	}
	rep.Settings = b.settings(engines)
	err = b.measure(ctx, rep, engines, chosen)
	rep.Machine.LoadAvgEnd = loadAverage()
	rep.headline()
	return rep, err
}

// measure runs the chosen measurements in order, stopping at the first that fails.
func (b *bench) measure(ctx context.Context, rep *Report, engines []*engine, chosen []string) error {
	want := func(m string) bool {
		if slices.Contains(chosen, m) {
			return true
		}
		rep.NotRun = append(rep.NotRun, m+": not chosen (--only)")
		return false
	}
	maria := engines[0]
	if want("intake") {
		for _, e := range engines {
			byVariant, err := b.measureIntake(ctx, e)
			if err != nil {
				return err
			}
			maps.Copy(rep.Intake, byVariant)
		}
	}
	if want("fixed") {
		for _, e := range engines {
			if b.short && e != maria {
				rep.NotRun = append(rep.NotRun, "fixed rate on "+e.Name+": --short")
				continue
			}
			fs, err := b.measureFixedRate(ctx, e, fixedCase{"1,000/s", b.rate, b.rateFor, 0}, b.variants, !b.short)
			if err != nil {
				return err
			}
			for i, v := range b.variants {
				rep.FixedRate[v.label(e.Name)] = fs[i]
			}
		}
	}
	if want("slow") {
		fs, err := b.measureFixedRate(ctx, maria, fixedCase{"slow ERPNext", b.rate, b.rateFor, b.slowDelay}, b.variants[:1], false)
		if err != nil {
			return err
		}
		rep.SlowERPNext = &fs[0]
	}
	if want("overload") {
		fs, err := b.measureFixedRate(ctx, maria, fixedCase{"overloaded", b.overloadRate, b.overloadFor, 0}, b.variants[:1], false)
		if err != nil {
			return err
		}
		rep.Overloaded = &fs[0]
	}
	if want("booking") {
		bk, err := b.measureBooking(ctx, maria)
		if err != nil {
			return err
		}
		rep.Booking = &bk
	}
	if want("reconcile") {
		rc, err := b.measureReconcile(ctx, maria)
		if err != nil {
			return err
		}
		rep.Reconcile = &rc
	}
	return nil
}

func (b *bench) settings(engines []*engine) Settings {
	s := Settings{Short: b.short, Runs: b.runs, Concurrencies: b.concurrencies, ClosedLoopSeconds: b.closedFor.Seconds(),
		DuplicateShare: 0.12, FixedRatePerS: b.rate, FixedRateSeconds: b.rateFor.Seconds(), SlowERPNextDelayMs: ms(b.slowDelay),
		OverloadRatePerS: b.overloadRate, OverloadSeconds: b.overloadFor.Seconds(), ClientMaxInFlight: b.maxInFlight,
		BookingPayments: b.bookings, OneInvoicePayments: b.oneInvoice, ReconcilePayments: b.reconcileN,
		Workers: "razorpay-erpnext serve as its own process: workers 4, erpnext.max_concurrency 4, log level info (JSON)"}
	for _, e := range engines {
		s.Engines = append(s.Engines, e.Name)
	}
	return s
}
