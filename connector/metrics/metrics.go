// Package metrics holds the connector's Prometheus series (the names are connector.Metric*):
// webhooks, processed events and bookings, the calls of the client edge, reconcile runs,
// settlements, retention, and the state read from the store at scrape time. It is given what
// it reads (State) and counts what it is told; the core sees it through small interfaces
// (connector.Observer, intake.Counters, edge.Calls).
package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// Metrics are the connector's Prometheus series, on a registry of its own so several
// connectors (tests, two replicas in one process) never collide. Label values are bounded:
// event names come from Razorpay's fixed list (unknown ones are counted as "other").
type Metrics struct {
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
	lastRecOK   time.Time // in-process reconcile success (Reconcile)
	lastPurgeAt time.Time
}

// New registers the series, the Go and process collectors on a new registry.
func New() *Metrics {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		webhooks: counter(connector.MetricWebhooks,
			"Webhook requests by event and outcome (accepted, duplicate, bad_signature, malformed, too_large, overloaded, store_unavailable). Event is \"unknown\" before the body is verified.",
			"event", "outcome"),
		outcomes: counter(connector.MetricEventOutcomes,
			"Processed inbox events by event name and resulting status (done, parked, pending = retry, dead, skipped, duplicate).",
			"event", "status"),
		bookings: counter(connector.MetricBookings,
			"Booking attempts by kind (receipt, refund, settlement) and outcome (booked, duplicate, parked, retry, dead, skipped).",
			"kind", "outcome"),
		lastOK: prometheus.NewGauge(prometheus.GaugeOpts{Name: connector.MetricLastWebhook,
			Help: "Unix time of the last accepted webhook (0 until one arrives in this process)."}),
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{Name: connector.MetricBookedLag,
			Help:    "Seconds from a webhook's arrival to its Payment Entry being recorded as booked.",
			Buckets: []float64{0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400}}),
		erpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: connector.MetricERPNextDuration,
			Help:    "ERPNext REST calls by operation (list, get, insert, update, call) and doctype or method, successful or not.",
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120}}, []string{"op", "doctype"}),
		erpErrors: counter(connector.MetricERPNextErrors,
			"Failed ERPNext calls by operation and class (transport, ambiguous, auth, not_found, conflict, rate_limited, server, rejected).",
			"op", "class"),
		rzpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: connector.MetricRazorpayDuration,
			Help:    "Razorpay REST calls by operation, successful or not.",
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}}, []string{"op"}),
		rzpErrors: counter(connector.MetricRazorpayErrors, "Failed Razorpay calls by operation and class (transport, auth, not_found, rate_limited, server, rejected).", "op", "class"),
		recRuns:   counter(connector.MetricReconcileRuns, "Reconcile runs observed by this process, by result (success, failure).", "result"),
		recPayments: counter(connector.MetricReconcilePayments,
			"Payments seen by reconcile runs of this process, by outcome (scanned, booked, already_booked, parked).", "outcome"),
		purged: prometheus.NewCounter(prometheus.CounterOpts{Name: connector.MetricRawBodiesPurged,
			Help: "Raw webhook bodies removed by retention (retention.raw_bodies)."}),
		comments: counter(connector.MetricParkComments, "Comments left on Sales Invoices for parked payments, by result (added, failed).", "result"),
		disputes: counter(connector.MetricDisputes, "Dispute (chargeback) events received, by event; each is parked for a person.", "event"),
		settleQueued: counter(connector.MetricSettlementItemsQueued,
			"Payments and refunds of a settlement that had neither a booking nor an inbox row (every webhook lost), queued from Razorpay, by kind (receipt, refund).", "kind"),
		settleMatches: counter(connector.MetricSettlementBankMatches,
			"Bank statement matches of posted settlements, by state (matched, awaiting bank statement, ambiguous, failed).", "state"),
		settleUnmatched: prometheus.NewGauge(prometheus.GaugeOpts{Name: connector.MetricSettlementOldestUnmatched,
			Help: "Unix time (created_at) of the oldest posted settlement the last reconcile of this process found not matched to a bank statement line (0 when none)."}),
		abandoned: prometheus.NewCounter(prometheus.CounterOpts{Name: connector.MetricWebhooksAbandoned,
			Help: "Webhooks whose sender disconnected before the event was stored (Razorpay retries them); not counted in " + connector.MetricWebhooks + "."}),
		deadRetried: prometheus.NewCounter(prometheus.CounterOpts{Name: connector.MetricDeadRetried,
			Help: "Dead events whose last failure was transient (5xx, timeout, connection, store) that reconcile runs of this process sent back to pending."}),
	}
	m.reg.MustRegister(m.abandoned, m.webhooks, m.outcomes, m.bookings, m.lastOK, m.lag, m.erpDuration, m.erpErrors,
		m.rzpDuration, m.rzpErrors, m.recRuns, m.recPayments, m.purged, m.comments, m.disputes,
		m.settleQueued, m.settleMatches, m.settleUnmatched, m.deadRetried,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Registry is the registry the series are on (for /metrics and for tests).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }
