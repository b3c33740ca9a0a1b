package kernel

import (
	"context"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// queuePayment fetches a payment from Razorpay and inserts a synthetic payment.captured inbox
// row for it (event id reconcile:<payment id>, the id reconcile uses too, so it is inserted
// once). A payment Razorpay does not report captured (or refunded) is not queued.
func (c *Kernel) queuePayment(ctx context.Context, paymentID string) error {
	p, err := c.rzp.GetPayment(ctx, paymentID)
	if err != nil {
		return err
	}
	if p.Status != "captured" && p.Status != "refunded" {
		return nil
	}
	body, err := connector.SyntheticEvent(c.acct.ID, "payment.captured", c.now(), p, nil, nil)
	if err != nil {
		return err
	}
	// By event id: the payment may have rows already (payment.authorized) that book nothing.
	return c.insertSynthetic(ctx, "payment.captured", p.ID, p.CreatedAt, body)
}

// queueItems queues each item from Razorpay (queuePayment, queueRefund) and counts it.
func (c *Kernel) queueItems(ctx context.Context, items []connector.QueuedItem) error {
	for _, it := range items {
		var err error
		if it.Kind == connector.KindRefund {
			err = c.queueRefund(ctx, it.ID)
		} else {
			err = c.queuePayment(ctx, it.ID)
		}
		if err != nil {
			return connector.Failed("queue "+it.ID+" from Razorpay", err)
		}
		c.counts.Queued(it.Kind)
	}
	return nil
}

// queueRefund fetches a refund (and its payment) from Razorpay and inserts a synthetic
// refund.processed inbox row (event id reconcile:<refund id>, the id reconcile uses too). A
// refund Razorpay does not report processed is not queued.
func (c *Kernel) queueRefund(ctx context.Context, refundID string) error {
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
	body, err := connector.SyntheticEvent(c.acct.ID, "refund.processed", c.now(), p, nil, rf)
	if err != nil {
		return err
	}
	return c.insertSynthetic(ctx, "refund.processed", rf.ID, rf.CreatedAt, body)
}
