package connector

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// readOnlyMethods are the whitelisted Frappe methods the connector calls that never change the
// site; every other Call is a write (it may be ambiguous when it fails after being sent).
var readOnlyMethods = map[string]bool{
	frappe.MethodGetPaymentEntry:   true, // builds an unsaved document (spec/erpnext.md §3.8)
	frappe.MethodGetLoggedUser:     true,
	frappe.MethodGetBalanceOn:      true, // settlements (issue 12)
	frappe.MethodGetLinkedPayments: true,
}

// erpEdge is the client edge of ERPNext: it times every call for the metrics, classifies
// every failure, once, into a *Failure (failure.go), and ends a pause for refused credentials
// when a call begun after the refusal succeeds (pause.go). Methods the ERPNext interface gains
// later pass through unclassified through the embedded value.
type erpEdge struct {
	ERPNext
	m *metrics
	p *pauses
}

// call is when a call through an edge started, and the pause generation it began in.
type call struct {
	at  time.Time
	gen int64
}

func (e erpEdge) begin() call { return call{at: time.Now(), gen: e.p.begin()} }

func (e erpEdge) done(op, doctype string, write bool, c call, err error) error {
	e.m.erpDuration.WithLabelValues(op, doctype).Observe(time.Since(c.at).Seconds())
	if err == nil {
		e.p.succeeded(SystemERPNext, c.gen)
		return nil
	}
	f := classifyERPNext(err, write)
	e.m.erpErrors.WithLabelValues(op, f.Class).Inc()
	return f
}

// List implements ERPNext.
func (e erpEdge) List(ctx context.Context, doctype string, opt frappe.ListOptions, out any) error {
	t := e.begin()
	return e.done("list", doctype, false, t, e.ERPNext.List(ctx, doctype, opt, out))
}

// Get implements ERPNext.
func (e erpEdge) Get(ctx context.Context, doctype, name string, out any) error {
	t := e.begin()
	return e.done("get", doctype, false, t, e.ERPNext.Get(ctx, doctype, name, out))
}

// Insert implements ERPNext.
func (e erpEdge) Insert(ctx context.Context, doctype string, doc any, out any) error {
	t := e.begin()
	return e.done("insert", doctype, true, t, e.ERPNext.Insert(ctx, doctype, doc, out))
}

// Update implements ERPNext.
func (e erpEdge) Update(ctx context.Context, doctype, name string, fields any, out any) error {
	t := e.begin()
	return e.done("update", doctype, true, t, e.ERPNext.Update(ctx, doctype, name, fields, out))
}

// Call implements ERPNext. The doctype label holds the method's last dotted part.
func (e erpEdge) Call(ctx context.Context, method string, args any, out any) error {
	t := e.begin()
	err := e.ERPNext.Call(ctx, method, args, out)
	short := method
	if i := strings.LastIndexByte(method, '.'); i >= 0 {
		short = method[i+1:]
	}
	return e.done("call", short, !readOnlyMethods[method], t, err)
}

// razorpayEdge is the client edge of Razorpay: call durations, every failure classified
// once into a *Failure, and the end of a pause for refused keys (like erpEdge).
type razorpayEdge struct {
	RazorpayAPI
	m *metrics
	p *pauses
}

// razorpayEdgeOf wraps api; nil stays nil (the API is optional).
func razorpayEdgeOf(api RazorpayAPI, m *metrics, p *pauses) RazorpayAPI {
	if api == nil {
		return nil
	}
	return razorpayEdge{RazorpayAPI: api, m: m, p: p}
}

func (r razorpayEdge) begin() call { return call{at: time.Now(), gen: r.p.begin()} }

func (r razorpayEdge) done(op string, c call, err error) error {
	r.m.rzpDuration.WithLabelValues(op).Observe(time.Since(c.at).Seconds())
	if err == nil {
		r.p.succeeded(SystemRazorpay, c.gen)
		return nil
	}
	f := classifyRazorpay(err)
	r.m.rzpErrors.WithLabelValues(op, f.Class).Inc()
	return f
}

// GetPayment implements RazorpayAPI.
func (r razorpayEdge) GetPayment(ctx context.Context, id string) (*razorpay.Payment, error) {
	t := r.begin()
	p, err := r.RazorpayAPI.GetPayment(ctx, id)
	return p, r.done("get_payment", t, err)
}

// GetOrder implements RazorpayAPI.
func (r razorpayEdge) GetOrder(ctx context.Context, id string) (*razorpay.Order, error) {
	t := r.begin()
	o, err := r.RazorpayAPI.GetOrder(ctx, id)
	return o, r.done("get_order", t, err)
}

// GetRefund implements RazorpayAPI.
func (r razorpayEdge) GetRefund(ctx context.Context, id string) (*razorpay.Refund, error) {
	t := r.begin()
	f, err := r.RazorpayAPI.GetRefund(ctx, id)
	return f, r.done("get_refund", t, err)
}

