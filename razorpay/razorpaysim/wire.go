package razorpaysim

import (
	"net/http"
	"time"
)

// wire builds the parts of one mode's account around its state and lifetime.
func wire(opt Options, mode string, st *state, life *lifetime) *Sim {
	now := opt.Now
	render := &renderer{opt: opt}
	hooks := &webhooks{st: st, life: life, render: render, opt: opt, now: now, mode: mode,
		hc: loopbackClient(), endpoints: newEndpoints(opt)}
	settlements := &settlements{st: st, life: life, hooks: hooks, opt: opt, now: now}
	payments := &payments{st: st, hooks: hooks, settlements: settlements, opt: opt, now: now}
	settlements.payments = payments
	s := &Sim{opt: opt, mode: mode, st: st, hooks: hooks, render: render, payments: payments, settlements: settlements, life: life,
		api:      &api{st: st, payments: payments, render: render, opt: opt, now: now},
		refunds:  &refunds{st: st, hooks: hooks, now: now},
		disputes: &disputes{st: st, hooks: hooks, render: render, settlements: settlements, now: now},
	}
	s.control = &control{sim: s, st: st, api: s.api, disputes: s.disputes, payments: payments, refunds: s.refunds,
		render: render, settlements: settlements, hooks: hooks}
	return s
}

// webhooks is an account's webhook endpoints and the delivery of its events: signing,
// ordering, retries, the disabling of a failing endpoint and its alert emails, replays.
type webhooks struct {
	st        *state
	life      *lifetime
	render    *renderer
	opt       Options
	now       func() time.Time
	mode      string
	hc        *http.Client
	endpoints []*endpoint // [0] is the default endpoint (Options.WebhookURL); under st.mu
	alerts    []AlertEmail
	events    []*event
}

// api serves the REST API subset (spec/razorpay.md §5): authentication, injected API faults,
// and the reads of payments, refunds, orders, links, disputes and settlements.
type api struct {
	st       *state
	payments *payments
	render   *renderer
	opt      Options
	now      func() time.Time
}

// renderer renders entities as the API and webhooks show them.
type renderer struct {
	opt Options
}

// control serves the control API (/__sim/…): the HTTP form of Sim's Go API.
type control struct {
	sim         *Sim
	st          *state
	api         *api
	disputes    *disputes
	payments    *payments
	refunds     *refunds
	render      *renderer
	settlements *settlements
	hooks       *webhooks
}

// payments creates, captures and seeds payments with their orders and payment links.
type payments struct {
	st          *state
	hooks       *webhooks
	settlements *settlements
	opt         Options
	now         func() time.Time
}

// refunds creates refunds and their events.
type refunds struct {
	st    *state
	hooks *webhooks
	now   func() time.Time
}

// disputes creates disputes and moves them through their states, deducting lost ones.
type disputes struct {
	st          *state
	hooks       *webhooks
	render      *renderer
	settlements *settlements
	now         func() time.Time
}

// settlements is what an account owes: captured payments, refunds, adjustments, transfers
// and disputes, settled on demand or every Options.SettleEvery, and their recon rows.
type settlements struct {
	st       *state
	life     *lifetime
	hooks    *webhooks
	payments *payments
	opt      Options
	now      func() time.Time
}
