package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

// FixedRate is (3), (4) or the overloaded case: webhooks sent open loop at Rate per second
// for Seconds to the daemon (its own process) with its workers live against the ERPNext
// simulator (its own process; every call delayed by ERPNextDelayMs). Every payment names an
// invoice of its own (warm-up included), so each one the workers finish is a booking.
// Figures are the medians over the runs; Counts and BookedDuringRun are summed over them.
type FixedRate struct {
	Rate           float64 `json:"rate_per_s"`
	Seconds        float64 `json:"seconds"`
	ERPNextDelayMs float64 `json:"erpnext_delay_ms"`
	MaxInFlight    int     `json:"client_max_in_flight"`
	Runs           int     `json:"runs"`
	Counts         Counts  `json:"counts"`
	ErrorRate      float64 `json:"error_rate"` // non-200 answers (503s too) and unanswered, over sent
	Latency        Latency `json:"ack"`        // from the time each request was due, not sent
	// BookingsPerS is the events the workers finished as done (each a Payment Entry submitted
	// on an invoice no other payment names) while the measured webhooks were sent, per second:
	// the booking rate in the same run as Latency.
	BookingsPerS    float64 `json:"bookings_per_s"`
	Memory          Memory  `json:"daemon_memory"`
	BookedDuringRun int     `json:"booked_during_run"` // events finished as done by the end of each run
	// Floor is the floor server on the same clock and database engine, measured right after
	// each run of (3): what this machine allows at that rate (nil for the other cases).
	Floor *Latency `json:"floor_ack,omitempty"`
}

// fixedRateRun is one run.
type fixedRateRun struct {
	counts     Counts
	latency    Latency
	memory     Memory
	bookingsPS float64
	booked     int
}

// fixedCase is one fixed-rate case: its name, rate, duration and ERPNext delay.
type fixedCase struct {
	name     string
	rate     float64
	d        time.Duration
	erpDelay time.Duration
}

// measureFixedRate runs case fc b.runs times on e for each variant of vs, the variants taking
// turns within a run (each run starting with the next one), and takes each variant's medians.
// With withFloor the floor server runs once per run, after the variants, and every variant
// reports it.
func (b *bench) measureFixedRate(ctx context.Context, e *engine, fc fixedCase, vs []variant, withFloor bool) ([]FixedRate, error) {
	runs := make([][]fixedRateRun, len(vs))
	var floors []Latency
	for run := 1; run <= b.runs; run++ {
		for _, v := range rotated(vs, run-1) {
			i := slices.IndexFunc(vs, func(w variant) bool { return w.name == v.name })
			r, err := b.fixedRateRun(ctx, e, fc, v)
			if err != nil {
				return nil, fmt.Errorf("%s %s run %d: %w", fc.name, v.label(e.Name), run, err)
			}
			b.progress("%s %s run %d/%d: p50 %.2f ms, p99 %.2f ms, p999 %.2f ms, %d errors (%d 503), peak RSS %.1f MiB, %.1f bookings/s, %d booked",
				fc.name, v.label(e.Name), run, b.runs, r.latency.P50ms, r.latency.P99ms, r.latency.P999ms, r.counts.Errors(),
				r.counts.Refused, r.memory.PeakMiB, r.bookingsPS, r.booked)
			runs[i] = append(runs[i], r)
		}
		if withFloor {
			f, err := b.floorRateRun(ctx, e, fc.rate, fc.d, b.maxInFlight)
			if err != nil {
				return nil, fmt.Errorf("%s floor %s run %d: %w", fc.name, e.Name, run, err)
			}
			b.progress("%s floor %s run %d/%d: p50 %.2f ms, p99 %.2f ms", fc.name, e.Name, run, b.runs, f.P50ms, f.P99ms)
			floors = append(floors, f)
		}
	}
	out := make([]FixedRate, len(vs))
	for i := range vs {
		out[i] = b.fixedRateOf(fc, runs[i])
		if withFloor {
			f := medianLatency(floors)
			out[i].Floor = &f
		}
	}
	return out, nil
}

// fixedRateOf is the medians of one variant's runs of fc.
func (b *bench) fixedRateOf(fc fixedCase, rs []fixedRateRun) FixedRate {
	out := FixedRate{Rate: fc.rate, Seconds: fc.d.Seconds(), ERPNextDelayMs: ms(fc.erpDelay), MaxInFlight: b.maxInFlight, Runs: len(rs)}
	var lats []Latency
	var peak, sampled, errRates, bookings []float64
	for _, r := range rs {
		lats = append(lats, r.latency)
		peak, sampled = append(peak, r.memory.PeakMiB), append(sampled, r.memory.SampledMaxMiB)
		sent := r.counts.Accepted + r.counts.Duplicate + r.counts.Errors()
		errRates = append(errRates, ratio(float64(r.counts.Errors()), float64(sent)))
		bookings = append(bookings, r.bookingsPS)
		out.Counts = addCounts(out.Counts, r.counts)
		out.BookedDuringRun += r.booked
	}
	out.Latency = medianLatency(lats)
	out.BookingsPerS = round3(median(bookings))
	out.Memory = Memory{PeakMiB: round3(median(peak)), SampledMaxMiB: round3(median(sampled))}
	out.ErrorRate = round3(median(errRates))
	return out
}

