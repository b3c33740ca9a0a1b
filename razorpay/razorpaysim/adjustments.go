package razorpaysim

import (
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Adjustment is a balance adjustment that the next settlement carries as a recon row of type
// adjustment (spec/razorpay.md §3.5, checklist item 21).
type Adjustment struct {
	// ID is adj_ + 14 characters when empty.
	ID string `json:"id"`
	// Amount in INR paise: positive credits the merchant, negative debits. With DisputeID set
	// and Amount 0, the disputed amount (in INR paise) is debited.
	Amount int64 `json:"amount"`
	// Description is the row's description (Razorpay's sample: "test reason").
	Description string `json:"description"`
	// DisputeID makes it a dispute deduction: the row carries dispute_id.
	DisputeID string `json:"dispute_id"`
}

// AddAdjustment queues an adjustment for the next settlement and returns its row as the recon
// endpoint will show it before settlement. Like Razorpay's sample row it has no UTR even once
// settled (spec/razorpay.md §3.5: adjustment rows may have no UTR), notes null and no
// credit_type; created_at is now. A lost dispute queues its deduction by itself
// (ResolveDispute). Errors are 400 *razorpay.APIError: Amount 0 without DisputeID, an unknown
// DisputeID ("The id provided does not exist").
func (s *Sim) AddAdjustment(a Adjustment) (razorpay.ReconItem, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a.DisputeID != "" {
		d, ok := s.disputes[a.DisputeID]
		if !ok {
			return razorpay.ReconItem{}, notFound()
		}
		if a.Amount == 0 {
			a.Amount = -s.disputeINR(&d.d, d.d.Amount)
		}
	}
	if a.Amount == 0 {
		return razorpay.ReconItem{}, badRequest("The adjustment amount must not be 0", "amount")
	}
	return s.queueAdjustment(a), nil
}

// queueAdjustment adds the adjustment's row to what the next settlement carries; the caller
// holds s.mu.
func (s *Sim) queueAdjustment(a Adjustment) razorpay.ReconItem {
	if a.ID == "" {
		a.ID = "adj_" + s.randID()
	}
	row := razorpay.ReconItem{
		EntityID: a.ID, Type: razorpay.ReconAdjustment, Currency: "INR", CreatedAt: s.now().Unix(),
		Description: a.Description, DisputeID: a.DisputeID,
	}
	if a.Amount > 0 {
		row.Credit, row.Amount = a.Amount, a.Amount
	} else {
		row.Debit, row.Amount = -a.Amount, -a.Amount
	}
	s.due.extras = append(s.due.extras, row)
	return row
}

// disputeINR converts an amount in minor units of the dispute's currency to INR paise; the
// caller holds s.mu.
func (s *Sim) disputeINR(d *razorpay.Dispute, amount int64) int64 {
	return s.toINR(amount, d.Currency)
}

// deductDispute queues the deduction of a lost dispute's amount_deducted; the caller holds
// s.mu.
func (s *Sim) deductDispute(d *razorpay.Dispute) {
	s.queueAdjustment(Adjustment{
		Amount: -s.disputeINR(d, d.AmountDeducted), DisputeID: d.ID,
		Description: "Dispute lost: " + d.ReasonCode,
	})
}

// AddTransfer queues a Route transfer of amount (INR paise) out of a captured payment for the
// next settlement: a recon row of type transfer with Debit = amount + fee, the fee 0.25 % of
// the amount plus 18 % GST (Tax) on top (Razorpay's sample row: amount 100000, fee 296 of which
// tax 46, debit 100296; this rule gives 295 and 45), PaymentID set and notes null. Errors are 400
// *razorpay.APIError: unknown payment, payment not captured, amount outside 1..the payment's
// base amount.
func (s *Sim) AddTransfer(paymentID string, amount int64) (razorpay.ReconItem, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pr, ok := s.payments[paymentID]
	if !ok {
		return razorpay.ReconItem{}, notFound()
	}
	if pr.capturedAt == 0 {
		return razorpay.ReconItem{}, badRequest("Only captured payments can be transferred", "payment_id")
	}
	base := pr.p.Amount
	if pr.p.BaseAmount != nil {
		base = *pr.p.BaseAmount
	}
	if amount <= 0 || amount > base {
		return razorpay.ReconItem{}, badRequest("The transfer amount must be between 1 and the payment amount", "amount")
	}
	commission := (amount*25 + 5000) / 10000
	tax := (commission*18 + 50) / 100
	row := razorpay.ReconItem{
		EntityID: "trf_" + s.randID(), Type: razorpay.ReconTransfer, Debit: amount + commission + tax,
		Amount: amount, Currency: "INR", Fee: commission + tax, Tax: tax, CreatedAt: s.now().Unix(),
		CreditType: "default", PaymentID: paymentID,
	}
	s.due.extras = append(s.due.extras, row)
	return row, nil
}

// SetOnHold puts a payment on hold (hold true) or releases it: a held payment stays out of
// every settlement, and has no recon row, until released; the next settlement after the
// release pays it out (spec/razorpay.md §3.5 on_hold). Settled payments cannot change. Errors
// are 400 *razorpay.APIError: unknown payment, payment already settled.
func (s *Sim) SetOnHold(paymentID string, hold bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	pr, ok := s.payments[paymentID]
	if !ok {
		return notFound()
	}
	if pr.settled {
		return badRequest("The payment has been settled already", "payment_id")
	}
	pr.held = hold
	return nil
}
