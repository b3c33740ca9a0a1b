package frappe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-resty/resty/v2"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/redact"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/throttle"
)

// DefaultTimeout is the per-call deadline used when Config.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// maxResponseBytes caps a response body read into memory (a full list of a large doctype
// stays well below it).
const maxResponseBytes = 64 << 20

// Config configures a Client.
type Config struct {
	URL       string        // site base URL, e.g. https://erp.example.com (a path prefix is kept)
	APIKey    string        // API key of the ERPNext user the connector acts as
	APISecret string        // its API secret; never appears in any error text
	Timeout   time.Duration // deadline per call, including reading the body; default 30s
	Host      string        // optional Host header (the Frappe site name) when URL points elsewhere
	// MaxRetryAfter caps the pause a 429 or 503's Retry-After may impose on every call of the
	// client; default throttle.DefaultMaxPause (5 min). A longer hint is honoured this long.
	MaxRetryAfter time.Duration
	// Transport is an optional round tripper (tests, custom TLS); default is a clone of
	// http.DefaultTransport.
	Transport http.RoundTripper
}

// Client talks to one Frappe site with token authentication
// (`Authorization: token <key>:<secret>`, spec/erpnext.md §1.2). It is safe for concurrent use.
//
// Every call through one Client shares one pace (see Throttle): after the site answers 429, or
// 503 with Retry-After, no call starts before the instant it named; the call that got the
// answer returns it as an *Error that Classify sorts as ClassThrottled. Share one Client
// between all workers of a process so that they pause together.
type Client struct {
	rc      *resty.Client
	base    string
	timeout time.Duration
	secrets []string // redacted from every error text
	gate    *throttle.Gate
}

// New checks cfg and returns a Client. It fails when URL is empty, not an absolute http(s) URL,
// carries user info, a query or a fragment, or when APIKey or APISecret is empty. The error text
// never contains the secret.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.URL)
	if cfg.URL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("frappe: Config.URL must be an absolute http(s) URL without credentials, query or fragment")
	}
	if cfg.APIKey == "" || cfg.APISecret == "" {
		return nil, errors.New("frappe: Config.APIKey and Config.APISecret are required")
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	transport := cfg.Transport
	if transport == nil {
		transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	// No cookie jar: Frappe sets Guest session cookies on every answer (recorded README item 12)
	// and token-authenticated calls must not send them back.
	rc := resty.NewWithClient(&http.Client{Transport: transport}).
		SetLogger(silentLogger{}).
		SetRetryCount(0).
		SetRedirectPolicy(resty.RedirectPolicyFunc(func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse // a redirect is answered as an *Error, never followed
		})).
		SetResponseBodyLimit(maxResponseBytes).
		SetHeader("Accept", "application/json").
		SetHeader("User-Agent", "razorpay-erpnext").
		SetHeader("Authorization", "token "+cfg.APIKey+":"+cfg.APISecret)
	if cfg.Host != "" {
		rc.SetHeader("Host", cfg.Host)
	}
	c := &Client{
		rc:      rc,
		base:    strings.TrimRight(u.String(), "/"),
		timeout: timeout,
		secrets: []string{cfg.APISecret},
		gate:    throttle.New(nil),
	}
	c.gate.SetMaxPause(cfg.MaxRetryAfter)
	if len(cfg.APIKey) >= 4 { // a shorter key would turn redaction into noise
		c.secrets = append(c.secrets, cfg.APIKey)
	}
	return c, nil
}

// call describes one request. path is the human form used in errors (unescaped, no query);
// rawPath the escaped form sent on the wire.
type call struct {
	method  string
	path    string
	rawPath string
	query   url.Values
	body    any    // JSON-encoded when non-nil
	key     string // envelope key to decode: "data" or "message"
	keyOpt  bool   // the key may be missing (methods returning None answer {})
	out     any
}

