package razorpay_test

import (
	"errors"
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

func TestMoneyDecimal(t *testing.T) {
	cases := []struct {
		minor    int64
		currency string
		want     string
	}{
		{250000, "INR", "2500.00"},
		{2500, "USD", "25.00"},
		{500, "JPY", "500"},
		{99990, "KWD", "99.990"},
	}
	for _, tc := range cases {
		m, err := razorpay.NewMoney(tc.minor, tc.currency)
		if err != nil || m.Decimal() != tc.want || m.Minor() != tc.minor || m.Currency() != tc.currency {
			t.Errorf("NewMoney(%d, %s) = %q, %v; want %q", tc.minor, tc.currency, m.Decimal(), err, tc.want)
		}
	}
	if _, err := razorpay.NewMoney(1, "XYZ"); !errors.Is(err, razorpay.ErrUnknownCurrency) {
		t.Errorf("unknown currency: err = %v; want ErrUnknownCurrency", err)
	}
	if s := razorpay.INR(118000).String(); s != "INR 1180.00" {
		t.Errorf("String = %q", s)
	}
	if s := razorpay.MoneyString(118000, "XYZ"); s != "118000 minor units XYZ" {
		t.Errorf("MoneyString of an unknown currency = %q", s)
	}
	if m := (razorpay.Money{}); m.Decimal() != "" || m.String() != "" || m.Display() != "" {
		t.Errorf("the zero Money formats as %q %q %q; want nothing", m.Decimal(), m.String(), m.Display())
	}
}

func TestMoneyDisplay(t *testing.T) {
	for _, c := range []struct {
		minor    int64
		currency string
		want     string
	}{
		{1200000, "INR", "₹12,000.00"},
		{123456789, "INR", "₹12,34,567.89"}, // Indian grouping: lakh, crore
		{10000000000, "INR", "₹10,00,00,000.00"},
		{5, "INR", "₹0.05"},
		{-1249900, "INR", "−₹12,499.00"},
		{123456789, "USD", "USD 1,234,567.89"},
		{1234, "KWD", "KWD 1.234"},
		{7, "JPY", "JPY 7"},
		{42, "XXX", "42 minor units XXX"},
		// The demo's table (cmd/razorpay-erpnext), which wrote decimal text with a hyphen-minus.
		{120000000, "INR", "₹12,00,000.00"},
		{0, "INR", "₹0.00"},
		{-500, "INR", "−₹5.00"},
		{12345678910, "INR", "₹12,34,56,789.10"},
	} {
		if got := razorpay.MoneyDisplay(c.minor, c.currency); got != c.want {
			t.Errorf("MoneyDisplay(%d, %s) = %q; want %q", c.minor, c.currency, got, c.want)
		}
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
		a, err := razorpay.NewMoney(123456, cur)
		if err != nil {
			t.Fatal(err)
		}
		s := a.Decimal()
		if back, err := razorpay.ParseDecimal(s, a.Exponent()); err != nil || back != a.Minor() {
			t.Errorf("%s: %q → %d, %v", cur, s, back, err)
		}
	}
}
