package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

// IntakePoint is measurements (1) and (2) at one concurrency on one engine, each figure the
// median over the runs.
type IntakePoint struct {
	Callers         int     `json:"concurrency"`
	BaselinePS      float64 `json:"baseline_inserts_per_s"`
	FloorPS         float64 `json:"floor_accepted_per_s"`
	IntakePS        float64 `json:"intake_accepted_per_s"`
	VsBaseline      float64 `json:"intake_vs_baseline"`
	VsFloor         float64 `json:"intake_vs_floor"`
	IntakeLatency   Latency `json:"intake_ack"`
	FloorLatency    Latency `json:"floor_ack"`
	BaselineLatency Latency `json:"baseline_insert"`
	IntakeErrors    int     `json:"intake_errors"` // non-200 answers over all runs
	FloorErrors     int     `json:"floor_errors"`
}

// intakeSample is one run of one side at one concurrency.
type intakeSample struct {
	ps      float64
	latency Latency
	errors  int
}

// measureIntake runs (1) and (2) on e: per run, the baseline at each concurrency on a fresh
// database, then the floor server and each variant's daemon (workers paused) side by side,
// each on a fresh database of its own, measured in alternating slices (intakeSides), so that a
// change in the machine's load (another process, MariaDB flushing or purging what the last run
// dropped) falls on all alike. The points are keyed by variant label (variant.label).
func (b *bench) measureIntake(ctx context.Context, e *engine) (map[string][]IntakePoint, error) {
	samples := map[string]map[int][]intakeSample{"baseline": {}, "floor": {}}
	for _, v := range b.variants {
		samples[intakeSideName(v)] = map[int][]intakeSample{}
	}
	for run := 1; run <= b.runs; run++ {
		for _, c := range b.concurrencies {
			db, err := e.fresh(ctx)
			if err != nil {
				return nil, err
			}
			r, err := measureBaseline(ctx, db, c, b.warmFor, b.closedFor, newCorpus("B0000", b.secret, 1).tmpl)
			db.drop()
			if err != nil {
				return nil, fmt.Errorf("baseline %s c=%d: %w", e.Name, c, err)
			}
			samples["baseline"][c] = append(samples["baseline"][c], intakeSample{ps: r.InsertsPS, latency: r.Latency})
			b.progress("baseline %s c=%d run %d/%d: %.0f inserts/s", e.Name, c, run, b.runs, r.InsertsPS)
		}
		got, err := b.intakeSides(ctx, e, run)
		if err != nil {
			return nil, fmt.Errorf("intake %s run %d: %w", e.Name, run, err)
		}
		for side, byC := range got {
			for c, s := range byC {
				samples[side][c] = append(samples[side][c], s)
			}
		}
	}
	out := map[string][]IntakePoint{}
	for _, v := range b.variants {
		for _, c := range b.concurrencies {
			p := IntakePoint{Callers: c}
			p.BaselinePS, p.BaselineLatency, _ = medianSamples(samples["baseline"][c])
			p.FloorPS, p.FloorLatency, p.FloorErrors = medianSamples(samples["floor"][c])
			p.IntakePS, p.IntakeLatency, p.IntakeErrors = medianSamples(samples[intakeSideName(v)][c])
			p.VsBaseline, p.VsFloor = ratio(p.IntakePS, p.BaselinePS), ratio(p.IntakePS, p.FloorPS)
			out[v.label(e.Name)] = append(out[v.label(e.Name)], p)
		}
	}
	return out, nil
}

// intakeSideName is the name of variant v's side in (2): "intake", or "intake (before …)".
func intakeSideName(v variant) string { return v.label("intake") }

// medianSamples is the median rate and latency figures of samples, and their summed errors.
func medianSamples(ss []intakeSample) (float64, Latency, int) {
	ps := make([]float64, len(ss))
	lats := make([]Latency, len(ss))
	errs := 0
	for i, s := range ss {
		ps[i], lats[i] = s.ps, s.latency
		errs += s.errors
	}
	return round3(median(ps)), medianLatency(lats), errs
}

// intakeSlice is how long one side is driven before the other takes over: short enough that
// the machine's load changes little between a floor slice and the daemon slice next to it.
const intakeSlice = time.Second

// intakeSide is one target of (2) while it is measured.
type intakeSide struct {
	name     string
	db       *database
	url      string
	stop     func() error
	co       *corpus
	next     int // the next delivery number of co
	accepted int // rows the target acknowledged as stored, warm-ups included
	unsure   int // deliveries without a definite answer
}

