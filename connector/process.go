package connector

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// process decides what one claimed event means and carries it out. It never panics on bad
// data: anything it cannot book becomes parked or dead with a reason.
func (c *Connector) process(ctx context.Context, ev *InboxEvent, owner string) Outcome {
	if len(ev.RawBody) == 0 {
		return Outcome{Status: StatusDead, LastError: "raw body no longer stored (retention); replay is not possible"}
	}
	parsed, err := razorpay.ParseEvent(ev.RawBody)
	if err != nil {
		return Outcome{Status: StatusDead, LastError: "webhook body does not parse: " + err.Error()}
	}
	state := c.recordState(ctx, ev, parsed.Payment)
	switch RouteOf(parsed.Event) {
	case RouteReceipt:
		return c.bookReceipt(ctx, ev, parsed, owner)
	case RouteRefund:
		return c.bookRefund(ctx, ev, parsed, owner)
	case RouteDispute:
		return c.dispute(ctx, ev, parsed)
	case RouteState:
		if parsed.Payment == nil {
			return Outcome{Status: StatusSkipped, LastError: "no payment in " + parsed.Event}
		}
		msg := fmt.Sprintf("recorded: payment %s was %s in this snapshot; a capture books it", parsed.Payment.ID, parsed.Payment.Status)
		if state != nil && state.State != parsed.Payment.Status {
			msg += fmt.Sprintf(" (furthest state known: %s, from %s)", state.State, state.EventID)
		}
		return Outcome{Status: StatusSkipped, LastError: msg}
	}
	return Outcome{Status: StatusSkipped, LastError: fmt.Sprintf("event %s is not booked by this version", parsed.Event)}
}

// parkOutcome is a parked event with the reason a person reads.
func parkOutcome(format string, a ...any) Outcome {
	return Outcome{Status: StatusParked, LastError: fmt.Sprintf(format, a...)}
}

// retryAt is a retry that counts as a failed attempt.
func (c *Connector) retry(ev *InboxEvent, after time.Duration, format string, a ...any) Outcome {
	if after <= 0 {
		after = c.backoff(ev.Attempts + 1)
	}
	return Outcome{Status: StatusPending, CountAttempt: true, NextAttemptAt: c.now().Add(after), LastError: fmt.Sprintf(format, a...)}
}

// waitUntil is a retry that is not a failure: contention on a claim or lock, or a pause.
func (c *Connector) waitUntil(t time.Time, format string, a ...any) Outcome {
	return Outcome{Status: StatusPending, NextAttemptAt: t, LastError: fmt.Sprintf(format, a...)}
}

// failOutcome turns an ERPNext failure of a read or a definite (non-ambiguous) write failure
// into an outcome: retry, pause, or park with ERPNext's message.
func (c *Connector) failOutcome(ev *InboxEvent, op string, err error) Outcome {
	if errors.Is(err, context.Canceled) {
		// Shutdown interrupted the call: not the event's failure, so no attempt is spent.
		return c.waitUntil(c.now(), "%s: interrupted by shutdown", op)
	}
	kind, after := classify(err, false)
	switch kind {
	case failAuth:
		c.pause(fmt.Sprintf("ERPNext refused the API credentials (%s)", reason(err)))
		return c.waitUntil(c.now().Add(c.cfg.Worker.PauseRecheck.D()), "paused: %s: %s", op, reason(err))
	case failPark, failNotFound, failConflict:
		return parkOutcome("%s: %s", op, reason(err))
	}
	if errors.Is(err, ErrStoreUnavailable) {
		return c.retry(ev, 0, "%s: %v", op, err)
	}
	return c.retry(ev, after, "%s: %s", op, reason(err))
}

// asPark reports whether err is a mapping park reason.
func asPark(err error) (*mapping.Park, bool) {
	var p *mapping.Park
	ok := errors.As(err, &p)
	return p, ok
}

// dispute records a chargeback event and parks it for a person (DESIGN.md §4 step 4): the
// connector never books dispute money movements itself. With the Razorpay API configured the
// dispute is re-fetched first (GET /v1/disputes/{id}), so the reason shows its current status
// and deduction whatever order the snapshots arrived in.
func (c *Connector) dispute(ctx context.Context, ev *InboxEvent, e *razorpay.Event) Outcome {
	d := e.Dispute
	c.metrics.disputes.WithLabelValues(e.Event).Inc()
	if d == nil {
		return parkOutcome("%s: %s carries no dispute entity", mapping.ReasonDispute, e.Event)
	}
	if c.rzp != nil {
		fresh, err := c.rzp.GetDispute(ctx, d.ID)
		if err != nil {
			return c.razorpayFailure(ev, "re-fetch dispute "+d.ID, err)
		}
		d = fresh
	}
	exp, _ := razorpay.Exponent(d.Currency)
	return parkOutcome("%s: %s %s on payment %s: %s %s, phase %s, status %s, reason %s, deducted %s; handle it in the Razorpay Dashboard and ERPNext, then dismiss",
		mapping.ReasonDispute, e.Event, d.ID, d.PaymentID, d.Currency, razorpay.FormatMinor(d.Amount, exp), d.Phase, d.Status, d.ReasonCode,
		razorpay.FormatMinor(d.AmountDeducted, exp))
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
