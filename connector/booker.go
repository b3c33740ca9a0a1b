package connector

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Booker is the booking as the worker, Explain and reconcile's settlement report reach it
// (DESIGN.md §4 steps 3–7): connector/booking implements it on its kernel and the job of each
// route, and Options.Booking builds it. The core names only this seam: connector/booking
// imports connector, never the other way round.
type Booker interface {
	// Book carries out the parsed event e of the inbox row ev that owner claimed: the job of
	// its route decides a Plan and applies it. What it returns is what settle turns into the
	// row's Outcome.
	Book(ctx context.Context, ev *InboxEvent, e *razorpay.Event, owner string) (Result, error)
	// Decide is Book as a dry run (Explain): the same steps, the claim read instead of taken,
	// no lock taken, nothing written, for an event that arrived as a says.
	Decide(ctx context.Context, e *razorpay.Event, a Arrival) (*Plan, error)
	// ExplainBank is the bank statement line a settlement's plan pl is (or would be) matched
	// with; nothing is reconciled.
	ExplainBank(ctx context.Context, e *razorpay.Event, pl *Plan) (*BankMatch, error)
	// MatchSettlement matches the posted entry of st with the bank statement line, as the
	// worker does after posting (dryRun finds and reconciles nothing), and counts it; owner
	// holds the lock row around the write. SettlementBreakdown fills line's breakdown for st:
	// the planned entry from its recon rows (Summary, Items, or Reason when it does not plan)
	// and the clearing residue against entry ("" while none is posted). ClearingBalance is the
	// clearing account (the receipts' paid_to) and its balance today in paise, debit minus
	// credit, from ERPNext's get_balance_on (erpnext-recorded-settlement/80-*; negative
	// allowed). Razorpay and ERPNext failures are returned.
	MatchSettlement(ctx context.Context, st *razorpay.Settlement, entry, owner string, dryRun bool) (BankMatch, error)
	SettlementBreakdown(ctx context.Context, st *razorpay.Settlement, entry string, line *SettlementLine) error
	ClearingBalance(ctx context.Context) (account string, paise int64, err error)
	// InvoiceOf is the Sales Invoice the first existing of cands names ("" when none does),
	// resolved as a receipt resolves it.
	InvoiceOf(ctx context.Context, cands []mapping.Candidate) (string, error)
	// CommentEmail is the ERPNext user the API key belongs to, for comments ("razorpay-erpnext"
	// when the site does not say).
	CommentEmail(ctx context.Context) string
	// WakeWaiters ends the waits for waitFor and more and wakes an idle worker when a row
	// became due; the number of rows woken.
	WakeWaiters(ctx context.Context, waitFor Wait, more ...Wait) int
}

// BookingDeps are what a Booker is built from: the Account whose money it books (its clients
// behind the client edge: every failure a *Failure, every call in the metrics), the store, the
// clock, the logger, the worker's write discipline, its counters and a way to wake an idle
// worker. Nothing of the global Config.
type BookingDeps struct {
	Account Account
	Store   Store
	Now     func() time.Time
	Log     zerolog.Logger
	// MaxConcurrency is erpnext.max_concurrency: booking jobs writing at once (at least 1).
	MaxConcurrency int
	// Fence is how long a claim holds after a write is sent: erpnext.server_timeout +
	// worker.fence_margin.
	Fence time.Duration
	// BackoffBase and BackoffMax are worker.backoff_base and worker.backoff_max: the spacing
	// of a wait that re-polls (a refund for its receipt, a settlement for its items).
	BackoffBase, BackoffMax time.Duration
	Counts                  Counts
	// Wake wakes an idle worker of this process (Connector.Wake).
	Wake func()
}

// Counts are the booking's counters (metrics.Metrics: Dispute, BankMatch, SettlementQueued).
type Counts struct {
	Dispute   func(event string) // a dispute event parked
	BankMatch func(state string) // a settlement's bank match, by BankMatch state
	Queued    func(kind string)  // an item of a settlement queued from Razorpay, by kind
}

// orNone is c with each counter left nil counting nothing.
func (c Counts) orNone() Counts {
	none := func(string) {}
	for _, f := range []*func(string){&c.Dispute, &c.BankMatch, &c.Queued} {
		if *f == nil {
			*f = none
		}
	}
	return c
}

// Arrival is what a dry run knows of the event it explains: the inbox row it is (nil for a body
// never delivered, which the worker would see as a new row) and when it arrived (now for such
// a body).
type Arrival struct {
	Row *InboxEvent
	At  time.Time
}

// ShortReason cuts a reason for quoting inside another.
func ShortReason(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
