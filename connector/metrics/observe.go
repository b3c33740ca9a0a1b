package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Webhook counts one webhook request by event and outcome (connector.MetricWebhooks;
// "accepted" also sets connector.MetricLastWebhook). It implements intake.Counters.
func (m *Metrics) Webhook(event, outcome string) {
	key := [2]string{eventLabel(event), outcome}
	ch, ok := m.webhookBy.Load(key)
	if !ok {
		ch, _ = m.webhookBy.LoadOrStore(key, m.webhooks.WithLabelValues(key[0], key[1]))
	}
	ch.(prometheus.Counter).Inc()
	if outcome == "accepted" {
		m.lastOK.SetToCurrentTime()
	}
}

// Abandoned counts a webhook whose sender disconnected before its event was stored
// (connector.MetricWebhooksAbandoned).
func (m *Metrics) Abandoned() { m.abandoned.Inc() }

// Outcome counts one processed event at now: its status, the booking outcome and, when it was
// booked, the lag since the webhook arrived.
func (m *Metrics) Outcome(ev *connector.InboxEvent, o connector.Outcome, now time.Time) {
	m.outcomes.WithLabelValues(eventLabel(ev.Event), string(o.Status)).Inc()
	kind := connector.RouteOf(ev.Event).Kind()
	if kind == "" {
		return
	}
	m.bookings.WithLabelValues(kind, bookingOutcome(o.Status)).Inc()
	if o.Status == connector.StatusDone && !ev.ReceivedAt.IsZero() {
		lag := now.Sub(ev.ReceivedAt).Seconds()
		if lag < 0 {
			lag = 0
		}
		m.lag.Observe(lag)
	}
}

// bookingOutcome is the outcome label of the bookings_total series for a booking event that
// ended in s.
func bookingOutcome(s connector.Status) string {
	switch s {
	case connector.StatusDone:
		return "booked"
	case connector.StatusPending:
		return "retry"
	}
	return string(s)
}

// Comment counts a comment left on a Sales Invoice for a parked payment, by result ("added",
// "failed").
func (m *Metrics) Comment(result string) { m.comments.WithLabelValues(result).Inc() }

// Dispute counts a dispute event parked, by event.
func (m *Metrics) Dispute(event string) { m.disputes.WithLabelValues(event).Inc() }

// BankMatch counts a settlement's bank statement match, by its connector.BankMatch state.
func (m *Metrics) BankMatch(state string) { m.settleMatches.WithLabelValues(state).Inc() }

// SettlementQueued counts an item of a settlement queued from Razorpay, by kind.
func (m *Metrics) SettlementQueued(kind string) { m.settleQueued.WithLabelValues(kind).Inc() }

// Unmatched sets the created_at of the oldest posted settlement found without its bank line
// (zero: none).
func (m *Metrics) Unmatched(oldest time.Time) { m.settleUnmatched.Set(unixOrZero(oldest)) }

// Reconcile records one reconcile run that ended at now (when o.Finished is zero): runs by
// result, payments by outcome and, for a run without error, the last success time. Runs of
// other processes reach /metrics through the store's reconcile_runs.
func (m *Metrics) Reconcile(o connector.ReconcileObservation, now time.Time) {
	if o.Err != nil {
		m.recRuns.WithLabelValues("failure").Inc()
	} else {
		m.recRuns.WithLabelValues("success").Inc()
		fin := o.Finished
		if fin.IsZero() {
			fin = now
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

// Purged records one successful purge of n raw bodies at now: the count, and the last purge
// (razorpay_erpnext_retention_last_run_timestamp_seconds).
func (m *Metrics) Purged(n int, now time.Time) {
	m.purged.Add(float64(n))
	m.mu.Lock()
	m.lastPurgeAt = now
	m.mu.Unlock()
}

// ERPNextCall counts one call of the ERPNext client edge: its duration by operation and
// doctype (or method), and, when class is not "", its failure by class (connector.Failure).
func (m *Metrics) ERPNextCall(op, doctype string, took time.Duration, class string) {
	m.erpDuration.WithLabelValues(op, doctype).Observe(took.Seconds())
	if class != "" {
		m.erpErrors.WithLabelValues(op, class).Inc()
	}
}

// RazorpayCall is ERPNextCall for the Razorpay client edge.
func (m *Metrics) RazorpayCall(op string, took time.Duration, class string) {
	m.rzpDuration.WithLabelValues(op).Observe(took.Seconds())
	if class != "" {
		m.rzpErrors.WithLabelValues(op, class).Inc()
	}
}

// eventLabel bounds the event label of the webhook and outcome counters: a name in the event
// catalogue (razorpay.LookupEvent) is its own label, anything else is "other" ("unknown" when
// empty).
func eventLabel(event string) string {
	switch {
	case event == "":
		return "unknown"
	case known(event):
		return event
	}
	return "other"
}

func known(event string) bool { _, ok := razorpay.LookupEvent(event); return ok }

func unixOrZero(t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return float64(t.UnixNano()) / 1e9
}
