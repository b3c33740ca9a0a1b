package booking

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
)

// receiptOf finds the booked receipt a refund reverses: the connector's bookings row of the
// payment, its Payment Entry submitted in ERPNext. A refund that arrives before its payment's
// receipt waits — and, with the Razorpay API configured and no receipt event in the inbox,
// queues the payment itself (apply does, Plan.QueuePayment) — so it ends with receipt then
// refund, never dropped. The wait spends no attempt, backs off with the time waited since the
// refund arrived at receivedAt, and parks (never dies) once mapping.refunds.wait_for_receipt
// has passed. When every receipt event of the payment is parked or dead (none on its way), the
// refund parks at once with the receipt's reason: a person must act on the receipt first. Either
// way the wait and the park name the receipt (waitReceipt): when it is booked — by another event,
// a replay or reconcile — the refund goes back to pending and follows without a person having
// to find it. A plan is returned when there is no receipt to refund from.
func (c *refundJob) receiptOf(ctx context.Context, pl *connector.Plan, receivedAt time.Time, paymentID string) (mapping.ReceiptFacts, *connector.Plan, error) {
	facts := c.Facts()
	b, err := facts.GetBooking(ctx, paymentID)
	if err == nil && b.State == connector.BookingBooked {
		return c.bookedReceipt(ctx, pl, *b)
	}
	if err != nil && !errors.Is(err, connector.ErrNotFound) {
		return mapping.ReceiptFacts{}, nil, connector.Failed("booking of "+paymentID, err)
	}
	rows, err := facts.FindEvents(ctx, paymentID)
	if err != nil {
		return mapping.ReceiptFacts{}, nil, connector.Failed("events of "+paymentID, err)
	}
	receiptRows, onItsWay := 0, false
	stuck := ""
	for _, row := range rows {
		if connector.RouteOf(row.Event) != connector.RouteReceipt {
			continue
		}
		receiptRows++
		switch row.Status {
		case connector.StatusParked, connector.StatusDead:
			stuck = fmt.Sprintf("; its receipt event %s is %s (%s)", row.EventID, row.Status, connector.ShortReason(row.LastError))
		case connector.StatusPending, connector.StatusProcessing:
			onItsWay = true
		}
	}
	pl.WaitFor = connector.WaitReceipt(paymentID)
	if stuck != "" && !onItsWay {
		return mapping.ReceiptFacts{}, pl.Park(fmt.Sprintf("%s: payment %s is not booked%s; book it (or replay its webhook) and this refund follows",
			mapping.ReasonReceiptMissing, paymentID, stuck)), nil
	}
	waited := c.Now().Sub(receivedAt)
	if limit := c.Account.Mapping.Refunds.WaitForReceipt.D(); waited > limit {
		return mapping.ReceiptFacts{}, pl.Park(fmt.Sprintf("%s: payment %s has no booked receipt after %s%s; book it (or replay its webhook) and this refund follows",
			mapping.ReasonReceiptMissing, paymentID, limit, stuck)), nil
	}
	delay := min(max(waited/4, c.BackoffBase), c.BackoffMax)
	wait := c.Now().Add(delay)
	if receiptRows == 0 && c.Account.Razorpay != nil {
		pl.QueuePayment = paymentID
		return mapping.ReceiptFacts{}, pl.Wait(wait, fmt.Sprintf("refund waits for the receipt of %s (queued from Razorpay)", paymentID)), nil
	}
	return mapping.ReceiptFacts{}, pl.Wait(wait, fmt.Sprintf("%s: refund waits for the receipt of payment %s%s", mapping.ReasonReceiptMissing, paymentID, stuck)), nil
}

// bookedReceipt reads the receipt booked as b: it must be submitted in ERPNext.
func (c *refundJob) bookedReceipt(ctx context.Context, pl *connector.Plan, b connector.Booking) (mapping.ReceiptFacts, *connector.Plan, error) {
	var pe frappe.PaymentEntry
	if err := c.Account.ERP.Get(ctx, b.Doctype, b.Name, &pe); err != nil {
		return mapping.ReceiptFacts{}, nil, connector.Failed("read receipt "+b.Name, err)
	}
	if pe.Docstatus != 1 {
		return mapping.ReceiptFacts{}, pl.Park(fmt.Sprintf("%s: receipt %s of payment %s is not submitted in ERPNext", mapping.ReasonReceiptMissing, pe.Name, b.BusinessKey)), nil
	}
	facts := mapping.ReceiptFacts{PaymentEntry: pe.Name, Customer: pe.Party, Company: pe.Company, PaidTo: pe.PaidTo, Receivable: pe.PaidFrom}
	for _, ref := range pe.References {
		if ref.ReferenceDoctype == frappe.DoctypeSalesInvoice {
			facts.Invoice = ref.ReferenceName
			break
		}
	}
	if facts.Invoice == "" {
		facts.Invoice = b.Invoice
	}
	return facts, nil, nil
}
