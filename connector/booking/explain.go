package booking

import (
	"context"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/kernel"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Decide runs the worker's steps for e (Book) with the claim read and no lock taken, in the
// worker's order: for a receipt the precheck, the dismissal, the claim, then the decision
// (connector.Booker).
func (c *jobs) Decide(ctx context.Context, e *razorpay.Event, a connector.Arrival) (*connector.Plan, error) {
	if pl := c.k.AccountPlan(e); pl != nil {
		return pl, nil
	}
	switch connector.RouteOf(e.Event) {
	case connector.RouteReceipt:
		if pl := receiptPrecheck(e); pl != nil {
			return pl, nil
		}
		if pl, err := c.explainDismissed(ctx, e, a); pl != nil || err != nil {
			return pl, err
		}
		if pl, err := c.k.PeekClaim(ctx, e); pl != nil || err != nil {
			return pl, err
		}
		return c.receipt.decide(ctx, e, kernel.DryRun{})
	case connector.RouteRefund:
		return c.refund.explain(ctx, e, a.At)
	case connector.RouteDispute:
		return c.dispute.plan(ctx, e)
	case connector.RouteState:
		return statePlan(e, nil), nil
	case connector.RouteSettlement:
		return c.settlement.Explain(ctx, e, a.At)
	}
	return skipPlan(e), nil
}

// explainDismissed is dismissedPlan for a dry run: the row explained, when stored, is left out
// as the worker leaves out the row it claimed; without a store nothing is dismissed.
func (c *jobs) explainDismissed(ctx context.Context, e *razorpay.Event, a connector.Arrival) (*connector.Plan, error) {
	if c.Store == nil {
		return nil, nil
	}
	row := a.Row
	if row == nil {
		row = &connector.InboxEvent{}
	}
	return c.receipt.dismissedPlan(ctx, row, e)
}
