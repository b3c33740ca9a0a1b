// Package throttle is the one shared pace of an API client (frappe.Client, razorpay.Client).
// When the server asks for a slower pace — HTTP 429, or 503 with Retry-After — no request of
// that client starts before the instant the server named: every caller blocks on its own
// context (a timer, never a polling loop) until then. When the pause ends one request goes
// alone as a probe; when it is answered the callers that waited are let through one at a time,
// spaced by the probe's round trip, so they do not all hit the server in the same instant and
// spend its fresh budget at once (Frappe's limiter opens a new window for the whole site,
// spec/erpnext.md §8.1). A pause without a Retry-After hint (Razorpay documents none,
// spec/razorpay.md §5.3) backs off exponentially: 1 s, 2 s, 4 s … 32 s.
//
// The leaf has no knowledge of either API: the clients map their answers onto Outcome.
package throttle

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/sleep"
)

// Bounds of the pauses and spacing the Gate chooses by itself.
const (
	// FirstBackoff is the pause after a throttled answer without a Retry-After hint; it doubles
	// with each consecutive pause up to MaxBackoff.
	FirstBackoff = time.Second
	// MaxBackoff caps the pause chosen without a hint.
	MaxBackoff = 32 * time.Second
	// DefaultMaxPause caps the pause a server's own Retry-After may impose (SetMaxPause changes
	// it). A longer hint — a proxy answering `Retry-After: 86400`, an HTTP date next month — is
	// honoured only this long and counted in State.Capped: a whole day without a single call
	// would stop every booking of the process for that day.
	DefaultMaxPause = 5 * time.Minute
	// MinSpacing and MaxSpacing bound the gap between admissions while the callers held by a
	// pause are let through after the probe.
	MinSpacing = 5 * time.Millisecond
	MaxSpacing = 2 * time.Second
	// maxJitter bounds the random delay added after the instant a pause ends, so that several
	// processes paused by one site (replicas) do not all start again in the same millisecond.
	maxJitter = 250 * time.Millisecond
)

// Outcome is how an admitted request ended, reported with Ticket.Done.
type Outcome int

// The outcomes.
const (
	// Answered: the server answered without asking for a pause (any status other than the
	// throttling ones), or the request failed in transport. It ends a probe and opens the gate.
	Answered Outcome = iota
	// Throttled: the server answered 429, or 503 with Retry-After.
	Throttled
	// Abandoned: the caller's context ended before an answer; nothing is learnt.
	Abandoned
)

// State is a snapshot of a Gate for metrics and the console.
type State struct {
	Until     time.Time     // no request starts before this instant; zero or past when open
	Throttled uint64        // throttled answers seen since the client was made (429s and 503s with Retry-After)
	Pauses    uint64        // pauses started (a burst of throttled answers to requests already in flight is one pause)
	Waiting   int           // callers blocked in Wait right now
	LastPause time.Duration // length of the most recent pause (the server's Retry-After up to the cap, or the backoff chosen)
	Capped    uint64        // throttled answers whose Retry-After was longer than the cap (SetMaxPause) and was cut to it
	LastAsked time.Duration // the server's Retry-After of the most recent capped answer (0 until one)
}

// Gate is the shared pace. The zero value is not usable; call New. It is safe for concurrent use.
type Gate struct {
	now    func() time.Time
	jitter func(max time.Duration) time.Duration

	maxPause time.Duration // cap of a server's Retry-After (guarded by mu)

	mu        sync.Mutex
	until     time.Time     // no admission before this
	epoch     uint64        // pauses started; a ticket remembers the epoch it was admitted in
	needProbe bool          // the next admission after the pause is a probe
	probe     chan struct{} // non-nil while a probe is in flight; closed when it ends
	spacing   time.Duration // gap between admissions until rampEnd
	next      time.Time     // earliest start of the next spaced admission
	rampEnd   time.Time     // spacing applies to admissions before this
	streak    int           // consecutive pauses without a request answered in between
	state     State

	onAdmit func(now time.Time, probe bool) // tests: called with mu held for every admission
	onWake  func()                          // tests: called for every wake-up inside Wait
}

// New returns an open Gate reading time from now (time.Now when nil).
func New(now func() time.Time) *Gate {
	if now == nil {
		now = time.Now
	}
	return &Gate{now: now, maxPause: DefaultMaxPause, jitter: func(max time.Duration) time.Duration {
		if max <= 0 {
			return 0
		}
		return rand.N(max)
	}}
}

// SetMaxPause sets the longest pause a server's Retry-After may impose; d <= 0 restores
// DefaultMaxPause. A pause already running is not shortened.
func (g *Gate) SetMaxPause(d time.Duration) {
	if d <= 0 {
		d = DefaultMaxPause
	}
	g.mu.Lock()
	g.maxPause = d
	g.mu.Unlock()
}

// State returns a snapshot of the gate.
func (g *Gate) State() State {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.state
	s.Until = g.until
	return s
}

// Ticket is one admitted request. Report its end with Done exactly once.
type Ticket struct {
	g     *Gate
	probe bool
	epoch uint64
	start time.Time
}

