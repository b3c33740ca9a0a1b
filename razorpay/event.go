package razorpay

import (
	"encoding/json"
	"fmt"
)

// Event is a Razorpay webhook body: the envelope of spec/razorpay.md §2.1 with the entities we
// use lifted out of `payload.<name>.entity`. The event id is not in the body (it travels in the
// X-Razorpay-Event-Id header, §1.2). CreatedAt is unix seconds, 0 if absent; for payment_link.*
// events it is the link's creation time, not the event's (§2.1 quirks). An entity pointer is nil
// when its payload key is missing, null, [] or {}.
type Event struct {
	Entity    string   `json:"entity"`
	AccountID string   `json:"account_id"`
	Event     string   `json:"event"`
	Contains  []string `json:"contains"`
	CreatedAt int64    `json:"created_at"`

	// Warnings name optional fields that arrived with an unusable type and were read as absent,
	// e.g. "payment.notes: expected an object, got a string; treated as absent".
	// Required fields (ids, amounts, currencies, created_at, captured) fail instead.
	Warnings []string `json:"-"`

	Payment     *Payment     `json:"-"` // payload.payment.entity
	Order       *Order       `json:"-"` // payload.order.entity
	PaymentLink *PaymentLink `json:"-"` // payload.payment_link.entity
	Refund      *Refund      `json:"-"` // payload.refund.entity
	Dispute     *Dispute     `json:"-"` // payload.dispute.entity
	Settlement  *Settlement  `json:"-"` // payload.settlement.entity
}

// ParseEvent decodes a webhook body leniently (spec/razorpay.md §3 typing rules): unknown fields
// and unknown payload keys are ignored; object fields accept {}, [] or null; "" means absent;
// booleans accept true/false/"1"/"0"/1/0/"true"/"false". Verify the signature over the same raw
// bytes first (VerifySignature); ParseEvent never re-encodes them. The body is walked once:
// payload, its wrappers and its entities are read where they stand, and only the fields used
// are converted (PeekEvent is the cheaper read of intake's fields).
//
// Optional fields of an unusable type (notes or acquirer_data that are not object-like — a
// non-JSON string, a number —, contains, a payment link's customer, international,
// accept_partial, attempts, updated_at, respond_by) are read as absent and named in
// Event.Warnings; the event, its name and its business key are kept.
//
// It returns an error only when body is not a JSON object, or when the envelope or a present
// entity has a required field of an unusable JSON type (an amount that is not an integer, an id
// that is not a string, …); the error names the field, e.g. "payment.amount: not an integer:
// "10.5"". Error text quotes input bytes escaped (invalid UTF-8 as \xff), so it is always valid
// UTF-8.
func ParseEvent(body []byte) (*Event, error) {
	p := newPass(body, false)
	e, err := p.event(body)
	if err != nil {
		return nil, fmt.Errorf("razorpay: parse event: %w", err)
	}
	return e, nil
}

// event builds the Event from what the pass found: the envelope's fields, then each entity.
func (p *pass) event(body []byte) (*Event, error) {
	if empty, err := p.start(body); err != nil || empty {
		if empty {
			return &Event{}, nil
		}
		return nil, err
	}
	if _, err := p.head(); err != nil {
		return nil, err // PeekEvent's error for the same body
	}
	e := &Event{}
	o := &p.env
	o.warn = &e.Warnings
	e.Entity = o.str("entity")
	e.AccountID = o.str("account_id")
	e.Event = o.str("event")
	e.Contains = opt(o, "contains", o.strings, nil)
	e.CreatedAt = o.int64("created_at")
	if o.err != nil {
		return nil, o.err
	}
	err := p.entities(func(k int, o *object) error {
		o.warn = &e.Warnings
		return e.setEntity(k, o)
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// setEntity builds payload entity k from o into e.
func (e *Event) setEntity(k int, o *object) error {
	switch k {
	case kPayment:
		return setNew(&e.Payment, o)
	case kOrder:
		return setNew(&e.Order, o)
	case kPaymentLink:
		return setNew(&e.PaymentLink, o)
	case kRefund:
		return setNew(&e.Refund, o)
	case kDispute:
		return setNew(&e.Dispute, o)
	case kSettlement:
		return setNew(&e.Settlement, o)
	}
	return nil
}

// setNew points *dst at a new entity built from o.
func setNew[T any, P entity[T]](dst **T, o *object) error {
	v := new(T)
	*dst = v
	return P(v).build(o)
}

// UnmarshalJSON implements json.Unmarshaler with ParseEvent's rules.
func (e *Event) UnmarshalJSON(data []byte) error {
	p, err := ParseEvent(data)
	if err != nil {
		return err
	}
	*e = *p
	return nil
}

// MarshalJSON encodes the event back into Razorpay's envelope shape (entities under
// payload.<name>.entity), so that ParseEvent reads it back. It is not byte-identical to what
// Razorpay sent: verify signatures over the original body, never over this encoding.
func (e Event) MarshalJSON() ([]byte, error) {
	type wrapped struct {
		Entity any `json:"entity"`
	}
	payload := map[string]wrapped{}
	if e.Payment != nil {
		payload["payment"] = wrapped{e.Payment}
	}
	if e.Order != nil {
		payload["order"] = wrapped{e.Order}
	}
	if e.PaymentLink != nil {
		payload["payment_link"] = wrapped{e.PaymentLink}
	}
	if e.Refund != nil {
		payload["refund"] = wrapped{e.Refund}
	}
	if e.Dispute != nil {
		payload["dispute"] = wrapped{e.Dispute}
	}
	if e.Settlement != nil {
		payload["settlement"] = wrapped{e.Settlement}
	}
	contains := e.Contains
	if contains == nil {
		contains = []string{}
	}
	return json.Marshal(struct {
		Entity    string             `json:"entity"`
		AccountID string             `json:"account_id"`
		Event     string             `json:"event"`
		Contains  []string           `json:"contains"`
		Payload   map[string]wrapped `json:"payload"`
		CreatedAt int64              `json:"created_at"`
	}{e.Entity, e.AccountID, e.Event, contains, payload, e.CreatedAt})
}

// BusinessKey returns the id of the business fact the event is about, which is what bookings
// are keyed on (DESIGN.md §4): the refund id for refund.* events, the dispute id for
// payment.dispute.* events, otherwise the payment id. It returns "" when that entity is absent
// (a refund event without a refund is never keyed by its payment id, which would collide with
// the receipt).
func (e *Event) BusinessKey() string {
	if e == nil {
		return ""
	}
	var pay, refund, dispute, settlement string
	if e.Payment != nil {
		pay = e.Payment.ID
	}
	if e.Refund != nil {
		refund = e.Refund.ID
	}
	if e.Dispute != nil {
		dispute = e.Dispute.ID
	}
	if e.Settlement != nil {
		settlement = e.Settlement.ID
	}
	return businessKey(e.Event, pay, refund, dispute, settlement)
}

// businessKey picks the business key of an event named event from its entities' ids ("" for
// an absent entity): the id of the entity the catalogue names for it (LookupEvent).
func businessKey(event, payment, refund, dispute, settlement string) string {
	info, _ := LookupEvent(event)
	switch info.KeyEntity {
	case "refund":
		return refund
	case "dispute":
		return dispute
	case "settlement":
		return settlement
	}
	return payment
}
