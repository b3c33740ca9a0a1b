package kernel

import (
	"context"
	"fmt"
	"slices"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// AccountPlan parks an event of another Razorpay account than razorpay.account_id — a webhook
// of a staging or test account pointed at this daemon, signed with a secret it shares — unless
// razorpay.accept_accounts lists that account; nil when the event may be booked. An event
// without account_id, or a daemon without razorpay.account_id, is not checked.
func (c *Kernel) AccountPlan(e *razorpay.Event) *connector.Plan {
	want := c.acct.ID
	if e.AccountID == "" || want == "" || e.AccountID == want || slices.Contains(c.acct.Accepts, e.AccountID) {
		return nil
	}
	return (&connector.Plan{Event: e.Event, Key: e.BusinessKey()}).Park(fmt.Sprintf(
		"%s: the event is of Razorpay account %s, not razorpay.account_id %s (a staging or test account's webhook sent here?); to book it, list %s in razorpay.accept_accounts and replay it, otherwise dismiss it",
		mapping.ReasonAccount, e.AccountID, want, e.AccountID))
}

// paymentRanks orders a payment's states: they only move forward (DESIGN.md §4 step 4, spec
// razorpay.md §1.7: a snapshot can arrive after a later one, and failed is not final).
var paymentRanks = map[string]int{"created": 0, "failed": 1, "authorized": 2, "captured": 3, "refunded": 4}

// RecordState keeps the furthest state of the event's payment. It never blocks the booking:
// a store failure here is logged, and the booking path (which needs the store too) decides.
func (c *Kernel) RecordState(ctx context.Context, ev *connector.InboxEvent, p *razorpay.Payment) *connector.PaymentState {
	if p == nil || p.ID == "" {
		return nil
	}
	rank, ok := paymentRanks[p.Status]
	if !ok {
		return nil
	}
	stored, _, err := c.store.RecordPaymentState(ctx, connector.PaymentState{PaymentID: p.ID, State: p.Status, Rank: rank, EventID: ev.EventID}, c.now())
	if err != nil {
		c.log.Warn().Err(err).Str("payment_id", p.ID).Msg("record payment state")
		return nil
	}
	return &stored
}
