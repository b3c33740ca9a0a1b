package razorpay

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Amount is money as Razorpay states it: an integer count of minor units (paise, cents, fils…)
// of an ISO 4217 currency (spec/razorpay.md §4; DESIGN.md §5). It is never converted through
// float64.
type Amount struct {
	Minor    int64
	Currency string
}

// Decimal returns the amount as decimal text with exactly as many fraction digits as the
// currency's exponent, e.g. {1200000, "INR"} → "12000.00", {500, "JPY"} → "500",
// {1234, "KWD"} → "1.234". It fails for a currency not in the table of Exponent.
func (a Amount) Decimal() (string, error) {
	exp, ok := Exponent(a.Currency)
	if !ok {
		return "", fmt.Errorf("razorpay: unknown currency %q", a.Currency)
	}
	return FormatMinor(a.Minor, exp), nil
}

// String formats the amount for people and logs, e.g. "12000.00 INR"; for an unknown currency
// it shows the minor units, e.g. "1200 minor units of XYZ".
func (a Amount) String() string {
	d, err := a.Decimal()
	if err != nil {
		return fmt.Sprintf("%d minor units of %s", a.Minor, a.Currency)
	}
	return d + " " + a.Currency
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

// FormatMinor writes minor units as decimal text with exp fraction digits, using integer
// arithmetic only: (1200000, 2) → "12000.00", (-5, 2) → "-0.05", (7, 0) → "7",
// (1234, 3) → "1.234". An exp of 0 or less gives the integer.
func FormatMinor(minor int64, exp int) string {
	neg := minor < 0
	mag := uint64(minor)
	if neg {
		mag = -mag // two's complement: correct for math.MinInt64 too
	}
	digits := strconv.FormatUint(mag, 10)
	if exp > 0 {
		if len(digits) <= exp {
			digits = strings.Repeat("0", exp-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-exp] + "." + digits[len(digits)-exp:]
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// ParseDecimal turns decimal text as Frappe sends it ("1000.0", "10.12", "1e3", "-300",
// "0.000000001") into minor units with exp fraction digits (exp ≥ 0), e.g.
// ParseDecimal("10.12", 2) = 1012. Digits beyond exp must be zero: "10.125" with exp 2 is an
// error, never silently rounded. An optional sign, an optional fraction and an optional
// exponent (e/E) are accepted; an empty string, other text, or a result outside int64 is an
// error.
func ParseDecimal(s string, exp int) (int64, error) {
	if exp < 0 {
		return 0, fmt.Errorf("razorpay: parse decimal %q: negative exponent %d", s, exp)
	}
	neg, intPart, fracPart, e10, err := splitDecimal(s)
	if err != nil {
		return 0, fmt.Errorf("razorpay: parse decimal %q: %w", s, err)
	}
	digits := strings.TrimLeft(intPart+fracPart, "0")
	if digits == "" {
		return 0, nil
	}
	// value = digits × 10^(e10 − len(fracPart)); minor = value × 10^exp.
	shift := e10 - len(fracPart) + exp
	if shift < 0 {
		if -shift >= len(digits) {
			return 0, fmt.Errorf("razorpay: parse decimal %q: more than %d fraction digits", s, exp)
		}
		cut := digits[len(digits)+shift:]
		if strings.Trim(cut, "0") != "" {
			return 0, fmt.Errorf("razorpay: parse decimal %q: more than %d fraction digits", s, exp)
		}
		digits = digits[:len(digits)+shift]
	} else {
		if len(digits)+shift > 19 {
			return 0, fmt.Errorf("razorpay: parse decimal %q: out of range", s)
		}
		digits += strings.Repeat("0", shift)
	}
	mag, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || mag > 1<<63 || (!neg && mag == 1<<63) {
		return 0, fmt.Errorf("razorpay: parse decimal %q: out of range", s)
	}
	if neg {
		return int64(-mag), nil
	}
	return int64(mag), nil
}

// splitDecimal parses [+-]digits[.digits][(e|E)[+-]digits] with at least one mantissa digit.
// The exponent is clamped so absurd ones fail later as out of range or too precise.
func splitDecimal(s string) (neg bool, intPart, fracPart string, e10 int, err error) {
	rest := s
	if rest != "" && (rest[0] == '+' || rest[0] == '-') {
		neg = rest[0] == '-'
		rest = rest[1:]
	}
	mant := rest
	var expText string
	if i := strings.IndexAny(rest, "eE"); i >= 0 {
		mant, expText = rest[:i], rest[i+1:]
		if expText == "" {
			return false, "", "", 0, errors.New("empty exponent")
		}
	}
	intPart, fracPart, _ = strings.Cut(mant, ".")
	if intPart+fracPart == "" || !allDigits(intPart) || !allDigits(fracPart) {
		return false, "", "", 0, errors.New("not a decimal number")
	}
	if expText != "" {
		sign := 1
		if expText[0] == '+' || expText[0] == '-' {
			if expText[0] == '-' {
				sign = -1
			}
			expText = expText[1:]
		}
		if expText == "" || !allDigits(expText) {
			return false, "", "", 0, errors.New("bad exponent")
		}
		expText = strings.TrimLeft(expText, "0")
		if len(expText) > 6 {
			expText = "999999" // beyond any int64; keeps the arithmetic small
		}
		n, _ := strconv.Atoi("0" + expText)
		e10 = sign * n
	}
	return neg, intPart, fracPart, e10, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
