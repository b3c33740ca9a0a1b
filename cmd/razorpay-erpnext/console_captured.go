package main

import (
	"context"
	"sync"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/console"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// capturedTTL is how long the Today page's captured amounts are reused before Razorpay is read
// again; capturedTimeout bounds one read (it pages GET /v1/payments, 100 a page).
const (
	capturedTTL     = 10 * time.Minute
	capturedTimeout = 2 * time.Minute
)

// paymentLister is the part of razorpay.Client the captured series reads.
type paymentLister interface {
	ListPayments(ctx context.Context, from, to time.Time, each func(*razorpay.Payment) error) error
}

// capturedCache holds what Razorpay captured per local day and currency. A page view never
// waits for Razorpay: a stale or missing cache starts one background read (never two at once)
// and the page shows what is there, saying so.
type capturedCache struct {
	ctx  context.Context
	rzp  paymentLister
	loc  *time.Location
	now  func() time.Time
	ttl  time.Duration
	mu   sync.Mutex
	snap capturedSnapshot
	busy bool
	// tried is when the last read started; after a failure the next waits a minute.
	tried time.Time
}

// capturedSnapshot is one read: minor units and counts per currency per local-midnight unix
// time; known is false until a read succeeded (err then says why).
type capturedSnapshot struct {
	sums  map[string]map[int64]dayAmount
	from  time.Time
	asOf  time.Time
	known bool
	err   error
	note  string
}

type dayAmount struct {
	minor int64
	count int
}

func newCapturedCache(ctx context.Context, rzp paymentLister, loc *time.Location, now func() time.Time) *capturedCache {
	return &capturedCache{ctx: ctx, rzp: rzp, loc: loc, now: now, ttl: capturedTTL}
}

// get returns the current snapshot for days from `from` on, starting a refresh when it is
// older than the TTL or covers a later start.
func (c *capturedCache) get(from time.Time) capturedSnapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	stale := !c.snap.known || c.now().Sub(c.snap.asOf) > c.ttl || c.snap.from.After(from)
	if c.snap.err != nil && c.now().Sub(c.tried) < time.Minute {
		stale = false
	}
	if stale && !c.busy && c.ctx.Err() == nil {
		c.busy, c.tried = true, c.now()
		go c.refresh(from)
	}
	s := c.snap
	switch {
	case !s.known && s.err != nil:
		s.note = "Razorpay could not be read: " + s.err.Error()
	case !s.known:
		s.note = "reading Razorpay's payments of the last 14 days; reload in a moment."
	case s.err != nil:
		s.note = "the last read of Razorpay failed (" + s.err.Error() + "); shown as of the read before."
	}
	return s
}

// state is the Razorpay API's fault state as the last read found it.
func (c *capturedCache) state() (string, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.snap.err != nil:
		return console.FaultDown, "listing payments failed: " + c.snap.err.Error()
	case c.snap.known:
		return console.FaultOK, "payments listed " + c.snap.asOf.In(c.loc).Format("15:04 MST")
	}
	return console.FaultCheck, "not read yet"
}

// refresh lists the payments created since from and sums the captured ones per local day.
func (c *capturedCache) refresh(from time.Time) {
	ctx, cancel := context.WithTimeout(c.ctx, capturedTimeout)
	defer cancel()
	sums := map[string]map[int64]dayAmount{}
	err := c.rzp.ListPayments(ctx, from, c.now(), func(p *razorpay.Payment) error {
		if !bool(p.Captured) && p.Status != "captured" && p.Status != "refunded" {
			return nil
		}
		y, m, d := time.Unix(p.CreatedAt, 0).In(c.loc).Date()
		day := time.Date(y, m, d, 0, 0, 0, 0, c.loc).Unix()
		if sums[p.Currency] == nil {
			sums[p.Currency] = map[int64]dayAmount{}
		}
		a := sums[p.Currency][day]
		a.minor += p.Amount
		a.count++
		sums[p.Currency][day] = a
		return nil
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	c.busy = false
	if err != nil {
		c.snap.err = err
		return
	}
	// A success replaces the snapshot and clears the error.
	c.snap = capturedSnapshot{sums: sums, from: from, asOf: c.now(), known: true}
}
