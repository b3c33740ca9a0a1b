package razorpay

import (
	"context"
	"encoding/base64"
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

// DefaultBaseURL is the Razorpay API host used when ClientConfig.BaseURL is empty
// (spec/razorpay.md §5.1); paths add the /v1 prefix.
const DefaultBaseURL = "https://api.razorpay.com"

// DefaultTimeout is the per-call deadline used when ClientConfig.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// PageSize is the count the list calls ask for: the maximum Razorpay allows for payments and
// refunds (spec/razorpay.md §5.1).
const PageSize = 100

// maxResponseBytes caps a response body read into memory (a page of 100 payments is far less).
const maxResponseBytes = 32 << 20

// ClientConfig configures a Client.
type ClientConfig struct {
	BaseURL   string        // e.g. https://api.razorpay.com (default); a path prefix is kept
	KeyID     string        // API key id, rzp_test_… or rzp_live_…
	KeySecret string        // API key secret; never appears in any error text
	Timeout   time.Duration // deadline per call, including reading the body; default 30s
	// MaxRetryAfter caps the pause a 429 or 503's Retry-After may impose on every call of the
	// client; default throttle.DefaultMaxPause (5 min). A longer hint is honoured this long.
	MaxRetryAfter time.Duration
	// Transport is an optional round tripper (tests, custom TLS); default is a clone of
	// http.DefaultTransport.
	Transport http.RoundTripper
}

// Client is a thin client of the Razorpay REST API subset the connector uses for
// reconciliation (spec/razorpay.md §5): HTTP Basic auth with the key id and secret, JSON,
// lenient entity decoding. It never retries by itself (callers own retries, DESIGN.md §4 step 7)
// and is safe for concurrent use.
//
// Every method returns, on failure, an error wrapping an *APIError (non-2xx answer), a
// *TransportError (no answer, or the client's own deadline), a *ThrottledError (not sent: a
// pause Razorpay asked for outlasted the caller's context), the caller's context error, or a
// plain error (bad argument, undecodable 2xx body). Classify with IsThrottled, IsNotFound,
// Retryable and IsAuthFault.
//
// Every call through one Client shares one pace (see Throttle): after a 429 (or a 503 with
// Retry-After) no call starts until the pause ends — the Retry-After instant, or, since Razorpay
// documents no Retry-After (spec/razorpay.md §5.3), a backoff of 1 s doubling to 32 s with
// jitter; then one call probes alone and the others follow spaced.
type Client struct {
	rc      *resty.Client
	base    string
	timeout time.Duration
	secret  string
	basic   string // base64(key_id:key_secret), the Authorization value a server may echo
	gate    *throttle.Gate
}

// NewClient checks cfg and returns a Client. It fails when KeyID or KeySecret is empty, or when
// BaseURL is not an absolute http(s) URL without user info, query or fragment.
func NewClient(cfg ClientConfig) (*Client, error) {
	base := cfg.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("razorpay: ClientConfig.BaseURL must be an absolute http(s) URL without credentials, query or fragment")
	}
	if cfg.KeyID == "" || cfg.KeySecret == "" {
		return nil, errors.New("razorpay: ClientConfig.KeyID and ClientConfig.KeySecret are required")
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	transport := cfg.Transport
	if transport == nil {
		transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	rc := resty.NewWithClient(&http.Client{Transport: transport}).
		SetLogger(quietLogger{}).
		SetRetryCount(0).
		SetRedirectPolicy(resty.RedirectPolicyFunc(func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse // a redirect is answered as an *APIError
		})).
		SetResponseBodyLimit(maxResponseBytes).
		SetHeader("Accept", "application/json").
		SetHeader("User-Agent", "razorpay-erpnext").
		SetBasicAuth(cfg.KeyID, cfg.KeySecret)
	c := &Client{
		rc:      rc,
		base:    strings.TrimRight(u.String(), "/"),
		timeout: timeout,
		secret:  cfg.KeySecret,
		basic:   base64.StdEncoding.EncodeToString([]byte(cfg.KeyID + ":" + cfg.KeySecret)),
		gate:    throttle.New(nil),
	}
	c.gate.SetMaxPause(cfg.MaxRetryAfter)
	return c, nil
}

// do runs one request through the client's pace with the client deadline and decodes a 2xx
// JSON body into out.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	op := method + " " + path
	var payload []byte
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("razorpay: %s: encode body: %w", op, err)
		}
		payload = b
	}
	tk, err := c.gate.Wait(ctx)
	if err != nil {
		return fmt.Errorf("razorpay: %s: %w", op, pausedError(err))
	}
	resp, err := c.send(ctx, method, path, query, payload)
	if err != nil {
		outcome := throttle.Answered
		if ctx.Err() != nil {
			outcome = throttle.Abandoned
		}
		tk.Done(outcome, 0)
		if errors.Is(err, resty.ErrResponseBodyTooLarge) {
			return fmt.Errorf("razorpay: %s: response body larger than %d bytes", op, maxResponseBytes)
		}
		return fmt.Errorf("razorpay: %s: %w", op, transportError(ctx, err, c.redact))
	}
	if status := resp.StatusCode(); status < 200 || status > 299 {
		e := decodeAPIError(status, resp.Header(), resp.Body(), c.redact)
		if throttle.Asks(status, e.RetryAfter) {
			// The pause honoured: the Retry-After up to the cap, or (Razorpay sends none) the
			// backoff the client chose.
			pause := tk.Done(throttle.Throttled, e.RetryAfter)
			if e.RetryAfter > pause {
				e.RetryAfterAsked = e.RetryAfter
			}
			e.RetryAfter = pause
		} else {
			tk.Done(throttle.Answered, 0)
		}
		return fmt.Errorf("razorpay: %s: %w", op, e)
	}
	tk.Done(throttle.Answered, 0)
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(resp.Body(), out); err != nil {
		return fmt.Errorf("razorpay: %s: decode response: %s", op, c.redact(err.Error()))
	}
	return nil
}

