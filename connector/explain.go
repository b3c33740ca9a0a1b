package connector

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Explanation is what booking an event would do, found by reading only: the plan of Decide as
// `explain --json` prints it.
type Explanation struct {
	Event     string           `json:"event"`
	Key       string           `json:"business_key"`
	Action    string           `json:"action"`
	Existing  string           `json:"existing,omitempty"` // the entry reused, submitted, booked already or cancelled
	Reason    string           `json:"reason,omitempty"`
	WaitUntil *time.Time       `json:"wait_until,omitempty"` // action wait: when the worker tries again (UTC)
	Fields    []ExplainedField `json:"fields,omitempty"`
	Entry     map[string]any   `json:"entry,omitempty"`  // action create: the document that would be inserted
	Ledger    *Ledger          `json:"ledger,omitempty"` // its money, in minor units
	// Settlement is a settlement's Journal Entry in minor units: lines, items and summary.
	Settlement *mapping.Settlement `json:"settlement,omitempty"`
	// Bank is the bank statement line the settlement's entry is (or would be) matched with.
	Bank *BankMatch `json:"bank,omitempty"`
	// Warnings name the body's optional fields of an unusable type, read as absent
	// (razorpay.Event.Warnings).
	Warnings []string `json:"warnings,omitempty"`
	// Source says where the event explained came from when the caller did not give it and
	// Razorpay's API did not either: explain --payment falling back to the body the store
	// kept ("the stored body of event …"). "" otherwise.
	Source string `json:"source,omitempty"`
}

// ExplainRetry is Explain's action when a read failed in a way the worker would not park on
// (Razorpay or ERPNext unreachable, a 5xx, refused credentials, the store down): Reason says
// what failed and what the worker would do — try again after its backoff, or pause all work
// until the credentials work. It is never a Plan's action: the worker settles such a failure
// itself (settle).
const ExplainRetry = "retry"

// Explain is a dry run of the booking of e: Decide, printed. It reads ERPNext (lists and
// documents; get_payment_entry, which writes nothing, for a refund's credit note), Razorpay
// when configured, and the store when the Connector has one; it never writes to any of them. A read that fails is a
// line of the explanation (ExplainRetry), not the end of the dry run (issue 14: a failed order
// lookup made `explain` exit 1); the error is returned only when ctx ended.
func (c *Connector) Explain(ctx context.Context, e *razorpay.Event) (*Explanation, error) {
	return c.explain(ctx, e, Arrival{At: c.now()})
}

// ErrBodyPurged is ExplainStored's error for a row whose raw body retention purged: there is
// nothing to explain (the worker makes such a row dead).
var ErrBodyPurged = errors.New("the raw body was purged by retention")

// ExplainStored is Explain for a stored inbox row: the dry run of what the worker does when it
// claims row — its stored body, the row itself left out of the dismissal check (a dismissed
// payment's other events are not booked), and row.ReceivedAt as the time the event arrived,
// from which the worker counts its waits (a refund's wait for its receipt, a settlement's for
// its items). It returns ErrBodyPurged for a purged body and the parse error for a body that
// does not parse.
func (c *Connector) ExplainStored(ctx context.Context, row *InboxEvent) (*Explanation, error) {
	if len(row.RawBody) == 0 {
		return nil, ErrBodyPurged
	}
	e, err := razorpay.ParseEvent(row.RawBody)
	if err != nil {
		return nil, fmt.Errorf("the body does not parse: %w", err)
	}
	return c.explain(ctx, e, Arrival{Row: &InboxEvent{ID: row.ID, EventID: row.EventID}, At: row.ReceivedAt})
}

func (c *Connector) explain(ctx context.Context, e *razorpay.Event, a Arrival) (*Explanation, error) {
	pl, err := c.decideAt(ctx, e, a)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return c.explainFailure(e, err), nil
	}
	x := &Explanation{Event: pl.Event, Key: pl.Key, Action: pl.Action, Existing: pl.Existing, Reason: pl.Reason,
		Fields: pl.Fields, Ledger: pl.Ledger, Warnings: e.Warnings}
	if pl.Action == ExplainCreate {
		x.Entry = pl.Document
	}
	if len(pl.QueueItems) > 0 || pl.QueuePayment != "" {
		// The worker queues them (its reason says "queued from Razorpay"); a dry run does not.
		x.Reason = strings.ReplaceAll(x.Reason, "queued from Razorpay", "would be queued from Razorpay (explain queues nothing)")
	}
	if pl.Action == ExplainWait {
		t := pl.WaitUntil.UTC()
		x.WaitUntil = &t
	}
	if x.Key == "" {
		x.Key = e.BusinessKey()
	}
	if RouteOf(e.Event) == RouteSettlement && (pl.Settlement != nil || pl.Action == ExplainReuse || pl.Action == ExplainDuplicate) {
		x.Settlement = pl.Settlement
		if x.Bank, err = c.booker.ExplainBank(ctx, e, pl); err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			// Like any failed read: a line of the explanation, not the end of the dry run.
			x.Bank = &BankMatch{State: "not read: " + ShortReason(err.Error())}
		}
	}
	return x, nil
}

// explainFailure is the explanation of a read that failed: the worker's outcome for it, said.
func (c *Connector) explainFailure(e *razorpay.Event, err error) *Explanation {
	o, refused := c.outcomeOf(&InboxEvent{}, Result{}, err)
	x := &Explanation{Event: e.Event, Key: e.BusinessKey(), Action: ExplainRetry}
	why := o.LastError // what the worker would record
	if why == "" {
		why = err.Error()
	}
	switch {
	case refused != nil:
		x.Reason = fmt.Sprintf("%s — the worker would pause all work (spending no attempt) and test the credentials again every %s", why, c.cfg.Worker.PauseRecheck.D())
	case o.CountAttempt:
		x.Reason = fmt.Sprintf("%s — the worker would try again after its backoff, counting an attempt (the event is dead after %d)", why, c.cfg.Worker.MaxAttempts)
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
func (c *Connector) Decide(ctx context.Context, e *razorpay.Event) (*Plan, error) {
	return c.decideAt(ctx, e, Arrival{At: c.now()})
}

// decideAt is Decide for an event that arrived as a says.
func (c *Connector) decideAt(ctx context.Context, e *razorpay.Event, a Arrival) (*Plan, error) {
	pl, err := c.booker.Decide(ctx, e, a)
	if err == nil {
		return pl, nil
	}
	if o, _ := c.outcomeOf(&InboxEvent{}, Result{}, err); o.Status == StatusParked {
		return (&Plan{Event: e.Event, Key: e.BusinessKey()}).Park(o.LastError), nil
	}
	return nil, err
}
