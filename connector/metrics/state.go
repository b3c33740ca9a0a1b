package metrics

import (
	"context"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/edge"
)

// scrapeTimeout bounds the store reads a /metrics scrape makes, so a slow database never hangs
// Prometheus; on timeout the store-backed series are left out and store_up reads 0.
const scrapeTimeout = 2 * time.Second

// Counter is the store's count of inbox rows by status, read at every scrape. A store that is
// also a connector.RetentionStore gives the oldest pending age and the last reconcile success
// of any process; one with ClaimRetries (store.DB) its claim retries.
type Counter interface {
	CountByStatus(ctx context.Context) (map[connector.Status]int, error)
}

// State is what a scrape reads besides the series: the store, whether work is paused by a
// configuration fault, the pace each client keeps (nil: none), and the clock of the oldest
// pending age.
type State struct {
	Store     Counter
	Paused    func() (bool, string)
	SlowDowns func() []edge.SlowDown
	Now       func() time.Time
}

func (s State) slowDowns() []edge.SlowDown {
	if s.SlowDowns == nil {
		return nil
	}
	return s.SlowDowns()
}

// Watch registers the collector of s on m's registry: inbox depth by status, the oldest
// pending age, store_up, the last reconcile success, the configuration fault, the last purge,
// claim retries and the clients' pace. Call it once.
func (m *Metrics) Watch(s State) {
	if s.Now == nil {
		s.Now = time.Now
	}
	m.reg.MustRegister(newStateCollector(s, m))
}

// stateCollector reads the store and the pause flag on every scrape: inbox depth by status,
// oldest pending age, last reconcile success (also from other processes, through
// reconcile_runs) and the configuration fault.
type stateCollector struct {
	s                                                      State
	m                                                      *Metrics
	depth, oldest, storeUp, recOK, fault, lastPurgeSuccess *prometheus.Desc
	claimRetries, throttleLeft, capped                     *prometheus.Desc
}

// claimRetrier is the store's count of inbox-claim retries (store.DB.ClaimRetries): conflicts
// (deadlock or Galera certification failure, error 1213) and candidates lost to another claimer.
type claimRetrier interface {
	ClaimRetries() (conflicts, lost uint64)
}

func newStateCollector(s State, m *Metrics) *stateCollector {
	return &stateCollector{
		s:       s,
		m:       m,
		depth:   prometheus.NewDesc(connector.MetricInboxEvents, "Inbox rows by status, read from the store at scrape time.", []string{"status"}, nil),
		oldest:  prometheus.NewDesc(connector.MetricOldestPendingAge, "Seconds since the oldest pending or processing event arrived (0 when none).", nil, nil),
		storeUp: prometheus.NewDesc(connector.MetricStoreUp, "1 when the store answered this scrape within its timeout, else 0.", nil, nil),
		recOK: prometheus.NewDesc(connector.MetricReconcileSuccess,
			"Unix time of the last reconcile run that finished without error, in any process sharing the store (0 when none).", nil, nil),
		fault: prometheus.NewDesc(connector.MetricConfigFault,
			"1 while work is paused because ERPNext refused the credentials or permissions (401/403), else 0.", nil, nil),
		lastPurgeSuccess: prometheus.NewDesc(connector.MetricNamespace+"_retention_last_run_timestamp_seconds",
			"Unix time of the last successful raw-body purge in this process (0 when none).", nil, nil),
		claimRetries: prometheus.NewDesc(connector.MetricClaimRetries,
			"Inbox claims of this process tried again, by reason: conflict (deadlock or Galera certification failure, retried), lost (another worker claimed the row first; the next one is tried).",
			[]string{"reason"}, nil),
		throttleLeft: prometheus.NewDesc(connector.MetricThrottleSecondsLeft,
			"Seconds left of the pause the service asked this process's client for (429, or 503 with Retry-After), by system; 0 when calls flow.",
			[]string{"system"}, nil),
		capped: prometheus.NewDesc(connector.MetricRetryAfterCapped,
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
	st := s.s
	paused, _ := st.Paused()
	ch <- prometheus.MustNewConstMetric(s.fault, prometheus.GaugeValue, b2f(paused))
	s.m.mu.Lock()
	recOK, purgeAt := s.m.lastRecOK, s.m.lastPurgeAt
	s.m.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(s.lastPurgeSuccess, prometheus.GaugeValue, unixOrZero(purgeAt))
	for _, sd := range st.slowDowns() {
		sys := strings.ToLower(sd.System)
		ch <- prometheus.MustNewConstMetric(s.throttleLeft, prometheus.GaugeValue, sd.Left.Seconds(), sys)
		ch <- prometheus.MustNewConstMetric(s.capped, prometheus.CounterValue, float64(sd.Capped), sys)
	}
	if cr, ok := st.Store.(claimRetrier); ok {
		conflicts, lost := cr.ClaimRetries()
		ch <- prometheus.MustNewConstMetric(s.claimRetries, prometheus.CounterValue, float64(conflicts), "conflict")
		ch <- prometheus.MustNewConstMetric(s.claimRetries, prometheus.CounterValue, float64(lost), "lost")
	}

	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	up := true
	if counts, err := st.Store.CountByStatus(ctx); err == nil {
		for status, n := range counts {
			ch <- prometheus.MustNewConstMetric(s.depth, prometheus.GaugeValue, float64(n), string(status))
		}
	} else {
		up = false
	}
	if rs, ok := st.Store.(connector.RetentionStore); ok && up {
		if t, found, err := rs.OldestPending(ctx); err == nil {
			age := 0.0
			if found {
				age = st.Now().Sub(t).Seconds()
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
