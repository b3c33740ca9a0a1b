package edge

import (
	"context"
	"errors"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// razorpayEdge is the client edge of Razorpay (like erpEdge).
type razorpayEdge struct {
	connector.RazorpayAPI
	m Calls
	p Pauses
}

// Razorpay is api behind the client edge, like ERPNext (connector.ClassifyRazorpay); nil
// stays nil (the API is optional).
func Razorpay(api connector.RazorpayAPI, calls Calls, p Pauses) connector.RazorpayAPI {
	if api == nil {
		return nil
	}
	return razorpayEdge{RazorpayAPI: api, m: calls, p: p}
}

func (r razorpayEdge) begin() call { return call{at: time.Now(), gen: r.p.Begin()} }

func (r razorpayEdge) done(op string, c call, err error) error {
	if err == nil {
		r.m.RazorpayCall(op, time.Since(c.at), "")
		r.p.Succeeded(connector.SystemRazorpay, c.gen)
		return nil
	}
	f := connector.ClassifyRazorpay(err)
	r.m.RazorpayCall(op, time.Since(c.at), f.Class)
	return f
}

// GetPayment implements connector.RazorpayAPI.
func (r razorpayEdge) GetPayment(ctx context.Context, id string) (*razorpay.Payment, error) {
	t := r.begin()
	p, err := r.RazorpayAPI.GetPayment(ctx, id)
	return p, r.done("get_payment", t, err)
}

// GetOrder implements connector.RazorpayAPI.
func (r razorpayEdge) GetOrder(ctx context.Context, id string) (*razorpay.Order, error) {
	t := r.begin()
	o, err := r.RazorpayAPI.GetOrder(ctx, id)
	return o, r.done("get_order", t, err)
}

// GetRefund implements connector.RazorpayAPI.
func (r razorpayEdge) GetRefund(ctx context.Context, id string) (*razorpay.Refund, error) {
	t := r.begin()
	f, err := r.RazorpayAPI.GetRefund(ctx, id)
	return f, r.done("get_refund", t, err)
}

// ListPayments implements connector.RazorpayAPI. An error of each is the caller's own and is returned
// as it is, not as a Razorpay failure.
func (r razorpayEdge) ListPayments(ctx context.Context, from, to time.Time, each func(*razorpay.Payment) error) error {
	t := r.begin()
	var own error
	err := r.RazorpayAPI.ListPayments(ctx, from, to, func(p *razorpay.Payment) error {
		own = each(p)
		return own
	})
	return r.doneListing("list_payments", t, err, own)
}

// ListRefunds implements connector.RazorpayAPI, like ListPayments.
func (r razorpayEdge) ListRefunds(ctx context.Context, from, to time.Time, each func(*razorpay.Refund) error) error {
	t := r.begin()
	var own error
	err := r.RazorpayAPI.ListRefunds(ctx, from, to, func(rf *razorpay.Refund) error {
		own = each(rf)
		return own
	})
	return r.doneListing("list_refunds", t, err, own)
}

// doneListing is done for a list walk whose callback may have stopped it with its own error
// (Razorpay answered: the walk counts as a success of the keys).
func (r razorpayEdge) doneListing(op string, c call, err, own error) error {
	if own != nil && errors.Is(err, own) {
		r.m.RazorpayCall(op, time.Since(c.at), "")
		r.p.Succeeded(connector.SystemRazorpay, c.gen)
		return err
	}
	return r.done(op, c, err)
}

// Capture implements connector.RazorpayAPI.
func (r razorpayEdge) Capture(ctx context.Context, paymentID string, amount int64, currency string) (*razorpay.Payment, error) {
	t := r.begin()
	p, err := r.RazorpayAPI.Capture(ctx, paymentID, amount, currency)
	return p, r.done("capture", t, err)
}

// GetDispute implements connector.RazorpayAPI.
func (r razorpayEdge) GetDispute(ctx context.Context, id string) (*razorpay.Dispute, error) {
	t := r.begin()
	d, err := r.RazorpayAPI.GetDispute(ctx, id)
	return d, r.done("get_dispute", t, err)
}

// GetSettlement implements connector.RazorpayAPI.
func (r razorpayEdge) GetSettlement(ctx context.Context, id string) (*razorpay.Settlement, error) {
	t := r.begin()
	st, err := r.RazorpayAPI.GetSettlement(ctx, id)
	return st, r.done("get_settlement", t, err)
}

// ListSettlements implements connector.RazorpayAPI, like ListPayments.
func (r razorpayEdge) ListSettlements(ctx context.Context, from, to time.Time, each func(*razorpay.Settlement) error) error {
	t := r.begin()
	var own error
	err := r.RazorpayAPI.ListSettlements(ctx, from, to, func(st *razorpay.Settlement) error {
		own = each(st)
		return own
	})
	return r.doneListing("list_settlements", t, err, own)
}

// ReconCombined implements connector.RazorpayAPI, like ListPayments.
func (r razorpayEdge) ReconCombined(ctx context.Context, year, month, day int, each func(*razorpay.ReconItem) error) error {
	t := r.begin()
	var own error
	err := r.RazorpayAPI.ReconCombined(ctx, year, month, day, func(it *razorpay.ReconItem) error {
		own = each(it)
		return own
	})
	return r.doneListing("recon_combined", t, err, own)
}
