package razorpay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/throttle"
)

// Error codes Razorpay puts in the error envelope (spec/razorpay.md §5.3).
const (
	CodeBadRequest = "BAD_REQUEST_ERROR"
	CodeGateway    = "GATEWAY_ERROR"
	CodeServer     = "SERVER_ERROR"
)

// APIError is every non-2xx answer of the Razorpay REST API, decoded from the error envelope
// {"error": {"code", "description", "source", "step", "reason", "metadata", "field"}}
// (spec/razorpay.md §5.3). Status is the HTTP status; Field is set only for input-validation
// errors; Source, Step and Reason are often "NA". A body that is not the envelope (a proxy
// page) leaves Code empty and puts up to 200 bytes of its text in Description (invalid UTF-8
// replaced by U+FFFD). RetryAfter is
// read from a Retry-After header (seconds or HTTP date), cut to ClientConfig.MaxRetryAfter on a
// throttled answer; on a 429 without one (Razorpay
// documents none) it is the pause the client chose; otherwise 0. No field ever holds the API
// key secret, even when the server echoes it. Read it with errors.As, or with IsThrottled,
// IsNotFound, Retryable and IsAuthFault.
type APIError struct {
	Status      int
	Code        string
	Description string
	Field       string
	Source      string
	Step        string
	Reason      string
	RetryAfter  time.Duration
	// RetryAfterAsked is Razorpay's own Retry-After when it was longer than
	// ClientConfig.MaxRetryAfter (RetryAfter then holds the cap the client honoured); else 0.
	RetryAfterAsked time.Duration
}

// Error formats the error as "razorpay API: 400 BAD_REQUEST_ERROR: The id provided does not
// exist (field: id)". The client wraps it with the method and path of the call.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "razorpay API: %d", e.Status)
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	desc := e.Description
	if desc == "" {
		desc = http.StatusText(e.Status)
	}
	if desc != "" {
		b.WriteString(": " + desc)
	}
	if e.Field != "" {
		b.WriteString(" (field: " + e.Field + ")")
	}
	return b.String()
}

// TransportError is a call that got no HTTP answer: connection refused or reset, TLS failure,
// or the client's own deadline (ClientConfig.Timeout) passing. It is retryable. A call whose
// caller context was cancelled or ran out returns the context error instead, wrapped, and is
// not a TransportError. Err's text never holds the key secret.
type TransportError struct {
	Err     error
	Timeout bool // the client's own deadline passed
}

// Error formats the error as "razorpay transport: <cause>".
func (e *TransportError) Error() string { return "razorpay transport: " + e.Err.Error() }

// Unwrap returns the cause.
func (e *TransportError) Unwrap() error { return e.Err }

// ThrottledError is a call that was not sent: Razorpay had asked the client to pause (a 429, or
// a 503 with Retry-After, answered to any call through the same Client) and the caller's context
// ended before the pause did, or its deadline falls before the pause ends (then the call returns
// at once). Until is when the pause ends; Wait is how much of it was left (0 when the call gave
// up waiting behind the probe that follows a pause); Err is the context's error, so
// errors.Is(err, context.Canceled) works. IsThrottled and Retryable are true for it.
type ThrottledError struct {
	Until time.Time
	Wait  time.Duration
	Err   error
}

// Error formats the error as "razorpay: not sent, Razorpay asked for a pause (3s left): context
// canceled".
func (e *ThrottledError) Error() string {
	return fmt.Sprintf("razorpay: not sent, Razorpay asked for a pause (%s left): %v", e.Wait.Round(time.Millisecond), e.Err)
}

// Unwrap returns the context's error.
func (e *ThrottledError) Unwrap() error { return e.Err }

// pausedError turns the gate's refusal into a *ThrottledError.
func pausedError(err error) error {
	te := &ThrottledError{Err: err}
	var p *throttle.Paused
	if errors.As(err, &p) {
		te.Err, te.Until = p.Err, p.Until
		te.Wait = max(time.Until(p.Until), 0)
	}
	return te
}

// IsThrottled reports whether err means "not now" rather than a failure of the request: an
// *APIError 429 (Razorpay's "Too many requests", spec/razorpay.md §5.3) or 503 with Retry-After,
// or a *ThrottledError. Nothing was done at Razorpay; try again after RetryAfter(err) without
// spending an attempt — calls through the same Client wait out the pause by themselves.
func IsThrottled(err error) bool {
	var te *ThrottledError
	if errors.As(err, &te) {
		return true
	}
	var e *APIError
	return errors.As(err, &e) && throttle.Asks(e.Status, e.RetryAfter)
}

