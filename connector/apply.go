package connector

import (
	"context"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
)

// Apply (DESIGN.md §4 steps 6–7): the writes a plan calls for, in order — record an existing
// document, fence, insert or submit, record the booking — or the outcome of a plan that writes
// nothing. Only the worker applies; Explain stops at the plan.

// apply carries out pl for the event ev. w is the business-key claim the plan was decided
// under; nil for plans that write no document (duplicate, park, wait, skip, void).
func (c *Connector) apply(ctx context.Context, ev *InboxEvent, w *writeClaim, pl *Plan) (result, error) {
	if pl.Record != nil {
		if err := c.record(ctx, ev, *pl.Record); err != nil {
			return result{}, err
		}
	}
	switch pl.Action {
	case ExplainCreate, ExplainSubmitDraft:
		if w == nil {
			return result{}, fmt.Errorf("apply %s for %s: no claim held", pl.Action, pl.Key)
		}
		return w.write(ctx, pl)
	case ExplainReuse:
		return result{status: StatusDone, doctype: pl.Record.Doctype, name: pl.Record.Name, note: pl.Reason}, nil
	case ExplainDuplicate:
		return result{status: StatusDuplicate, doctype: pl.Booking.Doctype, name: pl.Existing, note: pl.Reason}, nil
	case ExplainPark:
		p := &parkError{reason: pl.Reason, on: pl.waitFor}
		if pl.Record != nil {
			p.doctype, p.name = pl.Record.Doctype, pl.Record.Name
		}
		return result{}, p
	case ExplainWait:
		if pl.QueuePayment != "" {
			if err := c.queuePayment(ctx, pl.QueuePayment); err != nil {
				return result{}, failed("fetch payment "+pl.QueuePayment, err)
			}
		}
		if err := c.queueItems(ctx, pl.QueueItems); err != nil {
			return result{}, err
		}
		return result{}, &waitError{until: pl.WaitUntil, reason: pl.Reason, on: pl.waitFor}
	case ExplainSkip:
		return result{status: StatusSkipped, note: pl.Reason}, nil
	case ExplainVoid, ExplainCancel:
		owner := ""
		if w != nil {
			owner = w.owner
		}
		return c.applyVoid(ctx, ev, owner, pl)
	}
	return result{}, fmt.Errorf("apply %s: unknown plan action %q", pl.Key, pl.Action)
}

// applyOrFail applies pl unless deciding it failed with err.
func (c *Connector) applyOrFail(ctx context.Context, ev *InboxEvent, pl *Plan, err error) (result, error) {
	if err != nil {
		return result{}, err
	}
	return c.apply(ctx, ev, nil, pl)
}

// write fences the claim, inserts pl.Document (create) or submits the draft pl.Existing
// (submit-draft), and records the booking.
func (w *writeClaim) write(ctx context.Context, pl *Plan) (result, error) {
	c := w.c
	if err := w.fence(ctx); err != nil {
		return result{}, err
	}
	b := pl.Booking
	var out struct {
		Name string `json:"name"`
	}
	var err error
	if pl.Action == ExplainCreate {
		err = c.erp.Insert(ctx, pl.Doctype, pl.Document, &out)
		b.Doctype, b.Name = pl.Doctype, out.Name
	} else {
		err = c.erp.Update(ctx, frappe.DoctypePaymentEntry, pl.Existing, map[string]any{"docstatus": 1}, &out)
	}
	if err != nil {
		return w.writeFailed(ctx, pl, err)
	}
	if err := c.record(ctx, w.ev, b); err != nil {
		return result{}, err
	}
	return result{status: StatusDone, doctype: b.Doctype, name: b.Name, note: pl.Note}, nil
}

