package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// verify reads the ground truth, runs the checks and scans the logs. Metrics are scraped
// before the replicas stop.
// Metric series the run adds up over every replica process (counters restart with a process,
// so each replica is scraped just before it is killed and once at the end).
const (
	metricClaimRetries = "razorpay_erpnext_store_claim_retries_total"
	metricWebhooks     = "razorpay_erpnext_webhooks_received_total"
)

// scrape adds rp's counters to the run's sums.
func (r *run) scrape(rp *replica) {
	m, err := rp.metrics(r.sec.Admin, metricClaimRetries, metricWebhooks)
	r.metricsMu.Lock()
	defer r.metricsMu.Unlock()
	if err != nil {
		r.scrapeErrs = append(r.scrapeErrs, fmt.Sprintf("scrape %s: %v", rp.name, err))
		return
	}
	if r.metricSums == nil {
		r.metricSums = map[string]int64{}
	}
	for k, v := range m {
		f, err := strconv.ParseFloat(v, 64)
		if err == nil {
			r.metricSums[k] += int64(f)
		}
	}
}

func (r *run) verify(ctx context.Context, rep *Report) error {
	// An interrupted or timed-out run still reports what the books say.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	for _, rp := range r.reps {
		r.scrape(rp)
		rep.Figures.Kills.Replica += rp.kills
	}
	rep.Figures.ClaimRetries, rep.Figures.Webhooks = map[string]int64{}, map[string]int64{}
	r.metricsMu.Lock()
	for k, v := range r.metricSums {
		if name, labels, ok := strings.Cut(k, "{"); ok && name == metricClaimRetries {
			rep.Figures.ClaimRetries["{"+labels] = v
		} else if ok {
			rep.Figures.Webhooks["{"+labels] = v
		}
	}
	rep.ChaosErrors = append(rep.ChaosErrors, r.scrapeErrs...)
	r.metricsMu.Unlock()
	if r.db.driver() == driverPostgres {
		rep.Figures.Kills.Postgres = r.dbKills.Load()
	} else {
		rep.Figures.Kills.MariaDB = r.dbKills.Load()
	}
	rep.Figures.Kills.SlowRestarts = r.restartsF.Load()
	rep.Figures.Kills.ReplicaRestarts = rep.Figures.Kills.Replica
	for _, rp := range r.reps {
		rp.stop(40 * time.Second) // the daemon drains its workers in ≤ 20 s
	}
	r.log("reading the books")
	entries, err := erpEntries(ctx, r.erpBase)
	if err != nil {
		return fmt.Errorf("ERPNext ground truth: %w", err)
	}
	inbox, bookings, err := storeRows(ctx, r.poll)
	if err != nil {
		return fmt.Errorf("store rows: %w", err)
	}
	rep.Figures.Books = check(truth{Scenario: rep.scenario, Entries: entries, Inbox: inbox, Bookings: bookings})
	logs, err := scanLogs(r.dir, r.sec.secretValues())
	if err != nil {
		return fmt.Errorf("scan logs: %w", err)
	}
	rep.Figures.Logs = logs
	return nil
}
