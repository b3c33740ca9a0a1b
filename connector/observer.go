package connector

import "time"

// MetricNamespace prefixes every series the connector registers (connector/metrics).
const MetricNamespace = "razorpay_erpnext"

// Metric names, exported so deploy/alerts.yml can be checked against what the code registers.
const (
	MetricWebhooks = MetricNamespace + "_webhooks_received_total"
	// MetricWebhooksAbandoned counts webhooks whose sender disconnected while the event was
	// being stored: not a store fault, and not in MetricWebhooks.
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
	// by reconcile runs.
	MetricDeadRetried = MetricNamespace + "_reconcile_dead_retried_total"
	// MetricThrottleSecondsLeft is how long the pause ERPNext or Razorpay asked this process's
	// client for (429, 503 with Retry-After) still runs, by system (erpnext, razorpay).
	MetricThrottleSecondsLeft = MetricNamespace + "_throttle_seconds_left"
	// MetricRetryAfterCapped counts throttled answers whose Retry-After was longer than
	// erpnext.max_retry_after / razorpay.max_retry_after and was cut to it, by system.
	MetricRetryAfterCapped = MetricNamespace + "_retry_after_capped_total"
)

// Observer is what the core counts itself (metrics.Metrics implements it): each processed
// event at now, and each comment left on a Sales Invoice for a parked payment, by result
// ("added", "failed").
type Observer interface {
	Outcome(ev *InboxEvent, o Outcome, now time.Time)
	Comment(result string)
}

// noObserver counts nothing (Options.Observer left nil).
type noObserver struct{}

func (noObserver) Outcome(*InboxEvent, Outcome, time.Time) {}
func (noObserver) Comment(string)                          {}

// ReconcileObservation is what one reconcile run reports to the metrics (reconcile.Deps.ObserveRun,
// metrics.Metrics.Reconcile).
type ReconcileObservation struct {
	Finished      time.Time // when the run ended; zero = now
	Err           error     // nil for a run that covered its whole window
	Scanned       int       // payments Razorpay listed in the window
	Booked        int       // booked by this run
	AlreadyBooked int       // found booked already (by a webhook or ERPNext's checkout)
	Parked        int       // parked for a person
	RetriedDead   int       // dead events whose last failure was transient, sent back to pending
}
