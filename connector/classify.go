package connector

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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

// classify decides what an error from ERPNext means. write is true for requests that change
// data (POST/PUT): only they can be ambiguous. Sources: spec/erpnext.md §2.1 (Frappe commits
// after the handler returns and rolls back on error, so a Frappe JSON error means nothing was
// written), §2.3 (status per exception), §8.2 (a gateway 502/504 page while the worker may still
// run and commit).
func classify(err error, write bool) (failure, time.Duration) {
	var te *frappe.TransportError
	if errors.As(err, &te) {
		if write && !te.BeforeSend {
			return failAmbiguous, 0
		}
		return failRetry, 0
	}
	var fe *frappe.Error
	if errors.As(err, &fe) {
		switch {
		case fe.Status == http.StatusUnauthorized || fe.Status == http.StatusForbidden:
			return failAuth, 0
		case fe.Status == http.StatusNotFound:
			return failNotFound, 0
		case fe.Status == http.StatusConflict:
			return failConflict, 0
		case fe.Status == http.StatusTooManyRequests:
			return failRetry, fe.RetryAfter
		case fe.Status >= 500:
			if write && fe.NonJSON {
				return failAmbiguous, 0
			}
			return failRetry, fe.RetryAfter
		case fe.ExcType == "TimestampMismatchError":
			return failRetry, 0
		case fe.Status == http.StatusRequestTimeout:
			return failRetry, 0
		}
		return failPark, 0
	}
	if errors.Is(err, context.DeadlineExceeded) && write {
		return failAmbiguous, 0
	}
	return failRetry, 0
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
