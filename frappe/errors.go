package frappe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/throttle"
)

// Error is every non-2xx answer from the site, decoded from Frappe's v1 error body
// (spec/erpnext.md §2.2): exc_type, _server_messages (a JSON string holding a list of JSON
// strings, each an object with "message"), _error_message and exception. Bodies that are not
// Frappe JSON errors (an nginx 502/504 page, werkzeug's HTML 404 for an unknown site, a
// redirect) give NonJSON = true and only Status and RetryAfter. Read it with errors.As.
// No field ever holds the API key or secret, even when the server echoes the request.
type Error struct {
	Method, Path string        // e.g. "POST", "/api/resource/Payment Entry" (unescaped, no query)
	Status       int           // HTTP status, e.g. 417
	ExcType      string        // exception class, e.g. "ValidationError"; "" for non-JSON bodies
	Messages     []string      // each _server_messages "message", HTML tags stripped, entities unescaped, in order
	ErrorMessage string        // _error_message (permission failures), tags stripped
	Exception    string        // the `exception` line, e.g. "frappe.exceptions.ValidationError: Cannot edit cancelled document"
	RetryAfter   time.Duration // from Retry-After (seconds or HTTP date) on 429 and 503, cut to Config.MaxRetryAfter on a throttled answer; on a 429 without it, the pause the client chose; else 0
	// RetryAfterAsked is the site's own Retry-After when it was longer than Config.MaxRetryAfter
	// (RetryAfter then holds the cap, the pause the client honoured); 0 otherwise.
	RetryAfterAsked time.Duration
	NonJSON         bool // the body was not a Frappe JSON error (proxy or werkzeug page)
}

// Error formats the error as "frappe: POST /api/resource/Payment Entry: 417 ValidationError:
// <Message()>" (the exception class is left out when unknown).
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "frappe: %s %s: %d", e.Method, e.Path, e.Status)
	if e.ExcType != "" {
		b.WriteString(" " + e.ExcType)
	}
	b.WriteString(": " + e.Message())
	return b.String()
}

// Message returns the most useful human text: the first of Messages, else ErrorMessage, else the
// text of Exception after its "module.ExceptionClass: " prefix (recorded 22-write-to-cancelled
// carries its text only there), else the HTTP status text.
func (e *Error) Message() string {
	for _, m := range e.Messages {
		if m != "" {
			return m
		}
	}
	if e.ErrorMessage != "" {
		return e.ErrorMessage
	}
	if text := exceptionText(e.Exception); text != "" {
		return text
	}
	if s := http.StatusText(e.Status); s != "" {
		return s
	}
	return "HTTP " + strconv.Itoa(e.Status)
}

// exceptionText returns what follows "dotted.ClassName: " in an exception line, tags stripped.
func exceptionText(exc string) string {
	head, rest, ok := strings.Cut(exc, ": ")
	if !ok || head == "" || strings.ContainsAny(head, " \t\n(") {
		return ""
	}
	return stripTags(rest)
}

// IsNotFound reports whether err is an *Error with Status 404 from Frappe itself
// (DoesNotExistError: unknown document or route). A 404 page that is not Frappe JSON — an
// unknown site name (spec/erpnext.md §2.3, recorded 34-unknown-host) — is a configuration
// fault, not a missing document, and does not count.
func IsNotFound(err error) bool {
	var fe *Error
	return errors.As(err, &fe) && fe.Status == http.StatusNotFound && !fe.NonJSON
}

// TransportError means the request got no HTTP answer: dial failure, timeout, reset, or the
// context ending. Timeout is true when the per-call deadline (Config.Timeout or the caller's
// ctx deadline) passed. BeforeSend is true only when no connection could be established (DNS
// or dial failure), so nothing reached the server; when it is false a write may still have
// been committed (spec/erpnext.md §2.1: Frappe commits after its handler returns).
type TransportError struct {
	Method, Path string // as in Error
	Err          error  // the underlying error (often a *url.Error)
	Timeout      bool
	BeforeSend   bool
}

// Error formats the error as "frappe: GET /api/resource/Sales Invoice: timeout: <cause>".
func (e *TransportError) Error() string {
	kind := "transport error"
	switch {
	case e.BeforeSend:
		kind = "connection failed"
	case e.Timeout:
		kind = "timeout"
	}
	cause := e.Err
	var ue *url.Error
	if errors.As(cause, &ue) && ue.Err != nil {
		cause = ue.Err // the url.Error text repeats method and URL
	}
	return fmt.Sprintf("frappe: %s %s: %s: %v", e.Method, e.Path, kind, cause)
}

// Unwrap returns the underlying error, so errors.Is(err, context.DeadlineExceeded) works.
func (e *TransportError) Unwrap() error { return e.Err }

func (c *Client) transportError(method, path string, err error) error {
	te := &TransportError{Method: method, Path: path, Err: redactedError{err, c.redact(err.Error())}}
	var ne net.Error
	te.Timeout = errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
	var op *net.OpError
	var dns *net.DNSError
	te.BeforeSend = errors.As(err, &dns) || (errors.As(err, &op) && (op.Op == "dial" || op.Op == "proxyconnect"))
	return te
}

