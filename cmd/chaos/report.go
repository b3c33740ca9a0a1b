package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Report is the one JSON object `chaos --json` prints.
type Report struct {
	OK          bool     `json:"ok"`
	Violations  []string `json:"violations"`
	ChaosErrors []string `json:"chaos_errors"`
	Date        string   `json:"date"`
	Machine     machine  `json:"machine"`
	Settings    settings `json:"settings"`
	Figures     figures  `json:"figures"`
	Durations   struct {
		SetUp     float64 `json:"set_up_s"`
		Send      float64 `json:"send_s"`
		Drain     float64 `json:"drain_after_send_s"`
		Reconcile float64 `json:"reconcile_s"`
		Total     float64 `json:"total_s"`
	} `json:"durations"`
	RunDir string `json:"run_dir,omitempty"`

	scenario *scenario
	started  time.Time
}

// settings echo the options of the run.
type settings struct {
	Driver     string           `json:"driver"`
	Payments   int              `json:"payments"`
	Seed       uint64           `json:"seed"`
	Replicas   int              `json:"replicas"`
	Workers    int              `json:"workers_per_replica"`
	KillEveryS float64          `json:"replica_kill_every_s"`
	SendSpanS  float64          `json:"send_span_s"`
	Faults     proxyFaults      `json:"erpnext_faults"`
	Burst429   int              `json:"erpnext_429_burst_requests"`
	Scenario   scenarioSettings `json:"scenario"`
}

// figures are what happened and what the books say.
type figures struct {
	Scenario  scenarioCounts `json:"scenario"`
	Timeline  timelineCounts `json:"webhooks_planned"`
	Sender    senderCounts   `json:"webhooks_sent"`
	Proxy     proxyCounts    `json:"erpnext_proxy"`
	Kills     killCounts     `json:"kills"`
	Reconcile struct {
		ExitCode int            `json:"exit_code"`
		Payments map[string]int `json:"payments"` // reconcile --json's counts per sweep
		Refunds  map[string]int `json:"refunds"`
	} `json:"reconcile"`
	Books        checkReport      `json:"books"`
	Logs         logReport        `json:"logs"`
	ClaimRetries map[string]int64 `json:"claim_retries"`     // by reason, all replica processes
	Webhooks     map[string]int64 `json:"webhooks_received"` // by event and outcome, all replica processes
}

type killCounts struct {
	Replica         int   `json:"replica_kill9"`
	MariaDB         int64 `json:"mariadb_kill9"`            // on a MariaDB run
	Postgres        int64 `json:"postgres_kill9,omitempty"` // on a PostgreSQL run
	SlowRestarts    int64 `json:"restarts_needing_retries"`
	ReplicaRestarts int   `json:"replica_restarts"`
}

// scenarioCounts describe the scenario.
type scenarioCounts struct {
	Payments              int   `json:"payments"`
	Invoices              int   `json:"invoices"`
	MultiPaymentInvoices  int   `json:"invoices_with_several_payments"`
	OverpaidInvoices      int   `json:"invoices_overpaid"`
	UnderpaidInvoices     int   `json:"invoices_underpaid"`
	OrderPayments         int   `json:"payments_with_order"`
	ReceiptOnly           int   `json:"payments_invoice_only_in_order_receipt"`
	Lost                  int   `json:"payments_webhooks_lost"`
	Refunds               int   `json:"refunds"`
	RefundsWithCreditNote int   `json:"refunds_with_credit_note"`
	Gross                 money `json:"gross"`
	Fees                  money `json:"fees"`
	Refunded              money `json:"refunded"`
}

