// Package explain is the dry-run session of razorpay-erpnext (DESIGN.md §4, "decide, then
// apply"): the pipeline the worker runs — the booking's Decide through connector.Booker, its
// error turned into an outcome by the worker's own policy — run for a body or a stored inbox
// row by reading only, and printed as a connector.Explanation (`explain`, the console). It sits
// beside connector/worker, the live session of the same pipeline, and is built by
// connector/wire from what it uses: the booking, the outcome policy, the clock and the two
// worker settings its reasons quote.
package explain

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Deps are what a Session is built from.
type Deps struct {
	// Booker is the booking whose Decide and ExplainBank the session reads through.
	Booker connector.Booker
	// Outcome is the worker's outcome for a job's error err, without its effects, and whether
	// the worker would pause all work on it (Connector.OutcomeOf).
	Outcome func(err error) (o connector.Outcome, pauses bool)
	Now     func() time.Time
	// PauseRecheck is worker.pause_recheck and MaxAttempts worker.max_attempts, as a retry's
	// reason says them.
	PauseRecheck time.Duration
	MaxAttempts  int
}

// Session is the dry run of one core's booking. Build it with New.
type Session struct{ d Deps }

// New is the session of d.
func New(d Deps) *Session { return &Session{d: d} }

// Explain is a dry run of the booking of e: Decide, printed. It reads ERPNext (lists and
// documents; get_payment_entry, which writes nothing, for a refund's credit note), Razorpay
// when configured, and the store when the core has one; it never writes to any of them. A
// read that fails is a line of the explanation (connector.ExplainRetry), not the end of the
// dry run (a failed order lookup must not make `explain` exit 1); the error is returned only
// when ctx ended.
func (s *Session) Explain(ctx context.Context, e *razorpay.Event) (*connector.Explanation, error) {
	return s.explain(ctx, e, connector.Arrival{At: s.d.Now()})
}

// ExplainStored is Explain for a stored inbox row: the dry run of what the worker does when it
// claims row — its stored body, the row itself left out of the dismissal check (a dismissed
// payment's other events are not booked), and row.ReceivedAt as the time the event arrived,
// from which the worker counts its waits (a refund's wait for its receipt, a settlement's for
// its items). It returns connector.ErrBodyPurged for a purged body and the parse error for a
// body that does not parse.
func (s *Session) ExplainStored(ctx context.Context, row *connector.InboxEvent) (*connector.Explanation, error) {
	if len(row.RawBody) == 0 {
		return nil, connector.ErrBodyPurged
	}
	e, err := razorpay.ParseEvent(row.RawBody)
	if err != nil {
		return nil, fmt.Errorf("the body does not parse: %w", err)
	}
	return s.explain(ctx, e, connector.Arrival{Row: &connector.InboxEvent{ID: row.ID, EventID: row.EventID}, At: row.ReceivedAt})
}

func (s *Session) explain(ctx context.Context, e *razorpay.Event, a connector.Arrival) (*connector.Explanation, error) {
	pl, err := s.decideAt(ctx, e, a)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return s.failure(e, err), nil
	}
	x := &connector.Explanation{Event: pl.Event, Key: pl.Key, Action: pl.Action, Existing: pl.Existing, Reason: pl.Reason,
		Fields: pl.Fields, Ledger: pl.Ledger, Warnings: e.Warnings}
	if pl.Action == connector.ExplainCreate {
		x.Entry = pl.Document
	}
	if len(pl.QueueItems) > 0 || pl.QueuePayment != "" {
		// The worker queues them (its reason says "queued from Razorpay"); a dry run does not.
		x.Reason = strings.ReplaceAll(x.Reason, "queued from Razorpay", "would be queued from Razorpay (explain queues nothing)")
	}
	if pl.Action == connector.ExplainWait {
		t := pl.WaitUntil.UTC()
		x.WaitUntil = &t
	}
	if x.Key == "" {
		x.Key = e.BusinessKey()
	}
	if connector.RouteOf(e.Event) == connector.RouteSettlement && (pl.Settlement != nil || pl.Action == connector.ExplainReuse || pl.Action == connector.ExplainDuplicate) {
		x.Settlement = pl.Settlement
		if x.Bank, err = s.d.Booker.ExplainBank(ctx, e, pl); err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			// Like any failed read: a line of the explanation, not the end of the dry run.
			x.Bank = &connector.BankMatch{State: "not read: " + connector.ShortReason(err.Error())}
		}
	}
	return x, nil
}

// failure is the explanation of a read that failed: the worker's outcome for it, said.
func (s *Session) failure(e *razorpay.Event, err error) *connector.Explanation {
	o, pauses := s.d.Outcome(err)
	x := &connector.Explanation{Event: e.Event, Key: e.BusinessKey(), Action: connector.ExplainRetry}
	why := o.LastError // what the worker would record
	if why == "" {
		why = err.Error()
	}
	switch {
	case pauses:
		x.Reason = fmt.Sprintf("%s — the worker would pause all work (spending no attempt) and test the credentials again every %s", why, s.d.PauseRecheck)
	case o.CountAttempt:
		x.Reason = fmt.Sprintf("%s — the worker would try again after its backoff, counting an attempt (the event is dead after %d)", why, s.d.MaxAttempts)
	default:
		x.Reason = fmt.Sprintf("%s — the worker would try again later, spending no attempt", why)
	}
	return x
}

// Decide is the decision the worker would take for e now, from reads only (DESIGN.md §4,
// "decide, then apply"): the same stages the worker runs — the claim (read, not taken), lookup
// before create, resolve, decide — with no document lock and no write. A read the worker would
// park on (ERPNext refusing it, a document that does not exist) is a park plan here too; other
// failures of a read are returned as errors.
func (s *Session) Decide(ctx context.Context, e *razorpay.Event) (*connector.Plan, error) {
	return s.decideAt(ctx, e, connector.Arrival{At: s.d.Now()})
}

// decideAt is Decide for an event that arrived as a says.
func (s *Session) decideAt(ctx context.Context, e *razorpay.Event, a connector.Arrival) (*connector.Plan, error) {
	pl, err := s.d.Booker.Decide(ctx, e, a)
	if err == nil {
		return pl, nil
	}
	if o, _ := s.d.Outcome(err); o.Status == connector.StatusParked {
		return (&connector.Plan{Event: e.Event, Key: e.BusinessKey()}).Park(o.LastError), nil
	}
	return nil, err
}
