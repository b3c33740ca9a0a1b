// Package razorpay holds what the connector needs from Razorpay: webhook signature
// verification, lenient decoding of webhook bodies into typed entities, money as integer minor
// units with the currency exponent table, and a thin REST client (Client) for the read calls
// reconciliation uses.
//
// Sources: shared/spec/razorpay.md §1.3 (signature), §2 (envelope), §3 (entities and their
// typing quirks), §4 (currencies), §5 (REST API and its errors). The package imports nothing
// internal.
package razorpay