// intakeSides starts the floor server and each variant's daemon, each on a fresh database of
// e, and measures them at every concurrency: a warm-up of each (not counted), then closedFor of
// each in slices of intakeSlice, taking turns and starting with the next side every slice. A
// side's figure is its accepted webhooks over its own slices' time, its latencies those of all
// its slices. Afterwards each inbox must hold exactly the rows its target acknowledged.
func (b *bench) intakeSides(ctx context.Context, e *engine, run int) (map[string]map[int]intakeSample, error) {
	sides, err := b.startIntakeSides(ctx, e)
	defer func() {
		for _, s := range sides {
			if s.stop != nil {
				s.stop()
			}
			s.db.drop()
		}
	}()
	if err != nil {
		return nil, err
	}
	out := map[string]map[int]intakeSample{}
	for _, s := range sides {
		out[s.name] = map[int]intakeSample{}
	}
	client := newLoadClient()
	for _, c := range b.concurrencies {
		for i, got := range b.intakeSlices(ctx, client, sides, c) {
			s := sides[i]
			out[s.name][c] = got
			b.progress("%s %s c=%d run %d/%d: %.0f accepted/s, p99 %.2f ms, %d errors", s.name, e.Name, c, run, b.runs,
				got.ps, got.latency.P99ms, got.errors)
		}
	}
	for _, s := range sides {
		if err := s.check(ctx); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return out, nil
}

// startIntakeSides starts the floor server and each variant's daemon on fresh databases of e;
// on error it returns the sides started so far, for the caller to stop.
func (b *bench) startIntakeSides(ctx context.Context, e *engine) ([]*intakeSide, error) {
	var sides []*intakeSide
	names := []string{"floor"}
	for _, v := range b.variants {
		names = append(names, intakeSideName(v))
	}
	for i, name := range names {
		var v *variant
		if i > 0 {
			v = &b.variants[i-1]
		}
		db, err := e.forTarget(ctx, v)
		if err != nil {
			return sides, err
		}
		s := &intakeSide{name: name, db: db, co: newCorpus(runTag(fmt.Sprint(i)), b.secret, 1)}
		sides = append(sides, s)
		if s.url, s.accepted, s.stop, err = b.startIntakeTarget(ctx, v, db); err != nil {
			return sides, fmt.Errorf("%s: %w", name, err)
		}
	}
	return sides, nil
}

// intakeSlices measures every side at c callers: a warm-up of each, then closedFor of each in
// slices, the sides taking turns.
func (b *bench) intakeSlices(ctx context.Context, client *http.Client, sides []*intakeSide, c int) []intakeSample {
	for _, s := range sides {
		s.drive(ctx, client, &tally{}, c, b.warmFor)
	}
	n := max(1, int(b.closedFor/intakeSlice))
	tallies := make([]tally, len(sides))
	elapsed := make([]time.Duration, len(sides))
	for k := 0; k < n; k++ {
		for j := range sides {
			i := (j + k) % len(sides)
			elapsed[i] += sides[i].drive(ctx, client, &tallies[i], c, b.closedFor/time.Duration(n))
		}
	}
	out := make([]intakeSample, len(sides))
	for i := range sides {
		got := tallies[i].counts()
		out[i] = intakeSample{ps: perSecond(got.Accepted, elapsed[i]), latency: summarise(tallies[i].lat), errors: got.Errors()}
	}
	return out
}

// drive sends s's deliveries closed loop from c callers for d into t and returns the time taken.
func (s *intakeSide) drive(ctx context.Context, client *http.Client, t *tally, c int, d time.Duration) time.Duration {
	send := func(i int) outcome {
		id, body, sig := s.co.delivery(i)
		return post(ctx, client, s.url, id, body, sig)
	}
	before := t.counts()
	elapsed, next := closedLoopInto(ctx, t, c, d, s.next, send)
	after := t.counts()
	s.next = next
	s.accepted += after.Accepted - before.Accepted
	s.unsure += after.Errors() - before.Errors()
	return elapsed
}

// check stops the side's target and checks its inbox holds exactly the rows it acknowledged.
func (s *intakeSide) check(ctx context.Context) error {
	err := s.stop()
	s.stop = nil
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, s.db.Driver, s.db.DSN)
	if err != nil {
		return err
	}
	defer st.Close()
	return checkRows(ctx, st.SQL().DB, s.accepted, s.unsure)
}

// startIntakeTarget starts the floor server (v nil) or variant v's daemon (workers paused) on
// db and returns its webhook URL, how many rows it stored on the way, and a stop function (safe
// to call twice).
func (b *bench) startIntakeTarget(ctx context.Context, v *variant, db *database) (string, int, func() error, error) {
	if v == nil {
		p, addr, err := startProc(ctx, "floor", b.self, []string{"floor", "--driver", db.Driver, "--dsn", db.DSN},
			[]string{floorSecretEnv + "=" + b.secret}, func(line string) (string, bool) {
				v, ok := strings.CutPrefix(line, "floor on ")
				return v, ok
			})
		if err != nil {
			return "", 0, nil, err
		}
		return "http://" + addr + "/webhooks/razorpay", 0, onceErr(p.stop), nil
	}
	// Workers paused: the ERPNext simulator refuses the daemon's API key, the first booking
	// gets 401, and the connector pauses all work (a configuration fault) for the hour.
	erp, err := b.startERPNext(ctx, nil, 0)
	if err != nil {
		return "", 0, nil, err
	}
	d, err := b.startDaemon(ctx, daemonSpec{db: db, erpURL: erp.url, erpKey: "refusedapikey01", bin: v.bin, yieldOff: v.yieldOff})
	if err != nil {
		erp.stop()
		return "", 0, nil, err
	}
	// A paused daemon gets 1 s after SIGTERM, then is killed: its workers sleep out the pause
	// without heeding the drain (connector/worker.go), so a clean stop would cost the whole 20 s
	// drain grace per run. Every acknowledged row is committed before its answer.
	stop := onceErr(func() error {
		err := d.stopWithin(time.Second, false)
		erp.stop()
		return err
	})
	co := newCorpus(runTag("W"), b.secret, 1)
	id, body, sig := co.delivery(0)
	if o := post(ctx, newLoadClient(), d.webhookURL, id, body, sig); o != outAccepted {
		stop()
		return "", 0, nil, fmt.Errorf("first webhook not accepted (outcome %d):\n%s", o, d.tail)
	}
	if err := d.waitPaused(ctx); err != nil {
		stop()
		return "", 0, nil, err
	}
	return d.webhookURL, 1, stop, nil
}

// onceErr makes f run at most once; later calls return its first result.
func onceErr(f func() error) func() error {
	done := false
	var err error
	return func() error {
		if !done {
			done, err = true, f()
		}
		return err
	}
}