func describeScenario(sc *scenario) scenarioCounts {
	c := scenarioCounts{Payments: len(sc.Payments), Invoices: len(sc.Invoices), Refunds: len(sc.Refunds)}
	var gross, fees, refunded int64
	for _, inv := range sc.Invoices {
		var paid int64
		for _, p := range inv.Payments {
			paid += p.Amount
			gross += p.Amount
			fees += p.Fee
			c.OrderPayments += b2i(p.Order)
			c.ReceiptOnly += b2i(p.ReceiptOnly)
			c.Lost += b2i(p.Lost)
		}
		c.MultiPaymentInvoices += b2i(len(inv.Payments) > 1)
		c.OverpaidInvoices += b2i(paid > inv.Total)
		c.UnderpaidInvoices += b2i(paid < inv.Total)
	}
	for _, r := range sc.Refunds {
		refunded += r.Amount
		c.RefundsWithCreditNote += b2i(r.CreditNote)
	}
	c.Gross, c.Fees, c.Refunded = money(gross), money(fees), money(refunded)
	return c
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// machine describes where the run ran.
type machine struct {
	CPUs       int    `json:"cpus"`
	OS         string `json:"os"`
	Kernel     string `json:"kernel"`
	Go         string `json:"go"`
	MemoryMiB  int64  `json:"memory_mib"`
	LoadStart  string `json:"load_average_start"`
	LoadEnd    string `json:"load_average_end"`
	MariaDB    string `json:"mariadb"`
	Postgres   string `json:"postgres,omitempty"`
	CPUModel   string `json:"cpu_model"`
	Hostname   string `json:"hostname"`
	GoMaxProcs int    `json:"gomaxprocs"`
}

func newReport(opt Options) *Report {
	rep := &Report{started: time.Now(), Date: time.Now().UTC().Format(time.RFC3339), Violations: []string{}, ChaosErrors: []string{}}
	rep.Settings = settings{Driver: opt.Driver, Payments: opt.Payments, Seed: opt.Seed, Replicas: opt.Replicas, Workers: opt.Workers,
		KillEveryS: seconds(opt.KillEvery), SendSpanS: seconds(opt.SendSpan), Faults: opt.Faults, Burst429: opt.Burst429,
		Scenario: opt.Scenario}
	rep.Machine = machine{CPUs: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH, Go: runtime.Version(),
		GoMaxProcs: runtime.GOMAXPROCS(0), LoadStart: loadAverage(), MemoryMiB: memoryMiB(), CPUModel: cpuModel()}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		rep.Machine.Kernel = strings.TrimSpace(string(b))
	}
	rep.Machine.Hostname, _ = os.Hostname()
	if bin, err := postgresBin(); err == nil && opt.Driver == driverPostgres {
		if out, err := exec.Command(filepath.Join(bin, "postgres"), "--version").Output(); err == nil {
			rep.Machine.Postgres = strings.TrimSpace(string(out))
		}
	}
	if out, err := exec.CommandContext(context.Background(), "mariadbd", "--version").Output(); err == nil {
		rep.Machine.MariaDB = strings.TrimSpace(string(out))
	} else if p, err := lookTool("mariadbd"); err == nil {
		if out, err := exec.Command(p, "--version").Output(); err == nil {
			rep.Machine.MariaDB = strings.TrimSpace(string(out))
		}
	}
	return rep
}

// finish sets OK, the violations and the end figures.
func (rep *Report) finish() {
	rep.Machine.LoadEnd = loadAverage()
	rep.Durations.Total = seconds(time.Since(rep.started))
	v := append([]string{}, rep.Figures.Books.Violations...)
	if l := rep.Figures.Logs; l.Panics > 0 {
		v = append(v, fmt.Sprintf("panics in logs: %d", l.Panics))
	}
	if l := rep.Figures.Logs; l.AttemptsSpentOn429 > 0 {
		v = append(v, fmt.Sprintf("attempts spent on a 429: %d (a 429 asks for a slower pace; it is never a failed attempt)", l.AttemptsSpentOn429))
	}
	if l := rep.Figures.Logs; l.SecretLines > 0 {
		v = append(v, fmt.Sprintf("secrets in logs: %d lines (%s)", l.SecretLines, strings.Join(l.SecretsFound, ", ")))
	}
	if s := rep.Figures.Sender; s.GaveUp > 0 {
		v = append(v, fmt.Sprintf("webhooks never acknowledged: %d", s.GaveUp))
	}
	if c := rep.Figures.Reconcile.ExitCode; c != 0 && c != 3 {
		v = append(v, fmt.Sprintf("reconcile exit code %d", c))
	}
	v = append(v, rep.ChaosErrors...)
	rep.Violations = v
	rep.OK = len(v) == 0
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

func memoryMiB() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb / 1024
		}
	}
	return 0
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
