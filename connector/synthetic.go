package connector

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// ReconcileEventPrefix starts the event id of every synthetic inbox row, "reconcile:<id>"
// (DESIGN.md §8): the rows reconcile queues, and the payment a refund waiting for its receipt
// queues.
const ReconcileEventPrefix = "reconcile:"

// SyntheticEvent builds a well-formed webhook envelope (spec/razorpay.md §2.1) for an inbox row
// reconcile creates: entity "event", accountID, event, created_at = at (unix seconds), and the
// given entities under payload.<name>.entity (nil ones left out; contains lists the present
// ones, refund before payment as Razorpay sends refund events). razorpay.ParseEvent reads it
// back; it is never signed and never sent anywhere.
func SyntheticEvent(accountID, event string, at time.Time, p *razorpay.Payment, o *razorpay.Order, rf *razorpay.Refund) ([]byte, error) {
	e := razorpay.Event{Entity: "event", AccountID: accountID, Event: event, CreatedAt: at.Unix(), Payment: p, Order: o, Refund: rf}
	if rf != nil {
		e.Contains = append(e.Contains, "refund")
	}
	if p != nil {
		e.Contains = append(e.Contains, "payment")
	}
	if o != nil {
		e.Contains = append(e.Contains, "order")
	}
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("build %s envelope: %w", event, err)
	}
	return b, nil
}

// SyntheticSettlementEvent is SyntheticEvent for a settlement.processed row of reconcile's
// settlement sweep: the settlement as Razorpay's API returns it under payload.settlement.entity.
func SyntheticSettlementEvent(accountID string, at time.Time, st *razorpay.Settlement) ([]byte, error) {
	e := razorpay.Event{Entity: "event", AccountID: accountID, Event: EventSettlementProcessed, CreatedAt: at.Unix(),
		Contains: []string{"settlement"}, Settlement: st}
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("build %s envelope: %w", EventSettlementProcessed, err)
	}
	return b, nil
}
