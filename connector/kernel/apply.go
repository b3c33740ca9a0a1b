package kernel

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
)

// Apply (DESIGN.md §4 steps 6–7): the writes a plan calls for, in order — record an existing
// document, fence, insert or submit, record the booking — or the outcome of a plan that writes
// nothing. Only the worker applies; Explain stops at the plan.

// Apply carries out pl for the event ev. w is the business-key claim the plan was decided
// under; nil for plans that write no document (duplicate, park, wait, skip, void).
func (c *Kernel) Apply(ctx context.Context, ev *connector.InboxEvent, w *Claim, pl *connector.Plan) (connector.Result, error) {
	if pl.Record != nil {
		if err := c.record(ctx, ev, w, *pl.Record); err != nil {
			return connector.Result{}, err
		}
	}
	switch pl.Action {
	case connector.ExplainCreate, connector.ExplainSubmitDraft:
		if w == nil {
			return connector.Result{}, fmt.Errorf("apply %s for %s: no claim held", pl.Action, pl.Key)
		}
		return w.write(ctx, pl)
	case connector.ExplainReuse:
		return connector.Result{Status: connector.StatusDone, Doctype: pl.Record.Doctype, Name: pl.Record.Name, Note: pl.Reason, Invoice: pl.Record.Invoice}, nil
	case connector.ExplainDuplicate:
		return connector.Result{Status: connector.StatusDuplicate, Doctype: pl.Booking.Doctype, Name: pl.Existing, Note: pl.Reason}, nil
	case connector.ExplainPark:
		if err := c.queueItems(ctx, pl.QueueItems); err != nil { // a settlement's lost items, booked while it waits
			return connector.Result{}, err
		}
		p := &connector.ParkError{Reason: pl.Reason, On: pl.WaitFor}
		if pl.Record != nil {
			p.Doctype, p.Name = pl.Record.Doctype, pl.Record.Name
		}
		return connector.Result{}, p
	case connector.ExplainWait:
		if pl.QueuePayment != "" {
			if err := c.queuePayment(ctx, pl.QueuePayment); err != nil {
				return connector.Result{}, connector.Failed("fetch payment "+pl.QueuePayment, err)
			}
		}
		if err := c.queueItems(ctx, pl.QueueItems); err != nil {
			return connector.Result{}, err
		}
		return connector.Result{}, &connector.WaitError{Until: pl.WaitUntil, Reason: pl.Reason, On: pl.WaitFor}
	case connector.ExplainSkip:
		return connector.Result{Status: connector.StatusSkipped, Note: pl.Reason}, nil
	case connector.ExplainDismissed:
		return connector.Result{Status: connector.StatusDismissed, Note: pl.Reason}, nil
	case connector.ExplainVoid, connector.ExplainCancel:
		owner := ""
		if w != nil {
			owner = w.Owner
		}
		return c.ApplyVoid(ctx, ev, owner, pl)
	}
	return connector.Result{}, fmt.Errorf("apply %s: unknown plan action %q", pl.Key, pl.Action)
}

// ApplyOrFail applies pl unless deciding it failed with err.
func (c *Kernel) ApplyOrFail(ctx context.Context, ev *connector.InboxEvent, pl *connector.Plan, err error) (connector.Result, error) {
	if err != nil {
		return connector.Result{}, err
	}
	return c.Apply(ctx, ev, nil, pl)
}

// write fences the claim, inserts pl.Document (create) or submits the draft pl.Existing
// (submit-draft), and records the booking.
func (w *Claim) write(ctx context.Context, pl *connector.Plan) (connector.Result, error) {
	c := w.c
	if err := w.fence(ctx); err != nil {
		return connector.Result{}, err
	}
	b := pl.Booking
	var out struct {
		Name string `json:"name"`
	}
	send := func() error {
		if pl.Action == connector.ExplainCreate {
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
			return connector.Result{}, err
		}
		err = send()
	}
	if err != nil {
		return w.writeFailed(ctx, pl, err)
	}
	if pl.Action == connector.ExplainCreate {
		b.Doctype, b.Name = pl.Doctype, out.Name
	}
	if err := c.record(ctx, w.ev, w, b); err != nil {
		return connector.Result{}, err
	}
	return connector.Result{Status: connector.StatusDone, Doctype: b.Doctype, Name: b.Name, Note: pl.Note, Invoice: b.Invoice}, nil
}

