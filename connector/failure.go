package connector

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// FailureKind is what a failed call to ERPNext or Razorpay means for the work that made it
// (STYLE.md "classify every outbound failure once").
type FailureKind int

// The kinds, from "try again" to "give up on this item".
const (
	// FailRetry: nothing was done; try again after a backoff, spending an attempt.
	FailRetry FailureKind = iota
	// FailThrottled: the service asked for a slower pace (429, 503 with Retry-After) and nothing
	// was done; try again after RetryAfter without spending an attempt (settle).
	FailThrottled
	// FailAmbiguous: a write that may have been committed (timeout, reset, 502/504 page after
	// the request was sent, spec/erpnext.md §8.2): keep the claim until its fence, then look up.
	FailAmbiguous
	// FailAuth: 401/403, a configuration fault: pause all work and spend no attempt.
	FailAuth
	// FailNotFound: the document or route does not exist (ERPNext 404, Razorpay "does not exist").
	FailNotFound
	// FailConflict: ERPNext 409 DuplicateEntryError (a client-supplied name exists).
	FailConflict
	// FailRejected: the service refused the request for a reason a retry cannot change
	// (ERPNext 417 ValidationError and other 4xx, Razorpay 400): park with its message.
	FailRejected
	// FailCanceled: the caller's context was cancelled (shutdown): not the event's failure.
	FailCanceled
)

// The systems a Failure comes from.
const (
	SystemERPNext  = "ERPNext"
	SystemRazorpay = "Razorpay"
)

// Failure is an error of ERPNext or Razorpay as the client edge classified it, once: every call
// through the client edge (connector/edge) returns its error wrapped in a *Failure. Kind
// drives the outcome (settle, outcome.go) and reconcile's retries; Class labels the
// *_request_errors_total metrics. errors.As still reaches the client's own error
// (*frappe.Error, *razorpay.APIError, …) through Unwrap.
type Failure struct {
	System     string        // SystemERPNext or SystemRazorpay
	Kind       FailureKind   // what the failure means
	Class      string        // metrics label: transport, ambiguous, auth, not_found, conflict, rate_limited, server, rejected, retry, canceled, other
	RetryAfter time.Duration // the service's own hint (Retry-After) up to the client's cap (max_retry_after), 0 when it gave none
	Asked      time.Duration // the service's own Retry-After when it was longer than the cap (RetryAfter is the cap then); else 0
	Err        error         // the client's error
}

// Error is the client's error text.
func (f *Failure) Error() string { return f.Err.Error() }

// Unwrap returns the client's error.
func (f *Failure) Unwrap() error { return f.Err }

// FailureOf returns the *Failure in err's chain, nil when err did not come from a client call.
func FailureOf(err error) *Failure {
	var f *Failure
	if errors.As(err, &f) {
		return f
	}
	return nil
}

// What a Failure means for the work that met it, asked of the Failure rather than re-derived
// from its Kind at each use. Each is false for a nil *Failure (an error not from a client).

// Retryable reports whether nothing was done and the same call may succeed later: a transient
// failure (FailRetry) or a slower pace asked for (FailThrottled).
func (f *Failure) Retryable() bool {
	return f != nil && (f.Kind == FailRetry || f.Kind == FailThrottled)
}

// Counted reports whether the failure spends one of the event's attempts (worker.max_attempts):
// a transient failure and an ambiguous write do; a slower pace, a refusal of the credentials, a
// shutdown and the final failures (which park) do not.
func (f *Failure) Counted() bool { return f != nil && (f.Kind == FailRetry || f.Kind == FailAmbiguous) }

// PausesWork reports whether the failure is a configuration fault (FailAuth: 401/403, Razorpay
// refusing the keys) that pauses all work until a call to its System succeeds.
func (f *Failure) PausesWork() bool { return f != nil && f.Kind == FailAuth }

// Final reports whether no retry can change the answer: the service refused the request
// (FailRejected), the document does not exist (FailNotFound) or its name is taken (FailConflict).
func (f *Failure) Final() bool {
	return f != nil && (f.Kind == FailRejected || f.Kind == FailNotFound || f.Kind == FailConflict)
}

// MayHaveWritten reports whether a write may have been committed though it failed
// (FailAmbiguous): the claim is kept until its fence, then the document is looked up.
func (f *Failure) MayHaveWritten() bool { return f != nil && f.Kind == FailAmbiguous }

// Interrupted reports whether the caller's context was cancelled (FailCanceled, a shutdown):
// not the work's failure.
func (f *Failure) Interrupted() bool { return f != nil && f.Kind == FailCanceled }

// Reason is the text kept as last_error: ERPNext's own message (tags stripped) when there is
// one, else the error text. Secrets never reach it: neither client's errors carry request
// headers.
func (f *Failure) Reason() string {
	var fe *frappe.Error
	if errors.As(f.Err, &fe) {
		return fmt.Sprintf("ERPNext %d %s: %s", fe.Status, fe.ExcType, fe.Message())
	}
	return f.Err.Error()
}

// erpnextMessage finds what reason keeps of an ERPNext error: "ERPNext 417 ValidationError: …".
var erpnextMessage = regexp.MustCompile(`(^|[^A-Za-z])ERPNext [1-5][0-9][0-9] `)

