package razorpay

import (
	"errors"
	"fmt"
	"strings"
)

// Money is an amount of an ISO 4217 currency in integer minor units (paise, cents, fils…), as
// Razorpay states amounts (spec/razorpay.md §4; DESIGN.md §6). It is built only through
// NewMoney (or INR), which checks the currency's exponent, so a Money always knows how many
// fraction digits its currency has; it is never converted through float64. The zero Money is
// no amount of no currency: its formats are empty.
type Money struct {
	minor    int64
	currency string
	exp      int
}

// ErrUnknownCurrency is returned (wrapped) by NewMoney for a currency not in Razorpay's
// supported-currency table (Exponent): its exponent is never guessed.
var ErrUnknownCurrency = errors.New("razorpay: unknown currency")

// NewMoney is minor units of currency (an upper-case ISO 4217 code), e.g. NewMoney(118000,
// "INR") is ₹1,180.00. It fails, wrapping ErrUnknownCurrency, for a currency not in the table
// of Exponent.
func NewMoney(minor int64, currency string) (Money, error) {
	exp, ok := Exponent(currency)
	if !ok {
		return Money{}, fmt.Errorf("%w %q", ErrUnknownCurrency, currency)
	}
	return Money{minor: minor, currency: currency, exp: exp}, nil
}

// INR is paise as Money: rupees need no check (exponent 2).
func INR(paise int64) Money { return Money{minor: paise, currency: "INR", exp: 2} }

// Minor is the amount in minor units.
func (m Money) Minor() int64 { return m.minor }

// Currency is the ISO 4217 code, e.g. "INR".
func (m Money) Currency() string { return m.currency }

// Exponent is the currency's number of minor-unit digits: 0, 2 or 3.
func (m Money) Exponent() int { return m.exp }

// Decimal is the amount as decimal text with exactly the currency's fraction digits, as Frappe
// takes it: {1200000 INR} → "12000.00", {500 JPY} → "500", {1234 KWD} → "1.234", {-5 INR} → "-0.05".
func (m Money) Decimal() string {
	if m.currency == "" {
		return ""
	}
	return FormatMinor(m.minor, m.exp)
}

// String is the currency code and the decimal, for reasons and logs: "INR 1180.00".
func (m Money) String() string {
	if m.currency == "" {
		return ""
	}
	return m.currency + " " + m.Decimal()
}

// Display is the amount for people, with digit grouping: rupees with the ₹ sign and Indian
// grouping ("₹12,34,567.89"), another currency with its code and groups of three ("USD
// 1,234,567.89"); a negative amount starts with the minus sign U+2212 ("−₹12,499.00").
func (m Money) Display() string {
	if m.currency == "" {
		return ""
	}
	text := FormatMinor(m.minor, m.exp)
	neg := strings.HasPrefix(text, "-")
	whole, frac, hasFrac := strings.Cut(strings.TrimPrefix(text, "-"), ".")
	whole = groupDigits(whole, m.currency == "INR")
	if hasFrac {
		whole += "." + frac
	}
	prefix := m.currency + " "
	if m.currency == "INR" {
		prefix = "₹"
	}
	if neg {
		return "−" + prefix + whole
	}
	return prefix + whole
}

// MoneyString is Money.String of minor units of currency ("INR 1180.00"), and for a currency
// not in the table of Exponent the minor units and the code ("42 minor units XXX"), never a
// guessed exponent: for reasons about an amount whose currency may be unknown.
func MoneyString(minor int64, currency string) string {
	m, err := NewMoney(minor, currency)
	if err != nil {
		return unknownMoney(minor, currency)
	}
	return m.String()
}

// MoneyDisplay is Money.Display of minor units of currency ("₹12,000.00"), and for a currency
// not in the table of Exponent the minor units and the code, as MoneyString.
func MoneyDisplay(minor int64, currency string) string {
	m, err := NewMoney(minor, currency)
	if err != nil {
		return unknownMoney(minor, currency)
	}
	return m.Display()
}

// unknownMoney is an amount of a currency not in the table: "42 minor units XXX".
func unknownMoney(minor int64, currency string) string {
	return fmt.Sprintf("%d minor units %s", minor, currency)
}

// Currencies by number of minor-unit digits, from Razorpay's supported-currency table
// (spec/razorpay.md §4, doc D-CUR).
var (
	exponent0 = "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX VND VUV XAF XOF XPF"
	exponent3 = "BHD IQD JOD KWD OMR TND"
	exponent2 = "AED ALL AMD AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BZD CAD CHF " +
		"CNY COP CRC CUP CVE CZK DKK DOP DZD EGP ETB EUR FJD GBP GHS GIP GMD GTQ GYD HKD HNL HRK " +
		"HTG HUF IDR ILS INR JMD KES KGS KHR KYD KZT LAK LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP " +
		"MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD PEN PGK PHP PKR PLN QAR RON RSD RUB SAR " +
		"SCR SEK SGD SLL SOS SVC SZL THB TRY TTD TWD TZS UAH USD UYU UZS XCD YER ZAR ZMW"
)

var exponents = func() map[string]int {
	m := map[string]int{}
	for exp, list := range map[int]string{0: exponent0, 2: exponent2, 3: exponent3} {
		for _, c := range strings.Fields(list) {
			m[c] = exp
		}
	}
	return m
}()

// Exponent returns the number of minor-unit digits of an ISO 4217 currency code (upper case)
// per Razorpay's supported-currency table, spec/razorpay.md §4: 0 (e.g. JPY), 3 (e.g. KWD) or
// 2 (e.g. INR, USD). ok is false for a currency not in the table; do not guess one.
func Exponent(currency string) (exp int, ok bool) {
	exp, ok = exponents[currency]
	return exp, ok
}
