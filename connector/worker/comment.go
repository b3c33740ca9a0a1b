package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// MethodAddComment is Frappe's desk method that adds a Comment to a document. A plain POST
// /api/resource/Comment is refused to an API user without System Manager; this method needs
// only read permission on the document (reference/erpnext-recorded 51-*).
const MethodAddComment = "frappe.desk.form.utils.add_comment"

// commentBy is the author name shown on comments the connector leaves.
const commentBy = "Razorpay connector"

// namedInvoices returns the Sales Invoice names an event's payment points at, in the
// configured order (notes, order receipt, payment link reference); nil when the body is gone
// or names none.
func (c *Worker) namedInvoices(ev *connector.InboxEvent) []mapping.Candidate {
	if len(ev.RawBody) == 0 {
		return nil
	}
	e, err := razorpay.ParseEvent(ev.RawBody)
	if err != nil || e.Payment == nil {
		return nil
	}
	return mapping.InvoiceCandidates(mapping.Rules{InvoiceFrom: c.account.Mapping.InvoiceFrom}, e.Payment, e.Order, e.PaymentLink)
}

// The park comment is the worker's: it follows the outcome the worker wrote, on the row it
// claimed, through the Account's ERPNext client and the booking's invoice resolution.

// afterPark runs once an event is recorded as parked. With mapping.comment_on_park it leaves a
// Comment on the Sales Invoice the payment names, when that invoice exists, so an accountant
// working in ERPNext sees the parked payment and its reason. Failures are logged and counted,
// never retried: the event itself is already recorded.
func (c *Worker) afterPark(ctx context.Context, ev *connector.InboxEvent, o connector.Outcome) {
	if !c.account.Mapping.CommentOnPark || c.account.ERP == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.commentTimeout)
	defer cancel()
	invoice, err := c.booker.InvoiceOf(ctx, c.namedInvoices(ev))
	if err != nil || invoice == "" {
		if err != nil {
			c.comment("failed")
			c.log.Warn().Str("event_id", ev.EventID).Str("reason", connector.Reason(err)).Msg("comment on park: invoice lookup failed")
		}
		return
	}
	content := fmt.Sprintf("Razorpay payment %s was not booked (parked by razorpay-erpnext): %s. "+
		"After fixing it, run: razorpay-erpnext events replay %s — or dismiss it with: razorpay-erpnext events dismiss %s --reason TEXT",
		ev.BusinessKey, o.LastError, ev.EventID, ev.EventID)
	err = c.account.ERP.Call(ctx, MethodAddComment, map[string]any{
		"reference_doctype": frappe.DoctypeSalesInvoice, "reference_name": invoice, "content": content,
		"comment_email": c.booker.CommentEmail(ctx), "comment_by": commentBy,
	}, nil)
	l := c.log.Info()
	if err != nil {
		c.comment("failed")
		l = c.log.Warn().Str("reason", connector.Reason(err))
	} else {
		c.comment("added")
	}
	l.Str("event_id", ev.EventID).Str("payment_id", ev.BusinessKey).Str("invoice", invoice).Bool("added", err == nil).Msg("comment on parked payment")
}

// outcomeInvoice is the invoice a log line names: the one the booking was allocated to when the
// event was booked (recorded, when the job recorded the booking itself: then no read), else the
// first one the payment names ("" when none).
func (c *Worker) outcomeInvoice(ev *connector.InboxEvent, o connector.Outcome, recorded string) string {
	if recorded != "" && o.Status == connector.StatusDone {
		return recorded
	}
	if (o.Status == connector.StatusDone || o.Status == connector.StatusDuplicate) && ev.BusinessKey != "" {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if b, err := c.store.GetBooking(ctx, ev.BusinessKey); err == nil && b.Invoice != "" {
			return b.Invoice
		}
	}
	if cands := c.namedInvoices(ev); len(cands) > 0 {
		return cands[0].Name
	}
	return ""
}
