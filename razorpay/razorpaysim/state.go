package razorpaysim

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// State is a snapshot of the simulated account (GET /__sim/state): every entity and every
// webhook event with each delivery attempt, in creation order.
type State struct {
	AccountID    string                 `json:"account_id"`
	Mode         string                 `json:"mode"` // "test" or "live" (checklist item 15)
	Payments     []razorpay.Payment     `json:"payments"`
	Orders       []razorpay.Order       `json:"orders"`
	Refunds      []razorpay.Refund      `json:"refunds"`
	PaymentLinks []razorpay.PaymentLink `json:"payment_links"`
	Settlements  []razorpay.Settlement  `json:"settlements"`
	Disputes     []razorpay.Dispute     `json:"disputes"`
	Events       []EventRecord          `json:"events"`
	Webhooks     []WebhookState         `json:"webhooks"` // the default endpoint first (checklist items 8, 9)
	Alerts       []AlertEmail           `json:"alerts"`   // auto-disable notifications, oldest first (item 8)
}

// EventRecord is one webhook event and its deliveries. Body is the exact bytes sent (every
// attempt sends the same bytes, signature and id); Signature is the default endpoint's, "" when
// no secret was set. Lost: the event was created with deliver=false. Finished: delivered,
// lost or given up at every endpoint. Delivered: delivered to every endpoint it went to.
// Attempts lists the attempts to all endpoints in the order they ended; Deliveries has one
// entry per endpoint the event went to (checklist item 9).
type EventRecord struct {
	ID        string    `json:"id"`
	Event     string    `json:"event"`
	CreatedAt int64     `json:"created_at"`
	Body      string    `json:"body"`
	Signature string    `json:"signature"`
	Lost      bool      `json:"lost"`
	Delivered bool      `json:"delivered"`
	Finished  bool      `json:"finished"`
	Attempts  []Attempt `json:"attempts"`

	Deliveries []Delivery `json:"deliveries"`
}

// Delivery is an event's delivery to one endpoint: the signature made with that endpoint's
// secret, and whether it was delivered (a 2xx in time) and is finished (delivered, given up
// after the retry window or because the endpoint was disabled, or lost).
type Delivery struct {
	Webhook   string `json:"webhook"`
	Signature string `json:"signature"`
	Delivered bool   `json:"delivered"`
	Finished  bool   `json:"finished"`
}

// Attempt is one delivery of an event: At on the simulator clock; Status the HTTP status (0
// when there was no answer, then Error says why); Elapsed real time until the response headers;
// Success only for a 2xx within DeliveryTimeout; Duplicate for the extra copy sent on purpose
// after a success; Webhook the endpoint's id; Replay for a manual replay (ReplayEvent).
type Attempt struct {
	At        time.Time     `json:"at"`
	Status    int           `json:"status"`
	Error     string        `json:"error,omitempty"`
	Elapsed   time.Duration `json:"elapsed"`
	Success   bool          `json:"success"`
	Duplicate bool          `json:"duplicate,omitempty"`
	Webhook   string        `json:"webhook"`
	Replay    bool          `json:"replay,omitempty"`
}

// State returns a deep copy of the account and the delivery log.
func (s *Sim) State() State {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	st := State{AccountID: s.opt.AccountID, Mode: s.mode, Webhooks: s.hooks.webhookStates(),
		Alerts: slices.Clone(s.hooks.alerts)}
	for _, r := range s.st.payList.byCreated.items {
		st.Payments = append(st.Payments, clonePayment(r.p))
	}
	var orders []*orderRec
	for _, o := range s.st.orders {
		orders = append(orders, o)
	}
	newestFirst(orders, func(o *orderRec) (int64, int64) { return o.o.CreatedAt, o.seq })
	for i := len(orders) - 1; i >= 0; i-- {
		o := orders[i].o
		o.Notes = maps.Clone(o.Notes)
		st.Orders = append(st.Orders, o)
	}
	for _, r := range s.st.refundList.byCreated.items {
		rf := r.r
		rf.Notes, rf.AcquirerData = maps.Clone(rf.Notes), maps.Clone(rf.AcquirerData)
		st.Refunds = append(st.Refunds, rf)
	}
	var links []*linkRec
	for _, l := range s.st.links {
		links = append(links, l)
	}
	newestFirst(links, func(l *linkRec) (int64, int64) { return l.l.CreatedAt, l.seq })
	for i := len(links) - 1; i >= 0; i-- {
		l := links[i].l
		l.Notes = maps.Clone(l.Notes)
		st.PaymentLinks = append(st.PaymentLinks, l)
	}
	for _, sr := range s.st.settleList.byCreated.items {
		st.Settlements = append(st.Settlements, sr.st)
	}
	var disputes []*disputeRec
	for _, d := range s.st.disputes {
		disputes = append(disputes, d)
	}
	slices.SortFunc(disputes, func(a, b *disputeRec) int { return cmp.Compare(a.seq, b.seq) })
	for _, d := range disputes {
		st.Disputes = append(st.Disputes, d.d)
	}
	for _, e := range s.hooks.events {
		st.Events = append(st.Events, EventRecord{
			ID: e.id, Event: e.name, CreatedAt: e.createdAt, Body: string(e.body), Signature: e.sig,
			Lost: e.lost, Delivered: e.delivered, Finished: e.finished,
			Attempts: append([]Attempt(nil), e.attempts...),
		})
		rec := &st.Events[len(st.Events)-1]
		for _, d := range e.deliveries {
			rec.Deliveries = append(rec.Deliveries, Delivery{Webhook: d.ep.id, Signature: d.sig,
				Delivered: d.delivered, Finished: d.finished})
		}
	}
	return st
}
