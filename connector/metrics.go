package connector

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the connector's Prometheus series, on a registry of its own so several
// connectors (tests, two replicas in one process) never collide.
type metrics struct {
	reg      *prometheus.Registry
	webhooks *prometheus.CounterVec // by outcome
	outcomes *prometheus.CounterVec // event outcomes by event and status
	lastOK   prometheus.Gauge
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "razorpay_erpnext_webhooks_received_total",
			Help: "Webhook requests by outcome (accepted, duplicate, bad_signature, malformed, too_large, store_unavailable).",
		}, []string{"outcome"}),
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "razorpay_erpnext_event_outcomes_total",
			Help: "Processed inbox events by event name and resulting status (done, parked, pending = retry, dead, skipped).",
		}, []string{"event", "status"}),
		lastOK: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "razorpay_erpnext_last_accepted_webhook_timestamp_seconds",
			Help: "Unix time of the last accepted webhook.",
		}),
	}
	m.reg.MustRegister(m.webhooks, m.outcomes, m.lastOK, prometheus.NewGoCollector())
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
