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
