package connector

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/config"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
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

// Receive is intake (DESIGN.md §4 steps 1–2): verify the signature over the raw bytes against
// each configured secret, read only what the store needs (razorpay.PeekEvent: event, account,
// created_at, the entities' ids; one scan, no entity built), claim the event in the inbox keyed
// by (account id, event id), then wake a worker. A body that verifies but
// whose head does not read is stored as dead with the reason. Everything else in the body is the worker's to read
// (process: razorpay.ParseEvent), and a body that fails there (an amount that is not an
// integer, say) is made dead by the worker with the same "webhook body does not parse: …"
// reason, its optional fields of an unusable type kept as warnings with the outcome; intake
// stays at one scan of the body (ParseEvent cost intake 2.5× the time and 4.7× the
// allocations: razorpay BenchmarkParseEvent against BenchmarkPeekEvent). It returns
// duplicate=true when the pair was stored before. Errors: ErrBadSignature, ErrBadEventID (nothing stored), or the store's error (the
// event is not stored; Razorpay must retry), or ErrSenderGone when ctx was canceled while the
// store worked (counted in MetricWebhooksAbandoned, not as store_unavailable). Nothing is sent
// to ERPNext or Razorpay.
func (c *Connector) Receive(ctx context.Context, d Delivery) (duplicate bool, err error) {
	if err := razorpay.VerifySignature(d.Body, d.Signature, c.cfg.Razorpay.WebhookSecrets); err != nil {
		c.countWebhook("", "bad_signature")
		c.log.Warn().Str("remote", d.Remote).Str("reason", err.Error()).Msg("webhook refused: signature")
		return false, ErrBadSignature
	}
	now := c.now().UTC()
	eventID := strings.TrimSpace(d.EventID)
	if !razorpay.ValidEventID(eventID) || razorpay.IsReconcileEventID(eventID) {
		c.countWebhook("", "malformed")
		return false, ErrBadEventID
	}
	row := &InboxEvent{EventID: eventID, RawBody: d.Body, ReceivedAt: now, Status: StatusPending, NextAttemptAt: now}
	head, perr := razorpay.PeekEvent(d.Body)
	if perr != nil {
		row.Status = StatusDead
		row.LastError = "webhook body does not parse: " + perr.Error()
		row.AccountID = c.cfg.Razorpay.AccountID
	} else {
		row.AccountID = head.AccountID
		if row.AccountID == "" {
			row.AccountID = c.cfg.Razorpay.AccountID
		}
		row.Event = head.Event
		row.BusinessKey = head.BusinessKey()
		if head.CreatedAt > 0 {
			t := time.Unix(head.CreatedAt, 0).UTC()
			row.EventCreatedAt = &t
		}
	}
	inserted, err := c.store.InsertEvent(ctx, row)
	switch {
	case err != nil && errors.Is(ctx.Err(), context.Canceled):
		c.metrics.abandoned.Inc()
		c.log.Info().Str("event_id", eventID).Str("remote", d.Remote).Msg("webhook sender gone before the event was stored; Razorpay retries")
		return false, ErrSenderGone
	case err != nil:
		c.countWebhook(row.Event, "store_unavailable")
		c.log.Error().Err(err).Str("event_id", eventID).Msg("webhook not stored: store unavailable")
		return false, err
	case !inserted:
		c.countWebhook(row.Event, "duplicate")
		return true, nil
	case perr != nil:
		c.countWebhook("", "malformed")
		c.log.Warn().Str("event_id", eventID).Str("reason", row.LastError).Msg("webhook stored as dead")
	default:
		c.countWebhook(row.Event, "accepted")
		c.Wake()
	}
	return false, nil
}

// MaxInFlight is server.max_in_flight: how many webhook requests the HTTP edge serves at once
// before it answers 503 (RefuseOverloaded); config.DefaultMaxInFlight when the Config leaves it
// at 0 (one built without config.Defaults).
func (c *Connector) MaxInFlight() int {
	if n := c.cfg.Server.MaxInFlight; n > 0 {
		return n
	}
	return config.DefaultMaxInFlight
}

// RefuseOverloaded counts a webhook the HTTP edge answered 503 without reading it, because
// MaxInFlight requests were already being served.
func (c *Connector) RefuseOverloaded() { c.countWebhook("", "overloaded") }

// RefuseTooLarge counts a webhook the HTTP edge refused for a body over MaxWebhookBody.
func (c *Connector) RefuseTooLarge() { c.countWebhook("", "too_large") }

// Ready reports whether this process can take webhooks and work: the store answers with
// migrations applied and takes a write (a disk full or a read-only file answers reads but
// refuses writes, and a webhook is acknowledged only once stored), and work is not paused by a
// configuration fault. status is "ready", "store unavailable", "store not writable" or
// "paused" (with reason).
func (c *Connector) Ready(ctx context.Context) (ok bool, status, reason string) {
	if err := c.store.Ping(ctx); err != nil {
		return false, "store unavailable", ""
	}
	now := c.now()
	probe := "readyz:" + c.instance
	if _, err := c.store.AcquireLock(ctx, probe, c.instance, now, now.Add(time.Minute)); err != nil {
		return false, "store not writable", ""
	}
	_ = c.store.ReleaseLock(ctx, probe, c.instance)
	if paused, why := c.Paused(); paused {
		return false, "paused", why
	}
	return true, "ready", ""
}
