package frappe

import (
	"errors"
	"net/http"
	"time"
)

// Class is what a caller should do with a failed call (spec/erpnext.md §2.3, §8; DESIGN.md §4
// step 7). Classify returns it.
type Class int

// The classes, from "try again" to "give up on this item".
const (
	ClassNone      Class = iota // no error
	ClassRetry                  // nothing was committed: retry later, spending an attempt (JSON 5xx, TimestampMismatchError, connection failures, failed reads)
	ClassAmbiguous              // a write may have committed although it failed: reconcile (look the record up) before retrying
	ClassAuth                   // configuration fault (401, 403, unknown site, redirect): pause and alert, do not spend attempts
	ClassNotFound               // 404 DoesNotExistError from Frappe: the document or route does not exist
	ClassConflict               // 409 DuplicateEntryError: the name exists (for a client-named insert: probably our own earlier write)
	ClassRejected               // the site refused the request (417 validation and other 4xx): park with Message(); retrying cannot help
	ClassThrottled              // the site asked for a slower pace (429, 503 with Retry-After) or the call waited out such a pause in vain: nothing was done; try again after RetryAfter without spending an attempt
)

// String returns the class name, e.g. "retry".
func (c Class) String() string {
	switch c {
	case ClassNone:
		return "none"
	case ClassRetry:
		return "retry"
	case ClassAmbiguous:
		return "ambiguous"
	case ClassAuth:
		return "auth"
	case ClassNotFound:
		return "not found"
	case ClassConflict:
		return "conflict"
	case ClassRejected:
		return "rejected"
	case ClassThrottled:
		return "throttled"
	}
	return "unknown"
}

// Classify sorts an error returned by a Client call; write tells whether the call could have
// changed the site (POST/PUT/DELETE, or a whitelisted method that writes). Rules:
//
//   - *TransportError: BeforeSend → ClassRetry; otherwise a write is ClassAmbiguous (Frappe
//     commits after its handler returns, spec §2.1, so a timeout or reset can hide a commit) and a
//     read ClassRetry.
//   - *Error, not Frappe JSON: 502/503/504 and other 5xx pages come from a proxy after the worker
//     may have committed (spec §8.2) → ClassAmbiguous for a write, ClassRetry for a read; an
//     HTML 404 (unknown site, recording 34-unknown-host) or a redirect → ClassAuth.
//   - *ThrottledError (the call was never sent) → ClassThrottled.
//   - *Error 429 → ClassThrottled: Frappe's limiter refuses in before_request, before any
//     handler runs (spec §8.1, frappe/rate_limiter.py), and a proxy's 429 never reached the site.
//     A 503 with Retry-After → ClassThrottled too (Frappe's own 503 SessionStopped/InReadOnlyMode
//     runs nothing), except a proxy page answering a write, which stays ClassAmbiguous.
//   - *Error from Frappe: 401/403 → ClassAuth; 404 → ClassNotFound; 409 → ClassConflict;
//     TimestampMismatchError (417) → ClassRetry after
//     re-reading the document (spec §8.3); any JSON 5xx (QueryDeadlockError, QueryTimeoutError,
//     … Frappe rolled the transaction back, spec §2.1) → ClassRetry; other 4xx → ClassRejected.
//   - *DecodeError (a 2xx answer that cannot be read): a write is ClassAmbiguous (the site said
//     success), a read ClassRetry.
//   - Any other error (bad arguments) → ClassRejected.
func Classify(err error, write bool) Class {
	if err == nil {
		return ClassNone
	}
	var te *TransportError
	if errors.As(err, &te) {
		if te.BeforeSend || !write {
			return ClassRetry
		}
		return ClassAmbiguous
	}
	var thr *ThrottledError
	if errors.As(err, &thr) {
		return ClassThrottled
	}
	var de *DecodeError
	if errors.As(err, &de) {
		if write {
			return ClassAmbiguous // the site answered 2xx: the write may be committed
		}
		return ClassRetry
	}
	var fe *Error
	if !errors.As(err, &fe) {
		return ClassRejected
	}
	if fe.Status == http.StatusTooManyRequests || (fe.Status == http.StatusServiceUnavailable && fe.RetryAfter > 0 && !(fe.NonJSON && write)) {
		return ClassThrottled
	}
	if fe.NonJSON {
		switch {
		case fe.Status >= 500:
			if write {
				return ClassAmbiguous
			}
			return ClassRetry
		case fe.Status == http.StatusUnauthorized || fe.Status == http.StatusForbidden || fe.Status == http.StatusNotFound || fe.Status < 400:
			return ClassAuth
		}
		return ClassRejected
	}
	switch {
	case fe.Status == http.StatusUnauthorized || fe.Status == http.StatusForbidden:
		return ClassAuth
	case fe.Status == http.StatusNotFound:
		return ClassNotFound
	case fe.Status == http.StatusConflict:
		return ClassConflict
	case fe.ExcType == "TimestampMismatchError":
		return ClassRetry
	case fe.Status >= 500:
		return ClassRetry
	}
	return ClassRejected
}

// RetryAfter returns how long to wait before trying again: for a 429 or 503 *Error the site's
// Retry-After (spec §8.1; for a 429 without one, the backoff the client applied: 1 s doubling to
// 32 s), for a *ThrottledError what was left of the pause; 0 when err carries no such hint.
// Calls through the same Client wait out the pause by themselves, so a caller that snoozes its
// work for RetryAfter never sends inside it.
func RetryAfter(err error) time.Duration {
	var thr *ThrottledError
	if errors.As(err, &thr) {
		return thr.Wait
	}
	var fe *Error
	if errors.As(err, &fe) {
		return fe.RetryAfter
	}
	return 0
}