// Paused is Wait's error: the caller's context ended while the gate was closed, or its deadline
// falls before the pause ends (then Wait returns at once rather than wait in vain). Until is
// the instant the pause ends; Err is ctx.Err() or context.DeadlineExceeded.
type Paused struct {
	Until time.Time
	Err   error
}

// Error returns Err's text.
func (p *Paused) Error() string { return p.Err.Error() }

// Unwrap returns Err, so errors.Is(err, context.Canceled) works.
func (p *Paused) Unwrap() error { return p.Err }

// Wait blocks until a request may start and returns its ticket: at once when the gate is open;
// otherwise until the pause ends, then behind the probe, then in a spaced slot. The caller's
// context bounds the wait: when it ends, or when its deadline falls before the pause ends, Wait
// returns a *Paused and the request must not be sent.
func (g *Gate) Wait(ctx context.Context) (*Ticket, error) {
	var slot time.Time // a spaced admission reserved by this caller
	counted := false
	defer func() {
		if counted {
			g.mu.Lock()
			g.state.Waiting--
			g.mu.Unlock()
		}
	}()
	for {
		g.mu.Lock()
		now := g.now()
		var d time.Duration
		var probeDone <-chan struct{}
		switch {
		case now.Before(g.until):
			if dl, ok := ctx.Deadline(); ok && dl.Before(g.until) {
				until := g.until
				g.mu.Unlock()
				return nil, &Paused{Until: until, Err: context.DeadlineExceeded}
			}
			d, slot = g.until.Sub(now), time.Time{}
		case g.probe != nil:
			probeDone = g.probe
		case g.needProbe:
			g.needProbe = false
			g.probe = make(chan struct{})
			return g.admit(now, true), nil
		case slot.IsZero() && now.Before(g.rampEnd):
			slot = g.next
			if slot.Before(now) {
				slot = now
			}
			g.next = slot.Add(g.spacing)
			if d = slot.Sub(now); d <= 0 {
				return g.admit(now, false), nil
			}
		case slot.IsZero() || !now.Before(slot):
			return g.admit(now, false), nil
		default:
			d = slot.Sub(now)
		}
		if !counted {
			counted = true
			g.state.Waiting++
		}
		until := g.until
		g.mu.Unlock()
		if err := pause(ctx, d, probeDone); err != nil {
			return nil, &Paused{Until: until, Err: err}
		}
		if g.onWake != nil {
			g.onWake()
		}
	}
}

// admit hands out a ticket and unlocks g.mu.
func (g *Gate) admit(now time.Time, probe bool) *Ticket {
	if g.onAdmit != nil {
		g.onAdmit(now, probe)
	}
	t := &Ticket{g: g, probe: probe, epoch: g.epoch, start: now}
	g.mu.Unlock()
	return t
}

// pause waits for d, or for done when it is not nil, or for ctx to end (returning its error).
func pause(ctx context.Context, d time.Duration, done <-chan struct{}) error {
	if done != nil {
		select {
		case <-done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return sleep.For(ctx, d)
}

// Done reports how the ticket's request ended. For Throttled, hint is the server's Retry-After
// (0 when it sent none); the gate closes until now + the pause (hint cut to the cap of
// SetMaxPause, or the backoff when there is none) + a small jitter, and Done returns that pause. A throttled answer to a request sent
// before the current pause began extends that pause without counting as a new one (it is the
// same burst). An Answered probe opens the gate and sets the spacing for the callers that
// waited; an Abandoned probe hands the probe to the next caller.
func (t *Ticket) Done(o Outcome, hint time.Duration) time.Duration {
	g := t.g
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	current := t.epoch == g.epoch // admitted after the last pause began
	var pause time.Duration
	switch o {
	case Throttled:
		g.state.Throttled++
		if current {
			g.epoch++
			g.streak++
			g.state.Pauses++
		}
		pause = hint
		if pause > g.maxPause {
			g.state.Capped++
			g.state.LastAsked = hint
			pause = g.maxPause
		}
		if pause <= 0 {
			pause = backoff(g.streak)
		}
		if until := now.Add(pause + g.jitter(min(pause/10, maxJitter))); until.After(g.until) {
			g.until = until
		}
		g.needProbe = true
		g.state.LastPause = pause
	case Answered:
		if current {
			g.streak = 0
		}
		if t.probe {
			g.spacing = min(max(now.Sub(t.start), MinSpacing), MaxSpacing)
			g.next = now
			g.rampEnd = now.Add(g.spacing * time.Duration(g.state.Waiting))
		}
	}
	if t.probe {
		close(g.probe)
		g.probe = nil
		if o == Abandoned {
			g.needProbe = true
		}
	}
	return pause
}

// backoff is the pause after the n-th consecutive throttled answer without a hint (n ≥ 1).
func backoff(n int) time.Duration {
	d := FirstBackoff
	for i := 1; i < n && d < MaxBackoff; i++ {
		d *= 2
	}
	return min(d, MaxBackoff)
}
