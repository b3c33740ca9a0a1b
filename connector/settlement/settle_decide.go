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

// decide decides the Journal Entry of the processed settlement st (its id claimed by
// the worker, or looked at by Explain) from reads only (DESIGN.md §4 steps 5–6, §5): lookup
// before create, the recon rows, the planned lines (mapping.PlanSettlement, from Razorpay's
// integers), then every payment and refund of it booked — or a wait while they are on their
// way (queueing from Razorpay those never seen), or a park when a person must act first.
// receivedAt is when the event arrived: the wait backs off with the time waited since.
func (c *Job) decide(ctx context.Context, e *razorpay.Event, st *razorpay.Settlement, receivedAt time.Time) (*connector.Plan, error) {
	pl := connector.NewPlan(e, settlementBooking(st))
	if st.UTR == "" {
		return pl.Park(fmt.Sprintf("settlement %s is processed but Razorpay reports no UTR; replay it once the UTR is shown in the Razorpay Dashboard", st.ID)), nil
	}
	found, err := c.findSettlementEntry(ctx, st)
	if err != nil {
		return nil, err
	}
	switch {
	case found.submitted != "":
		b := pl.Booking
		b.Doctype, b.Name = frappe.DoctypeJournalEntry, found.submitted
		pl.Action, pl.Existing, pl.Reason, pl.Record = connector.ExplainReuse, found.submitted, "found in ERPNext by cheque_no and the settlement id", &b
		return pl, nil
	case found.draft != "":
		return pl.Park(fmt.Sprintf("draft Journal Entry %s is this settlement's (%s); submit or delete it in ERPNext, then replay %s", found.draft, st.ID, st.ID)), nil
	case len(found.foreign) > 0:
		return pl.Park(fmt.Sprintf("Journal Entry %s already carries the UTR %s of settlement %s as its cheque_no: was the settlement booked by hand? Cancel it, or dismiss %s",
			strings.Join(found.foreign, ", "), st.UTR, st.ID, st.ID)), nil
	}
	clearing, err := c.PaidToAccount(ctx)
	if err != nil {
		return nil, err
	}
	if clearing == "" {
		return pl.Park(fmt.Sprintf("configuration: Mode of Payment %q has no account for company %q, so the clearing account is unknown; set mapping.paid_to",
			c.Account.Mapping.ModeOfPayment, c.Account.Mapping.Company)), nil
	}
	rows, err := c.reconRows(ctx, st)
	if err != nil {
		return nil, err
	}
	sp, err := mapping.PlanSettlement(c.settlementRules(clearing), *st, rows)
	var p *mapping.Park
	if errors.As(err, &p) {
		return pl.Park(p.Error()), nil
	} else if err != nil {
		return nil, connector.Failed("plan settlement "+st.ID, err)
	}
	pl.Settlement = &sp
	k, err := c.checkItems(ctx, sp, clearing)
	if err != nil {
		return nil, err
	}
	if w := c.itemsWait(pl, k, receivedAt); w != nil {
		return w, nil
	}
	pl.Action, pl.Doctype, pl.Document = connector.ExplainCreate, frappe.DoctypeJournalEntry, c.settlementDoc(sp)
	pl.Fields = settlementFields(sp, st)
	pl.Note = fmt.Sprintf("posted: %d payments, %d refunds, %d adjustments; net %s to %s", sp.Summary.Payments, sp.Summary.Refunds,
		sp.Summary.Adjustments, razorpay.INR(sp.Amount).String(), c.Account.Settlements.BankAccount)
	pl.Op = "insert Journal Entry for " + st.ID
	pl.Refind = c.settledEntryOf(st)
	return pl, nil
}

// itemsWait is the plan while the settlement's items are not all booked: a park when one needs
// a person (parked, dismissed, booked differently from Razorpay's row) — queueing the items
// never seen all the same, so that they are booked meanwhile — else a wait that queues the
// items never seen and is woken by the booking of one of them (itemsCheck.waitFor);
// nil when every item is booked.
func (c *Job) itemsWait(pl *connector.Plan, k itemsCheck, receivedAt time.Time) *connector.Plan {
	id := pl.Key
	if len(k.stuck) > 0 {
		queued := ""
		if len(k.queue) > 0 {
			ids := make([]string, len(k.queue))
			for i, q := range k.queue {
				ids[i] = q.ID
			}
			queued = "; never seen (every webhook lost), queued from Razorpay meanwhile: " + strings.Join(ids, ", ")
			pl.QueueItems = k.queue
		}
		return pl.Park(fmt.Sprintf("settlement %s waits for a person: %s%s. Once each of them is booked, replay %s; "+
			"or post this settlement's Journal Entry by hand (cheque_no = its UTR) and dismiss %s",
			id, strings.Join(k.stuck, "; "), queued, id, id))
	}
	if len(k.queue) == 0 && len(k.waiting) == 0 {
		return nil
	}
	var parts []string
	if len(k.waiting) > 0 {
		parts = append(parts, "being booked: "+strings.Join(k.waiting, ", "))
	}
	if len(k.queue) > 0 {
		ids := make([]string, len(k.queue))
		for i, q := range k.queue {
			ids[i] = q.ID
		}
		parts = append(parts, "never seen (every webhook lost), queued from Razorpay: "+strings.Join(ids, ", "))
		pl.QueueItems = k.queue
	}
	// The booking of k.waitFor wakes the settlement; the timer only bounds a wake lost (a crash
	// between booking and wake-up, an item that ends parked instead).
	pl.WaitFor = k.waitFor
	waited := c.Now().Sub(receivedAt)
	delay := min(max(waited/4, c.BackoffBase), c.BackoffMax)
	return pl.Wait(c.Now().Add(delay), fmt.Sprintf("settlement %s waits for its payments and refunds to be booked first; %s",
		id, strings.Join(parts, "; ")))
}
