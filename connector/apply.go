package connector

import (
	"context"
	"errors"
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
		if err := c.record(ctx, ev, w, *pl.Record); err != nil {
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
		return result{status: StatusDone, doctype: pl.Record.Doctype, name: pl.Record.Name, note: pl.Reason, invoice: pl.Record.Invoice}, nil
	case ExplainDuplicate:
		return result{status: StatusDuplicate, doctype: pl.Booking.Doctype, name: pl.Existing, note: pl.Reason}, nil
	case ExplainPark:
		if err := c.queueItems(ctx, pl.QueueItems); err != nil { // a settlement's lost items, booked while it waits
			return result{}, err
		}
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
	case ExplainDismissed:
		return result{status: StatusDismissed, note: pl.Reason}, nil
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
	send := func() error {
		if pl.Action == ExplainCreate {
			return c.erp.Insert(ctx, pl.Doctype, pl.Document, &out)
		}
		return c.erp.Update(ctx, frappe.DoctypePaymentEntry, pl.Existing, map[string]any{"docstatus": 1}, &out)
	}
	err := send()
	if isDeadlock(err) {
		// 500 QueryDeadlockError: MariaDB rolled the write back and asks for it to be sent
		// again (a concurrent insert of the same client name loses this way,
		// erpnext-recorded-connector/R03). Once, fenced anew; what comes back next is looked up.
		if err = w.fence(ctx); err != nil {
			return result{}, err
		}
		err = send()
	}
	if err != nil {
		return w.writeFailed(ctx, pl, err)
	}
	if pl.Action == ExplainCreate {
		b.Doctype, b.Name = pl.Doctype, out.Name
	}
	if err := c.record(ctx, w.ev, w, b); err != nil {
		return result{}, err
	}
	return result{status: StatusDone, doctype: b.Doctype, name: b.Name, note: pl.Note, invoice: b.Invoice}, nil
}

// writeFailed handles a failed POST/PUT: an ambiguous one keeps the claim until its fence. A
// 409 (the client name exists, erpnext.name_entries_by_payment_id) is looked up again with the
// plan's own lookup (refind). For a Payment Entry, a refusal (417, e.g. "has already been fully
// paid." after another store or a lost race booked this very payment) or a deadlock that the
// second send met again is looked up by reference_no too: an entry submitted meanwhile is
// recorded and the event is done, never parked or booked twice. Anything else fails with op.
func (w *writeClaim) writeFailed(ctx context.Context, pl *Plan, err error) (result, error) {
	c, op := w.c, pl.op
	f := FailureOf(err)
	switch {
	case f.MayHaveWritten():
		w.keep = true
		next := c.now().Add(c.writeFence())
		if b, gerr := c.store.GetBooking(ctx, w.b.BusinessKey); gerr == nil {
			next = b.FenceUntil
		}
		return result{}, &ambiguousError{op: op, key: w.b.BusinessKey, cause: f, fence: next}
	case f != nil && (f.Kind == FailConflict || pl.refind == nil && (f.Kind == FailRejected || isDeadlock(err))):
		refind := pl.refind
		if refind == nil {
			refind = func(ctx context.Context) (string, error) {
				found, err := c.findByReference(ctx, w.b.BusinessKey)
				return found.submitted, err
			}
		}
		name, ferr := refind(ctx)
		if ferr != nil {
			return result{}, failed(op+" (refused: "+f.reason()+"), then", ferr)
		}
		if name != "" {
			b := w.b
			b.Doctype, b.Name = pl.Doctype, name
			if b.Doctype == "" {
				b.Doctype = frappe.DoctypePaymentEntry
			}
			if err := c.record(ctx, w.ev, w, b); err != nil {
				return result{}, err
			}
			note := fmt.Sprintf("booked meanwhile as %s (ERPNext answered the insert %s)", name, f.reason())
			if f.Kind == FailConflict {
				note = "409: already booked under its id as " + name
			}
			return result{status: StatusDone, doctype: b.Doctype, name: b.Name, note: note, invoice: b.Invoice}, nil
		}
	}
	return result{}, failed(op, err)
}

// isDeadlock reports whether err is Frappe's 500 QueryDeadlockError (MariaDB 1213).
func isDeadlock(err error) bool {
	var fe *frappe.Error
	return errors.As(err, &fe) && fe.ExcType == "QueryDeadlockError"
}

// record marks the business key booked as b's document and turns the key's other parked rows
// into duplicates (DESIGN.md §8). It wakes what waits for the booking, in one statement: a
// receipt the refunds waiting, or parked, for it (issue 10 defect 5) and a settlement waiting
// for it, a refund a settlement waiting for it, and the jobs of either kind waiting for the
// key's claim (waitBooking), which is no longer in flight: they run now and find the key
// booked. It runs even when ctx was cancelled meanwhile: the document exists. w is the claim
// the job holds (nil when none): when it is the claim of b's key, it is marked booked, so
// releasing it costs no statement (writeClaim.release).
func (c *Connector) record(ctx context.Context, ev *InboxEvent, w *writeClaim, b Booking) error {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := c.store.FinishBooking(wctx, b, c.now()); err != nil {
		return failed(fmt.Sprintf("record booking %s as %s", b.BusinessKey, b.Name), err)
	}
	if _, err := c.store.MarkDuplicates(wctx, b.BusinessKey, ev.ID, b.Doctype+" "+b.Name, c.now()); err != nil {
		c.log.Warn().Err(err).Str(logKeyField(b.Kind), b.BusinessKey).Msg("mark duplicates")
	}
	if w != nil && w.b.BusinessKey == b.BusinessKey {
		w.booked = true
	}
	if b.Kind == KindReceipt || b.Kind == KindRefund {
		if n := c.wakeWaiters(wctx, waitBooked(b.Kind, b.BusinessKey), waitBooking(b.BusinessKey)); n > 0 {
			c.log.Info().Str("payment_id", b.BusinessKey).Str("kind", b.Kind).Int("waiters", n).Msg("booked: the events waiting for it are due now")
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
	if f := FailureOf(err); f.Final() || f.PausesWork() {
		return result{}, parkf("refund %s failed at Razorpay but its Payment Entry %s could not be cancelled: %s", b.BusinessKey, pl.Existing, f.reason())
	}
	return result{}, failed("cancel "+pl.Existing, err)
}
