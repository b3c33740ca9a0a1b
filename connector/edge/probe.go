package edge

import (
	"context"
	"errors"
	"time"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// errProbeStop ends the Razorpay probe's list walk at its first payment.
var errProbeStop = errors.New("probe: enough")

// Prober rechecks a configuration pause through the client edge: ERP and Razorpay (nil when
// the API is not configured) are the wrapped clients, so a success ends a system's pause there
// (Pauses.Succeeded) and a refusal renews it here for Recheck (worker.pause_recheck).
type Prober struct {
	ERP      connector.ERPNext
	Razorpay connector.RazorpayAPI
	Pauses   *connector.Pauses
	Recheck  time.Duration
	Now      func() time.Time
	Log      zerolog.Logger
}

// Probe rechecks a configuration pause (connector.Pauses) when its recheck is due, whether or
// not an event is waiting to make the call: one worker at a time calls each paused system once
// with a read that changes nothing — ERPNext frappe.auth.get_logged_user (R11), Razorpay a list
// of the last minute's payments stopped at the first — through the client edge, so a success
// ends that system's pause and a refusal (401/403, keys refused) renews it with a new recheck.
// Anything else (the site down, a time-out) leaves the pause and puts the next recheck
// worker.pause_recheck away. Without the probe a replica paused with nothing queued would
// recheck only when a webhook arrived, while /readyz — answering 503 "paused" — keeps webhooks
// away from it behind a load balancer: the pause would never end.
func (p Prober) Probe(ctx context.Context) {
	if !p.Pauses.StartProbe() {
		return
	}
	defer p.Pauses.EndProbe()
	for _, system := range p.Pauses.Systems() {
		var err error
		switch system {
		case connector.SystemERPNext:
			var user string
			err = p.ERP.Call(ctx, frappe.MethodGetLoggedUser, nil, &user)
		case connector.SystemRazorpay:
			if p.Razorpay == nil {
				continue
			}
			now := p.Now()
			err = p.Razorpay.ListPayments(ctx, now.Add(-time.Minute), now, func(*razorpay.Payment) error { return errProbeStop })
			if errors.Is(err, errProbeStop) {
				err = nil
			}
		}
		if f := connector.FailureOf(err); f.PausesWork() {
			p.Pauses.Pause(f.System, f.PauseReason(), p.Now().Add(p.Recheck), p.Log)
			continue
		}
		if err != nil && ctx.Err() == nil {
			p.Log.Warn().Err(err).Str("system", system).Msg("configuration pause: recheck could not tell")
		}
	}
	if paused, _ := p.Pauses.State(); paused {
		p.Pauses.Postpone(p.Now().Add(p.Recheck))
	} else {
		p.Log.Info().Msg("configuration pause ended: the credentials work again")
	}
}
