package mapping

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// RatePlaces is how many decimals an exchange rate is written with: ERPNext's exchange-rate
// fields are Float with precision 9.
const RatePlaces = 9

// ExchangeRate is base ÷ amount as decimal text: the value in baseCurrency of one unit of
// currency, each side converted from minor units with its own exponent (spec/razorpay.md §4),
// computed exactly with rationals and written with up to RatePlaces decimals (trailing zeros
// dropped). USD 2500 cents with base INR 213125 paise → "85.25". It fails for unknown
// currencies, non-positive amounts, or a rate that cannot reproduce base to its last minor unit
// when ERPNext multiplies it back (amount × rate rounded to base's exponent).
func ExchangeRate(amount int64, currency string, base int64, baseCurrency string) (string, error) {
	e1, ok1 := razorpay.Exponent(currency)
	e2, ok2 := razorpay.Exponent(baseCurrency)
	if !ok1 || !ok2 {
		return "", fmt.Errorf("unknown currency %s or %s", currency, baseCurrency)
	}
	if amount <= 0 || base <= 0 {
		return "", fmt.Errorf("amounts must be positive (%d %s, %d %s)", amount, currency, base, baseCurrency)
	}
	// rate = (base / 10^e2) / (amount / 10^e1)
	num := new(big.Int).Mul(big.NewInt(base), pow10(e1))
	den := new(big.Int).Mul(big.NewInt(amount), pow10(e2))
	exact := new(big.Rat).SetFrac(num, den)
	text := strings.TrimRight(strings.TrimRight(exact.FloatString(RatePlaces), "0"), ".")
	// Check the written rate gives base back: amount (major units) × rate, rounded half-even
	// to e2 places.
	written, _ := new(big.Rat).SetString(text)
	back := new(big.Rat).Mul(new(big.Rat).SetFrac(big.NewInt(amount), pow10(e1)), written)
	back.Mul(back, new(big.Rat).SetInt(pow10(e2)))
	if got := roundHalfEven(back); got.Cmp(big.NewInt(base)) != 0 {
		return "", fmt.Errorf("rate %s × %s %s gives %s minor units of %s, not %d", text, razorpay.FormatMinor(amount, e1), currency, got, baseCurrency, base)
	}
	return text, nil
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// roundHalfEven rounds a non-negative rational to the nearest integer, ties to even (the
// site's "Banker's Rounding", recording 55-*).
func roundHalfEven(r *big.Rat) *big.Int {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	twice := new(big.Int).Mul(m, big.NewInt(2))
	switch twice.Cmp(r.Denom()) {
	case 1:
		q.Add(q, big.NewInt(1))
	case 0:
		if q.Bit(0) == 1 {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// BaseRoundingGap is what ERPNext's difference_amount would be, in company-currency minor
// units, for a foreign-currency receipt whose allocations (minor units of currency, one per
// reference row) and unallocated rest are converted at rate and rounded one by one to
// baseExp decimals (half to even, the site's rounding), against received plus deductions
// (company-currency minor units). ERPNext refuses to submit unless it is 0 ("Difference
// Amount must be zero", spec/erpnext.md §3.2 S1); with several payment-term rows the per-row
// rounding can leave a paisa.
func BaseRoundingGap(allocations []int64, unallocated int64, currency, rate string, baseExp int, received, deductions int64) (int64, error) {
	exp, ok := razorpay.Exponent(currency)
	if !ok {
		return 0, fmt.Errorf("unknown currency %s", currency)
	}
	var base int64
	for _, a := range append(allocations, unallocated) {
		v, err := atRate(a, exp, rate, baseExp)
		if err != nil {
			return 0, err
		}
		base += v
	}
	return base - received - deductions, nil
}

// AtRate converts minor units of currency at rate (decimal text: baseCurrency per unit of
// currency) to minor units of baseCurrency, rounded half to even as the site rounds.
func AtRate(minor int64, currency, rate, baseCurrency string) (int64, error) {
	exp, ok1 := razorpay.Exponent(currency)
	baseExp, ok2 := razorpay.Exponent(baseCurrency)
	if !ok1 || !ok2 {
		return 0, fmt.Errorf("unknown currency %s or %s", currency, baseCurrency)
	}
	return atRate(minor, exp, rate, baseExp)
}

// atRate is AtRate with the exponents given.
func atRate(minor int64, exp int, rate string, baseExp int) (int64, error) {
	r, ok := new(big.Rat).SetString(rate)
	if !ok {
		return 0, fmt.Errorf("bad rate %q", rate)
	}
	if minor == 0 {
		return 0, nil
	}
	neg := minor < 0
	if neg {
		minor = -minor
	}
	v := new(big.Rat).Mul(new(big.Rat).SetFrac(big.NewInt(minor), pow10(exp)), r)
	v.Mul(v, new(big.Rat).SetInt(pow10(baseExp)))
	out := roundHalfEven(v).Int64()
	if neg {
		out = -out
	}
	return out, nil
}
