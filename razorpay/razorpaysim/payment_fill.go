package razorpaysim

import (
	"maps"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// fillPayment applies defaults and validation; the caller holds s.mu.
func (pm *payments) fillPayment(p *razorpay.Payment) error {
	if p.ID == "" {
		p.ID = pm.st.freshID("pay_", func(id string) bool { return pm.st.payments[id] != nil })
	}
	if _, dup := pm.st.payments[p.ID]; dup {
		return badRequest("A payment with this id already exists", "id")
	}
	p.Entity = "payment"
	if p.Currency == "" {
		p.Currency = "INR"
	}
	if _, ok := razorpay.Exponent(p.Currency); !ok {
		return badRequest("Currency provided is not supported", "currency")
	}
	if m, ok := minimums[p.Currency]; ok && p.Amount < m.minor {
		return badRequest(m.text, "amount")
	}
	if p.Amount <= 0 {
		return badRequest("The amount must be at least 1", "amount")
	}
	switch p.Status {
	case "":
		p.Status = "captured"
	case "created", "authorized", "captured", "failed":
	default:
		return badRequest("Invalid payment status: "+p.Status, "status")
	}
	if p.Method == "" {
		p.Method = "card"
	}
	if p.Method == "card" && p.CardID == "" {
		p.CardID = "card_" + pm.st.randID()
	}
	if p.Method == "upi" && p.VPA == "" {
		p.VPA = "success@razorpay"
	}
	if p.CreatedAt == 0 {
		p.CreatedAt = pm.now().Unix()
	}
	if p.Email == "" {
		p.Email = "void@razorpay.com"
	}
	if p.Contact == "" {
		p.Contact = pm.contact()
	}
	p.Notes = maps.Clone(p.Notes)
	if p.Notes == nil {
		p.Notes = razorpay.Notes{}
	}
	p.AcquirerData = maps.Clone(p.AcquirerData) // nil when empty: clonePayment hands out {}
	if p.Currency != "INR" {
		p.International = true
		if p.BaseAmount == nil {
			base := pm.toINR(p.Amount, p.Currency)
			p.BaseAmount = &base
		}
		p.BaseCurrency = "INR"
	} else if p.BaseAmount == nil {
		base := p.Amount
		p.BaseAmount = &base
	}
	p.Captured = razorpay.Bool(p.Status == "captured")
	if p.Status == "captured" {
		pm.setFees(p)
	} else {
		p.Fee, p.Tax = nil, nil
	}
	return nil
}

// toINR converts minor units of currency to INR paise with the simulator's rate (integer
// arithmetic, rounded half up). Every amount the simulator holds is in a currency of the table
// (fillPayment refuses any other), so an unknown one is the simulator's bug: it panics.
func (pm *payments) toINR(minor int64, currency string) int64 {
	if currency == "INR" {
		return minor
	}
	m, err := razorpay.NewMoney(minor, currency)
	if err != nil { // fillPayment refuses it; refunds and disputes take their payment's
		panic("razorpaysim: " + err.Error())
	}
	rate, ok := pm.opt.FXRates[currency]
	if !ok {
		rate, ok = defaultFX[currency]
	}
	if !ok {
		rate = 10000
	}
	div := int64(1)
	for range m.Exponent() {
		div *= 10
	}
	return (minor*rate + div/2) / div
}

// setFees sets fee (2 % of base_amount, 3 % for international payments, GST included) and tax
// (the 18 % GST part) in INR paise, unless the caller gave them.
func (pm *payments) setFees(p *razorpay.Payment) {
	if p.Fee != nil {
		return
	}
	base := p.Amount
	if p.BaseAmount != nil {
		base = *p.BaseAmount
	}
	pct := int64(2)
	if p.International {
		pct = 3
	}
	fee := (base*pct + 50) / 100
	tax := (fee*18 + 59) / 118
	p.Fee, p.Tax = &fee, &tax
}
