package connector

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"
)

// Options are the collaborators of a Connector, built by the wiring (connector/wire): the
// core makes no call of its own. Now defaults to time.Now, Pauses to a pause of its own and
// Observer to counting nothing.
type Options struct {
	Config Config
	Store  Store
	// ERP and Razorpay are the clients behind the client edge (connector/edge: every failure
	// a *Failure, every call counted, a refused credential reported to Pauses). Razorpay is
	// optional: without it refunds and disputes are acted on as the webhook says, missing
	// orders are not fetched and reconcile cannot run.
	ERP      ERPNext
	Razorpay RazorpayAPI
	// Pauses is the configuration-fault state the client edge shares.
	Pauses *Pauses
	// Observer counts processed events and park comments; Counts are the booking's counters.
	Observer Observer
	Counts   Counts
	Log      zerolog.Logger
	Now      func() time.Time
	// Booking builds the booking of the Connector's one Account (booking.New): it cannot be
	// built here, since connector/booking imports connector.
	Booking func(BookingDeps) Booker
	// Worker builds the workers (worker.New), for the same reason.
	Worker func(WorkerDeps) Runner
	// ProbePauses rechecks a configuration pause when its recheck is due (edge.Prober.Probe,
	// through the client edge); nil rechecks only through the calls of the work itself.
	ProbePauses func(ctx context.Context)
}

// New builds a Connector from a validated Config. It returns an error when mapping.timezone is
// not a known zone, or Options.Booking or Options.Worker is nil.
func New(o Options) (*Connector, error) {
	if o.Booking == nil || o.Worker == nil {
		return nil, errors.New("connector.New: Options.Booking (booking.New) and Options.Worker (worker.New) are required")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ProbePauses == nil {
		o.ProbePauses = func(context.Context) {}
	}
	if o.Pauses == nil {
		o.Pauses = &Pauses{}
	}
	if o.Observer == nil {
		o.Observer = noObserver{}
	}
	o.Counts = o.Counts.orNone()
	var id [4]byte
	_, _ = rand.Read(id[:])
	acct, err := AccountOf(o.Config, o.ERP, o.Razorpay)
	if err != nil {
		return nil, fmt.Errorf("mapping.timezone: %w", err)
	}
	c := &Connector{
		cfg:      o.Config,
		log:      o.Log,
		now:      o.Now,
		instance: hex.EncodeToString(id[:]),
		wake:     make(chan struct{}, 1),
		pauses:   o.Pauses,
		obs:      o.Observer,
	}
	w := o.Config.Worker
	c.booker = o.Booking(BookingDeps{Account: acct, Store: o.Store, Now: o.Now, Log: o.Log,
		MaxConcurrency: max(o.Config.ERPNext.MaxConcurrency, 1), Fence: o.Config.ERPNext.ServerTimeout.D() + w.FenceMargin.D(),
		BackoffBase: w.BackoffBase.D(), BackoffMax: w.BackoffMax.D(), Counts: o.Counts, Wake: c.Wake})
	c.runner = o.Worker(WorkerDeps{Store: o.Store, Booker: c.booker, Workers: o.Config.Workers, Worker: w,
		Now: o.Now, Log: o.Log, Owner: c.Owner, Wake: c.wake, Holding: c.pauses.holding, ProbePauses: o.ProbePauses,
		Settle: c.settle, Observe: func(ev *InboxEvent, out Outcome) { c.obs.Outcome(ev, out, c.now()) },
		Account: acct, CommentTimeout: o.Config.ERPNext.Timeout.D() + time.Second, Comment: c.obs.Comment})
	return c, nil
}
