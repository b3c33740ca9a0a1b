package connector

import (
	"context"
	"fmt"
	"slices"

	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// process decides what one claimed event means (RouteOf) and carries it out. It never panics
// on bad data: anything it cannot book comes back as an error settle makes parked or dead. The
// body's warnings (optional fields of an unusable type, read as absent: razorpay.Event.Warnings)
// come back with the result, whatever it is, for settle to keep with the outcome.
func (c *Connector) process(ctx context.Context, ev *InboxEvent, owner string) (result, error) {
	if len(ev.RawBody) == 0 {
		return result{}, &deadError{reason: "raw body no longer stored (retention); replay is not possible"}
	}
	parsed, err := razorpay.ParseEvent(ev.RawBody)
	if err != nil {
		return result{}, &deadError{reason: "webhook body does not parse: " + err.Error()}
	}
	res, err := c.route(ctx, ev, parsed, owner)
	res.warnings = parsed.Warnings
	return res, err
}

// route carries out the parsed event ev by its route.
func (c *Connector) route(ctx context.Context, ev *InboxEvent, parsed *razorpay.Event, owner string) (result, error) {
	if pl := c.accountPlan(parsed); pl != nil {
		return c.apply(ctx, ev, nil, pl)
	}
	state := c.recordState(ctx, ev, parsed.Payment)
	switch RouteOf(parsed.Event) {
	case RouteReceipt:
		return c.bookReceipt(ctx, ev, parsed, owner)
	case RouteRefund:
		return c.bookRefund(ctx, ev, parsed, owner)
	case RouteDispute:
		c.metrics.disputes.WithLabelValues(parsed.Event).Inc()
		pl, err := c.disputePlan(ctx, parsed)
		return c.applyOrFail(ctx, ev, pl, err)
	case RouteState:
		return c.apply(ctx, ev, nil, statePlan(parsed, state))
	case RouteSettlement:
		return c.bookSettlement(ctx, ev, parsed, owner)
	}
	return c.apply(ctx, ev, nil, skipPlan(parsed))
}

// accountPlan parks an event of another Razorpay account than razorpay.account_id — a webhook
// of a staging or test account pointed at this daemon, signed with a secret it shares — unless
// razorpay.accept_accounts lists that account; nil when the event may be booked. An event
// without account_id, or a daemon without razorpay.account_id, is not checked.
func (c *Connector) accountPlan(e *razorpay.Event) *Plan {
	want := c.cfg.Razorpay.AccountID
	if e.AccountID == "" || want == "" || e.AccountID == want || slices.Contains(c.cfg.Razorpay.AcceptAccounts, e.AccountID) {
		return nil
	}
	return (&Plan{Event: e.Event, Key: e.BusinessKey()}).park(fmt.Sprintf(
		"%s: the event is of Razorpay account %s, not razorpay.account_id %s (a staging or test account's webhook sent here?); to book it, list %s in razorpay.accept_accounts and replay it, otherwise dismiss it",
		mapping.ReasonAccount, e.AccountID, want, e.AccountID))
}

// skipPlan is the plan of an event this version does not book.
func skipPlan(e *razorpay.Event) *Plan {
	return (&Plan{Event: e.Event, Key: e.BusinessKey()}).skip(fmt.Sprintf("event %s is not booked by this version", e.Event))
}

// disputePlan parks a chargeback event for a person (DESIGN.md §4 step 4): the connector never
// books dispute money movements itself. With the Razorpay API configured the dispute is
// re-fetched first (GET /v1/disputes/{id}), so the reason shows its current status and
// deduction whatever order the snapshots arrived in.
func (c *Connector) disputePlan(ctx context.Context, e *razorpay.Event) (*Plan, error) {
	pl := &Plan{Event: e.Event, Key: e.BusinessKey()}
	d := e.Dispute
	if d == nil {
		return pl.park(fmt.Sprintf("%s: %s carries no dispute entity", mapping.ReasonDispute, e.Event)), nil
	}
	if c.rzp != nil {
		fresh, err := c.rzp.GetDispute(ctx, d.ID)
		if err != nil {
			return nil, failed("re-fetch dispute "+d.ID, err)
		}
		d = fresh
	}
	exp, _ := razorpay.Exponent(d.Currency)
	return pl.park(fmt.Sprintf("%s: %s %s on payment %s: %s %s, phase %s, status %s, reason %s, deducted %s; handle it in the Razorpay Dashboard and ERPNext, then dismiss",
		mapping.ReasonDispute, e.Event, d.ID, d.PaymentID, d.Currency, razorpay.FormatMinor(d.Amount, exp), d.Phase, d.Status, d.ReasonCode,
		razorpay.FormatMinor(d.AmountDeducted, exp))), nil
}

// statePlan is the plan of payment.authorized and payment.failed: the state is recorded
// (recordState), nothing is booked; a later capture books the payment. state is the furthest
// state stored, nil when unknown.
func statePlan(e *razorpay.Event, state *PaymentState) *Plan {
	pl := &Plan{Event: e.Event, Key: e.BusinessKey()}
	if e.Payment == nil {
		return pl.skip("no payment in " + e.Event)
	}
	msg := fmt.Sprintf("recorded: payment %s was %s in this snapshot; a capture books it", e.Payment.ID, e.Payment.Status)
	if state != nil && state.State != e.Payment.Status {
		msg += fmt.Sprintf(" (furthest state known: %s, from %s)", state.State, state.EventID)
	}
	return pl.skip(msg)
}

// paymentRanks orders a payment's states: they only move forward (DESIGN.md §4 step 4, spec
// razorpay.md §1.7: a snapshot can arrive after a later one, and failed is not final).
var paymentRanks = map[string]int{"created": 0, "failed": 1, "authorized": 2, "captured": 3, "refunded": 4}

// recordState keeps the furthest state of the event's payment. It never blocks the booking:
// a store failure here is logged, and the booking path (which needs the store too) decides.
func (c *Connector) recordState(ctx context.Context, ev *InboxEvent, p *razorpay.Payment) *PaymentState {
	if p == nil || p.ID == "" {
		return nil
	}
	rank, ok := paymentRanks[p.Status]
	if !ok {
		return nil
	}
	stored, _, err := c.store.RecordPaymentState(ctx, PaymentState{PaymentID: p.ID, State: p.Status, Rank: rank, EventID: ev.EventID}, c.now())
	if err != nil {
		c.log.Warn().Err(err).Str("payment_id", p.ID).Msg("record payment state")
		return nil
	}
	return &stored
}
