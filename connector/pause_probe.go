package connector

import (
	"context"
	"errors"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// errProbeStop ends the Razorpay probe's list walk at its first payment.
var errProbeStop = errors.New("probe: enough")

// probePauses rechecks a configuration pause (pause.go) when its recheck is due, whether or
// not an event is waiting to make the call: one worker at a time calls each paused system once
// with a read that changes nothing — ERPNext frappe.auth.get_logged_user (R11), Razorpay a list
// of the last minute's payments stopped at the first — through the client edges, so a success
// ends that system's pause and a refusal (401/403, keys refused) renews it with a new recheck.
// Anything else (the site down, a time-out) leaves the pause and puts the next recheck
// worker.pause_recheck away. Without the probe a replica paused with nothing queued would
// recheck only when a webhook arrived, while /readyz — answering 503 "paused" — keeps webhooks
// away from it behind a load balancer: the pause would never end.
func (c *Connector) probePauses(ctx context.Context) {
	if !c.pauses.startProbe() {
		return
	}
	defer c.pauses.endProbe()
	for _, system := range c.pauses.systems() {
		var err error
		switch system {
		case SystemERPNext:
			var user string
			err = c.erp.Call(ctx, frappe.MethodGetLoggedUser, nil, &user)
		case SystemRazorpay:
			if c.rzp == nil {
				continue
			}
			now := c.now()
			err = c.rzp.ListPayments(ctx, now.Add(-time.Minute), now, func(*razorpay.Payment) error { return errProbeStop })
			if errors.Is(err, errProbeStop) {
				err = nil
			}
		}
		if f := FailureOf(err); f.PausesWork() {
			c.pause(f.System, f.pauseReason())
			continue
		}
		if err != nil && ctx.Err() == nil {
			c.log.Warn().Err(err).Str("system", system).Msg("configuration pause: recheck could not tell")
		}
	}
	if paused, _ := c.Paused(); paused {
		c.pauses.postpone(c.now().Add(c.cfg.Worker.PauseRecheck.D()))
	} else {
		c.log.Info().Msg("configuration pause ended: the credentials work again")
	}
}
