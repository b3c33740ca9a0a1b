package razorpaysim

import (
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// DisputeOptions shape the webhooks of a dispute made by CreateDispute (spec/razorpay.md §3.6,
// checklist item 23).
type DisputeOptions struct {
	// Lose records every event of this dispute (payment.dispute.created and each later
	// transition) but delivers none of them ("deliver": false in the control API).
	Lose bool
	// Then lists transitions applied right after creation, in order, exactly as ResolveDispute
	// would apply them (e.g. ["under_review", "lost"]). Their events join
	// payment.dispute.created in one batch, so Ordering applies to them.
	Then []string
	// Ordering of the first deliveries of that batch; "" uses Faults.Ordering.
	Ordering Ordering
	// Duplicate delivers every event of this dispute, including later transitions, once more
	// after a 2xx.
	Duplicate bool
}

type disputeRec struct {
	d         razorpay.Dispute
	seq       int64
	lose, dup bool
}

// disputePhases are the phases of spec/razorpay.md §3.6.
var disputePhases = map[string]bool{
	"fraud": true, "retrieval": true, "chargeback": true, "pre_arbitration": true, "arbitration": true,
}

// disputeTransitions maps a target accepted by ResolveDispute to the status it sets and the
// event it emits (spec/razorpay.md §2.2). action_required asks the merchant for evidence: the
// dispute is open again.
var disputeTransitions = map[string]struct{ status, event string }{
	"under_review":    {"under_review", razorpay.EventDisputeUnderReview},
	"action_required": {"open", razorpay.EventDisputeActionRequired},
	"won":             {"won", razorpay.EventDisputeWon},
	"lost":            {"lost", razorpay.EventDisputeLost},
	"closed":          {"closed", razorpay.EventDisputeClosed},
}

// Defaults of CreateDispute: the reason given to a dispute created without one, and the time
// the merchant has to respond.
const (
	defaultReasonCode        = "goods_or_services_not_received_or_partially_received"
	defaultReasonDescription = "The customer claims the goods or services were not received, or only in part."
	respondWithin            = 10 * 24 * time.Hour
)

// CreateDispute is Sim.CreateDispute.
func (dp *disputes) CreateDispute(d razorpay.Dispute, opt DisputeOptions) (*razorpay.Dispute, error) {
	dp.st.mu.Lock()
	defer dp.st.mu.Unlock()
	pr, ok := dp.st.payments[d.PaymentID]
	if !ok {
		return nil, notFound()
	}
	p := &pr.p
	if p.Status != "captured" && p.Status != "refunded" {
		return nil, badRequest("Only captured payments can be disputed", "payment_id")
	}
	if d.Amount == 0 {
		d.Amount = p.Amount
	}
	if d.Amount < 0 || d.Amount > p.Amount {
		return nil, badRequest("The dispute amount must be between 1 and the payment amount", "amount")
	}
	if d.Currency == "" {
		d.Currency = p.Currency
	}
	if d.Currency != p.Currency {
		return nil, badRequest("The currency should be same as the payment currency", "currency")
	}
	if d.Status != "" && d.Status != "open" {
		return nil, badRequest("A dispute is created open; later statuses are transitions", "status")
	}
	if d.Phase == "" {
		d.Phase = "chargeback"
	}
	if !disputePhases[d.Phase] {
		return nil, badRequest("Invalid dispute phase: "+d.Phase, "phase")
	}
	if d.ID == "" {
		d.ID = dp.st.freshID("disp_", func(id string) bool { return dp.st.disputes[id] != nil })
	}
	if _, dup := dp.st.disputes[d.ID]; dup {
		return nil, badRequest("A dispute with this id already exists", "id")
	}
	if d.ReasonCode == "" {
		d.ReasonCode, d.ReasonDescription = defaultReasonCode, defaultReasonDescription
	}
	if d.CreatedAt == 0 {
		d.CreatedAt = dp.now().Unix()
	}
	if d.RespondBy == 0 {
		d.RespondBy = d.CreatedAt + int64(respondWithin/time.Second)
	}
	d.Entity, d.Status, d.AmountDeducted = "dispute", "open", 0

	rec := &disputeRec{d: d, lose: opt.Lose, dup: opt.Duplicate}
	batch := []*event{dp.disputeEvent(razorpay.EventDisputeCreated, rec)}
	for _, to := range opt.Then {
		ev, err := dp.transition(rec, to)
		if err != nil {
			return nil, err
		}
		batch = append(batch, ev)
	}
	rec.seq = dp.st.nextSeq()
	dp.st.disputes[d.ID] = rec
	if rec.d.Status == "lost" {
		dp.settlements.deductDispute(&rec.d)
	}
	dp.hooks.dispatch(batch, dp.hooks.ordering(opt.Ordering), opt.Duplicate, opt.Lose)
	out := rec.d
	return &out, nil
}

// ResolveDispute is Sim.ResolveDispute.
func (dp *disputes) ResolveDispute(id, to string) (*razorpay.Dispute, error) {
	dp.st.mu.Lock()
	defer dp.st.mu.Unlock()
	rec, ok := dp.st.disputes[id]
	if !ok {
		return nil, notFound()
	}
	ev, err := dp.transition(rec, to)
	if err != nil {
		return nil, err
	}
	if rec.d.Status == "lost" {
		dp.settlements.deductDispute(&rec.d)
	}
	dp.hooks.dispatch([]*event{ev}, dp.hooks.ordering(""), rec.dup, rec.lose)
	out := rec.d
	return &out, nil
}

// transition applies one status change to rec and returns its event; on error rec is
// unchanged. The caller holds s.mu.
func (dp *disputes) transition(rec *disputeRec, to string) (*event, error) {
	t, ok := disputeTransitions[to]
	if !ok {
		return nil, badRequest("Invalid dispute status: "+to, "status")
	}
	switch rec.d.Status {
	case "won", "lost", "closed":
		return nil, badRequest("The dispute is already "+rec.d.Status, "status")
	case t.status:
		if to != "action_required" {
			return nil, badRequest("The dispute is already "+rec.d.Status, "status")
		}
	}
	rec.d.Status = t.status
	if to == "lost" {
		rec.d.AmountDeducted = rec.d.Amount
	}
	return dp.disputeEvent(t.event, rec), nil
}

// disputeEvent builds a payment.dispute.* event with the payment and dispute snapshots of this
// moment; the caller holds s.mu.
func (dp *disputes) disputeEvent(name string, rec *disputeRec) *event {
	p := dp.st.payments[rec.d.PaymentID].p
	payload := obj{{"payment", wrap(dp.render.renderPayment(&p))}, {"dispute", wrap(renderDispute(&rec.d, false))}}
	return dp.hooks.newEvent(name, []string{"payment", "dispute"}, payload, dp.now().Unix(), false)
}

// getDispute serves GET /v1/disputes/{id}.
func (ap *api) getDispute(id string) (any, *razorpay.APIError) {
	ap.st.mu.Lock()
	defer ap.st.mu.Unlock()
	rec, ok := ap.st.disputes[id]
	if !ok {
		return nil, notFound()
	}
	return renderDispute(&rec.d, true), nil
}

// renderDispute renders a dispute in the key order of Razorpay's samples (spec/razorpay.md
// §3.6); reason_description only in API answers, evidence with nothing submitted yet.
func renderDispute(d *razorpay.Dispute, api bool) obj {
	o := obj{
		{"id", d.ID}, {"entity", "dispute"}, {"payment_id", d.PaymentID}, {"amount", d.Amount},
		{"currency", d.Currency}, {"amount_deducted", d.AmountDeducted}, {"reason_code", d.ReasonCode},
	}
	if api {
		o = append(o, field{"reason_description", nullable(d.ReasonDescription)})
	}
	var respondBy any
	if d.RespondBy != 0 {
		respondBy = d.RespondBy
	}
	evidence := obj{{"amount", d.Amount}}
	for _, k := range []string{"summary", "shipping_proof", "billing_proof", "cancellation_proof",
		"customer_communication", "proof_of_service", "explanation_letter", "refund_confirmation",
		"access_activity_log", "refund_cancellation_policy", "term_and_conditions", "others",
		"submitted_at"} {
		evidence = append(evidence, field{k, nil})
	}
	return append(o, field{"respond_by", respondBy}, field{"status", d.Status},
		field{"evidence", evidence}, field{"phase", d.Phase}, field{"created_at", d.CreatedAt})
}
