package razorpay

import "fmt"

// EventHead is what the webhook intake needs of a body before any worker reads it (DESIGN.md §4
// step 1): the event name, the account id, the envelope's created_at (unix seconds, 0 when
// absent) and the id of each entity in the payload ("" when that entity is absent).
type EventHead struct {
	Event         string
	AccountID     string
	CreatedAt     int64
	PaymentID     string // payload.payment.entity.id
	OrderID       string // payload.order.entity.id
	PaymentLinkID string // payload.payment_link.entity.id
	RefundID      string // payload.refund.entity.id
	DisputeID     string // payload.dispute.entity.id
	SettlementID  string // payload.settlement.entity.id
}

// BusinessKey is Event.BusinessKey for the head: the refund id for refund.* events, the dispute
// id for payment.dispute.* events, the settlement id for settlement.* events, otherwise the
// payment id.
func (h *EventHead) BusinessKey() string {
	return businessKey(h.Event, h.PaymentID, h.RefundID, h.DisputeID, h.SettlementID)
}

// PeekEvent reads the EventHead of a webhook body in the same single scan as ParseEvent, but
// converts only the fields the head holds and builds no entity: the cheap path for intake.
//
// It fails when the body is not JSON or not an object, when event or account_id is not a string,
// created_at not an integer, payload, a payload.<name> or an entity not object-like, or an
// entity's id not a string — each also a ParseEvent failure, with the same text: ParseEvent
// reads the head first (pass.head). It reads no other field, so a body it accepts may still
// fail ParseEvent (an amount that is not an integer …): the worker's ParseEvent reports that.
// For every body ParseEvent accepts, PeekEvent succeeds with the same values.
func PeekEvent(body []byte) (EventHead, error) {
	p := newPass(body, true)
	if empty, err := p.start(body); err != nil || empty {
		if err != nil {
			return EventHead{}, fmt.Errorf("razorpay: parse event: %w", err)
		}
		return EventHead{}, nil
	}
	h, err := p.head()
	if err != nil {
		return EventHead{}, fmt.Errorf("razorpay: parse event: %w", err)
	}
	return h, nil
}

// head reads the EventHead's fields from a pass that started (start found an object with
// members): the envelope's account_id, event and created_at, then each entity's id in the fixed
// order. It is PeekEvent's whole read and ParseEvent's first, so that both report the same first
// error for a body that fails here.
func (p *pass) head() (EventHead, error) {
	var h EventHead
	o := &p.env
	h.AccountID = o.str("account_id")
	h.Event = o.str("event")
	h.CreatedAt = o.int64("created_at")
	if o.err != nil {
		return EventHead{}, o.err
	}
	ids := [nKinds]*string{&h.PaymentID, &h.OrderID, &h.PaymentLinkID, &h.RefundID, &h.DisputeID, &h.SettlementID}
	err := p.entities(func(k int, o *object) error {
		*ids[k] = o.str("id")
		return o.err
	})
	if err != nil {
		return EventHead{}, err
	}
	return h, nil
}
