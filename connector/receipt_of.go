package connector

import (
	"context"
	"errors"
	"fmt"
	"time"

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
// to find it (issue 10 defect 5). A plan is returned when there is no receipt to refund from.
func (c *Connector) receiptOf(ctx context.Context, pl *Plan, receivedAt time.Time, paymentID string) (mapping.ReceiptFacts, *Plan, error) {
	facts := c.facts()
	b, err := facts.GetBooking(ctx, paymentID)
	if err == nil && b.State == BookingBooked {
		return c.bookedReceipt(ctx, pl, *b)
	}
	if err != nil && !errors.Is(err, ErrNotFound) {
		return mapping.ReceiptFacts{}, nil, failed("booking of "+paymentID, err)
	}
	rows, err := facts.FindEvents(ctx, paymentID)
	if err != nil {
		return mapping.ReceiptFacts{}, nil, failed("events of "+paymentID, err)
	}
	receiptRows, onItsWay := 0, false
	stuck := ""
	for _, row := range rows {
		if RouteOf(row.Event) != RouteReceipt {
			continue
		}
		receiptRows++
		switch row.Status {
		case StatusParked, StatusDead:
			stuck = fmt.Sprintf("; its receipt event %s is %s (%s)", row.EventID, row.Status, shortReason(row.LastError))
		case StatusPending, StatusProcessing:
			onItsWay = true
		}
	}
	pl.waitFor = waitReceipt(paymentID)
	if stuck != "" && !onItsWay {
		return mapping.ReceiptFacts{}, pl.park(fmt.Sprintf("%s: payment %s is not booked%s; book it (or replay its webhook) and this refund follows",
			mapping.ReasonReceiptMissing, paymentID, stuck)), nil
	}
	waited := c.now().Sub(receivedAt)
	if limit := c.cfg.Mapping.Refunds.WaitForReceipt.D(); waited > limit {
		return mapping.ReceiptFacts{}, pl.park(fmt.Sprintf("%s: payment %s has no booked receipt after %s%s; book it (or replay its webhook) and this refund follows",
			mapping.ReasonReceiptMissing, paymentID, limit, stuck)), nil
	}
	delay := min(max(waited/4, c.cfg.Worker.BackoffBase.D()), c.cfg.Worker.BackoffMax.D())
	wait := c.now().Add(delay)
	if receiptRows == 0 && c.rzp != nil {
		pl.QueuePayment = paymentID
		return mapping.ReceiptFacts{}, pl.wait(wait, fmt.Sprintf("refund waits for the receipt of %s (queued from Razorpay)", paymentID)), nil
	}
	return mapping.ReceiptFacts{}, pl.wait(wait, fmt.Sprintf("%s: refund waits for the receipt of payment %s%s", mapping.ReasonReceiptMissing, paymentID, stuck)), nil
}

// bookedReceipt reads the receipt booked as b: it must be submitted in ERPNext.
func (c *Connector) bookedReceipt(ctx context.Context, pl *Plan, b Booking) (mapping.ReceiptFacts, *Plan, error) {
	var pe frappe.PaymentEntry
	if err := c.erp.Get(ctx, b.Doctype, b.Name, &pe); err != nil {
		return mapping.ReceiptFacts{}, nil, failed("read receipt "+b.Name, err)
	}
	if pe.Docstatus != 1 {
		return mapping.ReceiptFacts{}, pl.park(fmt.Sprintf("%s: receipt %s of payment %s is not submitted in ERPNext", mapping.ReasonReceiptMissing, pe.Name, b.BusinessKey)), nil
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

// shortReason cuts a reason for quoting inside another.
func shortReason(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// queuePayment fetches a payment from Razorpay and inserts a synthetic payment.captured inbox
// row for it (event id reconcile:<payment id>, the id reconcile uses too, so it is inserted
// once). A payment Razorpay does not report captured (or refunded) is not queued.
func (c *Connector) queuePayment(ctx context.Context, paymentID string) error {
	p, err := c.rzp.GetPayment(ctx, paymentID)
	if err != nil {
		return err
	}
	if p.Status != "captured" && p.Status != "refunded" {
		return nil
	}
	body, err := SyntheticEvent(c.cfg.Razorpay.AccountID, "payment.captured", c.now(), p, nil, nil)
	if err != nil {
		return err
	}
	// By event id: the payment may have rows already (payment.authorized) that book nothing.
	return c.insertSynthetic(ctx, "payment.captured", p.ID, p.CreatedAt, body)
}