// ThrottledError means the request was not sent: the site had asked the client to pause (a 429,
// or a 503 with Retry-After, answered to any call through the same Client) and the caller's
// context ended before the pause did, or its deadline falls before the pause ends (then the call
// returns at once instead of waiting in vain). Until is when the pause ends; Wait is how much of
// it was left when the call gave up (0 when it gave up waiting behind the probe that follows a
// pause); Err is the context's error, so errors.Is(err, context.Canceled) works. Classify gives
// ClassThrottled: nothing reached the site.
type ThrottledError struct {
	Method, Path string
	Until        time.Time
	Wait         time.Duration
	Err          error
}

// Error formats the error as "frappe: GET /api/resource/Sales Invoice: not sent, the site asked
// for a pause (3s left): context deadline exceeded".
func (e *ThrottledError) Error() string {
	return fmt.Sprintf("frappe: %s %s: not sent, the site asked for a pause (%s left): %v",
		e.Method, e.Path, e.Wait.Round(time.Millisecond), e.Err)
}

// Unwrap returns the context's error.
func (e *ThrottledError) Unwrap() error { return e.Err }

// pausedError turns the gate's refusal into a *ThrottledError.
func pausedError(k call, err error) error {
	te := &ThrottledError{Method: k.method, Path: k.path, Err: err}
	var p *throttle.Paused
	if errors.As(err, &p) {
		te.Err, te.Until = p.Err, p.Until
		te.Wait = max(time.Until(p.Until), 0)
	}
	return te
}

// redactedError keeps the original chain for errors.Is/As but prints redacted text.
type redactedError struct {
	err  error
	text string
}

// Error returns the redacted text.
func (r redactedError) Error() string { return r.text }

// Unwrap returns the original error.
func (r redactedError) Unwrap() error { return r.err }

// decodeError builds an *Error from a non-2xx answer.
func (c *Client) decodeError(method, path string, status int, header http.Header, body []byte) *Error {
	e := &Error{Method: method, Path: path, Status: status}
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		e.RetryAfter = throttle.ParseRetryAfter(header.Get("Retry-After"), time.Now())
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil || !isFrappeError(m) {
		e.NonJSON = true
		return e
	}
	e.ExcType = c.redact(jsonText(m["exc_type"]))
	e.Exception = c.redact(jsonText(m["exception"]))
	e.ErrorMessage = c.redact(stripTags(jsonText(m["_error_message"])))
	for _, msg := range serverMessages(m["_server_messages"]) {
		if msg = c.redact(stripTags(msg)); msg != "" {
			e.Messages = append(e.Messages, msg)
		}
	}
	return e
}

func isFrappeError(m map[string]json.RawMessage) bool {
	for _, k := range []string{"exc_type", "exception", "exc", "_server_messages", "_error_message"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// serverMessages decodes _server_messages: normally a JSON string holding a list of JSON strings,
// each an object with "message"; a list given directly and plain-text items are tolerated.
func serverMessages(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var outer string
	if json.Unmarshal(raw, &outer) == nil {
		raw = json.RawMessage(outer)
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []string
	for _, item := range items {
		var s string
		if json.Unmarshal(item, &s) == nil {
			item = json.RawMessage(s)
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(item, &obj) == nil {
			if msg, ok := obj["message"]; ok {
				out = append(out, jsonText(msg))
			}
			continue
		}
		out = append(out, s) // plain text item
	}
	return out
}

// jsonText returns a JSON string's value, or the compact text of any other JSON value ("" for
// null or missing). The result is valid UTF-8 (encoding/json lets invalid bytes through inside
// a raw value; they become U+FFFD), so it can be stored in any text column.
func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		raw = b.Bytes()
	}
	return strings.ToValidUTF8(string(raw), "\uFFFD")
}

// blockTags are the tags after which text continues as a separate phrase.
var blockTags = map[string]bool{"br": true, "p": true, "div": true, "li": true, "ul": true, "ol": true,
	"summary": true, "details": true, "tr": true, "td": true, "th": true, "table": true, "hr": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true}

// stripTags removes HTML tags (a block-level tag becomes a space), unescapes entities and
// collapses whitespace. A '<' not starting a tag is kept as text ("Amount <= 100"). Tags are
// removed until none is left, also where removing one joins another ("<<b>b>") or where an
// entity spelled one ("&lt;b&gt;"), so the result never holds markup a browser would render.
func stripTags(s string) string {
	if strings.ContainsAny(s, "<&") {
		s = html.UnescapeString(removeAllTags(s))
		if strings.IndexByte(s, '<') >= 0 {
			s = removeAllTags(s)
		}
	}
	return strings.Join(strings.Fields(s), " ")
}

// removeAllTags applies removeTags until nothing changes (each pass that changes s shortens it).
func removeAllTags(s string) string {
	for {
		t := removeTags(s)
		if t == s {
			return s
		}
		s = t
	}
}

// removeTags removes each "<x…>" run whose x starts a tag name, a block-level one leaving a space.
func removeTags(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '<' && i+1 < len(s) && isTagStart(s[i+1]) {
			if end := strings.IndexByte(s[i:], '>'); end > 0 {
				if blockTags[tagName(s[i+1:i+end])] {
					b.WriteByte(' ')
				}
				i += end + 1
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

func isTagStart(c byte) bool {
	return c == '/' || c == '!' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func tagName(t string) string {
	t = strings.TrimPrefix(t, "/")
	if i := strings.IndexAny(t, " \t\n/"); i >= 0 {
		t = t[:i]
	}
	return strings.ToLower(t)
}
