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

// AddAdjustment is Sim.AddAdjustment.
func (stl *settlements) AddAdjustment(a Adjustment) (razorpay.ReconItem, error) {
	stl.st.mu.Lock()
	defer stl.st.mu.Unlock()
	if a.DisputeID != "" {
		d, ok := stl.st.disputes[a.DisputeID]
		if !ok {
			return razorpay.ReconItem{}, notFound()
		}
		if a.Amount == 0 {
			a.Amount = -stl.disputeINR(&d.d, d.d.Amount)
		}
	}
	if a.Amount == 0 {
		return razorpay.ReconItem{}, badRequest("The adjustment amount must not be 0", "amount")
	}
	return stl.queueAdjustment(a), nil
}

// queueAdjustment adds the adjustment's row to what the next settlement carries; the caller
// holds s.mu.
func (stl *settlements) queueAdjustment(a Adjustment) razorpay.ReconItem {
	if a.ID == "" {
		a.ID = "adj_" + stl.st.randID()
	}
	row := razorpay.ReconItem{
		EntityID: a.ID, Type: razorpay.ReconAdjustment, Currency: "INR", CreatedAt: stl.now().Unix(),
		Description: a.Description, DisputeID: a.DisputeID,
	}
	if a.Amount > 0 {
		row.Credit, row.Amount = a.Amount, a.Amount
	} else {
		row.Debit, row.Amount = -a.Amount, -a.Amount
	}
	stl.st.due.extras = append(stl.st.due.extras, row)
	return row
}

// disputeINR converts an amount in minor units of the dispute's currency to INR paise; the
// caller holds s.mu.
func (stl *settlements) disputeINR(d *razorpay.Dispute, amount int64) int64 {
	return stl.payments.toINR(amount, d.Currency)
}

// deductDispute queues the deduction of a lost dispute's amount_deducted; the caller holds
// s.mu.
func (stl *settlements) deductDispute(d *razorpay.Dispute) {
	stl.queueAdjustment(Adjustment{
		Amount: -stl.disputeINR(d, d.AmountDeducted), DisputeID: d.ID,
		Description: "Dispute lost: " + d.ReasonCode,
	})
}

// AddTransfer is Sim.AddTransfer.
func (stl *settlements) AddTransfer(paymentID string, amount int64) (razorpay.ReconItem, error) {
	stl.st.mu.Lock()
	defer stl.st.mu.Unlock()
	pr, ok := stl.st.payments[paymentID]
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
		EntityID: "trf_" + stl.st.randID(), Type: razorpay.ReconTransfer, Debit: amount + commission + tax,
		Amount: amount, Currency: "INR", Fee: commission + tax, Tax: tax, CreatedAt: stl.now().Unix(),
		CreditType: "default", PaymentID: paymentID,
	}
	stl.st.due.extras = append(stl.st.due.extras, row)
	return row, nil
}

// SetOnHold is Sim.SetOnHold.
func (stl *settlements) SetOnHold(paymentID string, hold bool) error {
	stl.st.mu.Lock()
	defer stl.st.mu.Unlock()
	pr, ok := stl.st.payments[paymentID]
	if !ok {
		return notFound()
	}
	if pr.settled {
		return badRequest("The payment has been settled already", "payment_id")
	}
	pr.held = hold
	return nil
}
