package connector

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Every payment and refund of a settlement is booked before its Journal Entry (DESIGN.md §5):
// its bookings row is booked, and its submitted Payment Entry put into (or took out of) the
// clearing account exactly what Razorpay's row says. One that was never booked and has no
// inbox row of its own (every webhook lost) is queued from Razorpay through the normal path.

// itemsCheck is how far a settlement's items are booked.
type itemsCheck struct {
	booked  map[string]Booking // business key → its booked row
	queue   []QueuedItem       // never seen: to be queued from Razorpay
	waiting []string           // on their way: "pay_… (pending)"
	stuck   []string           // need a person first: "pay_… is parked (…)"
	// waitFor is what the settlement's wait names (Outcome.WaitFor): the booking of the last
	// item queued, else of the last on its way — likely the last to be booked. Its booking
	// wakes the settlement, which looks again (and waits for the next, if any is left).
	waitFor Wait
}

// settlementItemsChunk bounds the names of one `name in` list of Payment Entries.
const settlementItemsChunk = 100

// checkItems reads the connector's own rows for every item (bookings first, then the inbox
// rows of its route), then the booked Payment Entries in ERPNext.
func (c *Connector) checkItems(ctx context.Context, sp mapping.Settlement, clearing string) (itemsCheck, error) {
	k := itemsCheck{booked: map[string]Booking{}}
	facts := c.facts()
	since := c.cfg.Reconcile.SinceIn(c.loc)
	for _, it := range sp.SortedItems() {
		kind, route := KindReceipt, RouteReceipt
		if it.Type == razorpay.ReconRefund {
			kind, route = KindRefund, RouteRefund
		}
		b, err := facts.GetBooking(ctx, it.ID)
		switch {
		case err == nil && b.State == BookingBooked:
			k.booked[it.ID] = *b
			continue
		case err == nil && b.State == BookingVoid:
			k.stuck = append(k.stuck, fmt.Sprintf("refund %s failed at Razorpay (its booking is void) but Razorpay settled it", it.ID))
			continue
		case err == nil:
			k.waiting = append(k.waiting, it.ID+" (being booked)")
			k.waitFor = waitBooked(kind, it.ID)
			continue
		case !errors.Is(err, ErrNotFound):
			return k, failed("booking of "+it.ID, err)
		}
		rows, err := facts.FindEvents(ctx, it.ID)
		if err != nil {
			return k, failed("events of "+it.ID, err)
		}
		switch state := itemRows(it.ID, rows, route); {
		case state != "":
			if strings.HasPrefix(state, "waiting") {
				k.waiting = append(k.waiting, it.ID+" ("+strings.TrimPrefix(state, "waiting ")+")")
				k.waitFor = waitBooked(kind, it.ID)
			} else {
				k.stuck = append(k.stuck, it.ID+" "+state)
			}
		case !since.IsZero() && it.CreatedAt != 0 && time.Unix(it.CreatedAt, 0).Before(since):
			k.stuck = append(k.stuck, fmt.Sprintf("%s was created before reconcile.since and is never booked by the connector; book it by hand", it.ID))
		default:
			k.queue = append(k.queue, QueuedItem{Kind: kind, ID: it.ID})
		}
	}
	if n := len(k.queue); n > 0 {
		k.waitFor = waitBooked(k.queue[n-1].Kind, k.queue[n-1].ID)
	}
	if len(k.queue) > 0 || len(k.waiting) > 0 || len(k.stuck) > 0 {
		return k, nil
	}
	return k, c.checkBookedAmounts(ctx, sp, clearing, &k)
}

// itemRows says what the inbox rows of route tell about item id without a booking: "" when
// none books it (never seen, or only skipped snapshots); "waiting pending" while one is on its
// way; otherwise why a person must act first, and what they can do.
func itemRows(id string, rows []InboxEvent, route Route) string {
	state := ""
	for _, row := range rows {
		if RouteOf(row.Event) != route {
			continue
		}
		switch row.Status {
		case StatusPending, StatusProcessing:
			return "waiting " + string(row.Status)
		case StatusParked, StatusDead:
			state = fmt.Sprintf("is %s (%s)", row.Status, shortReason(row.LastError))
		case StatusDismissed:
			if state == "" {
				state = fmt.Sprintf("was dismissed by a person (%s), so the connector never books it: if it was booked by hand, "+
					"give that Payment Entry reference_no %s and replay the payment (events replay %s: the lookup records the entry); "+
					"otherwise replay it to have it booked", shortReason(row.LastError), id, id)
			}
		case StatusDone, StatusDuplicate:
			if state == "" {
				state = fmt.Sprintf("has its event %s %s but no booking", row.EventID, row.Status)
			}
		}
	}
	return state
}

