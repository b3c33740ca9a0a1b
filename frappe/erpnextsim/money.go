package erpnextsim

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// dec is an exact decimal amount in nano-units (1e-9), the scale of ERPNext's
// decimal(21,9) Currency columns. The range is about ±9.2e9 units, plenty for
// a test site; arithmetic that could overflow goes through math/big.
// No float64 is ever used for money in this package (DESIGN.md §2.4).
type dec int64

const nano = 1_000_000_000

var errBadNumber = errors.New("not a number")

// parseDec parses decimal text such as "1000", "-10.125", "1e3" or "1.5E-05".
// Digits beyond nine decimals are rounded half away from zero, as MariaDB
// does when storing into decimal(21,9).
func parseDec(s string) (dec, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errBadNumber
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, errBadNumber
	}
	r.Mul(r, big.NewRat(nano, 1))
	n := roundRat(r, false)
	if !n.IsInt64() {
		return 0, fmt.Errorf("%s: out of range", s)
	}
	return dec(n.Int64()), nil
}

// roundRat rounds r to an integer: half to even when banker is set, else
// half away from zero.
func roundRat(r *big.Rat, banker bool) *big.Int {
	num, den := new(big.Int).Set(r.Num()), r.Denom()
	neg := num.Sign() < 0
	num.Abs(num)
	q, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	twice := new(big.Int).Mul(rem, big.NewInt(2))
	switch c := twice.Cmp(den); {
	case c > 0:
		q.Add(q, big.NewInt(1))
	case c == 0:
		if !banker || q.Bit(0) == 1 {
			q.Add(q, big.NewInt(1))
		}
	}
	if neg {
		q.Neg(q)
	}
	return q
}

// decOf converts a JSON value (json.Number, string, bool, nil) to a dec the way
// Frappe's flt() would: unparseable text is 0.
func decOf(v any) dec {
	switch x := v.(type) {
	case json.Number:
		d, _ := parseDec(string(x))
		return d
	case string:
		d, _ := parseDec(x)
		return d
	case dec:
		return x
	case int64:
		return dec(x * nano)
	case int:
		return dec(int64(x) * nano)
	case bool:
		if x {
			return nano
		}
	}
	return 0
}

func units(n int64) dec { return dec(n * nano) }

// round rounds to places decimals with banker's rounding (half to even), the
// site's rounding_method (recording 55-*: 10.125 → 10.12).
func (d dec) round(places int) dec {
	if places >= 9 {
		return d
	}
	step := int64(1)
	for i := 0; i < 9-places; i++ {
		step *= 10
	}
	r := big.NewRat(int64(d), step)
	return dec(roundRat(r, true).Int64() * step)
}

// roundHalfAway rounds to places decimals half away from zero, as MariaDB's
// ROUND() does on a DECIMAL value (10.125 → 10.13).
func (d dec) roundHalfAway(places int) dec {
	if places >= 9 {
		return d
	}
	step := int64(1)
	for i := 0; i < 9-places; i++ {
		step *= 10
	}
	return dec(roundRat(big.NewRat(int64(d), step), false).Int64() * step)
}

// mul multiplies two decimals, rounding the product to nine decimals (half even).
func (d dec) mul(o dec) dec {
	r := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(int64(d)), big.NewInt(int64(o))), big.NewInt(nano))
	return dec(roundRat(r, true).Int64())
}

// div divides d by o, rounding to nine decimals (half even); o must not be 0.
func (d dec) div(o dec) dec {
	if o == 0 {
		return 0
	}
	r := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(int64(d)), big.NewInt(nano)), big.NewInt(int64(o)))
	return dec(roundRat(r, true).Int64())
}

func (d dec) abs() dec {
	if d < 0 {
		return -d
	}
	return d
}

// plain renders the decimal without trailing zeros: "1000", "976.4", "-0.5".
// It is used inside message texts (remarks).
func (d dec) plain() string {
	neg := d < 0
	u := uint64(d)
	if neg {
		u = uint64(-d)
	}
	ip, fp := u/nano, u%nano
	s := strconv.FormatUint(ip, 10)
	if fp != 0 {
		f := strings.TrimRight(fmt.Sprintf("%09d", fp), "0")
		s += "." + f
	}
	if neg {
		s = "-" + s
	}
	return s
}

// py renders the decimal the way Python's repr() renders the float Frappe
// sends: "1000.0", "10.125", "0.0", "1e-05".
func (d dec) py() string {
	if d == 0 {
		return "0.0"
	}
	a := d.abs()
	if a < nano/10000 { // below 1e-4 Python switches to exponent notation
		digits := strings.TrimRight(fmt.Sprintf("%09d", int64(a)), "0")
		lead := len(digits) - len(strings.TrimLeft(digits, "0"))
		sig := digits[lead:]
		exp := -(lead + 1)
		m := sig[:1]
		if len(sig) > 1 {
			m += "." + sig[1:]
		}
		s := fmt.Sprintf("%se-%02d", m, -exp)
		if d < 0 {
			s = "-" + s
		}
		return s
	}
	s := d.plain()
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// num is the JSON form of a Currency/Float value.
func (d dec) num() json.Number { return json.Number(d.py()) }