// RetryAfter returns how long to wait before trying again after a throttled call: the
// Retry-After of a 429 or 503 *APIError (or, for a 429 without one, the client's backoff: 1 s
// doubling to 32 s), what was left of the pause for a *ThrottledError; 0 otherwise.
func RetryAfter(err error) time.Duration {
	var te *ThrottledError
	if errors.As(err, &te) {
		return te.Wait
	}
	var e *APIError
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}

// IsNotFound reports whether err carries Razorpay's answer for an unknown id: HTTP 400 (not
// 404) with code BAD_REQUEST_ERROR and "The id provided does not exist" (spec/razorpay.md
// §5.2, §5.3). A 404 with the same text is accepted too. A bad path ("The requested URL was
// not found on the server.") is not a missing entity and does not count.
func IsNotFound(err error) bool {
	var e *APIError
	if !errors.As(err, &e) {
		return false
	}
	return (e.Status == http.StatusBadRequest || e.Status == http.StatusNotFound) &&
		(e.Code == CodeBadRequest || e.Code == "") &&
		strings.Contains(strings.ToLower(e.Description), "does not exist")
}

// Retryable reports whether the same request may succeed later (spec/razorpay.md §5.3): an
// APIError with status 429 or 5xx, a TransportError (including the client's own timeout), or a
// ThrottledError. Other 4xx answers, undecodable success bodies and cancelled caller contexts
// are permanent for that request. Check IsThrottled first: a throttled call should not count as
// a failed attempt.
func Retryable(err error) bool {
	var e *APIError
	if errors.As(err, &e) {
		return e.Status == http.StatusTooManyRequests || e.Status >= 500
	}
	var te *TransportError
	var thr *ThrottledError
	return errors.As(err, &te) || errors.As(err, &thr)
}

// IsAuthFault reports whether err is a 401 from Razorpay (wrong key id or secret): a
// configuration fault that should pause work rather than spend retries (DESIGN.md §4 step 7).
func IsAuthFault(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.Status == http.StatusUnauthorized
}

// decodeAPIError builds an *APIError from a non-2xx answer, removing every secret in redact.
func decodeAPIError(status int, header http.Header, body []byte, redact func(string) string) *APIError {
	e := &APIError{Status: status, RetryAfter: throttle.ParseRetryAfter(header.Get("Retry-After"), time.Now())}
	var env struct {
		Error *struct {
			Code        json.RawMessage `json:"code"`
			Description json.RawMessage `json:"description"`
			Field       json.RawMessage `json:"field"`
			Source      json.RawMessage `json:"source"`
			Step        json.RawMessage `json:"step"`
			Reason      json.RawMessage `json:"reason"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Error == nil {
		// Redact before cutting, so that a cut cannot leave part of a secret behind; a proxy page
		// may be in any encoding and the cut may split a character: keep the text valid UTF-8 so
		// it can be stored anywhere.
		text := redact(strings.TrimSpace(string(body)))
		if len(text) > 200 {
			text = text[:200]
		}
		e.Description = strings.ToValidUTF8(text, "\uFFFD")
		return e
	}
	f := func(raw json.RawMessage) string {
		s, _ := valueText(raw)
		return redact(s)
	}
	e.Code = f(env.Error.Code)
	e.Description = f(env.Error.Description)
	e.Field = f(env.Error.Field)
	e.Source = f(env.Error.Source)
	e.Step = f(env.Error.Step)
	e.Reason = f(env.Error.Reason)
	return e
}

// transportError classifies a failure that produced no HTTP answer. A cancelled or expired
// caller context is returned as the context's error (not retryable); the client's own deadline
// is a TransportError with Timeout set.
func transportError(parent context.Context, err error, redact func(string) string) error {
	if perr := parent.Err(); perr != nil {
		return perr
	}
	timeout := errors.Is(err, context.DeadlineExceeded)
	var te interface{ Timeout() bool }
	if errors.As(err, &te) && te.Timeout() {
		timeout = true
	}
	return &TransportError{Err: errors.New(redact(err.Error())), Timeout: timeout}
}
