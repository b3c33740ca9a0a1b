package main

import (
	"context"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

// maxFixedRateInvoices bounds the invoices seeded for a fixed-rate run: the workers book far
// fewer payments than arrive in a run, and payments past the bound name invoices again (if
// ever reached they park as already paid, which is still work for the workers).
const maxFixedRateInvoices = 3000

// FixedRate is (3), (4) or the overloaded case: webhooks sent open loop at Rate per second
// for Seconds to the daemon (its own process) with its workers live against the ERPNext
// simulator (its own process; every call delayed by ERPNextDelayMs). Figures are the
// medians over the runs; Counts and BookedDuringRun are summed over them.
type FixedRate struct {
	Rate            float64 `json:"rate_per_s"`
	Seconds         float64 `json:"seconds"`
	ERPNextDelayMs  float64 `json:"erpnext_delay_ms"`
	MaxInFlight     int     `json:"client_max_in_flight"`
	Runs            int     `json:"runs"`
	Counts          Counts  `json:"counts"`
	ErrorRate       float64 `json:"error_rate"` // non-200 answers (503s too) and unanswered, over sent
	Latency         Latency `json:"ack"`        // from the time each request was due, not sent
	Memory          Memory  `json:"daemon_memory"`
	BookedDuringRun int     `json:"booked_during_run"` // events the workers finished as done while it ran
	// Floor is the floor server on the same clock and database engine, measured right after
	// each run of (3): what this machine allows at that rate (nil for the other cases).
	Floor *Latency `json:"floor_ack,omitempty"`
}

// fixedRateRun is one run.
type fixedRateRun struct {
	counts  Counts
	latency Latency
	memory  Memory
	booked  int
	floor   Latency
}

// measureFixedRate runs the fixed-rate case b.runs times on e and takes the medians.
func (b *bench) measureFixedRate(ctx context.Context, e *engine, name string, rate float64, d, erpDelay time.Duration, maxInFlight int, withFloor bool) (FixedRate, error) {
	out := FixedRate{Rate: rate, Seconds: d.Seconds(), ERPNextDelayMs: ms(erpDelay), MaxInFlight: maxInFlight, Runs: b.runs}
	var lats, floors []Latency
	var peak, sampled, errRates []float64
	for run := 1; run <= b.runs; run++ {
		r, err := b.fixedRateRun(ctx, e, rate, d, erpDelay, maxInFlight)
		if err != nil {
			return out, fmt.Errorf("%s %s run %d: %w", name, e.Name, run, err)
		}
		b.progress("%s %s run %d/%d: p50 %.2f ms, p99 %.2f ms, p999 %.2f ms, %d errors (%d 503), peak RSS %.1f MiB, %d booked",
			name, e.Name, run, b.runs, r.latency.P50ms, r.latency.P99ms, r.latency.P999ms, r.counts.Errors(), r.counts.Refused,
			r.memory.PeakMiB, r.booked)
		if withFloor {
			if r.floor, err = b.floorRateRun(ctx, e, rate, d, maxInFlight); err != nil {
				return out, fmt.Errorf("%s floor %s run %d: %w", name, e.Name, run, err)
			}
			b.progress("%s floor %s run %d/%d: p50 %.2f ms, p99 %.2f ms", name, e.Name, run, b.runs, r.floor.P50ms, r.floor.P99ms)
			floors = append(floors, r.floor)
		}
		lats = append(lats, r.latency)
		peak, sampled = append(peak, r.memory.PeakMiB), append(sampled, r.memory.SampledMaxMiB)
		sent := r.counts.Accepted + r.counts.Duplicate + r.counts.Errors()
		errRates = append(errRates, ratio(float64(r.counts.Errors()), float64(sent)))
		out.Counts = addCounts(out.Counts, r.counts)
		out.BookedDuringRun += r.booked
	}
	out.Latency = medianLatency(lats)
	if withFloor {
		f := medianLatency(floors)
		out.Floor = &f
	}
	out.Memory = Memory{PeakMiB: round3(median(peak)), SampledMaxMiB: round3(median(sampled))}
	out.ErrorRate = round3(median(errRates))
	return out, nil
}

func addCounts(a, b Counts) Counts {
	return Counts{Accepted: a.Accepted + b.Accepted, Duplicate: a.Duplicate + b.Duplicate, Refused: a.Refused + b.Refused,
		Status: a.Status + b.Status, Timeout: a.Timeout + b.Timeout, Error: a.Error + b.Error, Skipped: a.Skipped + b.Skipped}
}

// fixedRateRun starts a fresh database, the ERPNext simulator and the daemon, sends the
// webhooks on the clock, reads the daemon's memory before stopping it, and checks that the
// inbox holds exactly the accepted rows.
func (b *bench) fixedRateRun(ctx context.Context, e *engine, rate float64, d, erpDelay time.Duration, maxInFlight int) (fixedRateRun, error) {
	var r fixedRateRun
	db, err := e.fresh(ctx)
	if err != nil {
		return r, err
	}
	defer db.drop()
	n := int(rate * d.Seconds())
	invoices := min(payments(n), maxFixedRateInvoices)
	erp, err := b.startERPNext(ctx, invoicesFor(invoices), erpDelay)
	if err != nil {
		return r, err
	}
	defer erp.stop()
	dm, err := b.startDaemon(ctx, daemonSpec{db: db, erpURL: erp.url})
	if err != nil {
		return r, err
	}
	defer dm.stop()
	co := newCorpus(runTag("R"), b.secret, invoices)
	// Warm-up on the same clock, not counted: a process that has just started grows its heap
	// and dials its database connections during its first second.
	warm, _ := sendOnClock(ctx, dm.webhookURL, newCorpus(runTag("w"), b.secret, invoices), rate, b.openWarmFor, maxInFlight)
	r.counts, r.latency = sendOnClock(ctx, dm.webhookURL, co, rate, d, maxInFlight)
	r.memory = dm.memory()
	// The daemon lets its workers finish the bookings they hold for up to 20 s (slower with
	// a slow ERPNext); the figures are taken, so it gets 2 s and is then killed. Every
	// acknowledged row was committed before its answer.
	if err := dm.stopWithin(2*time.Second, false); err != nil {
		return r, err
	}
	s, err := store.Open(ctx, db.Driver, db.DSN)
	if err != nil {
		return r, err
	}
	defer s.Close()
	byStatus, err := s.CountByStatus(ctx)
	if err != nil {
		return r, err
	}
	r.booked = byStatus["done"]
	return r, checkRows(ctx, s.SQL().DB, warm.Accepted+r.counts.Accepted, warm.Errors()+r.counts.Errors())
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
	url, _, stop, err := b.startIntakeTarget(ctx, "floor", db)
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
