package erpnextsim

import "strings"

var ones = []string{"Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten",
	"Eleven", "Twelve", "Thirteen", "Fourteen", "Fifteen", "Sixteen", "Seventeen", "Eighteen", "Nineteen"}
var tens = []string{"", "", "Twenty", "Thirty", "Forty", "Fifty", "Sixty", "Seventy", "Eighty", "Ninety"}

// below1000 spells 0 < n < 1000 ("Nine Hundred And Seventy Six").
func below1000(n int64) string {
	var parts []string
	if n >= 100 {
		parts = append(parts, ones[n/100]+" Hundred")
		n %= 100
		if n > 0 {
			parts = append(parts, "And")
		}
	}
	switch {
	case n >= 20:
		w := tens[n/10]
		if n%10 != 0 {
			w += " " + ones[n%10]
		}
		parts = append(parts, w)
	case n > 0:
		parts = append(parts, ones[n])
	}
	return strings.Join(parts, " ")
}

// indianWords spells n with the Indian grouping (crore, lakh, thousand).
func indianWords(n int64) string {
	if n == 0 {
		return "Zero"
	}
	var parts []string
	for _, g := range []struct {
		div  int64
		name string
	}{{10000000, "Crore"}, {100000, "Lakh"}, {1000, "Thousand"}} {
		if n >= g.div {
			parts = append(parts, indianWords(n/g.div)+" "+g.name)
			n %= g.div
		}
	}
	if n > 0 {
		parts = append(parts, below1000(n))
	}
	return strings.Join(parts, ", ") // num2words separates the groups with commas (recording 33-*)
}

// moneyInWords renders an amount like Frappe's money_in_words for INR:
// "INR Nine Hundred And Seventy Six and Forty Paisa only." (recording 17-*).
func moneyInWords(d dec, currency string) string {
	d = d.round(2)
	neg := d < 0
	d = d.abs()
	main := int64(d / nano)
	frac := int64(d%nano) / (nano / 100)
	fraction := "Cent"
	if currency == "INR" {
		fraction = "Paisa"
	}
	out := currency + " "
	if neg {
		out += "Minus "
	}
	if main == 0 && frac > 0 {
		out += indianWords(frac) + " " + fraction
	} else {
		out += indianWords(main)
		if frac > 0 {
			out += " and " + indianWords(frac) + " " + fraction
		}
	}
	return out + " only."
}