// writeFailed handles a failed POST/PUT: an ambiguous one keeps the claim until its fence. A
// 409 (the client name exists, erpnext.name_entries_by_payment_id) is looked up again with the
// plan's own lookup (refind). For a Payment Entry, a refusal (417, e.g. "has already been fully
// paid." after another store or a lost race booked this very payment) or a deadlock that the
// second send met again is looked up by reference_no too: an entry submitted meanwhile is
// recorded and the event is done, never parked or booked twice. Anything else fails with op.
func (w *Claim) writeFailed(ctx context.Context, pl *connector.Plan, err error) (connector.Result, error) {
	c, op := w.c, pl.Op
	f := connector.FailureOf(err)
	switch {
	case f.MayHaveWritten():
		w.keep = true
		next := c.now().Add(c.WriteFence())
		if b, gerr := c.store.GetBooking(ctx, w.b.BusinessKey); gerr == nil {
			next = b.FenceUntil
		}
		return connector.Result{}, &connector.AmbiguousError{Op: op, Key: w.b.BusinessKey, Cause: f, Fence: next}
	case f != nil && (f.Kind == connector.FailConflict || pl.Refind == nil && (f.Kind == connector.FailRejected || isDeadlock(err))):
		refind := pl.Refind
		if refind == nil {
			refind = func(ctx context.Context) (string, error) {
				found, err := c.FindByReference(ctx, w.b.BusinessKey)
				return found.Submitted, err
			}
		}
		name, ferr := refind(ctx)
		if ferr != nil {
			return connector.Result{}, connector.Failed(op+" (refused: "+f.Reason()+"), then", ferr)
		}
		if name != "" {
			b := w.b
			b.Doctype, b.Name = pl.Doctype, name
			if b.Doctype == "" {
				b.Doctype = frappe.DoctypePaymentEntry
			}
			if err := c.record(ctx, w.ev, w, b); err != nil {
				return connector.Result{}, err
			}
			note := fmt.Sprintf("booked meanwhile as %s (ERPNext answered the insert %s)", name, f.Reason())
			if f.Kind == connector.FailConflict {
				note = "409: already booked under its id as " + name
			}
			return connector.Result{Status: connector.StatusDone, Doctype: b.Doctype, Name: b.Name, Note: note, Invoice: b.Invoice}, nil
		}
	}
	return connector.Result{}, connector.Failed(op, err)
}

// isDeadlock reports whether err is Frappe's 500 QueryDeadlockError (MariaDB 1213).
func isDeadlock(err error) bool {
	var fe *frappe.Error
	return errors.As(err, &fe) && fe.ExcType == "QueryDeadlockError"
}

// record marks the business key booked as b's document and turns the key's other parked rows
// into duplicates (DESIGN.md §8). It wakes what waits for the booking, in one statement: a
// receipt the refunds waiting, or parked, for it, and a settlement waiting
// for it, a refund a settlement waiting for it, and the jobs of either kind waiting for the
// key's claim (waitBooking), which is no longer in flight: they run now and find the key
// booked. It runs even when ctx was cancelled meanwhile: the document exists. w is the claim
// the job holds (nil when none): when it is the claim of b's key, it is marked booked, so
// releasing it costs no statement (Claim.release).
func (c *Kernel) record(ctx context.Context, ev *connector.InboxEvent, w *Claim, b connector.Booking) error {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := c.store.FinishBooking(wctx, b, c.now()); err != nil {
		return connector.Failed(fmt.Sprintf("record booking %s as %s", b.BusinessKey, b.Name), err)
	}
	if _, err := c.store.MarkDuplicates(wctx, b.BusinessKey, ev.ID, b.Doctype+" "+b.Name, c.now()); err != nil {
		c.log.Warn().Err(err).Str(connector.LogKeyField(b.Kind), b.BusinessKey).Msg("mark duplicates")
	}
	if w != nil && w.b.BusinessKey == b.BusinessKey {
		w.booked = true
	}
	if b.Kind == connector.KindReceipt || b.Kind == connector.KindRefund {
		if n := c.WakeWaiters(wctx, connector.WaitBooked(b.Kind, b.BusinessKey), connector.WaitBooking(b.BusinessKey)); n > 0 {
			c.log.Info().Str("payment_id", b.BusinessKey).Str("kind", b.Kind).Int("waiters", n).Msg("booked: the events waiting for it are due now")
		}
	}
	return nil
}

// methodCancel is Frappe's frappe.client.cancel (docstatus 1 → 2).
const methodCancel = "frappe.client.cancel"

// ApplyVoid makes the refund's booking void (keeping the entry's name) and cancels the entry
// when the plan says so. ERPNext refusing the cancel parks; a failure that may pass retries.
func (c *Kernel) ApplyVoid(ctx context.Context, ev *connector.InboxEvent, owner string, pl *connector.Plan) (connector.Result, error) {
	b := pl.Booking
	b.Owner = owner
	if err := c.store.VoidBooking(ctx, b, c.now()); err != nil {
		return connector.Result{}, connector.Failed("void "+b.BusinessKey, err)
	}
	res := connector.Result{Status: connector.StatusDone, Note: pl.Note}
	if pl.Existing != "" {
		res.Doctype, res.Name = frappe.DoctypePaymentEntry, pl.Existing
	}
	if pl.Action != connector.ExplainCancel {
		return res, nil
	}
	err := c.erp.Call(ctx, methodCancel, map[string]any{"doctype": frappe.DoctypePaymentEntry, "name": pl.Existing}, nil)
	if err == nil {
		return res, nil
	}
	if f := connector.FailureOf(err); f.Final() || f.PausesWork() {
		return connector.Result{}, connector.Parkf("refund %s failed at Razorpay but its Payment Entry %s could not be cancelled: %s", b.BusinessKey, pl.Existing, f.Reason())
	}
	return connector.Result{}, connector.Failed("cancel "+pl.Existing, err)
}

// Create makes pl the insert of doc (a Payment Entry), named after the business key under
// erpnext.name_entries_by_payment_id (Frappe 15.72+ keeps a client name; a second insert is
// 409, recordings 07-*).
func (c *Kernel) Create(pl *connector.Plan, doc map[string]any, l *connector.Ledger, b connector.Booking, op, note string) *connector.Plan {
	if c.acct.NameEntriesByPaymentID {
		doc["name"] = pl.Key
	}
	pl.Action, pl.Doctype, pl.Document, pl.Ledger, pl.Booking, pl.Note, pl.Op = connector.ExplainCreate, frappe.DoctypePaymentEntry, doc, l, b, note, op
	return pl
}
