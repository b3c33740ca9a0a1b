package razorpaysim

import (
	"errors"
	"slices"
	"strconv"
	"time"
)

// Webhook is one webhook endpoint of a mode (spec/razorpay.md §1.6, §1.8, checklist items 8
// and 9).
type Webhook struct {
	// ID names the endpoint in State, in EnableWebhook and in /__sim/webhooks/{id}/…. A missing
	// or repeated ID becomes "webhook_<n>" (n counting Options.Webhooks from 1); "default" is
	// the endpoint made from Options.WebhookURL/WebhookSecret.
	ID string `json:"id"`
	// URL receives the POSTs; only loopback addresses are dialled. Empty: nothing is sent.
	URL string `json:"url"`
	// Secret signs the bodies sent to this endpoint; empty sends no signature header.
	Secret string `json:"secret,omitempty"`
	// Events are the event names this endpoint is subscribed to (e.g. "payment.captured");
	// empty subscribes it to every event.
	Events []string `json:"events,omitempty"`
	// AlertEmail receives the auto-disable alert; empty uses Options.AccountEmail.
	AlertEmail string `json:"alert_email,omitempty"`
}

// WebhookState is an endpoint as State shows it. DisabledAt and LastSuccess are on the
// simulator clock (zero when never).
type WebhookState struct {
	Webhook
	Disabled    bool      `json:"disabled"`
	DisabledAt  time.Time `json:"disabled_at,omitzero"`
	LastSuccess time.Time `json:"last_success,omitzero"`
}

// AlertEmail is the notification Razorpay mails when it disables a webhook after 24 hours of
// failed deliveries (spec/razorpay.md §1.8). At is on the simulator clock.
type AlertEmail struct {
	Webhook string    `json:"webhook"`
	URL     string    `json:"url"`
	To      string    `json:"to"`
	Subject string    `json:"subject"`
	Body    string    `json:"body"`
	At      time.Time `json:"at"`
}

// ErrUnknownWebhook is returned for a webhook id that names no endpoint of the mode.
var ErrUnknownWebhook = errors.New("razorpaysim: unknown webhook id")

// disableAfter is how long deliveries to an endpoint must have kept failing before it is
// disabled (spec/razorpay.md §1.8), before scaling.
const disableAfter = 24 * time.Hour

// endpoint is the live configuration and health of one webhook endpoint; fields other than
// the immutable id, url, events and alertEmail are guarded by s.mu.
type endpoint struct {
	id, url            string
	events             map[string]bool // nil: every event
	alertEmail         string
	secret, prevSecret string
	disabled           bool
	disabledAt         time.Time // simulator clock
	failingSince       time.Time // real time of the first failure since the last success; zero when none
	lastSuccess        time.Time // simulator clock
}

// subscribed reports whether the endpoint receives events named name.
func (ep *endpoint) subscribed(name string) bool { return ep.events == nil || ep.events[name] }

// newEndpoints makes the default endpoint and those of opt.Webhooks.
func newEndpoints(opt Options) []*endpoint {
	eps := []*endpoint{{id: "default", url: opt.WebhookURL, secret: opt.WebhookSecret}}
	seen := map[string]bool{"default": true}
	for i, w := range opt.Webhooks {
		id := w.ID
		if id == "" || seen[id] {
			id = "webhook_" + strconv.Itoa(i+1)
		}
		seen[id] = true
		ep := &endpoint{id: id, url: w.URL, secret: w.Secret, alertEmail: w.AlertEmail}
		if len(w.Events) > 0 {
			ep.events = map[string]bool{}
			for _, e := range w.Events {
				ep.events[e] = true
			}
		}
		eps = append(eps, ep)
	}
	return eps
}

// endpoint returns the endpoint with this id; the caller holds s.mu.
func (wh *webhooks) endpoint(id string) *endpoint {
	for _, ep := range wh.endpoints {
		if ep.id == id {
			return ep
		}
	}
	return nil
}

// EnableWebhook is Sim.EnableWebhook.
func (wh *webhooks) EnableWebhook(id string) error {
	wh.st.mu.Lock()
	defer wh.st.mu.Unlock()
	ep := wh.endpoint(id)
	if ep == nil {
		return ErrUnknownWebhook
	}
	ep.disabled, ep.disabledAt, ep.failingSince = false, time.Time{}, time.Time{}
	return nil
}

// DisableWebhook is Sim.DisableWebhook.
func (wh *webhooks) DisableWebhook(id string) error {
	wh.st.mu.Lock()
	defer wh.st.mu.Unlock()
	ep := wh.endpoint(id)
	if ep == nil {
		return ErrUnknownWebhook
	}
	if !ep.disabled {
		wh.disable(ep)
	}
	return nil
}

// disable turns the endpoint off and gives up every unfinished delivery to it, so nothing more
// is sent to it for any event (spec/razorpay.md §1.8); the caller holds s.mu.
func (wh *webhooks) disable(ep *endpoint) {
	ep.disabled, ep.disabledAt = true, wh.now()
	for _, e := range wh.events {
		if e.finished {
			continue
		}
		for _, d := range e.deliveries {
			if d.ep == ep && !d.finished {
				d.finished = true
			}
		}
		e.settle()
	}
}

// webhookStates lists the endpoints for State; the caller holds s.mu.
func (wh *webhooks) webhookStates() []WebhookState {
	out := make([]WebhookState, 0, len(wh.endpoints))
	for _, ep := range wh.endpoints {
		w := WebhookState{
			Webhook:  Webhook{ID: ep.id, URL: ep.url, Secret: ep.secret, AlertEmail: ep.alertEmail},
			Disabled: ep.disabled, DisabledAt: ep.disabledAt, LastSuccess: ep.lastSuccess,
		}
		for e := range ep.events {
			w.Events = append(w.Events, e)
		}
		slices.Sort(w.Events)
		out = append(out, w)
	}
	return out
}

// recordOutcome updates the endpoint's health after an attempt that started at start (real
// time): a success ends the failure streak; a failure 24 h (scaled) or more after the first
// failure of the streak disables the endpoint and records an alert email. The caller holds
// s.mu.
func (wh *webhooks) recordOutcome(ep *endpoint, ok bool, start time.Time) {
	if ok {
		ep.failingSince, ep.lastSuccess = time.Time{}, wh.now()
		return
	}
	if ep.failingSince.IsZero() {
		ep.failingSince = start
		return
	}
	if ep.disabled || start.Sub(ep.failingSince) < wh.life.scaled(disableAfter) {
		return
	}
	wh.disable(ep)
	to := ep.alertEmail
	if to == "" {
		to = wh.opt.AccountEmail
	}
	wh.alerts = append(wh.alerts, AlertEmail{
		Webhook: ep.id, URL: ep.url, To: to, At: ep.disabledAt,
		Subject: "Razorpay | Webhook disabled",
		Body: "Your " + wh.mode + " mode webhook " + ep.url + " of account " + wh.opt.AccountID +
			" has been disabled because deliveries to it kept failing for 24 hours. " +
			"Re-enable it to receive events again.",
	})
}
