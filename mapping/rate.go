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