// ListPayments implements RazorpayAPI. An error of each is the caller's own and is returned
// as it is, not as a Razorpay failure.
func (r razorpayEdge) ListPayments(ctx context.Context, from, to time.Time, each func(*razorpay.Payment) error) error {
	t := r.begin()
	var own error
	err := r.RazorpayAPI.ListPayments(ctx, from, to, func(p *razorpay.Payment) error {
		own = each(p)
		return own
	})
	return r.doneListing("list_payments", t, err, own)
}

// ListRefunds implements RazorpayAPI, like ListPayments.
func (r razorpayEdge) ListRefunds(ctx context.Context, from, to time.Time, each func(*razorpay.Refund) error) error {
	t := r.begin()
	var own error
	err := r.RazorpayAPI.ListRefunds(ctx, from, to, func(rf *razorpay.Refund) error {
		own = each(rf)
		return own
	})
	return r.doneListing("list_refunds", t, err, own)
}

// doneListing is done for a list walk whose callback may have stopped it with its own error
// (Razorpay answered: the walk counts as a success of the keys).
func (r razorpayEdge) doneListing(op string, c call, err, own error) error {
	if own != nil && errors.Is(err, own) {
		r.m.rzpDuration.WithLabelValues(op).Observe(time.Since(c.at).Seconds())
		r.p.succeeded(SystemRazorpay, c.gen)
		return err
	}
	return r.done(op, c, err)
}

// Capture implements RazorpayAPI.
func (r razorpayEdge) Capture(ctx context.Context, paymentID string, amount int64, currency string) (*razorpay.Payment, error) {
	t := r.begin()
	p, err := r.RazorpayAPI.Capture(ctx, paymentID, amount, currency)
	return p, r.done("capture", t, err)
}

// GetDispute implements RazorpayAPI.
func (r razorpayEdge) GetDispute(ctx context.Context, id string) (*razorpay.Dispute, error) {
	t := r.begin()
	d, err := r.RazorpayAPI.GetDispute(ctx, id)
	return d, r.done("get_dispute", t, err)
}

// GetSettlement implements RazorpayAPI.
func (r razorpayEdge) GetSettlement(ctx context.Context, id string) (*razorpay.Settlement, error) {
	t := r.begin()
	st, err := r.RazorpayAPI.GetSettlement(ctx, id)
	return st, r.done("get_settlement", t, err)
}

// ListSettlements implements RazorpayAPI, like ListPayments.
func (r razorpayEdge) ListSettlements(ctx context.Context, from, to time.Time, each func(*razorpay.Settlement) error) error {
	t := r.begin()
	var own error
	err := r.RazorpayAPI.ListSettlements(ctx, from, to, func(st *razorpay.Settlement) error {
		own = each(st)
		return own
	})
	return r.doneListing("list_settlements", t, err, own)
}

// ReconCombined implements RazorpayAPI, like ListPayments.
func (r razorpayEdge) ReconCombined(ctx context.Context, year, month, day int, each func(*razorpay.ReconItem) error) error {
	t := r.begin()
	var own error
	err := r.RazorpayAPI.ReconCombined(ctx, year, month, day, func(it *razorpay.ReconItem) error {
		own = each(it)
		return own
	})
	return r.doneListing("recon_combined", t, err, own)
}

// pacer is a client that keeps one shared pace for all its calls (frappe.Client,
// razorpay.Client: internal/throttle).
type pacer interface {
	Throttle() frappe.ThrottleState
}

// systemPace is the pace of one system's client.
type systemPace struct {
	system string
	p      pacer
}

// pacesOf keeps the clients that keep a pace, ERPNext first; fakes without one are left out.
func pacesOf(erp ERPNext, rzp RazorpayAPI) []systemPace {
	var out []systemPace
	if p, ok := erp.(pacer); ok {
		out = append(out, systemPace{SystemERPNext, p})
	}
	if p, ok := rzp.(pacer); ok {
		out = append(out, systemPace{SystemRazorpay, p})
	}
	return out
}

// SlowDown is the pace a service asked this process's client for (429, 503 with Retry-After).
type SlowDown struct {
	System string        // SystemERPNext or SystemRazorpay
	Until  time.Time     // no call to it starts before this; zero or past when none is paused
	Left   time.Duration // Until − now rounded up to whole seconds; 0 when no pause runs
	Capped uint64        // throttled answers whose Retry-After was longer than max_retry_after, since start
	Asked  time.Duration // the Retry-After of the latest capped answer (0 until one)
}

// Active reports whether the service's pause is still running.
func (s SlowDown) Active() bool { return s.Left > 0 }

// SlowDowns returns the pace of each client that keeps one: ERPNext, then the Razorpay API
// when it is configured. Reading it calls nobody. Left is measured on the wall clock, which
// the clients' pace keeps (not the Connector's injected clock).
func (c *Connector) SlowDowns() []SlowDown {
	now := time.Now()
	out := make([]SlowDown, 0, len(c.paces))
	for _, sp := range c.paces {
		st := sp.p.Throttle()
		s := SlowDown{System: sp.system, Until: st.Until, Capped: st.Capped, Asked: st.LastAsked}
		if left := st.Until.Sub(now); left > 0 {
			s.Left = (left + time.Second - 1).Truncate(time.Second)
		}
		out = append(out, s)
	}
	return out
}
