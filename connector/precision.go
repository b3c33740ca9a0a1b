package connector

import "encoding/json"

// SitePrecision is the number of decimals the ERPNext site keeps for currency amounts. Frappe's
// default (currency_precision empty → 2 from number_format "#,##,###.##", recording
// 55-*); System Settings is unreadable to an Accounts user, so it is not read from the site.
const SitePrecision = 2

// CompanyCurrency is the base currency of a Razorpay (India) account and of the ERPNext
// company it books into: fee and tax are in INR paise (spec/razorpay.md §3.1).
const CompanyCurrency = "INR"

// OrZero is n as decimal text, "0" when absent: an amount ERPNext left out of a document.
func OrZero(n json.Number) string {
	if n == "" {
		return "0"
	}
	return n.String()
}
