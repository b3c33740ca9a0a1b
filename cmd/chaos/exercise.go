package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"path/filepath"
	"time"
)

// exercise sends the webhooks while replicas and MariaDB are killed, waits until the inbox is
// idle, reconciles and waits again.
func (r *run) exercise(ctx context.Context, rep *Report) error {
	events, err := recordedEvents(r.rzp)
	if err != nil {
		return err
	}
	rnd := mrand.New(mrand.NewPCG(r.opt.Seed, 0x73656e64))
	plan, tc := planDeliveries(rep.scenario, events, r.opt.Scenario, len(r.reps), r.opt.SendSpan, rnd)
	rep.Figures.Timeline = tc
	urls := make([]string, len(r.reps))
	for i, rp := range r.reps {
		urls[i] = "http://" + rp.listen + "/webhooks/razorpay"
	}
	snd := newSender(urls, r.sec.Webhook)
	start := time.Now()
	r.log("sending %d webhooks over %v; killing a replica every ~%v", tc.Deliveries, r.opt.SendSpan, r.opt.KillEvery)

	stop := make(chan struct{})
	chaosDone := make(chan []string, 1)
	go func() { chaosDone <- r.chaos(ctx, stop, snd, tc.Deliveries, rnd.Uint64()) }()
	snd.run(ctx, plan, 32)
	rep.Durations.Send = seconds(time.Since(start))
	r.log("webhooks sent in %.0f s; waiting until the inbox is idle", rep.Durations.Send)
	idleErr := r.waitIdle(ctx)
	close(stop)
	rep.ChaosErrors = append(rep.ChaosErrors, <-chaosDone...)
	rep.Figures.Sender = snd.counts()
	rep.Durations.Drain = seconds(time.Since(start)) - rep.Durations.Send
	if idleErr != nil {
		rep.ChaosErrors = append(rep.ChaosErrors, "inbox not idle after sending: "+idleErr.Error())
		return nil // verify reports what is unfinished
	}

	r.log("reconciling")
	recStart := time.Now()
	out, code, err := runTool(ctx, r.bin, r.sec.env(), filepath.Join(r.dir, "reconcile.log"), "reconcile", "--config", r.cfgPath, "--json")
	if err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	rep.Figures.Reconcile.ExitCode = code
	decodeJSON(out, &rep.Figures.Reconcile)
	if err := r.waitIdle(ctx); err != nil {
		rep.ChaosErrors = append(rep.ChaosErrors, "inbox not idle after reconcile: "+err.Error())
	}
	rep.Durations.Reconcile = seconds(time.Since(recStart))
	rep.Figures.Proxy = r.proxy.counts()
	return nil
}

// chaos kills a replica every ~KillEvery (±20 %) and restarts it, fires the 429 burst once a
// quarter of the deliveries are done and kills MariaDB once at 40 %, until stop. It returns
// what went wrong with the kills themselves.
func (r *run) chaos(ctx context.Context, stop <-chan struct{}, snd *sender, deliveries int, seed uint64) []string {
	rnd := mrand.New(mrand.NewPCG(seed, 1))
	var errs []string
	burst, dbKill := false, false
	next := time.Now().Add(r.jitter(rnd))
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for k := 0; ; {
		select {
		case <-stop:
			return errs
		case <-ctx.Done():
			return errs
		case <-tick.C:
		}
		done := float64(snd.sent.Load()) / float64(max(1, deliveries))
		if !burst && done >= 0.25 && r.opt.Burst429 > 0 {
			burst = true
			r.site.FailNext(r.opt.Burst429, 429)
			r.log("429 burst: the next %d ERPNext requests answer 429 with Retry-After", r.opt.Burst429)
		}
		if !dbKill && done >= 0.4 {
			dbKill = true
			if err := r.killDatabase(ctx); err != nil {
				errs = append(errs, err.Error())
			}
		}
		if time.Now().Before(next) {
			continue
		}
		rp := r.reps[k%len(r.reps)]
		k++
		r.actions.Lock()
		r.scrape(rp)
		rp.kill9()
		err := r.restart(ctx, rp)
		r.actions.Unlock()
		if err != nil {
			errs = append(errs, fmt.Sprintf("restart %s: %v", rp.name, err))
		}
		next = time.Now().Add(r.jitter(rnd))
	}
}

func (r *run) jitter(rnd *mrand.Rand) time.Duration {
	d := r.opt.KillEvery
	return d*8/10 + time.Duration(rnd.Int64N(int64(d*4/10)+1))
}

// killDatabase kills the run's database server with SIGKILL, leaves it down until every
// replica's /readyz reports the store unavailable (so each one has met the outage, bounded by
// outageSeen), and starts it again.
func (r *run) killDatabase(ctx context.Context) error {
	r.actions.Lock()
	defer r.actions.Unlock()
	r.log("kill -9 %s", r.db.name())
	r.db.kill9()
	r.dbKills.Add(1)
	down := time.Now()
	if err := waitUntil(ctx, outageSeen, r.replicasSeeStoreDown, nil); err != nil {
		r.log("%s down: not every replica reported it within %s (%v); starting it again", r.db.name(), outageSeen, err)
	}
	if err := r.db.start(ctx); err != nil {
		return fmt.Errorf("restart %s: %w", r.db.name(), err)
	}
	r.log("%s back (down %.1f s, until every replica reported it)", r.db.name(), seconds(time.Since(down)))
	return nil
}

// outageSeen bounds how long the database stays down waiting for the replicas to notice.
const outageSeen = 20 * time.Second

// replicasSeeStoreDown reports whether every replica answers /readyz 503 "store unavailable".
func (r *run) replicasSeeStoreDown() bool {
	hc := &http.Client{Timeout: time.Second}
	for _, rp := range r.reps {
		resp, err := hc.Get("http://" + rp.admin + "/readyz")
		if err != nil {
			return false
		}
		var body struct{ Status string }
		err = json.NewDecoder(io.LimitReader(resp.Body, 4096)).Decode(&body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusServiceUnavailable || body.Status != "store unavailable" {
			return false
		}
	}
	return true
}

// waitIdle waits until no inbox row is pending or processing on three polls in a row, a
// second apart (the poll's interval, not a wait for something to happen: a row a replica is
// about to write shows as pending or processing), and no late commit is still on its way to
// ERPNext.
func (r *run) waitIdle(ctx context.Context) error {
	quiet := 0
	lastLog := time.Now()
	for quiet < 3 {
		select {
		case <-ctx.Done():
			n, _ := unfinished(context.Background(), r.poll)
			return fmt.Errorf("%w with %d events pending or processing", ctx.Err(), n)
		case <-time.After(time.Second):
		}
		n, err := unfinished(ctx, r.poll)
		switch {
		case err != nil:
			quiet = 0
		case n == 0:
			quiet++
		default:
			quiet = 0
			if time.Since(lastLog) > 15*time.Second {
				r.log("%d events pending or processing", n)
				lastLog = time.Now()
			}
		}
	}
	r.proxy.lateWG.Wait()
	return nil
}
