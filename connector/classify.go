package connector

import (
	"errors"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
)

// failure is the connector's one classification of an outbound failure (STYLE.md "classify
// every outbound failure once").
type failure int

const (
	failRetry     failure = iota // not done; safe to try again after a backoff
	failAmbiguous                // a write that may have been committed (timeout, reset, 502/504 page)
	failAuth                     // 401/403: a configuration fault; pause, spend no attempt
	failNotFound                 // 404
	failConflict                 // 409 DuplicateEntryError
	failPark                     // ERPNext refused the request for a business reason; a person decides
)

// classify decides what an error from ERPNext means for the booking, following the client's
// one classification (frappe.Classify: spec/erpnext.md §2.1 — Frappe commits after its handler
// returns and rolls back on error, so a Frappe JSON error means nothing was written; §2.3 —
// status per exception; §8.2 — a gateway 502/504 page while the worker may still commit).
// write is true for requests that change data: only they can be ambiguous.
func classify(err error, write bool) (failure, time.Duration) {
	switch frappe.Classify(err, write) {
	case frappe.ClassAmbiguous:
		return failAmbiguous, 0
	case frappe.ClassAuth:
		return failAuth, 0
	case frappe.ClassNotFound:
		return failNotFound, 0
	case frappe.ClassConflict:
		return failConflict, 0
	case frappe.ClassRejected:
		return failPark, 0
	}
	return failRetry, frappe.RetryAfter(err)
}

// reason is the text kept as last_error: ERPNext's own message (tags stripped) when there is
// one, else the error text. Secrets never reach it: frappe.Error carries no request headers.
func reason(err error) string {
	var fe *frappe.Error
	if errors.As(err, &fe) {
		return fmt.Sprintf("ERPNext %d %s: %s", fe.Status, fe.ExcType, fe.Message())
	}
	return err.Error()
}