func addCounts(a, b Counts) Counts {
	return Counts{Accepted: a.Accepted + b.Accepted, Duplicate: a.Duplicate + b.Duplicate, Refused: a.Refused + b.Refused,
		Status: a.Status + b.Status, Timeout: a.Timeout + b.Timeout, Error: a.Error + b.Error, Skipped: a.Skipped + b.Skipped}
}

// fixedRateRun starts a fresh database, the ERPNext simulator (an invoice for every delivery of
// the warm-up and of the run, none named twice) and variant v's daemon, sends the webhooks on
// the clock, counts the bookings made while the measured webhooks were sent, reads the daemon's
// memory before stopping it, and checks that the inbox holds exactly the accepted rows.
func (b *bench) fixedRateRun(ctx context.Context, e *engine, fc fixedCase, v variant) (fixedRateRun, error) {
	var r fixedRateRun
	db, err := e.forTarget(ctx, &v)
	if err != nil {
		return r, err
	}
	defer db.drop()
	warmN, n := int(fc.rate*b.openWarmFor.Seconds()), int(fc.rate*fc.d.Seconds())
	erp, err := b.startERPNext(ctx, invoicesFor(warmN+n), fc.erpDelay)
	if err != nil {
		return r, err
	}
	defer erp.stop()
	dm, err := b.startDaemon(ctx, daemonSpec{db: db, erpURL: erp.url, bin: v.bin, yieldOff: v.yieldOff})
	if err != nil {
		return r, err
	}
	defer dm.stop()
	s, err := store.Open(ctx, db.Driver, db.DSN)
	if err != nil {
		return r, err
	}
	defer s.Close()
	// Warm-up on the same clock, not counted: a process that has just started grows its heap
	// and dials its database connections during its first second.
	warm, _ := sendOnClock(ctx, dm.webhookURL, newCorpus(runTag("w"), b.secret, warmN), fc.rate, b.openWarmFor, b.maxInFlight)
	doneBefore, err := doneCount(ctx, s)
	if err != nil {
		return r, err
	}
	start := time.Now()
	r.counts, r.latency = sendOnClock(ctx, dm.webhookURL, newCorpusFrom(runTag("R"), b.secret, warmN+1, n), fc.rate, fc.d, b.maxInFlight)
	doneAfter, err := doneCount(ctx, s)
	if err != nil {
		return r, err
	}
	r.bookingsPS = round3(perSecond(doneAfter-doneBefore, time.Since(start)))
	r.memory = dm.memory()
	// The daemon lets its workers finish the bookings they hold for up to 20 s (slower with
	// a slow ERPNext); the figures are taken, so it gets 2 s and is then killed. Every
	// acknowledged row was committed before its answer.
	if err := dm.stopWithin(2*time.Second, false); err != nil {
		return r, err
	}
	if r.booked, err = doneCount(ctx, s); err != nil {
		return r, err
	}
	return r, checkRows(ctx, s.SQL().DB, warm.Accepted+r.counts.Accepted, warm.Errors()+r.counts.Errors())
}

// doneCount is how many inbox events are done.
func doneCount(ctx context.Context, s *store.DB) (int, error) {
	byStatus, err := s.CountByStatus(ctx)
	return byStatus["done"], err
}

// sendOnClock delivers webhooks of co to url open loop at rate for d and returns their
// outcomes and acknowledgement times, each measured from when the request was due.
func sendOnClock(ctx context.Context, url string, co *corpus, rate float64, d time.Duration, maxInFlight int) (Counts, Latency) {
	client := newLoadClient()
	var t tally
	res := openLoop(ctx, wallClock{}, rate, d, maxInFlight, func(i int, due time.Time) {
		id, body, sig := co.delivery(i)
		o := post(ctx, client, url, id, body, sig)
		t.add(o, time.Since(due))
	})
	c := t.counts()
	c.Skipped = res.Skipped
	return c, summarise(t.lat)
}

// floorRateRun is the floor server on a fresh database of e at the same rate.
func (b *bench) floorRateRun(ctx context.Context, e *engine, rate float64, d time.Duration, maxInFlight int) (Latency, error) {
	db, err := e.fresh(ctx)
	if err != nil {
		return Latency{}, err
	}
	defer db.drop()
	url, _, stop, err := b.startIntakeTarget(ctx, nil, db)
	if err != nil {
		return Latency{}, err
	}
	defer stop()
	sendOnClock(ctx, url, newCorpus(runTag("w"), b.secret, 1), rate, b.openWarmFor, maxInFlight)
	c, lat := sendOnClock(ctx, url, newCorpus(runTag("F"), b.secret, 1), rate, d, maxInFlight)
	if c.Errors() > 0 {
		return lat, fmt.Errorf("the floor server failed %d of its requests", c.Errors())
	}
	return lat, stop()
}
