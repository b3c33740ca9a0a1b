package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

func TestJudgeBoundsAreInclusive(t *testing.T) {
	for _, c := range []struct {
		g        goal
		value    float64
		measured bool
		want     string
	}{
		{goal{"p99", true, 10, ""}, 10, true, "pass"},
		{goal{"p99", true, 10, ""}, 10.001, true, "miss"},
		{goal{"ratio", false, 0.9, ""}, 0.9, true, "pass"},
		{goal{"ratio", false, 0.9, ""}, 0.899, true, "miss"},
		{goal{"ratio", false, 0.9, ""}, 0, false, "not measured"},
		{goal{"p99", true, 10, ""}, 0, false, "not measured"},
	} {
		got := judge(c.g, c.value, c.measured)
		if got.Result != c.want || got.Value != c.value {
			t.Errorf("judge(%+v, %v, %v) = %+v; want %s", c.g, c.value, c.measured, got, c.want)
		}
	}
	if g := judge(goal{"p99", true, 10, ""}, 1, true).Goal; g != "<= 10" {
		t.Errorf("goal text %q", g)
	}
}

// sampleReport is a report with every measurement filled in.
func sampleReport() *Report {
	return &Report{
		Settings: Settings{ReconcilePayments: 100_000},
		Intake: map[string][]IntakePoint{"mariadb": {
			{Callers: 1, BaselinePS: 1000, IntakePS: 600, VsBaseline: 0.6, VsFloor: 0.95},
			{Callers: 8, BaselinePS: 4000, IntakePS: 1600, VsBaseline: 0.4, VsFloor: 0.85},
			{Callers: 32, BaselinePS: 6000, IntakePS: 3000, VsBaseline: 0.5, VsFloor: 0.92},
		}},
		FixedRate:   map[string]FixedRate{"mariadb": {Runs: 3, Latency: Latency{P99ms: 8}, Memory: Memory{PeakMiB: 40}}},
		SlowERPNext: &FixedRate{Runs: 3, Latency: Latency{P99ms: 10}},
		Overloaded:  &FixedRate{Runs: 3, Memory: Memory{PeakMiB: 300}},
		Booking: &Booking{ConnectorPS: 2.2, DirectPS: 2.4, VsDirect: 0.917, CallsPerBooking: 3,
			OneInvoice: OneInvoice{CallsPerPayment: 3.5}},
		Reconcile: &Reconcile{Payments: 100_000, AllBooked: ReconcileCase{Seconds: 42}},
	}
}

func TestHeadlineTakesTheWorstConcurrencyAndTheLatestMeasurements(t *testing.T) {
	r := sampleReport()
	r.headline()
	if r.IntakeVsFloor != 0.85 || r.IntakeVsBaseline != 0.4 {
		t.Errorf("ratios %v, %v; want the lowest over the concurrencies, 0.85 and 0.4", r.IntakeVsFloor, r.IntakeVsBaseline)
	}
	if r.IntakePS != 3000 || r.BaselineInsertsPS != 6000 {
		t.Errorf("rates %v, %v; want those at the highest concurrency", r.IntakePS, r.BaselineInsertsPS)
	}
	if r.SlowERPNextP99Ratio != 1.25 || r.P99AckMsAt1000 != 8 || r.RSSMiBAt1000 != 40 || r.RSSMiBOverloaded != 300 {
		t.Errorf("fixed-rate figures %+v", r)
	}
	if !r.Reconcile100kMeasured || r.Reconcile100kSeconds != 42 {
		t.Errorf("reconcile %v measured %v", r.Reconcile100kSeconds, r.Reconcile100kMeasured)
	}
	want := map[string]string{
		"intake_vs_floor": "miss", "p99_ack_ms_at_1000rps": "pass", "slow_erpnext_p99_ratio": "miss",
		"rss_mib_at_1000rps": "pass", "rss_mib_overloaded": "miss", "erpnext_calls_per_booking": "pass",
		"booking_vs_direct": "pass", "one_invoice_calls_per_payment": "miss", "reconcile_100k_seconds": "pass",
	}
	if len(r.Targets) != len(want) {
		t.Fatalf("%d targets; want %d", len(r.Targets), len(want))
	}
	for _, tg := range r.Targets {
		if tg.Result != want[tg.Figure] {
			t.Errorf("%s = %v: %s; want %s", tg.Figure, tg.Value, tg.Result, want[tg.Figure])
		}
	}
}

// A --short reconcile of fewer payments is scaled to 100,000 and says so.
func TestHeadlineScalesAShortReconcile(t *testing.T) {
	r := sampleReport()
	r.Settings.ReconcilePayments = 2000
	r.Reconcile = &Reconcile{Payments: 2000, AllBooked: ReconcileCase{Seconds: 0.5}}
	r.headline()
	if r.Reconcile100kMeasured || r.Reconcile100kSeconds != 25 {
		t.Fatalf("reconcile_100k_seconds %v (measured %v); want 25, scaled", r.Reconcile100kSeconds, r.Reconcile100kMeasured)
	}
	last := r.Targets[len(r.Targets)-1]
	if !strings.Contains(last.Note, "scaled") {
		t.Fatalf("target note %q does not say the figure is scaled", last.Note)
	}
}

// Nothing measured: every figure is a number (0) and every target "not measured".
func TestReportWithoutMeasurementsKeepsEveryFigure(t *testing.T) {
	r := &Report{Intake: map[string][]IntakePoint{}, FixedRate: map[string]FixedRate{}}
	r.headline()
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(r); err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"baseline_inserts_per_s", "intake_per_s", "intake_vs_baseline", "intake_vs_floor",
		"p99_ack_ms_at_1000rps", "slow_erpnext_p99_ratio", "rss_mib_overloaded", "rss_mib_at_1000rps", "booking_per_s",
		"erpnext_calls_per_booking", "booking_vs_direct", "reconcile_100k_seconds"} {
		if _, ok := out[key].(float64); !ok {
			t.Errorf("%s = %#v; want a number", key, out[key])
		}
	}
	for _, tg := range r.Targets {
		if tg.Result != "not measured" {
			t.Errorf("%s: %s; want not measured", tg.Figure, tg.Result)
		}
	}
	var table bytes.Buffer
	r.printTable(&table)
	if !strings.Contains(table.String(), "NOT MEASURED") {
		t.Fatalf("table:\n%s", table.String())
	}
}

// A reconcile size under 100 cannot leave 1 % unbooked: the flag is refused (exit 2) before
// anything is measured or built.
func TestReconcilePaymentsFlag(t *testing.T) {
	for _, arg := range []string{"-1", "99"} {
		var stderr strings.Builder
		if code := run(context.Background(), []string{"--reconcile-payments", arg, "--mariadb-dsn", "x"}, io.Discard, &stderr); code != 2 ||
			!strings.Contains(stderr.String(), "--reconcile-payments: want at least 100") {
			t.Errorf("--reconcile-payments %s: exit %d, %q; want 2 and the reason", arg, code, stderr.String())
		}
	}
}
