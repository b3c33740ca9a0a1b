package razorpay

import (
	"errors"
	"fmt"
)

// The payload entities a webhook body may carry, in the order ParseEvent reads them (and so the
// order of their errors and warnings).
const (
	kPayment = iota
	kOrder
	kPaymentLink
	kRefund
	kDispute
	kSettlement
	nKinds
)

var (
	payloadKeys = newKeySet("payment", "order", "payment_link", "refund", "dispute", "settlement")
	entityNames = [nKinds]string{"payment", "order", "payment_link", "refund", "dispute", "settlement"}
	entityKeys  = [nKinds]keySet{paymentKeys, orderKeys, paymentLinkKeys, refundKeys, disputeKeys, settlementKeys}

	envelopeKeys     = newKeySet("entity", "account_id", "event", "contains", "created_at")
	peekEnvelopeKeys = newKeySet("account_id", "event", "created_at")
)

// slot is an object-like value read in place: absentV when missing or absent in the §3 sense,
// objectV, or otherV with the value's bytes (an error when read).
type slot struct {
	kind  int
	other []byte
}

// wrapped is payload.<name>: the wrapper object and the entity inside it.
type wrapped struct {
	wrapper, entity slot
	obj             object
}

// pass is one scan of a webhook body: the envelope's fields, then payload, each wrapper and each
// entity are read where they stand — the bytes are walked once; the scalar fields are converted
// afterwards, in a fixed order, from the bytes found. A member met twice keeps its last value
// (payload and wrappers included), as with encoding/json's maps.
type pass struct {
	s       scanner
	body    slot
	env     object
	payload slot
	items   [nKinds]wrapped
	peek    bool     // PeekEvent: read only the envelope's event fields and each entity's id
	stack   [32]byte // the scanner's first containers, without an allocation of their own
}

func newPass(body []byte, peek bool) *pass {
	p := &pass{s: scanner{data: body}, peek: peek}
	p.s.stack = p.stack[:0]
	p.env = object{name: "event", keys: envelopeKeys}
	if peek {
		p.env.keys = peekEnvelopeKeys
	}
	p.body.kind, p.body.other = p.s.objectLike()
	if p.body.kind == objectV {
		for key, escaped := range p.s.members() {
			if keyIs(key, escaped, "payload") {
				p.readPayload()
				continue
			}
			p.env.set(key, escaped, &p.s)
		}
	}
	p.s.end()
	return p
}

// keyIs reports whether a member's key (content, maybe escaped) is name.
func keyIs(key []byte, escaped bool, name string) bool {
	if escaped {
		return decodeString(key, true) == name
	}
	return string(key) == name
}

func (p *pass) readPayload() {
	p.items = [nKinds]wrapped{}
	p.payload.kind, p.payload.other = p.s.objectLike()
	if p.payload.kind != objectV {
		return
	}
	for key, escaped := range p.s.members() {
		name := string(key)
		if escaped {
			name = decodeString(key, true)
		}
		if k, known := payloadKeys[name]; known {
			p.readWrapper(k)
		} else {
			p.s.skip()
		}
	}
}

func (p *pass) readWrapper(k int) {
	w := &p.items[k]
	*w = wrapped{}
	w.wrapper.kind, w.wrapper.other = p.s.objectLike()
	if w.wrapper.kind != objectV {
		return
	}
	for key, escaped := range p.s.members() {
		if !keyIs(key, escaped, "entity") {
			p.s.skip()
			continue
		}
		keys := entityKeys[k]
		if p.peek {
			keys = idKeys
		}
		w.obj = object{name: entityNames[k], keys: keys}
		w.entity.kind, w.entity.other = p.s.objectLike()
		if w.entity.kind == objectV {
			w.obj.read(&p.s)
		}
	}
}

// start checks what must hold before any field is read: the body is JSON and an object.
// empty is true for a body absent in the §3 sense that is still an object ("{}"): no fields.
func (p *pass) start(body []byte) (empty bool, err error) {
	switch {
	case p.s.err != nil:
		return false, fmt.Errorf("event: %w", p.s.err)
	case p.body.kind == otherV:
		return false, notObject("event", p.body.other)
	case p.body.kind == absentV:
		if t := trimSpace(body); len(t) > 0 && t[0] == '{' {
			return true, nil
		}
		return false, errors.New("body is not a JSON object")
	}
	return false, nil
}

// entities walks the payload in the fixed order, calling each for every entity present (an
// object with members) and stopping at the first error: payload, a wrapper or an entity that is
// not object-like, or an error from each.
func (p *pass) entities(each func(k int, o *object) error) error {
	switch p.payload.kind {
	case otherV:
		return notObject("payload", p.payload.other)
	case absentV:
		return nil
	}
	for k := range nKinds {
		w := &p.items[k]
		switch {
		case w.wrapper.kind == otherV:
			return notObject("payload."+entityNames[k], w.wrapper.other)
		case w.wrapper.kind == absentV || w.entity.kind == absentV:
			continue
		case w.entity.kind == otherV:
			return notObject(entityNames[k], w.entity.other)
		}
		if err := each(k, &w.obj); err != nil {
			return err
		}
	}
	return nil
}

func trimSpace(b []byte) []byte {
	s := scanner{data: b}
	s.ws()
	b = b[s.i:]
	for len(b) > 0 {
		switch b[len(b)-1] {
		case ' ', '\t', '\n', '\r':
			b = b[:len(b)-1]
			continue
		}
		break
	}
	return b
}
