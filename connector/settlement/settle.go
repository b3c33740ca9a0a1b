package settlement

import (
	"context"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/kernel"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Settlements (DESIGN.md §5): settlement.processed — a webhook, or the synthetic row
// of reconcile's settlement sweep — posts one Journal Entry (Bank Entry) per processed
// settlement, exactly once like a receipt: the settlement id is claimed in bookings, the entry
// looked up before it is created (settle_lookup.go), fenced and inserted with docstatus 1
// (the kernel's Apply), recorded; then it is matched with the bank statement (settle_bank.go).

// settlementOf is the event's settlement as Razorpay reports it now (re-fetched: a failed
// settlement can still become processed, spec/razorpay.md §3.5), or the plan of a settlement
// that is not posted: settlements off, no Razorpay API, not processed, before
// settlements.since.
func (c *Job) settlementOf(ctx context.Context, e *razorpay.Event) (*razorpay.Settlement, *connector.Plan, error) {
	st := e.Settlement
	pl := &connector.Plan{Event: e.Event, Key: e.BusinessKey()}
	switch {
	case st == nil || st.ID == "":
		return nil, pl.Park(e.Event + " carries no settlement entity"), nil
	case !c.Account.Settlements.Enabled:
		return nil, pl.Skip(fmt.Sprintf("settlement %s is not posted: settlements.enabled is false", st.ID)), nil
	case c.Account.Razorpay == nil:
		return nil, pl.Park(fmt.Sprintf("settlement %s needs the Razorpay API for its rows: set razorpay.key_id and razorpay.key_secret", st.ID)), nil
	}
	fresh, err := c.Account.Razorpay.GetSettlement(ctx, st.ID)
	if err != nil {
		return nil, nil, connector.Failed("re-fetch settlement "+st.ID, err)
	}
	pl.Booking = settlementBooking(fresh)
	if fresh.Status != razorpay.SettlementProcessed {
		return nil, pl.Skip(fmt.Sprintf("settlement %s is %s; it is posted once Razorpay reports it processed", fresh.ID, fresh.Status)), nil
	}
	if since := c.Account.Settlements.SinceIn(c.Account.Location); !since.IsZero() && fresh.CreatedAt < since.Unix() {
		return nil, pl.Skip(fmt.Sprintf("settlement %s was made before settlements.since %s; it is never posted", fresh.ID, c.Account.Settlements.Since)), nil
	}
	return fresh, nil, nil
}

// Book follows DESIGN.md §4 steps 3–7 for a settlement: claim its id, decide, apply
// (fence, insert the Journal Entry, record), then match the bank statement line.
func (c *Job) Book(ctx context.Context, ev *connector.InboxEvent, e *razorpay.Event, owner string) (connector.Result, error) {
	st, pl, err := c.settlementOf(ctx, e)
	if err != nil || pl != nil {
		return c.ApplyOrFail(ctx, ev, pl, err)
	}
	return c.ClaimAndBook(ctx, ev, e, owner, settlementBooking(st), func(ctx context.Context, _ *kernel.Claim) (*connector.Plan, error) {
		return c.decide(ctx, e, st, ev.ReceivedAt)
	}, func(ctx context.Context, w *kernel.Claim, res connector.Result) connector.Result {
		if res.Status != connector.StatusDone {
			return res
		}
		return c.afterPosting(ctx, w.Owner, st, res)
	})
}

// afterPosting matches the posted (or found) entry of st with the bank statement and adds the
// outcome to the note. The entry stands whatever happens here: a failure is reported and the
// next reconcile tries again.
func (c *Job) afterPosting(ctx context.Context, owner string, st *razorpay.Settlement, res connector.Result) connector.Result {
	m, err := c.matchBank(ctx, settledEntry{id: st.ID, utr: st.UTR, entry: res.Name, amount: st.Amount}, owner, false)
	c.countMatch(m, err)
	if err != nil {
		c.Log.Warn().Err(err).Str("settlement_id", st.ID).Msg("bank statement match failed; reconcile tries again")
		res.Note += "; bank: match failed (" + connector.ShortReason(err.Error()) + "), tried again by reconcile"
		return res
	}
	res.Note += "; bank: " + m.String()
	return res
}

// countMatch counts one bank match in the metrics.
func (c *Job) countMatch(m connector.BankMatch, err error) {
	state := m.State
	if err != nil {
		state = "failed"
	}
	if state != connector.BankOff {
		c.Counts.BankMatch(state)
	}
}

// Explain is Book for Explain, for an event that arrived at arrived: the
// claim read, not taken; nothing written.
func (c *Job) Explain(ctx context.Context, e *razorpay.Event, arrived time.Time) (*connector.Plan, error) {
	st, pl, err := c.settlementOf(ctx, e)
	if err != nil || pl != nil {
		return pl, err
	}
	if pl, err := c.PeekClaim(ctx, e); pl != nil || err != nil {
		return pl, err
	}
	return c.decide(ctx, e, st, arrived)
}

// ExplainBank is the bank match Explain shows for a settlement's plan: the Bank Transaction the
// entry is matched with already, or would be; nothing is reconciled.
func (c *Job) ExplainBank(ctx context.Context, e *razorpay.Event, pl *connector.Plan) (*connector.BankMatch, error) {
	s := settledEntry{id: pl.Key, entry: pl.Existing, amount: pl.Booking.AmountMinor}
	if e.Settlement != nil {
		s.utr = e.Settlement.UTR
	}
	if pl.Settlement != nil {
		s.utr, s.amount = pl.Settlement.UTR, pl.Settlement.Amount
	}
	m, err := c.matchBank(ctx, s, "", true)
	if err != nil {
		return nil, err
	}
	return &m, nil
}
