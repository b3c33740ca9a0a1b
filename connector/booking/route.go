package booking

import (
	"context"
	"fmt"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Book carries out the parsed event of ev by its route (connector.Booker).
func (c *jobs) Book(ctx context.Context, ev *connector.InboxEvent, parsed *razorpay.Event, owner string) (connector.Result, error) {
	k := c.k
	if pl := k.AccountPlan(parsed); pl != nil {
		return k.Apply(ctx, ev, nil, pl)
	}
	state := k.RecordState(ctx, ev, parsed.Payment)
	switch connector.RouteOf(parsed.Event) {
	case connector.RouteReceipt:
		return c.receipt.book(ctx, ev, parsed, owner)
	case connector.RouteRefund:
		return c.refund.book(ctx, ev, parsed, owner)
	case connector.RouteDispute:
		c.Counts.Dispute(parsed.Event)
		pl, err := c.dispute.plan(ctx, parsed)
		return k.ApplyOrFail(ctx, ev, pl, err)
	case connector.RouteState:
		return k.Apply(ctx, ev, nil, statePlan(parsed, state))
	case connector.RouteSettlement:
		return c.settlement.Book(ctx, ev, parsed, owner)
	}
	return k.Apply(ctx, ev, nil, skipPlan(parsed))
}

// skipPlan is the plan of an event this version does not book.
func skipPlan(e *razorpay.Event) *connector.Plan {
	return (&connector.Plan{Event: e.Event, Key: e.BusinessKey()}).Skip(fmt.Sprintf("event %s is not booked by this version", e.Event))
}

// plan parks a chargeback event for a person (DESIGN.md §4 step 4): the connector never
// books dispute money movements itself. With the Razorpay API configured the dispute is
// re-fetched first (GET /v1/disputes/{id}), so the reason shows its current status and
// deduction whatever order the snapshots arrived in.
func (c *disputeJob) plan(ctx context.Context, e *razorpay.Event) (*connector.Plan, error) {
	pl := &connector.Plan{Event: e.Event, Key: e.BusinessKey()}
	d := e.Dispute
	if d == nil {
		return pl.Park(fmt.Sprintf("%s: %s carries no dispute entity", mapping.ReasonDispute, e.Event)), nil
	}
	if c.rzp != nil {
		fresh, err := c.rzp.GetDispute(ctx, d.ID)
		if err != nil {
			return nil, connector.Failed("re-fetch dispute "+d.ID, err)
		}
		d = fresh
	}
	deducted := razorpay.MoneyString(d.AmountDeducted, d.Currency)
	if m, err := razorpay.NewMoney(d.AmountDeducted, d.Currency); err == nil {
		deducted = m.Decimal()
	}
	return pl.Park(fmt.Sprintf("%s: %s %s on payment %s: %s, phase %s, status %s, reason %s, deducted %s; handle it in the Razorpay Dashboard and ERPNext, then dismiss",
		mapping.ReasonDispute, e.Event, d.ID, d.PaymentID, razorpay.MoneyString(d.Amount, d.Currency), d.Phase, d.Status, d.ReasonCode,
		deducted)), nil
}

// statePlan is the plan of payment.authorized and payment.failed: the state is recorded
// (recordState), nothing is booked; a later capture books the payment. state is the furthest
// state stored, nil when unknown.
func statePlan(e *razorpay.Event, state *connector.PaymentState) *connector.Plan {
	pl := &connector.Plan{Event: e.Event, Key: e.BusinessKey()}
	if e.Payment == nil {
		return pl.Skip("no payment in " + e.Event)
	}
	msg := fmt.Sprintf("recorded: payment %s was %s in this snapshot; a capture books it", e.Payment.ID, e.Payment.Status)
	if state != nil && state.State != e.Payment.Status {
		msg += fmt.Sprintf(" (furthest state known: %s, from %s)", state.State, state.EventID)
	}
	return pl.Skip(msg)
}