// QuotesERPNext reports whether lastError (an inbox row's LastError) holds ERPNext's own
// answer to a call — "ERPNext <status> <exception>: <its message>", as the worker keeps it —
// rather than only the connector's own reason (e.g. "no invoice matched: …").
func QuotesERPNext(lastError string) bool { return erpnextMessage.MatchString(lastError) }

// Reason is the text kept as last_error for an error err of ERPNext or Razorpay: ERPNext's own
// message (tags stripped) when there is one, else the error text; never a secret.
func Reason(err error) string {
	if f := FailureOf(err); f != nil {
		return f.Reason()
	}
	return (&Failure{Err: err}).Reason()
}

// parkReason is reason without the Razorpay client's "razorpay …: " prefix, which a person
// reading a parked event does not need.
func (f *Failure) parkReason() string {
	msg := f.Reason()
	if f.System == SystemRazorpay {
		if i := strings.Index(msg, ": "); i > 0 && strings.HasPrefix(msg, "razorpay") {
			msg = msg[i+2:]
		}
	}
	return msg
}

// PauseReason is why a configuration fault paused all work (/readyz shows it).
func (f *Failure) PauseReason() string {
	if f.System == SystemRazorpay {
		return "Razorpay refused the API keys: " + f.Err.Error()
	}
	return fmt.Sprintf("ERPNext refused the API credentials (%s)", f.Reason())
}

// ClassifyERPNext classifies an error of a Frappe call following the client's own rules
// (frappe.Classify: spec/erpnext.md §2.1 — Frappe commits after its handler returns and rolls
// back on error, so a Frappe JSON error means nothing was written; §2.3 — status per
// exception; §8.2 — a gateway 502/504 page while the worker may still commit). write is true
// for calls that can change the site: only they can be ambiguous.
func ClassifyERPNext(err error, write bool) *Failure {
	f := &Failure{System: SystemERPNext, Err: err, RetryAfter: frappe.RetryAfter(err)}
	if fe := (*frappe.Error)(nil); errors.As(err, &fe) {
		f.Asked = fe.RetryAfterAsked
	}
	switch {
	case errors.Is(err, context.Canceled):
		f.Kind = FailCanceled
	default:
		f.Kind = map[frappe.Class]FailureKind{
			frappe.ClassAmbiguous: FailAmbiguous, frappe.ClassAuth: FailAuth, frappe.ClassNotFound: FailNotFound,
			frappe.ClassConflict: FailConflict, frappe.ClassRejected: FailRejected, frappe.ClassThrottled: FailThrottled,
		}[frappe.Classify(err, write)] // ClassRetry (and anything new) → FailRetry, the zero value
	}
	f.Class = erpClass(err, write, f.Kind)
	return f
}

// erpClass is the metrics label of an ERPNext failure.
func erpClass(err error, write bool, kind FailureKind) string {
	var fe *frappe.Error
	if errors.As(err, &fe) {
		switch {
		case fe.Status == 429:
			return "rate_limited"
		case fe.Status >= 500 && !(write && fe.NonJSON):
			return "server"
		}
	}
	var te *frappe.TransportError
	if errors.As(err, &te) && (!write || te.BeforeSend) {
		return "transport"
	}
	return kindLabels[kind]
}

var kindLabels = map[FailureKind]string{FailRetry: "retry", FailThrottled: "retry", FailAmbiguous: "ambiguous",
	FailAuth: "auth", FailNotFound: "not_found", FailConflict: "conflict", FailRejected: "rejected", FailCanceled: "canceled"}

// ClassifyRazorpay classifies an error of a Razorpay call (spec/razorpay.md §5.3): 401 is a
// configuration fault, 429, 5xx and transport errors may succeed later, anything else is
// permanent for that request.
func ClassifyRazorpay(err error) *Failure {
	f := &Failure{System: SystemRazorpay, Err: err, RetryAfter: razorpay.RetryAfter(err)}
	if ae := (*razorpay.APIError)(nil); errors.As(err, &ae) {
		f.Asked = ae.RetryAfterAsked
	}
	switch {
	case errors.Is(err, context.Canceled):
		f.Kind = FailCanceled
	case razorpay.IsAuthFault(err):
		f.Kind = FailAuth
	case razorpay.IsThrottled(err):
		f.Kind = FailThrottled
	case razorpay.Retryable(err):
		f.Kind = FailRetry
	case razorpay.IsNotFound(err):
		f.Kind = FailNotFound
	default:
		f.Kind = FailRejected
	}
	f.Class = razorpayClass(err)
	return f
}

// razorpayClass is the metrics label of a Razorpay failure.
func razorpayClass(err error) string {
	var ae *razorpay.APIError
	var te *razorpay.TransportError
	switch {
	case errors.As(err, &te):
		return "transport"
	case razorpay.IsAuthFault(err):
		return "auth"
	case razorpay.IsNotFound(err):
		return "not_found"
	case errors.As(err, &ae) && ae.Status == 429:
		return "rate_limited"
	case errors.As(err, &ae) && ae.Status >= 500:
		return "server"
	case errors.As(err, &ae):
		return "rejected"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return "other"
}
