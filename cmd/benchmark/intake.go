package main

import (
	"context"
	"fmt"
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

// measureIntake runs (1) and (2) on e: per run, the baseline, the floor server and the daemon
// (workers paused) at each concurrency, each on a fresh database, interleaved so a change in
// the machine's load falls on all three alike.
func (b *bench) measureIntake(ctx context.Context, e *engine) ([]IntakePoint, error) {
	samples := map[string]map[int][]intakeSample{"baseline": {}, "floor": {}, "intake": {}}
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
		for _, side := range []string{"floor", "intake"} {
			got, err := b.intakeSide(ctx, e, side, run)
			if err != nil {
				return nil, fmt.Errorf("%s %s run %d: %w", side, e.Name, run, err)
			}
			for c, s := range got {
				samples[side][c] = append(samples[side][c], s)
			}
		}
	}
	var out []IntakePoint
	for _, c := range b.concurrencies {
		p := IntakePoint{Callers: c}
		p.BaselinePS, p.BaselineLatency, _ = medianSamples(samples["baseline"][c])
		p.FloorPS, p.FloorLatency, p.FloorErrors = medianSamples(samples["floor"][c])
		p.IntakePS, p.IntakeLatency, p.IntakeErrors = medianSamples(samples["intake"][c])
		p.VsBaseline, p.VsFloor = ratio(p.IntakePS, p.BaselinePS), ratio(p.IntakePS, p.FloorPS)
		out = append(out, p)
	}
	return out, nil
}

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

// intakeSide starts the floor server or the daemon on a fresh database of e and measures it at
// every concurrency, then checks the inbox holds exactly the rows it acknowledged as accepted.
func (b *bench) intakeSide(ctx context.Context, e *engine, side string, run int) (map[int]intakeSample, error) {
	db, err := e.fresh(ctx)
	if err != nil {
		return nil, err
	}
	defer db.drop()
	url, accepted, stop, err := b.startIntakeTarget(ctx, side, db)
	if err != nil {
		return nil, err
	}
	defer stop()
	client := newLoadClient()
	co := newCorpus(runTag(strings.ToUpper(side[:1])), b.secret, 1)
	send := func(i int) outcome {
		id, body, sig := co.delivery(i)
		return post(ctx, client, url, id, body, sig)
	}
	out := map[int]intakeSample{}
	next, unsure := 0, 0
	for _, c := range b.concurrencies {
		warm, n := closedLoop(ctx, c, b.warmFor, next, send)
		accepted, unsure = accepted+warm.Counts.Accepted, unsure+warm.Counts.Errors()
		r, n := closedLoop(ctx, c, b.closedFor, n, send)
		next = n
		accepted, unsure = accepted+r.Counts.Accepted, unsure+r.Counts.Errors()
		ps := perSecond(r.Counts.Accepted, r.Elapsed)
		out[c] = intakeSample{ps: ps, latency: r.Latency, errors: r.Counts.Errors()}
		b.progress("%s %s c=%d run %d/%d: %.0f accepted/s, p99 %.2f ms, %d duplicates, %d errors", side, e.Name, c, run, b.runs,
			ps, r.Latency.P99ms, r.Counts.Duplicate, r.Counts.Errors())
	}
	if err := stop(); err != nil {
		return nil, err
	}
	s, err := store.Open(ctx, db.Driver, db.DSN)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return out, checkRows(ctx, s.SQL().DB, accepted, unsure)
}

// startIntakeTarget starts the floor server or the daemon (workers paused) on db and returns
// its webhook URL, how many rows it stored on the way, and a stop function (safe to call twice).
func (b *bench) startIntakeTarget(ctx context.Context, side string, db *database) (string, int, func() error, error) {
	if side == "floor" {
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
	d, err := b.startDaemon(ctx, daemonSpec{db: db, erpURL: erp.url, erpKey: "refusedapikey01"})
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
