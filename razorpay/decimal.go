package razorpay

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Decimal text of minor units, by integer arithmetic only: FormatMinor writes it, ParseDecimal
// reads what Frappe sends back.

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

// groupDigits puts commas in a digit string: every three digits, or the Indian way (the last
// three, then every two).
func groupDigits(d string, indian bool) string {
	if len(d) <= 3 {
		return d
	}
	head, tail := d[:len(d)-3], d[len(d)-3:]
	step := 3
	if indian {
		step = 2
	}
	var parts []string
	for len(head) > step {
		parts = append([]string{head[len(head)-step:]}, parts...)
		head = head[:len(head)-step]
	}
	parts = append([]string{head}, parts...)
	return strings.Join(parts, ",") + "," + tail
}
