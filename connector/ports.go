package connector

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// The ports of the core: the clients of ERPNext and Razorpay it needs (implemented by
// frappe.Client and razorpay.Client), the store (store.go), and what another process of the
// core (connector/reconcile) uses of a Connector.

// ERPNext is the part of the Frappe REST client the connector uses (frappe.Client).
type ERPNext interface {
	List(ctx context.Context, doctype string, opt frappe.ListOptions, out any) error
	Get(ctx context.Context, doctype, name string, out any) error
	Insert(ctx context.Context, doctype string, doc any, out any) error
	Update(ctx context.Context, doctype, name string, fields any, out any) error
	Call(ctx context.Context, method string, args any, out any) error
}

var _ ERPNext = (*frappe.Client)(nil)

// RazorpayAPI is the part of the Razorpay REST client the connector uses (razorpay.Client):
// re-fetching entities before acting on them and filling in what an event does not carry.
// Nil when razorpay.key_id/key_secret are not configured.
type RazorpayAPI interface {
	GetPayment(ctx context.Context, id string) (*razorpay.Payment, error)
	GetOrder(ctx context.Context, id string) (*razorpay.Order, error)
	GetRefund(ctx context.Context, id string) (*razorpay.Refund, error)
	ListPayments(ctx context.Context, from, to time.Time, each func(*razorpay.Payment) error) error
	ListRefunds(ctx context.Context, from, to time.Time, each func(*razorpay.Refund) error) error
	GetDispute(ctx context.Context, id string) (*razorpay.Dispute, error)
	// Capture is used only with reconcile.capture_authorized.
	Capture(ctx context.Context, paymentID string, amount int64, currency string) (*razorpay.Payment, error)
}

var _ RazorpayAPI = (*razorpay.Client)(nil)

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

// Ports returns c's collaborators (for connector/reconcile, which works through the same
// clients and store as the workers).
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

// ErrLockHeld is returned by HoldLock when another owner holds the lock row.
var ErrLockHeld = errors.New("lock row held by another owner")

// HoldLock takes the named lock row for owner and keeps extending it (every ttl/4) until the
// returned function is called, which releases it. ErrLockHeld when another owner holds it.
// When another owner takes the row over later (this process stalled past ttl), lost is called
// once and extending stops.
func (c *Connector) HoldLock(ctx context.Context, name, owner string, ttl time.Duration, lost func()) (release func(), err error) {
	now := c.now()
	ok, err := c.store.AcquireLock(ctx, name, owner, now, now.Add(ttl))
	if err != nil {
		return nil, fmt.Errorf("take lock %s: %w", name, err)
	}
	if !ok {
		return nil, ErrLockHeld
	}
	stop := repeat(context.WithoutCancel(ctx), ttl/4, func(ctx context.Context) bool {
		now := c.now()
		if held, err := c.store.AcquireLock(ctx, name, owner, now, now.Add(ttl)); err == nil && !held {
			c.log.Warn().Str("lock", name).Msg("lock taken over by another process; stopping")
			lost()
			return false
		}
		return true
	})
	return func() {
		stop()
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer rcancel()
		if err := c.store.ReleaseLock(rctx, name, owner); err != nil {
			c.log.Warn().Err(err).Str("lock", name).Msg("release lock")
		}
	}, nil
}
