// Command chaos is the connector's reliability proof (README "Reliability"): two `serve`
// replicas of the connector on one MariaDB (or, with --driver postgres, PostgreSQL) database on
// a server of the run's own, the ERPNext simulator behind a fault proxy, the Razorpay
// simulator's API, signed webhooks with duplicates and reordering, kill -9 of replicas and of
// the database server, a reconcile at the end, and the books checked against the simulators'
// ground truth.
//
//	go run ./cmd/chaos --json [--driver mysql|postgres] [--payments N] [--seed S]
//
// It prints one JSON object (--json) or a summary, and exits 1 on any violation, 2 on a usage
// error.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

func main() {
	os.Exit(mainWith(os.Args[1:], os.Stdout, os.Stderr))
}

func mainWith(args []string, stdout, stderr io.Writer) int {
	opt := DefaultOptions()
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object")
	fs.StringVar(&opt.Driver, "driver", opt.Driver, "the database the replicas share: mysql (MariaDB) or postgres (PostgreSQL)")
	fs.IntVar(&opt.Payments, "payments", opt.Payments, "captured payments to book")
	fs.Uint64Var(&opt.Seed, "seed", opt.Seed, "seed of the scenario and of every random choice")
	fs.IntVar(&opt.Workers, "workers", opt.Workers, "workers per replica")
	fs.DurationVar(&opt.KillEvery, "kill-every", opt.KillEvery, "kill -9 a replica this often (±20 %)")
	fs.DurationVar(&opt.SendSpan, "send-span", 0, "spread the webhooks over this long (default 60 ms per payment, at least 20 s)")
	fs.DurationVar(&opt.Timeout, "timeout", 0, "give up after this long (default 10 min + 0.5 s per payment)")
	fs.StringVar(&opt.Bin, "bin", "", "a built razorpay-erpnext binary (default: go build one)")
	fs.StringVar(&opt.Dir, "dir", "", "run directory, kept afterwards (default: a temporary one, removed)")
	fs.BoolVar(&opt.Keep, "keep", false, "keep the temporary run directory (logs, configs, datadir)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of this process (the simulators, proxy and sender) to FILE")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || opt.Payments < 1 || opt.Workers < 1 || opt.KillEvery <= 0 {
		fmt.Fprintln(stderr, "chaos: usage: chaos [--json] [--driver mysql|postgres] [--payments N ≥ 1] [--seed S] [--workers N] [--kill-every D]")
		return 2
	}
	if err := haveDatabase(opt.Driver); err != nil {
		return fail(stdout, stderr, *asJSON, err)
	}
	opt.Progress = stderr
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fail(stdout, stderr, *asJSON, err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fail(stdout, stderr, *asJSON, err)
		}
		defer pprof.StopCPUProfile()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := Run(ctx, opt)
	if err != nil {
		return fail(stdout, stderr, *asJSON, err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		printSummary(stdout, rep)
	}
	if !rep.OK {
		return 1
	}
	return 0
}

// fail reports a run that could not be carried out.
func fail(stdout, stderr io.Writer, asJSON bool, err error) int {
	if asJSON {
		_ = json.NewEncoder(stdout).Encode(map[string]any{"ok": false, "error": err.Error(), "exit_code": 1})
	}
	fmt.Fprintln(stderr, "chaos:", err)
	return 1
}

func printSummary(w io.Writer, rep *Report) {
	b := rep.Figures.Books
	fmt.Fprintf(w, "payments %d, refunds %d, webhooks %d (duplicates %d), replica kills %d, %s kills %d\n",
		rep.Figures.Scenario.Payments, rep.Figures.Scenario.Refunds, rep.Figures.Timeline.Deliveries,
		rep.Figures.Timeline.Duplicates, rep.Figures.Kills.Replica, rep.Settings.Driver,
		rep.Figures.Kills.MariaDB+rep.Figures.Kills.Postgres)
	fmt.Fprintf(w, "receipts booked %d/%d, refunds booked %d/%d, parked (no credit note) %d\n",
		b.ReceiptsBooked, b.ReceiptsExpected, b.RefundsBooked, b.RefundsExpected, b.RefundsParked)
	fmt.Fprintf(w, "duplicate entries %d, missing %d, amount difference %s\n", b.DuplicateEntries, b.Missing, razorpay.INR(int64(b.AmountDifference)).Decimal())
	if rep.OK {
		fmt.Fprintln(w, "ok")
		return
	}
	for _, v := range rep.Violations {
		fmt.Fprintln(w, "violation:", v)
	}
}
