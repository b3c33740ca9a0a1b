package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Report is the benchmark's output: the headline figures (numbers, 0 when not
// measured), the targets with pass or miss, then every measurement in detail.
type Report struct {
	Machine  Machine  `json:"machine"`
	Settings Settings `json:"settings"`

	BaselineInsertsPS     float64 `json:"baseline_inserts_per_s"` // MariaDB, highest concurrency
	IntakePS              float64 `json:"intake_per_s"`           // MariaDB, highest concurrency
	IntakeVsBaseline      float64 `json:"intake_vs_baseline"`     // the lowest ratio over the concurrencies
	IntakeVsFloor         float64 `json:"intake_vs_floor"`        // the lowest ratio over the concurrencies
	P99AckMsAt1000        float64 `json:"p99_ack_ms_at_1000rps"`
	BookingsPSAt1000      float64 `json:"bookings_per_s_at_1000rps"` // (3): bookings made while p99_ack_ms_at_1000rps was measured
	SlowERPNextP99Ratio   float64 `json:"slow_erpnext_p99_ratio"`
	RSSMiBOverloaded      float64 `json:"rss_mib_overloaded"`
	RSSMiBAt1000          float64 `json:"rss_mib_at_1000rps"`
	BookingPS             float64 `json:"booking_per_s"`
	CallsPerBooking       float64 `json:"erpnext_calls_per_booking"`
	BookingVsDirect       float64 `json:"booking_vs_direct"`
	OneInvoiceCalls       float64 `json:"one_invoice_calls_per_payment"`
	Reconcile100kSeconds  float64 `json:"reconcile_100k_seconds"`
	Reconcile100kMeasured bool    `json:"reconcile_100k_measured"` // false: scaled from Settings.ReconcilePayments

	Targets []Target `json:"targets"`

	Intake      map[string][]IntakePoint `json:"intake,omitempty"`     // by engine
	FixedRate   map[string]FixedRate     `json:"fixed_rate,omitempty"` // by engine
	SlowERPNext *FixedRate               `json:"slow_erpnext,omitempty"`
	Overloaded  *FixedRate               `json:"overloaded,omitempty"`
	Booking     *Booking                 `json:"booking,omitempty"`
	Reconcile   *Reconcile               `json:"reconcile,omitempty"`
	NotRun      []string                 `json:"not_run,omitempty"` // measurements left out, and why
}

// Settings are the sizes the figures were measured at.
type Settings struct {
	Short              bool     `json:"short"`
	Runs               int      `json:"runs"` // each figure is the median of this many runs
	Engines            []string `json:"engines"`
	Concurrencies      []int    `json:"concurrencies"`
	ClosedLoopSeconds  float64  `json:"closed_loop_seconds"`
	DuplicateShare     float64  `json:"duplicate_share"`
	FixedRatePerS      float64  `json:"fixed_rate_per_s"`
	FixedRateSeconds   float64  `json:"fixed_rate_seconds"`
	SlowERPNextDelayMs float64  `json:"slow_erpnext_delay_ms"`
	OverloadRatePerS   float64  `json:"overload_rate_per_s"`
	OverloadSeconds    float64  `json:"overload_seconds"`
	ClientMaxInFlight  int      `json:"client_max_in_flight"`
	BookingPayments    int      `json:"booking_payments"`
	OneInvoicePayments int      `json:"one_invoice_payments"`
	ReconcilePayments  int      `json:"reconcile_payments"`
	Workers            string   `json:"daemon"`
}

// Target is one performance goal and whether the figure meets it.
type Target struct {
	Figure string  `json:"figure"`
	Goal   string  `json:"goal"` // e.g. "<= 10"
	Value  float64 `json:"value"`
	Result string  `json:"result"` // "pass", "miss" or "not measured"
	Note   string  `json:"note,omitempty"`
}

// goal is a bound on a figure: at most or at least limit.
type goal struct {
	figure string
	atMost bool
	limit  float64
	note   string
}

// judge evaluates g on value; measured is false when the figure was not measured.
func judge(g goal, value float64, measured bool) Target {
	op := ">="
	if g.atMost {
		op = "<="
	}
	t := Target{Figure: g.figure, Goal: fmt.Sprintf("%s %g", op, g.limit), Value: value, Note: g.note}
	switch {
	case !measured:
		t.Result = "not measured"
	case g.atMost && value <= g.limit, !g.atMost && value >= g.limit:
		t.Result = "pass"
	default:
		t.Result = "miss"
	}
	return t
}

