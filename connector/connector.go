// Package connector is the core of razorpay-erpnext (DESIGN.md §4): the domain's vocabulary
// (statuses, routes, plans, outcomes and the retry policy, failures, waits, the lifecycle, the
// Account, what a dry run prints), its ports, and the Connector, which runs the booking and
// the workers of one Account through their seams. It talks to its database through Store and to
// ERPNext and Razorpay through the ERPNext and RazorpayAPI ports, implemented by
// connector/store, frappe.Client and razorpay.Client.
//
// One file per concern; the layers are packages, which the compiler keeps pointing down:
//
//   - vocabulary and ports: status.go (Status), route.go (RouteOf, the one routing table),
//     store.go, ports.go, failure.go (every outbound failure classified once into a *Failure,
//     by connector/edge), observer.go (what the core counts, the series' names), connector.go,
//     pause.go (a configuration fault, held until a call succeeds), account.go (Account: whose
//     money), booker.go and runner.go (Booker and Runner, the seams to connector/booking and
//     connector/worker), plan.go (Plan), explanation.go (Explanation: a dry run printed),
//     outcome.go (settle, the one function from a job's error to an Outcome), wait.go,
//     bank.go, integration.go, precision.go;
//   - mechanisms: repeat.go (Repeat, ErrLockHeld), synthetic.go, wake.go (what a row waits for);
//   - entry point: new.go (New: the booking and the workers built through their seams).
//
// connector/booking books, built through Options.Booking: one job per route on the kernel of
// connector/kernel (claims, document locks, what is known of the site, lookup before create,
// apply), the settlement job of connector/settlement among them; connector/worker is the claim
// loop, built through Options.Worker, and posts the park comment; connector/explain is the
// dry run of the same pipeline (Explain, ExplainStored, Decide). connector/check validates a configuration against the
// live site, reading only; connector/intake receives webhooks into the inbox (verify, store,
// wake); connector/operator is what a person does to the inbox (replay, rebook, dismiss,
// history) and the retention of raw bodies, on the store it is given. connector/edge wraps the
// two clients (each call timed, each failure classified), connector/metrics holds the
// Prometheus series, and connector/wire builds all of it around one Connector: the core builds
// and wraps nothing itself.
package connector

import (
	"fmt"
	mrand "math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// Connector receives webhooks and books them. Create it with New; run the workers with Run.
type Connector struct {
	cfg      Config
	log      zerolog.Logger
	now      func() time.Time
	instance string

	wake   chan struct{}
	pauses *Pauses // a configuration fault (pause.go), shared with the client edge
	seq    atomic.Int64
	obs    Observer

	booker Booker // the booking of the one Account (Options.Booking)
	runner Runner // the workers (Options.Worker)
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
func (c *Connector) Paused() (bool, string) { return c.pauses.State() }

// pause pauses all work after system refused the credentials, until a call to it succeeds;
// the workers recheck after worker.pause_recheck.
func (c *Connector) pause(system, reason string) {
	c.pauses.Pause(system, reason, c.now().Add(c.cfg.Worker.PauseRecheck.D()), c.log)
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

// Owner is a new owner id for lease, claim and lock rows of this process: "<instance>/<role>/<n>".
func (c *Connector) Owner(role string) string {
	return fmt.Sprintf("%s/%s/%d", c.instance, role, c.seq.Add(1))
}

// Backoff is the capped exponential delay before attempt n+1 (n ≥ 1) of worker.backoff_base and
// worker.backoff_max, with jitter in [d/2, d).
func (c *Connector) Backoff(attempts int) time.Duration { return c.backoff(attempts) }
