package razorpay_test

import (
	"math"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

func TestExponentTable(t *testing.T) {
	cases := map[string]int{"JPY": 0, "KRW": 0, "VND": 0, "XPF": 0, "KWD": 3, "BHD": 3, "OMR": 3, "TND": 3,
		"INR": 2, "USD": 2, "EUR": 2, "AED": 2, "ZMW": 2, "SLL": 2}
	for cur, want := range cases {
		if got, ok := razorpay.Exponent(cur); !ok || got != want {
			t.Errorf("Exponent(%s) = %d, %v; want %d", cur, got, ok, want)
		}
	}
	for _, cur := range []string{"", "inr", "XYZ", "BTC", "MRO"} {
		if _, ok := razorpay.Exponent(cur); ok {
			t.Errorf("Exponent(%q) ok, want unknown", cur)
		}
	}
}

func TestFormatMinor(t *testing.T) {
	cases := []struct {
		minor int64
		exp   int
		want  string
	}{
		{1200000, 2, "12000.00"}, {-5, 2, "-0.05"}, {7, 0, "7"}, {1234, 3, "1.234"}, {0, 2, "0.00"},
		{5, 3, "0.005"}, {-100, 2, "-1.00"}, {100, 2, "1.00"}, {-7, 0, "-7"}, {12, -1, "12"},
		{math.MaxInt64, 2, "92233720368547758.07"}, {math.MinInt64, 2, "-92233720368547758.08"},
	}
	for _, tc := range cases {
		if got := razorpay.FormatMinor(tc.minor, tc.exp); got != tc.want {
			t.Errorf("FormatMinor(%d, %d) = %q, want %q", tc.minor, tc.exp, got, tc.want)
		}
	}
}

func TestAmountDecimal(t *testing.T) {
	cases := []struct {
		a    razorpay.Amount
		want string
	}{
		{razorpay.Amount{Minor: 250000, Currency: "INR"}, "2500.00"},
		{razorpay.Amount{Minor: 2500, Currency: "USD"}, "25.00"},
		{razorpay.Amount{Minor: 500, Currency: "JPY"}, "500"},
		{razorpay.Amount{Minor: 99990, Currency: "KWD"}, "99.990"},
	}
	for _, tc := range cases {
		got, err := tc.a.Decimal()
		if err != nil || got != tc.want {
			t.Errorf("%+v.Decimal() = %q, %v; want %q", tc.a, got, err, tc.want)
		}
	}
	if _, err := (razorpay.Amount{Minor: 1, Currency: "XYZ"}).Decimal(); err == nil {
		t.Error("unknown currency: want error")
	}
	if s := (razorpay.Amount{Minor: 118000, Currency: "INR"}).String(); s != "1180.00 INR" {
		t.Errorf("String = %q", s)
	}
}

func TestParseDecimal(t *testing.T) {
	ok := []struct {
		s    string
		exp  int
		want int64
	}{
		{"1000.0", 2, 100000}, {"10.12", 2, 1012}, {"1e3", 2, 100000}, {"-300", 2, -30000},
		{"0.000000000", 2, 0}, {"0", 0, 0}, {"-0.0", 2, 0}, {"10.120000000", 2, 1012},
		{"1.234", 3, 1234}, {"500", 0, 500}, {"500.0", 0, 500}, {"1E+2", 0, 100}, {"12500e-2", 2, 12500},
		{"+5", 2, 500}, {".5", 2, 50}, {"5.", 2, 500}, {"0e999999999", 2, 0}, {"007.50", 2, 750},
		{"92233720368547758.07", 2, math.MaxInt64}, {"-92233720368547758.08", 2, math.MinInt64},
		{"2131.25", 2, 213125}, {"10.125", 3, 10125},
	}
	for _, tc := range ok {
		got, err := razorpay.ParseDecimal(tc.s, tc.exp)
		if err != nil || got != tc.want {
			t.Errorf("ParseDecimal(%q, %d) = %d, %v; want %d", tc.s, tc.exp, got, err, tc.want)
		}
	}
	bad := []struct {
		s   string
		exp int
		why string
	}{
		{"0.000000001", 2, "fraction"}, {"10.125", 2, "fraction"}, {"0.5", 0, "fraction"}, {"1e-3", 2, "fraction"},
		{"1.0001", 3, "fraction"}, {"92233720368547758.08", 2, "range"}, {"1e18", 2, "range"},
		{"99999999999999999999", 0, "range"}, {"1e999999999", 2, "range"}, {"", 2, "decimal"}, {".", 2, "decimal"},
		{"-", 2, "decimal"}, {"1,000.00", 2, "decimal"}, {"NaN", 2, "decimal"}, {"Infinity", 2, "decimal"},
		{"1e", 2, "exponent"}, {"1e+", 2, "exponent"}, {" 1", 2, "decimal"}, {"0x10", 2, "decimal"}, {"1.2.3", 2, "decimal"},
		{"5", -1, "negative"},
	}
	for _, tc := range bad {
		got, err := razorpay.ParseDecimal(tc.s, tc.exp)
		if err == nil {
			t.Errorf("ParseDecimal(%q, %d) = %d, want error (%s)", tc.s, tc.exp, got, tc.why)
		} else if !strings.Contains(err.Error(), tc.why) {
			t.Errorf("ParseDecimal(%q, %d): error %q should mention %q", tc.s, tc.exp, err, tc.why)
		}
	}
}

func TestMoneyRoundTrip(t *testing.T) {
	minors := []int64{0, 1, -1, 5, 99, 100, 101, 118000, 213125, -30000, 999999999999, math.MaxInt64, math.MinInt64}
	for _, exp := range []int{0, 2, 3} {
		for _, m := range minors {
			s := razorpay.FormatMinor(m, exp)
			back, err := razorpay.ParseDecimal(s, exp)
			if err != nil || back != m {
				t.Errorf("exp %d: %d → %q → %d, %v", exp, m, s, back, err)
			}
		}
	}
	for _, cur := range []string{"INR", "USD", "JPY", "KWD"} {
		a := razorpay.Amount{Minor: 123456, Currency: cur}
		s, err := a.Decimal()
		if err != nil {
			t.Fatal(err)
		}
		exp, _ := razorpay.Exponent(cur)
		if back, err := razorpay.ParseDecimal(s, exp); err != nil || back != a.Minor {
			t.Errorf("%s: %q → %d, %v", cur, s, back, err)
		}
	}
}