// judgeTargets fills r.Targets from the headline figures.
func (r *Report) judgeTargets() {
	intake := len(r.Intake["mariadb"]) > 0
	fixed := r.FixedRate["mariadb"].Runs > 0
	oneInvoiceGoal := r.CallsPerBooking
	r.Targets = []Target{
		judge(goal{"intake_vs_floor", false, 0.9, "MariaDB, at every concurrency (the lowest ratio)"}, r.IntakeVsFloor, intake),
		judge(goal{"p99_ack_ms_at_1000rps", true, 10, "MariaDB, workers live"}, r.P99AckMsAt1000, fixed),
		judge(goal{"slow_erpnext_p99_ratio", true, 1.2, "p99 ack with every ERPNext call after 2 s, over p99 ack at 1,000/s"}, r.SlowERPNextP99Ratio, r.SlowERPNext != nil && fixed),
		judge(goal{"rss_mib_at_1000rps", true, 64, "peak resident set of the daemon"}, r.RSSMiBAt1000, fixed),
		judge(goal{"rss_mib_overloaded", true, 64, "peak resident set of the daemon; past its bound it should answer 503"}, r.RSSMiBOverloaded, r.Overloaded != nil),
		judge(goal{"erpnext_calls_per_booking", true, 3, "plain booking, one invoice read"}, r.CallsPerBooking, r.Booking != nil),
		judge(goal{"booking_vs_direct", false, 0.9, "real-v15 profile"}, r.BookingVsDirect, r.Booking != nil),
		judge(goal{"one_invoice_calls_per_payment", true, oneInvoiceGoal, "a payment waiting for the invoice lock spends no ERPNext call: no more than a plain booking"}, r.OneInvoiceCalls, r.Booking != nil),
		judge(goal{"reconcile_100k_seconds", true, 60, ""}, r.Reconcile100kSeconds, r.Reconcile != nil),
	}
	if r.Reconcile != nil && !r.Reconcile100kMeasured {
		r.Targets[len(r.Targets)-1].Note = fmt.Sprintf("scaled linearly from %d payments (--short or --reconcile-payments): indicative only", r.Settings.ReconcilePayments)
	}
}

// headline sets the figures from the detailed measurements.
func (r *Report) headline() {
	if pts := r.Intake["mariadb"]; len(pts) > 0 {
		top := pts[len(pts)-1]
		r.BaselineInsertsPS, r.IntakePS = top.BaselinePS, top.IntakePS
		r.IntakeVsBaseline, r.IntakeVsFloor = pts[0].VsBaseline, pts[0].VsFloor
		for _, p := range pts {
			r.IntakeVsBaseline, r.IntakeVsFloor = min(r.IntakeVsBaseline, p.VsBaseline), min(r.IntakeVsFloor, p.VsFloor)
		}
	}
	if f, ok := r.FixedRate["mariadb"]; ok {
		r.P99AckMsAt1000, r.RSSMiBAt1000, r.BookingsPSAt1000 = f.Latency.P99ms, f.Memory.PeakMiB, f.BookingsPerS
		if r.SlowERPNext != nil {
			r.SlowERPNextP99Ratio = ratio(r.SlowERPNext.Latency.P99ms, f.Latency.P99ms)
		}
	}
	if r.Overloaded != nil {
		r.RSSMiBOverloaded = r.Overloaded.Memory.PeakMiB
	}
	if b := r.Booking; b != nil {
		r.BookingPS, r.CallsPerBooking, r.BookingVsDirect = b.ConnectorPS, b.CallsPerBooking, b.VsDirect
		r.OneInvoiceCalls = b.OneInvoice.CallsPerPayment
	}
	if rc := r.Reconcile; rc != nil && rc.Payments > 0 {
		r.Reconcile100kMeasured = rc.Payments == 100_000
		r.Reconcile100kSeconds = round3(rc.AllBooked.Seconds * 100_000 / float64(rc.Payments))
	}
	r.judgeTargets()
}

