package razorpaysim

import (
	"maps"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// RefundOptions shape the lifecycle and webhooks of a refund made by CreateRefund
// (spec/razorpay.md §3.3, checklist item 22).
type RefundOptions struct {
	// Lose records the refund's events but delivers none of them ("deliver": false).
	Lose bool
	// Final is the state the refund ends in: "processed" (default; refund.processed with an ARN),
	// "failed" (refund.failed; the payment's amount_refunded is given back) or "pending" (only
	// refund.created; the refund stays pending).
	Final string
	// CreatedPending makes refund.created carry status pending; by default it already says
	// processed, as Razorpay usually does before the ARN is known.
	CreatedPending bool
	// Ordering of the first deliveries; Reversed sends the final event before refund.created.
	Ordering Ordering
	// Duplicate delivers every event of this refund once more after a 2xx.
	Duplicate bool
}

// refundRec is a refund as the simulator keeps it; added is the simulator-clock time it was
// added (unix nanoseconds, for list lag); settled is set once a settlement deducted it.
type refundRec struct {
	r       razorpay.Refund
	seq     int64
	added   int64
	settled bool
}

// CreateRefund is Sim.CreateRefund.
func (rf *refunds) CreateRefund(r razorpay.Refund, opt RefundOptions) (*razorpay.Refund, error) {
	rf.st.mu.Lock()
	defer rf.st.mu.Unlock()
	p, final, err := rf.checkRefund(&r, opt)
	if err != nil {
		return nil, err
	}
	r.Entity = "refund"
	if r.CreatedAt == 0 {
		r.CreatedAt = rf.now().Unix()
	}
	if r.SpeedRequested == "" {
		r.SpeedRequested = "normal"
	}
	if r.SpeedProcessed == "" {
		r.SpeedProcessed = "normal"
	}
	r.Notes = maps.Clone(r.Notes)
	if r.Notes == nil {
		r.Notes = razorpay.Notes{}
	}
	r.AcquirerData = map[string]string{}
	batch := rf.refundEvents(&r, p, final, opt)
	rec := &refundRec{r: r, seq: rf.st.nextSeq(), added: rf.now().UnixNano()}
	rf.st.refunds[r.ID] = rec
	rf.st.refundList.add(rec)
	rf.st.paymentRefunds[r.PaymentID] = append(rf.st.paymentRefunds[r.PaymentID], rec)
	if r.Status == "processed" {
		rf.st.due.refunds = append(rf.st.due.refunds, rec)
	}
	rf.hooks.dispatch(batch, rf.hooks.ordering(opt.Ordering), opt.Duplicate, opt.Lose)
	out := r
	out.Notes = maps.Clone(r.Notes)
	out.AcquirerData = maps.Clone(r.AcquirerData)
	return &out, nil
}

// checkRefund checks refund r of its payment, in the order of CreateRefund's errors, and fills
// in its amount, currency and id when zero. It returns the payment and the refund's final
// status (processed when opt names none). s.mu is held.
func (rf *refunds) checkRefund(r *razorpay.Refund, opt RefundOptions) (*razorpay.Payment, string, error) {
	pr, ok := rf.st.payments[r.PaymentID]
	if !ok {
		return nil, "", notFound()
	}
	p := &pr.p
	if p.Status != "captured" && p.Status != "refunded" {
		return nil, "", badRequest("The payment has not been captured", "payment_id")
	}
	left := p.Amount - p.AmountRefunded
	if left <= 0 {
		return nil, "", badRequest("The payment has been fully refunded already", "")
	}
	if r.Amount == 0 {
		r.Amount = left
	}
	if r.Amount < 0 || r.Amount > left {
		return nil, "", badRequest("The refund amount provided is greater than amount captured", "amount")
	}
	if r.Currency == "" {
		r.Currency = p.Currency
	}
	if r.Currency != p.Currency {
		return nil, "", badRequest("The currency should be same as the payment currency", "currency")
	}
	if r.ID == "" {
		r.ID = rf.st.freshID("rfnd_", func(id string) bool { return rf.st.refunds[id] != nil })
	}
	if _, dup := rf.st.refunds[r.ID]; dup {
		return nil, "", badRequest("A refund with this id already exists", "id")
	}
	final := opt.Final
	if final == "" {
		final = "processed"
	}
	switch final {
	case "processed", "failed", "pending":
	default:
		return nil, "", badRequest("Invalid refund final status: "+final, "status")
	}
	return p, final, nil
}

// refundEvents applies refund r to payment p, moves r to its final status and returns
// refund.created and the final refund event (none for pending), each with the payment
// snapshot of its moment.
func (rf *refunds) refundEvents(r *razorpay.Refund, p *razorpay.Payment, final string, opt RefundOptions) []*event {
	applyRefund(p, r.Amount)
	created := *r
	created.Status = "processed"
	if opt.CreatedPending || final == "pending" {
		created.Status = "pending"
	}
	batch := []*event{rf.hooks.refundEvent(razorpay.EventRefundCreated, &created, p)}
	switch final {
	case "processed":
		r.Status = "processed"
		r.AcquirerData = map[string]string{"arn": "7433" + digits(rf.st, 19)}
		batch = append(batch, rf.hooks.refundEvent(razorpay.EventRefundProcessed, r, p))
	case "failed":
		r.Status = "failed"
		applyRefund(p, -r.Amount)
		batch = append(batch, rf.hooks.refundEvent(razorpay.EventRefundFailed, r, p))
	case "pending":
		r.Status = "pending"
	}
	return batch
}

// applyRefund adds delta minor units to the payment's amount_refunded and updates
// refund_status and status (refunded only at 100 %).
func applyRefund(p *razorpay.Payment, delta int64) {
	p.AmountRefunded += delta
	switch {
	case p.AmountRefunded <= 0:
		p.AmountRefunded, p.RefundStatus, p.Status = 0, "", "captured"
	case p.AmountRefunded >= p.Amount:
		p.RefundStatus, p.Status = "full", "refunded"
	default:
		p.RefundStatus, p.Status = "partial", "captured"
	}
}

// digits returns n random decimal digits; the caller holds s.mu.
func digits(st *state, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + st.rnd.IntN(10))
	}
	return string(b)
}
