// Package connector is the core of razorpay-erpnext: webhook intake, the worker that books
// each event into ERPNext exactly once, the retry policy and the error vocabulary
// (DESIGN.md §4). It talks to its database through Store and to ERPNext through ERPNext; both
// are small interfaces implemented by connector/store and frappe.Client.
package connector

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
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
	rzp      RazorpayAPI // nil when not configured
	log      zerolog.Logger
	now      func() time.Time
	loc      *time.Location
	instance string

	wake        chan struct{}
	draining    chan struct{} // closed by Drain: workers stop claiming
	drainOnce   sync.Once
	pausedUntil atomic.Int64 // unix nanos; > now while a 401/403 from ERPNext pauses all work
	pauseReason atomic.Value // string
	seq         atomic.Int64
	erpSem      chan struct{} // erpnext.max_concurrency
	metrics     *metrics

	mu        sync.Mutex
	paidTo    map[string]string    // company → Mode of Payment account, cached after first read
	roundOffs map[string][2]string // company → round-off account and cost center
	// apiUser is the ERPNext user the API key belongs to, cached for comments (comment.go).
	apiUser string
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
}

// New builds a Connector from a validated Config.
func New(o Options) (*Connector, error) {
	loc, err := time.LoadLocation(o.Config.Mapping.Timezone)
	if err != nil {
		return nil, fmt.Errorf("mapping.timezone: %w", err)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	n := o.Config.ERPNext.MaxConcurrency
	if n < 1 {
		n = 1
	}
	var id [4]byte
	_, _ = rand.Read(id[:])
	m := newMetrics()
	if o.ERP != nil {
		o.ERP = erpEdge{ERPNext: o.ERP, m: m}
	}
	c := &Connector{
		cfg:       o.Config,
		store:     o.Store,
		erp:       o.ERP,
		rzp:       razorpayEdgeOf(o.Razorpay, m),
		log:       o.Log,
		now:       o.Now,
		loc:       loc,
		instance:  hex.EncodeToString(id[:]),
		wake:      make(chan struct{}, 1),
		draining:  make(chan struct{}),
		erpSem:    make(chan struct{}, n),
		paidTo:    map[string]string{},
		roundOffs: map[string][2]string{},
		metrics:   m,
	}
	m.reg.MustRegister(newStateCollector(c))
	return c, nil
}