// send makes the HTTP request with the client deadline.
func (c *Client) send(ctx context.Context, method, path string, query url.Values, payload []byte) (*resty.Response, error) {
	callCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req := c.rc.R().SetContext(callCtx)
	if len(query) > 0 {
		req.SetQueryParamsFromValues(query)
	}
	if payload != nil {
		req.SetHeader("Content-Type", "application/json").SetBody(payload)
	}
	return req.Execute(method, c.base+path)
}

// ThrottleState is a snapshot of the client's shared pace, for metrics and the console: Until
// (no call starts before it; zero or past when open), Throttled (429s and 503s with
// Retry-After seen), Pauses, Waiting (calls blocked right now) and LastPause.
type ThrottleState = throttle.State

// Throttle returns the state of the client's shared pace.
func (c *Client) Throttle() ThrottleState { return c.gate.State() }

// redact removes the key secret from text a server or the network stack produced: the secret
// itself and the Basic credentials it travels in (base64 of key_id:key_secret), which a server
// or proxy echoing request headers would show. Only whole words are replaced (internal/redact),
// so the text around them stays readable.
func (c *Client) redact(s string) string {
	if c.secret == "" {
		return s
	}
	return redact.Secrets(s, c.basic, c.secret)
}

// entityPath joins a collection path and an id, refusing an empty id.
func entityPath(collection, id string, rest ...string) (string, error) {
	if strings.TrimSpace(id) == "" {
		return "", fmt.Errorf("razorpay: %s: empty id", collection)
	}
	p := collection + "/" + url.PathEscape(id)
	for _, r := range rest {
		p += "/" + r
	}
	return p, nil
}

// get fetches one entity.
func get[T any](ctx context.Context, c *Client, collection, id string) (*T, error) {
	path, err := entityPath(collection, id)
	if err != nil {
		return nil, err
	}
	var out T
	if err := c.do(ctx, http.MethodGet, path, nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetPayment fetches one payment: GET /v1/payments/{id} (spec/razorpay.md §5.2). An unknown id
// is an error for which IsNotFound is true.
func (c *Client) GetPayment(ctx context.Context, id string) (*Payment, error) {
	return get[Payment](ctx, c, "/v1/payments", id)
}

// GetOrder fetches one order: GET /v1/orders/{id} (spec/razorpay.md §5.2).
func (c *Client) GetOrder(ctx context.Context, id string) (*Order, error) {
	return get[Order](ctx, c, "/v1/orders", id)
}

// GetRefund fetches one refund: GET /v1/refunds/{id} (spec/razorpay.md §5.2).
func (c *Client) GetRefund(ctx context.Context, id string) (*Refund, error) {
	return get[Refund](ctx, c, "/v1/refunds", id)
}

// GetPaymentLink fetches one payment link: GET /v1/payment_links/{id} (spec/razorpay.md §3.4,
// §5.2).
func (c *Client) GetPaymentLink(ctx context.Context, id string) (*PaymentLink, error) {
	return get[PaymentLink](ctx, c, "/v1/payment_links", id)
}

// GetDispute fetches one dispute (chargeback): GET /v1/disputes/{id} (spec/razorpay.md §3.6,
// §5.2). AmountDeducted is 0 unless the dispute is lost. An unknown id is an error for which
// IsNotFound is true.
func (c *Client) GetDispute(ctx context.Context, id string) (*Dispute, error) {
	return get[Dispute](ctx, c, "/v1/disputes", id)
}

// Capture captures an authorized payment: POST /v1/payments/{id}/capture with
// {"amount": amount, "currency": currency} (spec/razorpay.md §5.2). amount is in minor units of
// currency and must equal the authorized amount; Razorpay answers 400 otherwise, and for a
// payment already captured. It returns the payment with status captured. Callers use it only
// when manual capture is configured.
func (c *Client) Capture(ctx context.Context, paymentID string, amount int64, currency string) (*Payment, error) {
	path, err := entityPath("/v1/payments", paymentID, "capture")
	if err != nil {
		return nil, err
	}
	if amount <= 0 || currency == "" {
		return nil, fmt.Errorf("razorpay: capture %s: amount must be positive and currency set", paymentID)
	}
	body := map[string]any{"amount": amount, "currency": currency}
	var out Payment
	if err := c.do(ctx, http.MethodPost, path, nil, body, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
