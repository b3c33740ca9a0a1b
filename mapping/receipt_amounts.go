package mapping

import "github.com/razorpay-erpnext/razorpay-erpnext/razorpay"

// amounts is what a payment settles, before fees are applied.
type amounts struct {
	currency    string // party currency of the receipt
	exp         int    // its minor-unit digits (razorpay.Exponent)
	settle      int64  // what settles the invoice, minor units of currency
	settleBase  int64  // the same in company currency minor units
	rate        string // "" when currency is the company currency
	merchantFee int64  // fee the merchant bears, company currency minor units (0 when customer-borne)
	merchantTax int64
}

func settlement(rules Rules, p *razorpay.Payment, inv Invoice) (amounts, error) {
	company := rules.CompanyCurrency
	expP, ok := razorpay.Exponent(p.Currency)
	if !ok {
		return amounts{}, park(ReasonCurrency, "payment %s is in %q, not in Razorpay's currency table", p.ID, p.Currency)
	}
	if expP > rules.SitePrecision {
		return amounts{}, park(ReasonCurrencyPrecision, "payment %s is in %s (%d decimals); the site keeps %d", p.ID, p.Currency, expP, rules.SitePrecision)
	}
	var fee, tax int64
	if p.Fee != nil {
		fee = *p.Fee
	}
	if p.Tax != nil {
		tax = *p.Tax
	}
	if fee < 0 || tax < 0 || tax > fee {
		return amounts{}, park(ReasonAmount, "payment %s has fee %d and tax %d paise; the fee must include the tax (0 ≤ tax ≤ fee)", p.ID, fee, tax)
	}
	customerFee := p.FeeBearer == "customer"
	a := amounts{currency: p.Currency, settle: p.Amount}
	if !customerFee {
		a.merchantFee, a.merchantTax = fee, tax
	}
	switch {
	case p.Currency == company && inv.PartyAccountCurrency == company:
		if customerFee {
			a.settle = p.Amount - fee
		}
		a.settleBase = a.settle
	case p.Currency != company && inv.PartyAccountCurrency == p.Currency:
		if customerFee {
			return amounts{}, park(ReasonCustomerFee, "payment %s in %s carries a customer-borne fee in %s; book it by hand", p.ID, p.Currency, company)
		}
		if p.BaseAmount == nil || *p.BaseAmount <= 0 {
			return amounts{}, park(ReasonNoRate, "payment %s in %s has no base_amount in %s; it is never booked at rate 1", p.ID, p.Currency, company)
		}
		rate, err := ExchangeRate(p.Amount, p.Currency, *p.BaseAmount, company)
		if err != nil {
			return amounts{}, park(ReasonNoRate, "payment %s: %v", p.ID, err)
		}
		a.settleBase, a.rate = *p.BaseAmount, rate
	case p.Currency != company && inv.PartyAccountCurrency == company:
		// Invoiced in the company currency, paid in another: what Razorpay settles (base_amount)
		// is what the customer paid towards the invoice.
		if p.BaseAmount == nil || *p.BaseAmount <= 0 {
			return amounts{}, park(ReasonNoRate, "payment %s in %s for Sales Invoice %s in %s has no base_amount", p.ID, p.Currency, inv.Name, company)
		}
		a.currency, a.settle, a.settleBase = company, *p.BaseAmount, *p.BaseAmount
		if customerFee {
			a.settle -= fee
			a.settleBase -= fee
		}
	default:
		return amounts{}, park(ReasonCurrency, "payment %s is in %s; Sales Invoice %s is receivable in %s",
			p.ID, p.Currency, inv.Name, inv.PartyAccountCurrency)
	}
	exp, ok := razorpay.Exponent(a.currency)
	if !ok {
		return amounts{}, park(ReasonCurrency, "payment %s would be booked in %q, not in Razorpay's currency table", p.ID, a.currency)
	}
	a.exp = exp
	return a, nil
}

// feeDeductions splits Razorpay's fee (which includes GST, spec/razorpay.md §3.1) into the fee
// proper and the GST on it, skipping zero rows.
func feeDeductions(f FeeRules, paymentID string, fee, tax int64) []Deduction {
	var d []Deduction
	if fee-tax > 0 {
		d = append(d, Deduction{Account: f.FeeAccount, CostCenter: f.CostCenter, Amount: fee - tax, Kind: DeductionFee,
			Description: "Razorpay fee for " + paymentID})
	}
	if tax > 0 {
		d = append(d, Deduction{Account: f.TaxAccount, CostCenter: f.CostCenter, Amount: tax, Kind: DeductionTax,
			Description: "GST on Razorpay fee for " + paymentID})
	}
	return d
}
