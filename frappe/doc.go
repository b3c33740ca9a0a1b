// Package frappe is a client for the Frappe REST API v1 as served by ERPNext v15
// (shared/spec/erpnext.md §1–§2, §8; recorded exchanges in shared/reference/erpnext-recorded):
// resources (/api/resource/{DocType}[/{name}]), whitelisted methods (/api/method/{dotted.path}),
// and typed errors decoded from Frappe's error bodies. It also holds read-side types for the
// ERPNext doctypes the connector uses.
//
// The client never retries (the caller owns retries and keeps them in its database), never
// follows redirects, sends no cookies, and keeps the API secret out of every error it returns.
// Amounts are decoded as json.Number, never through float64. The package imports nothing
// internal.
package frappe
