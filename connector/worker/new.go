// Package worker is the claim loop of razorpay-erpnext (DESIGN.md §4 steps 1–2 and 7): workers
// claim due inbox rows under a lease, hand each to the booking (connector.Booker), write the
// outcome and wake what it waits for; DrainEvents runs the same loop until given rows are
// final (reconcile). It is built through connector.Options.Worker from connector.WorkerDeps.
package worker

import (
	"context"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/config"
)

// Worker is the claim loop of one process (DESIGN.md §4 steps 1–2 and 7): each worker claims
// the next due inbox row under a lease kept alive by a heartbeat, hands it to the booking
// (connector.Booker), writes the outcome the Connector's policy makes of what the job returned,
// and wakes what the outcome waits for. Build it with New; the Connector starts it.
type Worker struct {
	store   connector.Store
	booker  connector.Booker
	workers int
	cfg     config.Worker
	now     func() time.Time
	log     zerolog.Logger
	owner   func(role string) string
	wake    <-chan struct{}

	holding     func(now time.Time) (time.Time, bool)
	probePauses func(ctx context.Context)
	settle      func(ev *connector.InboxEvent, res connector.Result, err error) connector.Outcome
	observe     func(ev *connector.InboxEvent, o connector.Outcome)

	account        connector.Account   // the park comment's ERPNext client and mapping (comment.go)
	commentTimeout time.Duration       // bounds the park comment's calls
	comment        func(result string) // counts a park comment

	draining  chan struct{} // closed by Drain: workers stop claiming
	drainOnce sync.Once
}

var _ connector.Runner = (*Worker)(nil)

// New is the worker of d (connector.Options.Worker).
func New(d connector.WorkerDeps) connector.Runner {
	return &Worker{
		store: d.Store, booker: d.Booker, workers: d.Workers, cfg: d.Worker, now: d.Now, log: d.Log,
		owner: d.Owner, wake: d.Wake, holding: d.Holding, probePauses: d.ProbePauses, settle: d.Settle,
		observe: d.Observe, account: d.Account, commentTimeout: d.CommentTimeout, comment: d.Comment,
		draining: make(chan struct{}),
	}
}
