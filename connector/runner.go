package connector

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/config"
)

// Runner is the worker as the Connector starts it (DESIGN.md §4 steps 1–2 and 7): the claim
// loop over the inbox, leases and their heartbeat, the outcome written on each row.
// connector/worker implements it and Options.Worker builds it; the core names only this seam,
// since connector/worker imports connector.
type Runner interface {
	// Run, Drain, ProcessNext and DrainEvents are Connector's, which see.
	Run(ctx context.Context)
	Drain()
	ProcessNext(ctx context.Context, worker int) (bool, error)
	DrainEvents(ctx context.Context, ids []int64, progress func(done, total int)) error
}

// WorkerDeps are what a Runner is built from: the store, the booking it hands each claimed
// row to, the worker settings (`workers`, `worker`), the clock and the logger, and what the
// Connector keeps for all its workers — owner ids, the wake channel, the configuration pause,
// the outcome policy (settle) and what follows an outcome (metrics, the park comment).
type WorkerDeps struct {
	Store   Store
	Booker  Booker
	Workers int
	Worker  config.Worker
	Now     func() time.Time
	Log     zerolog.Logger
	// Owner is a new owner id for lease and claim rows: "<instance>/<role>/<n>".
	Owner func(role string) string
	// Wake receives when an event is due now (Connector.Wake).
	Wake <-chan struct{}
	// Holding reports whether a configuration pause holds work at now, and until when;
	// ProbePauses rechecks the refused credentials.
	Holding     func(now time.Time) (recheck time.Time, hold bool)
	ProbePauses func(ctx context.Context)
	// Settle turns what a job returned into the row's Outcome (outcome.go).
	Settle func(ev *InboxEvent, res Result, err error) Outcome
	// Observe counts an outcome written.
	Observe func(ev *InboxEvent, o Outcome)
	// Account is whose events the worker claims: its ERPNext client (nil: no comment) and its
	// mapping (comment_on_park, invoice_from) are what the park comment on a parked payment's
	// invoice is posted through and decided by; CommentTimeout bounds that comment's calls
	// (erpnext.timeout + 1s); Comment counts it, by result ("added", "failed").
	Account        Account
	CommentTimeout time.Duration
	Comment        func(result string)
}

// Run starts cfg.Workers workers and blocks until ctx is cancelled and they have stopped.
func (c *Connector) Run(ctx context.Context) { c.runner.Run(ctx) }

// Drain makes every worker stop claiming events; an event already claimed is finished and its
// outcome written, then Run returns. Cancelling Run's context instead also interrupts the
// events in progress (their outcome is still written, as a retry, so nothing stays leased).
// Safe to call more than once.
func (c *Connector) Drain() { c.runner.Drain() }

// ProcessNext claims the next due event, processes it and writes its outcome. It returns false
// when nothing was due.
func (c *Connector) ProcessNext(ctx context.Context, worker int) (bool, error) {
	return c.runner.ProcessNext(ctx, worker)
}

// DrainEvents runs the worker's own loop (ProcessNext, on erpnext.max_concurrency-bounded
// workers: cfg.Workers of them) until every inbox row in ids is final, or ctx ends. Workers may
// process other due rows on the way: this process is one more worker (DESIGN.md §4 step 3).
// Rows that other processes finish count too. It stops taking new events when done, and lets an
// event in progress finish unless ctx is cancelled. progress, when set, is called with the
// number of final rows. It returns ctx's error when ctx ended first, or a store error.
func (c *Connector) DrainEvents(ctx context.Context, ids []int64, progress func(done, total int)) error {
	return c.runner.DrainEvents(ctx, ids, progress)
}
