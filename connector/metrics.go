package connector

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// MetricNamespace prefixes every series the connector registers.
const MetricNamespace = "razorpay_erpnext"

// scrapeTimeout bounds the store reads a /metrics scrape makes, so a slow database never hangs
// Prometheus; on timeout the store-backed series are left out and store_up reads 0.
const scrapeTimeout = 2 * time.Second

// metrics are the connector's Prometheus series, on a registry of its own so several
// connectors (tests, two replicas in one process) never collide. Label values are bounded:
// event names come from Razorpay's fixed list (unknown ones are counted as "other").
type metrics struct {
	reg         *prometheus.Registry
	webhooks    *prometheus.CounterVec // event, outcome
	webhookBy   sync.Map               // [2]string{event label, outcome} → webhooks' child, resolved on first use
	abandoned   prometheus.Counter
	outcomes    *prometheus.CounterVec   // event, status
	bookings    *prometheus.CounterVec   // kind, outcome
	lastOK      prometheus.Gauge         // last accepted webhook
	lag         prometheus.Histogram     // received → booked
	erpDuration *prometheus.HistogramVec // op, doctype
	erpErrors   *prometheus.CounterVec   // op, class
	rzpDuration *prometheus.HistogramVec // op
	rzpErrors   *prometheus.CounterVec   // op, class
	recRuns     *prometheus.CounterVec   // result
	recPayments *prometheus.CounterVec   // outcome
	purged      prometheus.Counter
	comments    *prometheus.CounterVec // result
	disputes    *prometheus.CounterVec // event
	// settlements (settle*.go): items a settlement queued, bank matches, the oldest unmatched
	settleQueued    *prometheus.CounterVec // kind
	settleMatches   *prometheus.CounterVec // state
	settleUnmatched prometheus.Gauge
	deadRetried     prometheus.Counter

	mu          sync.Mutex
	lastRecOK   time.Time // in-process reconcile success (ObserveReconcile)
	lastPurgeAt time.Time
}

// Metric names, exported so deploy/alerts.yml can be checked against what the code registers.
const (
	MetricWebhooks = MetricNamespace + "_webhooks_received_total"
	// MetricWebhooksAbandoned counts webhooks whose sender disconnected while the event was
	// being stored (issue 10 defect 4): not a store fault, and not in MetricWebhooks.
	MetricWebhooksAbandoned = MetricNamespace + "_webhooks_abandoned_total"
	MetricLastWebhook       = MetricNamespace + "_last_accepted_webhook_timestamp_seconds"
	MetricEventOutcomes     = MetricNamespace + "_event_outcomes_total"
	MetricBookings          = MetricNamespace + "_bookings_total"
	MetricInboxEvents       = MetricNamespace + "_inbox_events"
	MetricOldestPendingAge  = MetricNamespace + "_inbox_oldest_pending_age_seconds"
	MetricStoreUp           = MetricNamespace + "_store_up"
	MetricBookedLag         = MetricNamespace + "_event_booked_lag_seconds"
	MetricERPNextDuration   = MetricNamespace + "_erpnext_request_duration_seconds"
	MetricERPNextErrors     = MetricNamespace + "_erpnext_request_errors_total"
	MetricRazorpayDuration  = MetricNamespace + "_razorpay_request_duration_seconds"
	MetricRazorpayErrors    = MetricNamespace + "_razorpay_request_errors_total"
	MetricReconcileSuccess  = MetricNamespace + "_reconcile_last_success_timestamp_seconds"
	MetricReconcileRuns     = MetricNamespace + "_reconcile_runs_total"
	MetricReconcilePayments = MetricNamespace + "_reconcile_payments_total"
	MetricConfigFault       = MetricNamespace + "_configuration_fault_active"
	MetricRawBodiesPurged   = MetricNamespace + "_raw_bodies_purged_total"
	MetricParkComments      = MetricNamespace + "_park_comments_total"
	MetricDisputes          = MetricNamespace + "_disputes_total"
	MetricClaimRetries      = MetricNamespace + "_store_claim_retries_total"
	// MetricSettlementItemsQueued counts payments and refunds a settlement found never booked
	// and queued from Razorpay (their webhooks were lost).
	MetricSettlementItemsQueued = MetricNamespace + "_settlement_items_queued_total"
	// MetricSettlementBankMatches counts bank statement matches tried, by state.
	MetricSettlementBankMatches = MetricNamespace + "_settlement_bank_matches_total"
	// MetricSettlementOldestUnmatched is the created_at of the oldest posted settlement the
	// last reconcile of this process found without its bank statement line.
	MetricSettlementOldestUnmatched = MetricNamespace + "_settlement_oldest_unmatched_timestamp_seconds"
	// MetricDeadRetried counts dead events whose last failure was transient, sent back to pending
	// by reconcile runs (issue 10).
	MetricDeadRetried = MetricNamespace + "_reconcile_dead_retried_total"
	// MetricThrottleSecondsLeft is how long the pause ERPNext or Razorpay asked this process's
	// client for (429, 503 with Retry-After) still runs, by system (erpnext, razorpay).
	MetricThrottleSecondsLeft = MetricNamespace + "_throttle_seconds_left"
	// MetricRetryAfterCapped counts throttled answers whose Retry-After was longer than
	// erpnext.max_retry_after / razorpay.max_retry_after and was cut to it, by system.
	MetricRetryAfterCapped = MetricNamespace + "_retry_after_capped_total"
)

