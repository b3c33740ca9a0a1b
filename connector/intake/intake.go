// Package intake is the webhook intake of the core (DESIGN.md §4 steps 1–2): a delivery is
// verified over its raw bytes, stored in the inbox keyed by (account id, event id), and a worker
// is woken. It is given what it uses (Deps): the webhook secrets, the store's InsertEvent, a
// clock, a logger, a wake func and the webhook counters. connector/httpapi serves it over HTTP.
package intake

import (
	"context"
	"errors"
	"time"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/config"
)

// MaxWebhookBody is the largest webhook body accepted (1 MiB); the HTTP edge refuses larger
// bodies (413) before they reach Receive.
const MaxWebhookBody = 1 << 20

// Errors of Receive; the HTTP edge (connector/httpapi) maps each to its status.
var (
	// ErrBadSignature: X-Razorpay-Signature is missing or matches no configured secret (401).
	ErrBadSignature = errors.New("signature verification failed")
	// ErrBadEventID: X-Razorpay-Event-Id is missing or not a Razorpay event id: after trimming
	// spaces, exactly razorpay.EventIDLen (14) ASCII letters and digits (spec/razorpay.md
	// §1.2); any other length, punctuation, the reconcile form or bytes that are not valid
	// UTF-8 (the header is not signed) are refused (400).
	ErrBadEventID = errors.New("missing or invalid X-Razorpay-Event-Id header")
	// ErrSenderGone: the webhook's sender disconnected (its request context was canceled)
	// before the event was stored; nothing is known to be stored and nobody reads the answer.
	// Razorpay retries the delivery.
	ErrSenderGone = errors.New("webhook sender disconnected before the event was stored")
)

// Delivery is one webhook request as intake needs it.
type Delivery struct {
	Body      []byte // the raw body, at most MaxWebhookBody bytes
	Signature string // X-Razorpay-Signature: lowercase hex HMAC-SHA256 of Body
	EventID   string // X-Razorpay-Event-Id
	Remote    string // the sender's address, for the log only
}

// Store is the part of connector.Store intake uses.
type Store interface {
	InsertEvent(ctx context.Context, e *connector.InboxEvent) (inserted bool, err error)
}

// Counters counts webhook requests (metrics.Metrics implements it): Webhook by event ("" when unknown) and outcome (accepted, duplicate,
// bad_signature, malformed, store_unavailable, overloaded, too_large), Abandoned for a sender
// gone before its event was stored.
type Counters interface {
	Webhook(event, outcome string)
	Abandoned()
}

// Deps are an Intake's collaborators. Secrets are razorpay.webhook_secrets (each tried in
// turn), AccountID razorpay.account_id (the account of a body that names none), MaxInFlight
// server.max_in_flight (config.DefaultMaxInFlight when 0). Now defaults to time.Now, Wake and
// Counters to nothing.
type Deps struct {
	Secrets     []string
	AccountID   string
	MaxInFlight int
	Store       Store
	Now         func() time.Time
	Log         zerolog.Logger
	Wake        func()
	Counters    Counters
}

// Intake receives webhooks into the inbox. Create it with New.
type Intake struct {
	d Deps
}

// New builds an Intake from d.
func New(d Deps) *Intake {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Wake == nil {
		d.Wake = func() {}
	}
	if d.Counters == nil {
		d.Counters = noCounters{}
	}
	if d.MaxInFlight <= 0 {
		d.MaxInFlight = config.DefaultMaxInFlight
	}
	return &Intake{d: d}
}

type noCounters struct{}

func (noCounters) Webhook(string, string) {}
func (noCounters) Abandoned()             {}

// MaxInFlight is server.max_in_flight: how many webhook requests the HTTP edge serves at once
// before it answers 503 (RefuseOverloaded); config.DefaultMaxInFlight when Deps leave it at 0
// (a Config built without config.Defaults).
func (in *Intake) MaxInFlight() int { return in.d.MaxInFlight }

// RefuseOverloaded counts a webhook the HTTP edge answered 503 without reading it, because
// MaxInFlight requests were already being served.
func (in *Intake) RefuseOverloaded() { in.d.Counters.Webhook("", "overloaded") }

// RefuseTooLarge counts a webhook the HTTP edge refused for a body over MaxWebhookBody.
func (in *Intake) RefuseTooLarge() { in.d.Counters.Webhook("", "too_large") }