// do runs one request through the client's pace (waiting out a pause the site asked for) with
// the client deadline, and turns every failure into *Error, *ThrottledError, *TransportError or
// a plain error (bad arguments, undecodable 2xx body).
func (c *Client) do(ctx context.Context, k call) error {
	var body []byte
	if k.body != nil {
		b, err := json.Marshal(k.body)
		if err != nil {
			return fmt.Errorf("frappe: %s %s: encode body: %w", k.method, k.path, err)
		}
		body = b
	}
	tk, err := c.gate.Wait(ctx)
	if err != nil {
		return pausedError(k, err)
	}
	resp, err := c.send(ctx, k, body)
	if err != nil {
		outcome := throttle.Answered
		if ctx.Err() != nil {
			outcome = throttle.Abandoned
		}
		tk.Done(outcome, 0)
		if errors.Is(err, resty.ErrResponseBodyTooLarge) {
			return fmt.Errorf("frappe: %s %s: response body larger than %d bytes", k.method, k.path, maxResponseBytes)
		}
		return c.transportError(k.method, k.path, err)
	}
	status := resp.StatusCode()
	if status < 200 || status > 299 {
		e := c.decodeError(k.method, k.path, status, resp.Header(), resp.Body())
		if throttle.Asks(status, e.RetryAfter) {
			// The pause honoured: the site's Retry-After up to the cap, or for a 429 without
			// one the backoff the client chose.
			pause := tk.Done(throttle.Throttled, e.RetryAfter)
			if e.RetryAfter > pause {
				e.RetryAfterAsked = e.RetryAfter
			}
			e.RetryAfter = pause
			return e
		}
		tk.Done(throttle.Answered, 0)
		return e
	}
	tk.Done(throttle.Answered, 0)
	if k.out == nil {
		return nil
	}
	if err := decodeEnvelope(resp.Body(), k); err != nil {
		return &DecodeError{Method: k.method, Path: k.path, Status: status, Err: err}
	}
	return nil
}

// send makes the HTTP request with the client deadline.
func (c *Client) send(ctx context.Context, k call, body []byte) (*resty.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req := c.rc.R().SetContext(ctx)
	if len(k.query) > 0 {
		req.SetQueryParamsFromValues(k.query)
	}
	if body != nil {
		req.SetHeader("Content-Type", "application/json").SetBody(body)
	}
	return req.Execute(k.method, c.base+k.rawPath)
}

// ThrottleState is a snapshot of the client's shared pace, for metrics and the console: Until
// (no call starts before it; zero or past when open), Throttled (429s and 503s with
// Retry-After seen), Pauses, Waiting (calls blocked right now) and LastPause.
type ThrottleState = throttle.State

// Throttle returns the state of the client's shared pace.
func (c *Client) Throttle() ThrottleState { return c.gate.State() }

// DecodeError is a 2xx answer whose body could not be read (not JSON, no "data"/"message", a
// shape that does not fit). For a write the site did answer success, so the write may well have
// been committed: Classify treats it as ClassAmbiguous then, never as a refusal.
type DecodeError struct {
	Method, Path string
	Status       int
	Err          error
}

// Error is the decoding failure's text.
func (e *DecodeError) Error() string { return e.Err.Error() }

// Unwrap returns the decoding error.
func (e *DecodeError) Unwrap() error { return e.Err }

// decodeEnvelope decodes body[key] into out with UseNumber, so that numbers reaching an `any`
// become json.Number and never float64.
func decodeEnvelope(body []byte, k call) error {
	var env map[string]json.RawMessage
	if err := json.Unmarshal(body, &env); err != nil {
		return fmt.Errorf("frappe: %s %s: response is not a JSON object: %w", k.method, k.path, err)
	}
	raw, ok := env[k.key]
	if !ok {
		if k.keyOpt {
			return nil
		}
		return fmt.Errorf("frappe: %s %s: response has no %q", k.method, k.path, k.key)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(k.out); err != nil {
		return fmt.Errorf("frappe: %s %s: decode %q: %w", k.method, k.path, k.key, err)
	}
	return nil
}

// redact removes the API secret and key from text a server or the network stack produced,
// whole words only (internal/redact), so the text around them stays readable.
func (c *Client) redact(s string) string { return redact.Secrets(s, c.secrets...) }

// silentLogger keeps resty from writing anything: the caller logs, with its own redaction.
type silentLogger struct{}

// Errorf discards the message.
func (silentLogger) Errorf(string, ...any) {}

// Warnf discards the message.
func (silentLogger) Warnf(string, ...any) {}

// Debugf discards the message.
func (silentLogger) Debugf(string, ...any) {}