func newMetrics() *metrics {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	m := &metrics{
		reg: prometheus.NewRegistry(),
		webhooks: counter(MetricWebhooks,
			"Webhook requests by event and outcome (accepted, duplicate, bad_signature, malformed, too_large, overloaded, store_unavailable). Event is \"unknown\" before the body is verified.",
			"event", "outcome"),
		outcomes: counter(MetricEventOutcomes,
			"Processed inbox events by event name and resulting status (done, parked, pending = retry, dead, skipped, duplicate).",
			"event", "status"),
		bookings: counter(MetricBookings,
			"Booking attempts by kind (receipt, refund, settlement) and outcome (booked, duplicate, parked, retry, dead, skipped).",
			"kind", "outcome"),
		lastOK: prometheus.NewGauge(prometheus.GaugeOpts{Name: MetricLastWebhook,
			Help: "Unix time of the last accepted webhook (0 until one arrives in this process)."}),
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{Name: MetricBookedLag,
			Help:    "Seconds from a webhook's arrival to its Payment Entry being recorded as booked.",
			Buckets: []float64{0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400}}),
		erpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: MetricERPNextDuration,
			Help:    "ERPNext REST calls by operation (list, get, insert, update, call) and doctype or method, successful or not.",
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120}}, []string{"op", "doctype"}),
		erpErrors: counter(MetricERPNextErrors,
			"Failed ERPNext calls by operation and class (transport, ambiguous, auth, not_found, conflict, rate_limited, server, rejected).",
			"op", "class"),
		rzpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: MetricRazorpayDuration,
			Help:    "Razorpay REST calls by operation, successful or not.",
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}}, []string{"op"}),
		rzpErrors: counter(MetricRazorpayErrors, "Failed Razorpay calls by operation and class (transport, auth, not_found, rate_limited, server, rejected).", "op", "class"),
		recRuns:   counter(MetricReconcileRuns, "Reconcile runs observed by this process, by result (success, failure).", "result"),
		recPayments: counter(MetricReconcilePayments,
			"Payments seen by reconcile runs of this process, by outcome (scanned, booked, already_booked, parked).", "outcome"),
		purged: prometheus.NewCounter(prometheus.CounterOpts{Name: MetricRawBodiesPurged,
			Help: "Raw webhook bodies removed by retention (retention.raw_bodies)."}),
		comments: counter(MetricParkComments, "Comments left on Sales Invoices for parked payments, by result (added, failed).", "result"),
		disputes: counter(MetricDisputes, "Dispute (chargeback) events received, by event; each is parked for a person.", "event"),
		settleQueued: counter(MetricSettlementItemsQueued,
			"Payments and refunds of a settlement that had neither a booking nor an inbox row (every webhook lost), queued from Razorpay, by kind (receipt, refund).", "kind"),
		settleMatches: counter(MetricSettlementBankMatches,
			"Bank statement matches of posted settlements, by state (matched, awaiting bank statement, ambiguous, failed).", "state"),
		settleUnmatched: prometheus.NewGauge(prometheus.GaugeOpts{Name: MetricSettlementOldestUnmatched,
			Help: "Unix time (created_at) of the oldest posted settlement the last reconcile of this process found not matched to a bank statement line (0 when none)."}),
		abandoned: prometheus.NewCounter(prometheus.CounterOpts{Name: MetricWebhooksAbandoned,
			Help: "Webhooks whose sender disconnected before the event was stored (Razorpay retries them); not counted in " + MetricWebhooks + "."}),
		deadRetried: prometheus.NewCounter(prometheus.CounterOpts{Name: MetricDeadRetried,
			Help: "Dead events whose last failure was transient (5xx, timeout, connection, store) that reconcile runs of this process sent back to pending."}),
	}
	m.reg.MustRegister(m.abandoned, m.webhooks, m.outcomes, m.bookings, m.lastOK, m.lag, m.erpDuration, m.erpErrors,
		m.rzpDuration, m.rzpErrors, m.recRuns, m.recPayments, m.purged, m.comments, m.disputes,
		m.settleQueued, m.settleMatches, m.settleUnmatched, m.deadRetried,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// stateCollector reads the store and the pause flag on every scrape: inbox depth by status,
// oldest pending age, last reconcile success (also from other processes, through
// reconcile_runs) and the configuration fault.
type stateCollector struct {
	c                                                      *Connector
	depth, oldest, storeUp, recOK, fault, lastPurgeSuccess *prometheus.Desc
	claimRetries, throttleLeft, capped                     *prometheus.Desc
}

// claimRetrier is the store's count of inbox-claim retries (store.DB.ClaimRetries): conflicts
// (deadlock or Galera certification failure, error 1213) and candidates lost to another claimer.
type claimRetrier interface {
	ClaimRetries() (conflicts, lost uint64)
}

func newStateCollector(c *Connector) *stateCollector {
	return &stateCollector{
		c:       c,
		depth:   prometheus.NewDesc(MetricInboxEvents, "Inbox rows by status, read from the store at scrape time.", []string{"status"}, nil),
		oldest:  prometheus.NewDesc(MetricOldestPendingAge, "Seconds since the oldest pending or processing event arrived (0 when none).", nil, nil),
		storeUp: prometheus.NewDesc(MetricStoreUp, "1 when the store answered this scrape within its timeout, else 0.", nil, nil),
		recOK: prometheus.NewDesc(MetricReconcileSuccess,
			"Unix time of the last reconcile run that finished without error, in any process sharing the store (0 when none).", nil, nil),
		fault: prometheus.NewDesc(MetricConfigFault,
			"1 while work is paused because ERPNext refused the credentials or permissions (401/403), else 0.", nil, nil),
		lastPurgeSuccess: prometheus.NewDesc(MetricNamespace+"_retention_last_run_timestamp_seconds",
			"Unix time of the last successful raw-body purge in this process (0 when none).", nil, nil),
		claimRetries: prometheus.NewDesc(MetricClaimRetries,
			"Inbox claims of this process tried again, by reason: conflict (deadlock or Galera certification failure, retried), lost (another worker claimed the row first; the next one is tried).",
			[]string{"reason"}, nil),
		throttleLeft: prometheus.NewDesc(MetricThrottleSecondsLeft,
			"Seconds left of the pause the service asked this process's client for (429, or 503 with Retry-After), by system; 0 when calls flow.",
			[]string{"system"}, nil),
		capped: prometheus.NewDesc(MetricRetryAfterCapped,
			"Throttled answers whose Retry-After was longer than erpnext.max_retry_after / razorpay.max_retry_after and was honoured only that long, by system.",
			[]string{"system"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (s *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{s.depth, s.oldest, s.storeUp, s.recOK, s.fault, s.lastPurgeSuccess, s.claimRetries, s.throttleLeft, s.capped} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (s *stateCollector) Collect(ch chan<- prometheus.Metric) {
	c := s.c
	paused, _ := c.Paused()
	ch <- prometheus.MustNewConstMetric(s.fault, prometheus.GaugeValue, b2f(paused))
	c.metrics.mu.Lock()
	recOK, purgeAt := c.metrics.lastRecOK, c.metrics.lastPurgeAt
	c.metrics.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(s.lastPurgeSuccess, prometheus.GaugeValue, unixOrZero(purgeAt))
	for _, sd := range c.SlowDowns() {
		sys := strings.ToLower(sd.System)
		ch <- prometheus.MustNewConstMetric(s.throttleLeft, prometheus.GaugeValue, sd.Left.Seconds(), sys)
		ch <- prometheus.MustNewConstMetric(s.capped, prometheus.CounterValue, float64(sd.Capped), sys)
	}
	if cr, ok := c.store.(claimRetrier); ok {
		conflicts, lost := cr.ClaimRetries()
		ch <- prometheus.MustNewConstMetric(s.claimRetries, prometheus.CounterValue, float64(conflicts), "conflict")
		ch <- prometheus.MustNewConstMetric(s.claimRetries, prometheus.CounterValue, float64(lost), "lost")
	}

	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	up := true
	if counts, err := c.store.CountByStatus(ctx); err == nil {
		for status, n := range counts {
			ch <- prometheus.MustNewConstMetric(s.depth, prometheus.GaugeValue, float64(n), string(status))
		}
	} else {
		up = false
	}
	if rs, ok := c.store.(RetentionStore); ok && up {
		if t, found, err := rs.OldestPending(ctx); err == nil {
			age := 0.0
			if found {
				age = c.now().Sub(t).Seconds()
				if age < 0 {
					age = 0
				}
			}
			ch <- prometheus.MustNewConstMetric(s.oldest, prometheus.GaugeValue, age)
		} else {
			up = false
		}
		if t, found, err := rs.LastReconcileSuccess(ctx); err == nil && found && t.After(recOK) {
			recOK = t
		} else if err != nil {
			up = false
		}
	}
	ch <- prometheus.MustNewConstMetric(s.recOK, prometheus.GaugeValue, unixOrZero(recOK))
	ch <- prometheus.MustNewConstMetric(s.storeUp, prometheus.GaugeValue, b2f(up))
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func unixOrZero(t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return float64(t.UnixNano()) / 1e9
}

// ReconcileObservation is what one reconcile run reports to ObserveReconcile.
type ReconcileObservation struct {
	Finished      time.Time // when the run ended; zero = now
	Err           error     // nil for a run that covered its whole window
	Scanned       int       // payments Razorpay listed in the window
	Booked        int       // booked by this run
	AlreadyBooked int       // found booked already (by a webhook or ERPNext's checkout)
	Parked        int       // parked for a person
	RetriedDead   int       // dead events whose last failure was transient, sent back to pending
}

// ObserveReconcile records one reconcile run in the metrics: runs by result, payments by
// outcome and, for a run without error, the last success time. The reconciler calls it at the
// end of every run; runs of other processes reach /metrics through the store's reconcile_runs.
func (c *Connector) ObserveReconcile(o ReconcileObservation) {
	m := c.metrics
	if o.Err != nil {
		m.recRuns.WithLabelValues("failure").Inc()
	} else {
		m.recRuns.WithLabelValues("success").Inc()
		fin := o.Finished
		if fin.IsZero() {
			fin = c.now()
		}
		m.mu.Lock()
		if fin.After(m.lastRecOK) {
			m.lastRecOK = fin
		}
		m.mu.Unlock()
	}
	for outcome, n := range map[string]int{"scanned": o.Scanned, "booked": o.Booked, "already_booked": o.AlreadyBooked, "parked": o.Parked} {
		m.recPayments.WithLabelValues(outcome).Add(float64(n))
	}
	m.deadRetried.Add(float64(o.RetriedDead))
}

// RecordPurge records one successful purge of n raw bodies (operator.Retention.Purged): the
// count, and now as the last purge (razorpay_erpnext_retention_last_run_timestamp_seconds).
func (c *Connector) RecordPurge(n int) {
	c.metrics.purged.Add(float64(n))
	c.metrics.mu.Lock()
	c.metrics.lastPurgeAt = c.now()
	c.metrics.mu.Unlock()
}

// Metrics returns the connector's Prometheus registry (for tests and for other commands that
// want to push the same series).
func (c *Connector) Metrics() *prometheus.Registry { return c.metrics.reg }

// observeOutcome counts one processed event: its status, the booking outcome and, when it was
// booked, the lag since the webhook arrived.
func (c *Connector) observeOutcome(ev *InboxEvent, o Outcome) {
	m := c.metrics
	m.outcomes.WithLabelValues(eventLabel(ev.Event), string(o.Status)).Inc()
	kind := RouteOf(ev.Event).Kind()
	if kind == "" {
		return
	}
	m.bookings.WithLabelValues(kind, o.Status.bookingOutcome()).Inc()
	if o.Status == StatusDone && !ev.ReceivedAt.IsZero() {
		lag := c.now().Sub(ev.ReceivedAt).Seconds()
		if lag < 0 {
			lag = 0
		}
		m.lag.Observe(lag)
	}
}

// eventLabel bounds the event label of the webhook and outcome counters: a name in the event
// catalogue (razorpay.LookupEvent) is its own label, anything else is "other" ("unknown" when
// empty).
func known(event string) bool { _, ok := razorpay.LookupEvent(event); return ok }

func eventLabel(event string) string {
	switch {
	case event == "":
		return "unknown"
	case known(event):
		return event
	}
	return "other"
}

// WebhookCounters counts webhook requests on a Connector's metrics, for connector/intake
// (intake.Counters): Webhook by event and outcome (MetricWebhooks; "accepted" also sets
// MetricLastWebhook), Abandoned a sender gone before its event was stored
// (MetricWebhooksAbandoned).
type WebhookCounters struct{ m *metrics }

// WebhookCounters returns the webhook counters of c's metrics.
func (c *Connector) WebhookCounters() WebhookCounters { return WebhookCounters{c.metrics} }

// Webhook counts one webhook request by event and outcome.
func (w WebhookCounters) Webhook(event, outcome string) {
	key := [2]string{eventLabel(event), outcome}
	ch, ok := w.m.webhookBy.Load(key)
	if !ok {
		ch, _ = w.m.webhookBy.LoadOrStore(key, w.m.webhooks.WithLabelValues(key[0], key[1]))
	}
	ch.(prometheus.Counter).Inc()
	if outcome == "accepted" {
		w.m.lastOK.SetToCurrentTime()
	}
}

// Abandoned counts a webhook whose sender disconnected before its event was stored.
func (w WebhookCounters) Abandoned() { w.m.abandoned.Inc() }
