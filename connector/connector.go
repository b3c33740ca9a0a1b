// Package connector is the core of razorpay-erpnext (DESIGN.md §4): the domain's vocabulary
// (statuses, routes, plans, outcomes, failures, the Account), its ports, and the worker that
// has each inbox event booked into ERPNext exactly once, with the retry policy. It talks to its
// database through Store and to ERPNext and Razorpay through the
// ERPNext and RazorpayAPI ports, implemented by connector/store, frappe.Client and
// razorpay.Client.
//
// One file per concern, in layers that only call down (internal/shape checks it):
//
//   - vocabulary, ports and the client edge: status.go (Status), route.go (RouteOf, the one
//     routing table), store.go, ports.go, failure.go and clients.go (every outbound failure
//     classified once into a *Failure), metrics.go, connector.go, pause.go (a configuration
//     fault, held until a call succeeds), account.go (Account: whose money), booker.go (Booker,
//     the seam to connector/booking), plan.go (Plan), outcome.go (settle, the one function from
//     a job's error to an Outcome), bank.go, integration.go, precision.go;
//   - mechanisms: hold.go (HoldLock), synthetic.go, wake.go (what a row waits for);
//   - process.go (a claimed row to Booker.Book);
//   - entry points: worker.go, drain.go, explain.go (Explain is Booker.Decide printed),
//     ready.go, comment.go, settle_report.go.
//
// connector/booking books, built through Options.Booking: one job per route on the kernel of
// connector/kernel (claims, document locks, what is known of the site, lookup before create,
// apply), the settlement job of connector/settlement among them.
// connector/check validates a configuration against the live site, reading only;
// connector/intake receives webhooks into the inbox (verify, store, wake); connector/operator
// is what a person does to the inbox (replay, rebook, dismiss, history) and the retention of
// raw bodies, on the store it is given.
package connector

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// Connector receives webhooks and books them. Create it with New; run the workers with Run.
type Connector struct {
	cfg      Config
	store    Store
	erp      ERPNext
	rzp      RazorpayAPI  // nil when not configured
	paces    []systemPace // the clients that keep a shared pace (clients.go), for SlowDowns and /metrics
	log      zerolog.Logger
	now      func() time.Time
	loc      *time.Location
	instance string

	wake      chan struct{}
	draining  chan struct{} // closed by Drain: workers stop claiming
	drainOnce sync.Once
	pauses    *pauses // a configuration fault (pause.go), shared with the client edge
	seq       atomic.Int64
	metrics   *metrics

	booker Booker // the booking of the one Account (Options.Booking)
}

// Options are the collaborators of a Connector. Now defaults to time.Now.
type Options struct {
	Config Config
	Store  Store
	ERP    ERPNext
	// Razorpay is optional: without it refunds and disputes are acted on as the webhook says,
	// missing orders are not fetched and reconcile cannot run.
	Razorpay RazorpayAPI
	Log      zerolog.Logger
	Now      func() time.Time
	// Booking builds the booking of the Connector's one Account (booking.New): it cannot be
	// built here, since connector/booking imports connector.
	Booking func(BookingDeps) Booker
}

// New builds a Connector from a validated Config. It returns an error when mapping.timezone is
// not a known zone or Options.Booking is nil.
func New(o Options) (*Connector, error) {
	if o.Booking == nil {
		return nil, errors.New("connector.New: Options.Booking is nil (booking.New)")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	var id [4]byte
	_, _ = rand.Read(id[:])
	m := newMetrics()
	p := &pauses{}
	paces := pacesOf(o.ERP, o.Razorpay)
	if o.ERP != nil {
		o.ERP = erpEdge{ERPNext: o.ERP, m: m, p: p}
	}
	rzp := razorpayEdgeOf(o.Razorpay, m, p)
	acct, err := AccountOf(o.Config, o.ERP, rzp)
	if err != nil {
		return nil, fmt.Errorf("mapping.timezone: %w", err)
	}
	c := &Connector{
		cfg:      o.Config,
		store:    o.Store,
		erp:      o.ERP,
		rzp:      rzp,
		log:      o.Log,
		now:      o.Now,
		loc:      acct.Location,
		instance: hex.EncodeToString(id[:]),
		wake:     make(chan struct{}, 1),
		draining: make(chan struct{}),
		pauses:   p,
		metrics:  m,
		paces:    paces,
	}
	w := o.Config.Worker
	c.booker = o.Booking(BookingDeps{Account: acct, Store: o.Store, Now: o.Now, Log: o.Log,
		MaxConcurrency: max(o.Config.ERPNext.MaxConcurrency, 1), Fence: o.Config.ERPNext.ServerTimeout.D() + w.FenceMargin.D(),
		BackoffBase: w.BackoffBase.D(), BackoffMax: w.BackoffMax.D(), Counts: m.counts(), Wake: c.Wake})
	m.reg.MustRegister(newStateCollector(c))
	return c, nil
}

// Wake tells an idle worker that an event is due now.
func (c *Connector) Wake() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Paused reports whether work is paused by a configuration fault (ERPNext 401/403, Razorpay
// refusing the API keys) and why. A pause holds from the refusal until a call to the system
// that refused succeeds (pause.go); worker.pause_recheck only spaces the rechecks.
func (c *Connector) Paused() (bool, string) { return c.pauses.state() }

// pause pauses all work after system refused the credentials, until a call to it succeeds;
// the workers recheck after worker.pause_recheck.
func (c *Connector) pause(system, reason string) {
	recheck := c.now().Add(c.cfg.Worker.PauseRecheck.D())
	c.pauses.refused(system, reason, recheck)
	c.log.Error().Str("reason", reason).Time("recheck_at", recheck).Msg("configuration fault: all work paused")
}

// backoff is the capped exponential delay before attempt n+1 (n ≥ 1), with jitter in [d/2, d).
func (c *Connector) backoff(attempts int) time.Duration {
	base, max := c.cfg.Worker.BackoffBase.D(), c.cfg.Worker.BackoffMax.D()
	d := base
	for i := 1; i < attempts && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	if d <= 1 {
		return d
	}
	return d/2 + time.Duration(mrand.Int64N(int64(d/2)))
}

// Ports are a Connector's collaborators as its own stages see them: the clients behind the
// client edge (every failure a *Failure, every call in the metrics), the store, the
// configuration, the clock, the time zone of mapping.timezone and the logger. Razorpay is nil
// when the API is not configured.
type Ports struct {
	Config   Config
	Store    Store
	ERP      ERPNext
	Razorpay RazorpayAPI
	Now      func() time.Time
	Location *time.Location
	Log      zerolog.Logger
}

// Ports returns c's collaborators, for the wiring of the packages beside the core (intake,
// operator, reconcile), which work through the same clients and store as the workers.
func (c *Connector) Ports() Ports {
	return Ports{Config: c.cfg, Store: c.store, ERP: c.erp, Razorpay: c.rzp, Now: c.now, Location: c.loc, Log: c.log}
}

// Owner is a new owner id for lease, claim and lock rows of this process: "<instance>/<role>/<n>".
func (c *Connector) Owner(role string) string {
	return fmt.Sprintf("%s/%s/%d", c.instance, role, c.seq.Add(1))
}

// Backoff is the capped exponential delay before attempt n+1 (n ≥ 1) of worker.backoff_base and
// worker.backoff_max, with jitter in [d/2, d).
func (c *Connector) Backoff(attempts int) time.Duration { return c.backoff(attempts) }
