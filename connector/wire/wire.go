// Package wire builds one running core from a configuration, a store and the two clients: the
// metrics (connector/metrics), the client edge around each client (connector/edge), the
// booking (connector/booking), the Connector, and what intake, the operator actions, retention
// and reconcile are each given. cmd/razorpay-erpnext and the tests wire through it, so the core
// (package connector) neither builds nor wraps anything itself, and no package reads its
// collaborators back out of a Connector.
package wire

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/booking"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/edge"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/explain"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/intake"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/metrics"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/operator"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/reconcile"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/worker"
)

// Options are what a core is built from: a validated configuration, the store, and the raw
// clients (frappe.Client, razorpay.Client, or fakes), which New puts behind the client edge.
// Razorpay is optional (nil when razorpay.key_id/key_secret are not configured); ERP may be
// nil for a core that only receives webhooks. Now defaults to time.Now.
type Options struct {
	Config   connector.Config
	Store    connector.Store
	ERP      connector.ERPNext
	Razorpay connector.RazorpayAPI
	Log      zerolog.Logger
	Now      func() time.Time
}

// Core is one running core: the Connector (its workers, drain), the dry-run session of its
// booking (explain.Session: Explain, ExplainStored, Decide) and what was built around it, and
// its readiness (Ready). Its methods hand each package beside the core exactly what it is given.
type Core struct {
	*connector.Connector
	*explain.Session
	cfg     connector.Config
	store   connector.Store
	erp     connector.ERPNext     // behind the client edge
	rzp     connector.RazorpayAPI // behind the client edge; nil when not configured
	now     func() time.Time
	account connector.Account // the one Account of the configuration, its clients behind the edge
	log     zerolog.Logger
	metrics *metrics.Metrics
	paces   edge.Paces
	booker  connector.Booker
	probe   string // this process's id in the readiness probe's lock row (Ready)
}

// New builds the core of o. It returns an error when mapping.timezone is not a known zone.
func New(o Options) (*Core, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	m := metrics.New()
	p := &connector.Pauses{}
	var id [4]byte
	_, _ = rand.Read(id[:])
	c := &Core{cfg: o.Config, store: o.Store, now: o.Now, log: o.Log, metrics: m, probe: hex.EncodeToString(id[:]),
		paces: edge.PacesOf(o.ERP, o.Razorpay), erp: edge.ERPNext(o.ERP, m, p), rzp: edge.Razorpay(o.Razorpay, m, p)}
	var err error
	if c.account, err = connector.AccountOf(o.Config, c.erp, c.rzp); err != nil {
		return nil, fmt.Errorf("mapping.timezone: %w", err)
	}
	c.Connector, err = connector.New(connector.Options{Config: o.Config, Store: o.Store, ERP: c.erp, Razorpay: c.rzp,
		Pauses: p, Observer: m, Counts: connector.Counts{Dispute: m.Dispute, BankMatch: m.BankMatch, Queued: m.SettlementQueued},
		Log: o.Log, Now: o.Now,
		Booking:     func(d connector.BookingDeps) connector.Booker { c.booker = booking.New(d); return c.booker },
		Worker:      worker.New,
		ProbePauses: edge.Prober{ERP: c.erp, Razorpay: c.rzp, Pauses: p, Recheck: o.Config.Worker.PauseRecheck.D(), Now: o.Now, Log: o.Log}.Probe})
	if err != nil {
		return nil, err
	}
	w := o.Config.Worker
	c.Session = explain.New(explain.Deps{Booker: c.booker, Outcome: c.OutcomeOf, Now: o.Now,
		PauseRecheck: w.PauseRecheck.D(), MaxAttempts: w.MaxAttempts})
	m.Watch(metrics.State{Store: o.Store, Paused: c.Paused, SlowDowns: c.paces.SlowDowns, Now: o.Now})
	return c, nil
}

// Metrics is the Prometheus registry of the core's series (for /metrics and tests).
func (c *Core) Metrics() *prometheus.Registry { return c.metrics.Registry() }

// SlowDowns is the pace each client keeps (edge.Paces.SlowDowns): reading it calls nobody.
func (c *Core) SlowDowns() []edge.SlowDown { return c.paces.SlowDowns() }

// Booking is the booking of the core's one Account: what the settlement report and the
// console's clearing balance ask of it.
func (c *Core) Booking() connector.Booker { return c.booker }

// Intake receives webhooks into the store with the webhook secrets and account of the
// configuration, counted in the metrics, waking the Connector's workers.
func (c *Core) Intake() *intake.Intake {
	r := c.cfg.Razorpay
	return intake.New(intake.Deps{Secrets: r.WebhookSecrets, AccountID: r.AccountID, MaxInFlight: c.cfg.Server.MaxInFlight,
		Store: c.store, Now: c.now, Log: c.log, Wake: c.Wake, Counters: c.metrics})
}

// Operator is what a person does to the inbox, on the store and the ERPNext client edge
// (every call counted, a refused credential pauses the workers), waking the workers after a
// replay.
func (c *Core) Operator() *operator.Operator {
	return operator.New(operator.Deps{Store: c.store, ERP: c.erp, Now: c.now, Wake: c.Wake})
}

// Retention purges the raw bodies of s older than retention.raw_bodies, counted in the
// metrics.
func (c *Core) Retention(s operator.PurgeStore) operator.Retention {
	return operator.Retention{Store: s, Keep: c.cfg.Retention.RawBodies.D(), Now: c.now, Log: c.log,
		Purged: func(n int) { c.metrics.Purged(n, c.now()) }}
}

// HoldLock takes the named lock row for owner and keeps it until release, on the core's store
// (worker.Locks.Hold: connector.ErrLockHeld when another owner holds it; lost is called once
// when another owner takes it over).
func (c *Core) HoldLock(ctx context.Context, name, owner string, ttl time.Duration, lost func()) (release func(), err error) {
	return worker.Locks{Store: c.store, Now: c.now, Log: c.log}.Hold(ctx, name, owner, ttl, lost)
}

// Reconcile is what a reconcile run is given: the Account (its id, mapping, reconcile and
// settlement sections, time zone, and its clients behind the client edge), the store, the
// clock, the Connector's lock rows, owners, drain, wake and backoff, the booking's settlement
// report, and the metrics.
func (c *Core) Reconcile() reconcile.Deps {
	return reconcile.Deps{Account: c.account, Store: c.store, Settlement: c.booker, Now: c.now, Log: c.log,
		Owner: c.Owner, HoldLock: c.HoldLock, Drain: c.DrainEvents, Wake: c.Wake, Backoff: c.Backoff,
		ObserveRun:         func(o connector.ReconcileObservation) { c.metrics.Reconcile(o, c.now()) },
		ObserveSettlements: c.metrics.Unmatched}
}
