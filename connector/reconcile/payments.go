package reconcile

import (
	"context"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// paymentSweep judges captured payments and queues those not yet on their way: Razorpay's
// payment list over the listed range (from, to), and the payments of Integration Requests.
type paymentSweep struct {
	q        *queue
	rd       reads
	from, to time.Time
}

// run pages Razorpay's payment list from the window start minus the lookback to the window
// end (the list filters on created_at; a payment captured inside the window may have been
// created up to 3 days before it) and queues every captured payment not yet on its way,
// looking each page up in the store at once (payments).
func (s *paymentSweep) run(ctx context.Context) error {
	list := func(each func(*razorpay.Payment) error) error {
		return s.rd.rzp.ListPayments(ctx, s.from, s.to, each)
	}
	return sweepPaged(ctx, s.rd, s.q.t, "payments", list, func(p *razorpay.Payment) string { return p.ID }, captured,
		func(page []*razorpay.Payment) error { return s.payments(ctx, page, SourceRazorpay, "", "") })
}

// payment judges one captured payment and queues it when needed (payments).
func (s *paymentSweep) payment(ctx context.Context, p *razorpay.Payment, source, ir, paymentRequest string) error {
	return s.payments(ctx, []*razorpay.Payment{p}, source, ir, paymentRequest)
}

// payments judges captured payments, looked up in the store together (coverKeys: two
// statements for the lot), and queues those not yet on their way. paymentRequest, when set, is
// put into each payment's notes as "payment_request" (the booking engine's Payment Request
// path). A payment of an Integration Request is remembered (handled), so that the list sweep
// counts it once.
func (s *paymentSweep) payments(ctx context.Context, ps []*razorpay.Payment, source, ir, paymentRequest string) error {
	t := s.q.t
	items, keys, kept := make([]Item, 0, len(ps)), make([]string, 0, len(ps)), make([]*razorpay.Payment, 0, len(ps))
	for _, p := range ps {
		it := Item{Kind: KindPayment, ID: p.ID, Source: source, AmountMinor: p.Amount, Currency: p.Currency,
			CreatedAt: time.Unix(p.CreatedAt, 0).UTC(), IntegrationRequest: ir, PaymentRequest: paymentRequest}
		if t.count(it, p.CreatedAt) {
			items, keys, kept = append(items, it), append(keys, it.ID), append(kept, p)
		}
	}
	covs, err := s.q.coverKeys(ctx, keys, connector.RouteReceipt)
	if err != nil {
		return err
	}
	for i, it := range items {
		if source == SourceIntegrationRequest {
			t.handled[it.ID] = true
		}
		cv := covs[it.ID]
		if !t.judgeCovered(it, cv) {
			continue
		}
		var body []byte
		if !s.q.dryRun {
			if body, err = s.envelope(ctx, kept[i], paymentRequest); err != nil {
				return err
			}
		}
		if err := s.q.enqueue(ctx, it, "payment.captured", body, cv.anyRow); err != nil {
			return err
		}
	}
	return nil
}

// envelope builds the body of a synthetic payment.captured row from the API entity, with its
// order when the payment has one (so order.receipt can name the invoice).
func (s *paymentSweep) envelope(ctx context.Context, p *razorpay.Payment, paymentRequest string) ([]byte, error) {
	cp := *p
	if paymentRequest != "" && cp.Notes["payment_request"] == "" {
		notes := razorpay.Notes{}
		for k, v := range p.Notes {
			notes[k] = v
		}
		notes["payment_request"] = paymentRequest
		cp.Notes = notes
	}
	var order *razorpay.Order
	if cp.OrderID != "" {
		err := s.rd.retry(ctx, "get order "+cp.OrderID, func() (err error) {
			order, err = s.rd.rzp.GetOrder(ctx, cp.OrderID)
			return err
		})
		if err != nil {
			order = nil
			s.q.t.warn("payment %s: order %s not fetched (%v); queued without it", cp.ID, cp.OrderID, err)
		}
	}
	return connector.SyntheticEvent(s.q.accountID, "payment.captured", s.q.now(), &cp, order, nil)
}

// refundSweep queues every processed refund in the listed range (from, to) not yet on its
// way, as a synthetic refund.processed row carrying the refund and its payment.
type refundSweep struct {
	q        *queue
	rd       reads
	from, to time.Time
}

// run pages Razorpay's refund list, a page at a time.
func (s *refundSweep) run(ctx context.Context) error {
	list := func(each func(*razorpay.Refund) error) error {
		return s.rd.rzp.ListRefunds(ctx, s.from, s.to, each)
	}
	return sweepPaged(ctx, s.rd, s.q.t, "refunds", list, func(rf *razorpay.Refund) string { return rf.ID },
		func(rf *razorpay.Refund) bool { return rf.Status == "processed" }, func(page []*razorpay.Refund) error { return s.refunds(ctx, page) })
}

// refunds judges processed refunds, looked up in the store together, and queues those not
// yet on their way (fetching each one's payment for the envelope).
func (s *refundSweep) refunds(ctx context.Context, rfs []*razorpay.Refund) error {
	t := s.q.t
	items, keys := make([]Item, 0, len(rfs)), make([]string, 0, len(rfs))
	byID := make(map[string]*razorpay.Refund, len(rfs))
	for _, rf := range rfs {
		it := Item{Kind: KindRefund, ID: rf.ID, Source: SourceRazorpay, AmountMinor: rf.Amount, Currency: rf.Currency,
			CreatedAt: time.Unix(rf.CreatedAt, 0).UTC()}
		if t.count(it, rf.CreatedAt) {
			items, keys, byID[rf.ID] = append(items, it), append(keys, it.ID), rf
		}
	}
	covs, err := s.q.coverKeys(ctx, keys, connector.RouteRefund)
	if err != nil {
		return err
	}
	for _, it := range items {
		cv := covs[it.ID]
		if !t.judgeCovered(it, cv) {
			continue
		}
		var body []byte
		if !s.q.dryRun {
			if body, err = s.envelope(ctx, byID[it.ID]); err != nil {
				return err
			}
		}
		if err := s.q.enqueue(ctx, it, "refund.processed", body, cv.anyRow); err != nil {
			return err
		}
	}
	return nil
}

// envelope builds the body of a synthetic refund.processed row, with the refund's payment as
// Razorpay answers it now (left out, with a warning, when it cannot be fetched).
func (s *refundSweep) envelope(ctx context.Context, rf *razorpay.Refund) ([]byte, error) {
	var p *razorpay.Payment
	if rf.PaymentID != "" {
		var err error
		if p, err = s.rd.getPayment(ctx, rf.PaymentID); err != nil {
			p = nil
			s.q.t.warn("refund %s: payment %s not fetched (%v); queued without it", rf.ID, rf.PaymentID, err)
		}
	}
	return connector.SyntheticEvent(s.q.accountID, "refund.processed", s.q.now(), p, nil, rf)
}