// printTable writes the report for a person.
func (r *Report) printTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	m := r.Machine
	fmt.Fprintf(tw, "machine\t%s, %d cores, %s, load %.2f %.2f %.2f at start, %.2f at end, %s\n", m.CPUModel, m.Cores, m.GoVersion,
		m.LoadAvgStart[0], m.LoadAvgStart[1], m.LoadAvgStart[2], m.LoadAvgEnd[0], m.Date)
	fmt.Fprintf(tw, "settings\truns %d (medians), short %v, MariaDB %s\n", r.Settings.Runs, r.Settings.Short, m.MariaDBServer)
	for _, eng := range sortedKeys(r.Intake) {
		fmt.Fprintf(tw, "\n(1)(2) intake, %s\tc\tinserts/s\tfloor/s\tintake/s\tvs inserts\tvs floor\tp50 ms\tp99 ms\tmax ms\n", eng)
		for _, p := range r.Intake[eng] {
			fmt.Fprintf(tw, "\t%d\t%.0f\t%.0f\t%.0f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\n", p.Callers, p.BaselinePS, p.FloorPS, p.IntakePS,
				p.VsBaseline, p.VsFloor, p.IntakeLatency.P50ms, p.IntakeLatency.P99ms, p.IntakeLatency.MaxMs)
		}
	}
	fmt.Fprintf(tw, "\n(3)(4) open loop\trate/s\tp50 ms\tp99 ms\tbookings/s\tp999 ms\terrors\t503\tpeak RSS MiB\tbooked\tfloor p99 ms\n")
	rows := map[string]FixedRate{}
	for eng, f := range r.FixedRate {
		rows["1,000/s "+eng] = f
	}
	if r.SlowERPNext != nil {
		rows["ERPNext after 2 s, mariadb"] = *r.SlowERPNext
	}
	if r.Overloaded != nil {
		rows["overloaded, mariadb"] = *r.Overloaded
	}
	for _, name := range sortedKeys(rows) {
		f := rows[name]
		floor := "-"
		if f.Floor != nil {
			floor = fmt.Sprintf("%.2f", f.Floor.P99ms)
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%.2f\t%.2f\t%.1f\t%.2f\t%d\t%d\t%.1f\t%d\t%s\n", name, f.Rate, f.Latency.P50ms, f.Latency.P99ms, f.BookingsPerS, f.Latency.P999ms,
			f.Counts.Errors(), f.Counts.Refused, f.Memory.PeakMiB, f.BookedDuringRun, floor)
	}
	if b := r.Booking; b != nil {
		fmt.Fprintf(tw, "\n(5) booking, %s\tconnector %.2f/s\tdirect %.2f/s\tratio %.2f\tcalls/booking %.2f (direct %.2f)\tp99 event→entry %.0f ms\n",
			b.Profile, b.ConnectorPS, b.DirectPS, b.VsDirect, b.CallsPerBooking, b.DirectCalls, b.EventToEntry.P99ms)
		for _, route := range sortedKeys(b.CallsByRoute) {
			fmt.Fprintf(tw, "\t%s\t%.2f per booking\n", route, b.CallsByRoute[route])
		}
		fmt.Fprintf(tw, "    once per process\t%.0f site reads (Mode of Payment, Company), not counted per booking\n", b.CallsPerProcess)
		fmt.Fprintf(tw, "    %d on one invoice\t%.2f calls per payment\tdrained in %.1f s\n", b.OneInvoice.Payments, b.OneInvoice.CallsPerPayment, b.OneInvoice.DrainSeconds)
	}
	if rc := r.Reconcile; rc != nil {
		fmt.Fprintf(tw, "\n(6) reconcile --dry-run\t%d payments\tall booked %.1f s, %.0f MiB\t1 %% unbooked %.1f s, %.0f MiB\n", rc.Payments,
			rc.AllBooked.Seconds, rc.AllBooked.PeakRSSMiB, rc.Unbooked.Seconds, rc.Unbooked.PeakRSSMiB)
	}
	fmt.Fprintf(tw, "\ntargets\tvalue\tgoal\tresult\n")
	for _, t := range r.Targets {
		fmt.Fprintf(tw, "%s\t%g\t%s\t%s\t%s\n", t.Figure, t.Value, t.Goal, strings.ToUpper(t.Result), t.Note)
	}
	for _, n := range r.NotRun {
		fmt.Fprintf(tw, "not run\t%s\n", n)
	}
	tw.Flush()
}
