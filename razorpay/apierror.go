package razorpay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
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
// page) leaves Code empty and puts up to 200 bytes of its text in Description. RetryAfter is
// read from a Retry-After header (seconds or HTTP date) and is 0 when absent (Razorpay documents
// none). No field ever holds the API key secret, even when the server echoes it. Read it with
// errors.As, or with IsNotFound, Retryable and IsAuthFault.
type APIError struct {
	Status      int
	Code        string
	Description string
	Field       string
	Source      string
	Step        string
	Reason      string
	RetryAfter  time.Duration
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
// APIError with status 429 or 5xx, or a TransportError (including the client's own timeout).
// Other 4xx answers, undecodable success bodies and cancelled caller contexts are permanent
// for that request.
func Retryable(err error) bool {
	var e *APIError
	if errors.As(err, &e) {
		return e.Status == http.StatusTooManyRequests || e.Status >= 500
	}
	var te *TransportError
	return errors.As(err, &te)
}

// IsAuthFault reports whether err is a 401 from Razorpay (wrong key id or secret): a
// configuration fault that should pause work rather than spend retries (DESIGN.md §4 step 7).
func IsAuthFault(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.Status == http.StatusUnauthorized
}

// decodeAPIError builds an *APIError from a non-2xx answer, removing every secret in redact.
func decodeAPIError(status int, header http.Header, body []byte, redact func(string) string) *APIError {
	e := &APIError{Status: status, RetryAfter: retryAfter(header.Get("Retry-After"))}
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
		text := strings.TrimSpace(string(body))
		if len(text) > 200 {
			text = text[:200]
		}
		e.Description = redact(text)
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

// retryAfter reads a Retry-After header: delay seconds or an HTTP date; 0 when absent or bad.
func retryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil {
		if n < 0 {
			return 0
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
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