// checkBookedAmounts reads the items' booked Payment Entries (`name in`, exact) and notes, as
// stuck, every one that is not submitted or moved another amount through the clearing account
// than Razorpay's row: a receipt's received_amount into it, a refund's paid_amount out of it.
func (c *Connector) checkBookedAmounts(ctx context.Context, sp mapping.Settlement, clearing string, k *itemsCheck) error {
	var names []string
	for _, it := range sp.Items {
		if b := k.booked[it.ID]; b.Name != "" {
			names = append(names, b.Name)
		}
	}
	entries := map[string]frappe.PaymentEntry{}
	for start := 0; start < len(names); start += settlementItemsChunk {
		var rows []frappe.PaymentEntry
		err := c.erp.List(ctx, frappe.DoctypePaymentEntry, frappe.ListOptions{
			Fields:  []string{"name", "docstatus", "payment_type", "paid_from", "paid_to", "paid_amount", "received_amount"},
			Filters: []frappe.Filter{{"name", "in", names[start:min(start+settlementItemsChunk, len(names))]}},
			All:     true,
		}, &rows)
		if err != nil {
			return failed("read the booked entries of "+sp.ID, err)
		}
		for _, r := range rows {
			entries[r.Name] = r
		}
	}
	for _, it := range sp.SortedItems() {
		b := k.booked[it.ID]
		if problem := bookedProblem(entries[b.Name], b, it, clearing); problem != "" {
			k.stuck = append(k.stuck, problem)
		}
	}
	return nil
}

// bookedProblem says how the entry pe booked for item differs from Razorpay's row; "" when it
// does not.
func bookedProblem(pe frappe.PaymentEntry, b Booking, it mapping.SettlementItem, clearing string) string {
	if pe.Name != b.Name || pe.Docstatus != frappe.DocstatusSubmitted {
		return fmt.Sprintf("%s was booked as %s %s, which is no longer submitted in ERPNext", it.ID, b.Doctype, b.Name)
	}
	account, field, text, want := pe.PaidTo, "received_amount", pe.ReceivedAmount, it.Clearing
	if it.Type == razorpay.ReconRefund {
		account, field, text, want = pe.PaidFrom, "paid_amount", pe.PaidAmount, -it.Clearing
	}
	got, err := razorpay.ParseDecimal(text.String(), 2)
	switch {
	case account != clearing:
		return fmt.Sprintf("%s is booked as %s on %s, not on the clearing account %s", it.ID, pe.Name, account, clearing)
	case err != nil || got != want:
		return fmt.Sprintf("%s is booked as %s with %s %s, but Razorpay settled %s for it", it.ID, pe.Name, field, text, rupees(want))
	}
	return ""
}

// queueItems queues each item from Razorpay (queuePayment, queueRefund) and counts it.
func (c *Connector) queueItems(ctx context.Context, items []QueuedItem) error {
	for _, it := range items {
		var err error
		if it.Kind == KindRefund {
			err = c.queueRefund(ctx, it.ID)
		} else {
			err = c.queuePayment(ctx, it.ID)
		}
		if err != nil {
			return failed("queue "+it.ID+" from Razorpay", err)
		}
		c.metrics.settleQueued.WithLabelValues(it.Kind).Inc()
	}
	return nil
}

// queueRefund fetches a refund (and its payment) from Razorpay and inserts a synthetic
// refund.processed inbox row (event id reconcile:<refund id>, the id reconcile uses too). A
// refund Razorpay does not report processed is not queued.
func (c *Connector) queueRefund(ctx context.Context, refundID string) error {
	rf, err := c.rzp.GetRefund(ctx, refundID)
	if err != nil {
		return err
	}
	if rf.Status != "processed" {
		return nil
	}
	var p *razorpay.Payment
	if rf.PaymentID != "" {
		if p, err = c.rzp.GetPayment(ctx, rf.PaymentID); err != nil {
			return err
		}
	}
	body, err := SyntheticEvent(c.cfg.Razorpay.AccountID, "refund.processed", c.now(), p, nil, rf)
	if err != nil {
		return err
	}
	return c.insertSynthetic(ctx, "refund.processed", rf.ID, rf.CreatedAt, body)
}