// writeFailed handles a failed POST/PUT: an ambiguous one keeps the claim until its fence; a
// 409 under erpnext.name_entries_by_payment_id means ERPNext's own key found the entry, which
// the lookup then records (never a second insert); anything else fails with op.
func (w *writeClaim) writeFailed(ctx context.Context, pl *Plan, err error) (result, error) {
	c, op := w.c, pl.op
	f := FailureOf(err)
	switch {
	case f != nil && f.Kind == FailAmbiguous:
		w.keep = true
		next := c.now().Add(c.writeFence())
		if b, gerr := c.store.GetBooking(ctx, w.b.BusinessKey); gerr == nil {
			next = b.FenceUntil
		}
		return result{}, &ambiguousError{op: op, key: w.b.BusinessKey, cause: f, fence: next}
	case f != nil && f.Kind == FailConflict && c.cfg.ERPNext.NameEntriesByPaymentID:
		refind := pl.refind
		if refind == nil {
			refind = func(ctx context.Context) (string, error) {
				found, err := c.findByReference(ctx, w.b.BusinessKey)
				return found.submitted, err
			}
		}
		if name, ferr := refind(ctx); ferr == nil && name != "" {
			b := w.b
			b.Doctype, b.Name = pl.Doctype, name
			if b.Doctype == "" {
				b.Doctype = frappe.DoctypePaymentEntry
			}
			if err := c.record(ctx, w.ev, b); err != nil {
				return result{}, err
			}
			return result{status: StatusDone, doctype: b.Doctype, name: b.Name, note: "409: already booked under its id"}, nil
		}
	}
	return result{}, failed(op, err)
}

// record marks the business key booked as b's document and turns the key's other parked rows
// into duplicates (DESIGN.md §8). A receipt also wakes the refunds waiting, or parked, for it
// (issue 10 defect 5): they book now. It runs even when ctx was cancelled meanwhile: the
// document exists.
func (c *Connector) record(ctx context.Context, ev *InboxEvent, b Booking) error {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := c.store.FinishBooking(wctx, b, c.now()); err != nil {
		return failed(fmt.Sprintf("record booking %s as %s", b.BusinessKey, b.Name), err)
	}
	if _, err := c.store.MarkDuplicates(wctx, b.BusinessKey, ev.ID, b.Doctype+" "+b.Name, c.now()); err != nil {
		c.log.Warn().Err(err).Str("payment_id", b.BusinessKey).Msg("mark duplicates")
	}
	if b.Kind == KindReceipt {
		if n := c.wakeWaiters(wctx, waitReceipt(b.BusinessKey)); n > 0 {
			c.log.Info().Str("payment_id", b.BusinessKey).Int("refunds", n).Msg("receipt booked: refunds waiting for it are due now")
		}
	}
	return nil
}

// methodCancel is Frappe's frappe.client.cancel (docstatus 1 → 2).
const methodCancel = "frappe.client.cancel"

// applyVoid makes the refund's booking void (keeping the entry's name) and cancels the entry
// when the plan says so. ERPNext refusing the cancel parks; a failure that may pass retries.
func (c *Connector) applyVoid(ctx context.Context, ev *InboxEvent, owner string, pl *Plan) (result, error) {
	b := pl.Booking
	b.Owner = owner
	if err := c.store.VoidBooking(ctx, b, c.now()); err != nil {
		return result{}, failed("void "+b.BusinessKey, err)
	}
	res := result{status: StatusDone, note: pl.Note}
	if pl.Existing != "" {
		res.doctype, res.name = frappe.DoctypePaymentEntry, pl.Existing
	}
	if pl.Action != ExplainCancel {
		return res, nil
	}
	err := c.erp.Call(ctx, methodCancel, map[string]any{"doctype": frappe.DoctypePaymentEntry, "name": pl.Existing}, nil)
	if err == nil {
		return res, nil
	}
	if f := FailureOf(err); f != nil && f.Kind != FailRetry && f.Kind != FailThrottled && f.Kind != FailAmbiguous && f.Kind != FailCanceled {
		return result{}, parkf("refund %s failed at Razorpay but its Payment Entry %s could not be cancelled: %s", b.BusinessKey, pl.Existing, f.reason())
	}
	return result{}, failed("cancel "+pl.Existing, err)
}
