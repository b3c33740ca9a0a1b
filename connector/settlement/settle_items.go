package settlement

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
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
	booked  map[string]connector.Booking // business key → its booked row
	queue   []connector.QueuedItem       // never seen: to be queued from Razorpay
	waiting []string                     // on their way: "pay_… (pending)"
	stuck   []string                     // need a person first: "pay_… is parked (…)"
	// waitFor is what the settlement's wait names (Outcome.WaitFor): the booking of the last
	// item queued, else of the last on its way — likely the last to be booked. Its booking
	// wakes the settlement, which looks again (and waits for the next, if any is left).
	waitFor connector.Wait
}

// settlementItemsChunk bounds the names of one `name in` list of Payment Entries.
const settlementItemsChunk = 100

// checkItems reads the connector's own rows for every item (bookings first, then the inbox
// rows of its route), then the booked Payment Entries in ERPNext.
func (c *Job) checkItems(ctx context.Context, sp mapping.Settlement, clearing string) (itemsCheck, error) {
	k := itemsCheck{booked: map[string]connector.Booking{}}
	facts := c.Facts()
	since := c.Account.Reconcile.SinceIn(c.Account.Location)
	for _, it := range sp.SortedItems() {
		kind, route := connector.KindReceipt, connector.RouteReceipt
		if it.Type == razorpay.ReconRefund {
			kind, route = connector.KindRefund, connector.RouteRefund
		}
		b, err := facts.GetBooking(ctx, it.ID)
		switch {
		case err == nil && b.State == connector.BookingBooked:
			k.booked[it.ID] = *b
			continue
		case err == nil && b.State == connector.BookingVoid:
			k.stuck = append(k.stuck, fmt.Sprintf("refund %s failed at Razorpay (its booking is void) but Razorpay settled it", it.ID))
			continue
		case err == nil:
			k.waiting = append(k.waiting, it.ID+" (being booked)")
			k.waitFor = connector.WaitBooked(kind, it.ID)
			continue
		case !errors.Is(err, connector.ErrNotFound):
			return k, connector.Failed("booking of "+it.ID, err)
		}
		rows, err := facts.FindEvents(ctx, it.ID)
		if err != nil {
			return k, connector.Failed("events of "+it.ID, err)
		}
		switch state := itemRows(it.ID, rows, route); {
		case state != "":
			if strings.HasPrefix(state, "waiting") {
				k.waiting = append(k.waiting, it.ID+" ("+strings.TrimPrefix(state, "waiting ")+")")
				k.waitFor = connector.WaitBooked(kind, it.ID)
			} else {
				k.stuck = append(k.stuck, it.ID+" "+state)
			}
		case !since.IsZero() && it.CreatedAt != 0 && time.Unix(it.CreatedAt, 0).Before(since):
			k.stuck = append(k.stuck, fmt.Sprintf("%s was created before reconcile.since and is never booked by the connector; book it by hand", it.ID))
		default:
			k.queue = append(k.queue, connector.QueuedItem{Kind: kind, ID: it.ID})
		}
	}
	if n := len(k.queue); n > 0 {
		k.waitFor = connector.WaitBooked(k.queue[n-1].Kind, k.queue[n-1].ID)
	}
	if len(k.queue) > 0 || len(k.waiting) > 0 || len(k.stuck) > 0 {
		return k, nil
	}
	return k, c.checkBookedAmounts(ctx, sp, clearing, &k)
}

// itemRows says what the inbox rows of route tell about item id without a booking: "" when
// none books it (never seen, or only skipped snapshots); "waiting pending" while one is on its
// way; otherwise why a person must act first, and what they can do.
func itemRows(id string, rows []connector.InboxEvent, route connector.Route) string {
	state := ""
	for _, row := range rows {
		if connector.RouteOf(row.Event) != route {
			continue
		}
		switch row.Status {
		case connector.StatusPending, connector.StatusProcessing:
			return "waiting " + string(row.Status)
		case connector.StatusParked, connector.StatusDead:
			state = fmt.Sprintf("is %s (%s)", row.Status, connector.ShortReason(row.LastError))
		case connector.StatusDismissed:
			if state == "" {
				state = fmt.Sprintf("was dismissed by a person (%s), so the connector never books it: if it was booked by hand, "+
					"give that Payment Entry reference_no %s and replay the payment (events replay %s: the lookup records the entry); "+
					"otherwise replay it to have it booked", connector.ShortReason(row.LastError), id, id)
			}
		case connector.StatusDone, connector.StatusDuplicate:
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
func (c *Job) checkBookedAmounts(ctx context.Context, sp mapping.Settlement, clearing string, k *itemsCheck) error {
	var names []string
	for _, it := range sp.Items {
		if b := k.booked[it.ID]; b.Name != "" {
			names = append(names, b.Name)
		}
	}
	entries := map[string]frappe.PaymentEntry{}
	for start := 0; start < len(names); start += settlementItemsChunk {
		var rows []frappe.PaymentEntry
		err := c.Account.ERP.List(ctx, frappe.DoctypePaymentEntry, frappe.ListOptions{
			Fields:  []string{"name", "docstatus", "payment_type", "paid_from", "paid_to", "paid_amount", "received_amount"},
			Filters: []frappe.Filter{{"name", "in", names[start:min(start+settlementItemsChunk, len(names))]}},
			All:     true,
		}, &rows)
		if err != nil {
			return connector.Failed("read the booked entries of "+sp.ID, err)
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
func bookedProblem(pe frappe.PaymentEntry, b connector.Booking, it mapping.SettlementItem, clearing string) string {
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
		return fmt.Sprintf("%s is booked as %s with %s %s, but Razorpay settled %s for it", it.ID, pe.Name, field, text, razorpay.INR(want).String())
	}
	return ""
}
