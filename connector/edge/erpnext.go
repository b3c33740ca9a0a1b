// Package edge is the client edge of the core: ERPNext and Razorpay as every stage calls them.
// Each call is timed for the metrics (Calls), each failure classified once into a
// *connector.Failure (the pure classification is the core's: connector.ClassifyERPNext,
// ClassifyRazorpay), and a pause for refused credentials (connector.Pauses) ends when a call
// begun after the refusal succeeds. It also reads the pace each client keeps (SlowDowns).
// A package of its own so that the core (package connector) makes no call itself: the wiring
// wraps the clients here and hands the wrapped ones to the core, intake, operator and reconcile.
package edge

import (
	"context"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
)

// Calls is where the edge counts each call: its duration and, when it failed, its class
// (connector.Failure.Class; "" for a success). metrics.Metrics implements it.
type Calls interface {
	ERPNextCall(op, doctype string, took time.Duration, class string)
	RazorpayCall(op string, took time.Duration, class string)
}

// Pauses is the configuration-fault state the edge ends a pause in (*connector.Pauses): Begin
// when a call starts, Succeeded with its value when the call succeeded.
type Pauses interface {
	Begin() int64
	Succeeded(system string, gen int64) bool
}

// readOnlyMethods are the whitelisted Frappe methods the connector calls that never change the
// site; every other Call is a write (it may be ambiguous when it fails after being sent).
var readOnlyMethods = map[string]bool{
	frappe.MethodGetPaymentEntry:   true, // builds an unsaved document (spec/erpnext.md §3.8)
	frappe.MethodGetLoggedUser:     true,
	frappe.MethodGetBalanceOn:      true, // settlements
	frappe.MethodGetLinkedPayments: true,
}

// ERPNext is api behind the client edge: every call timed in calls, every failure classified,
// once, into a *connector.Failure (connector.ClassifyERPNext; a Call of a method outside
// readOnlyMethods is a write, ambiguous when it fails after being sent), and a pause for
// refused credentials ended when a call begun after the refusal succeeds. nil stays nil.
func ERPNext(api connector.ERPNext, calls Calls, p Pauses) connector.ERPNext {
	if api == nil {
		return nil
	}
	return erpEdge{ERPNext: api, m: calls, p: p}
}

// erpEdge is the client edge of ERPNext. Methods the ERPNext interface gains later pass
// through unclassified through the embedded value.
type erpEdge struct {
	connector.ERPNext
	m Calls
	p Pauses
}

// call is when a call through an edge started, and the pause generation it began in.
type call struct {
	at  time.Time
	gen int64
}

func (e erpEdge) begin() call { return call{at: time.Now(), gen: e.p.Begin()} }

func (e erpEdge) done(op, doctype string, write bool, c call, err error) error {
	if err == nil {
		e.m.ERPNextCall(op, doctype, time.Since(c.at), "")
		e.p.Succeeded(connector.SystemERPNext, c.gen)
		return nil
	}
	f := connector.ClassifyERPNext(err, write)
	e.m.ERPNextCall(op, doctype, time.Since(c.at), f.Class)
	return f
}

// List implements connector.ERPNext.
func (e erpEdge) List(ctx context.Context, doctype string, opt frappe.ListOptions, out any) error {
	t := e.begin()
	return e.done("list", doctype, false, t, e.ERPNext.List(ctx, doctype, opt, out))
}

// Get implements connector.ERPNext.
func (e erpEdge) Get(ctx context.Context, doctype, name string, out any) error {
	t := e.begin()
	return e.done("get", doctype, false, t, e.ERPNext.Get(ctx, doctype, name, out))
}

// Insert implements connector.ERPNext.
func (e erpEdge) Insert(ctx context.Context, doctype string, doc any, out any) error {
	t := e.begin()
	return e.done("insert", doctype, true, t, e.ERPNext.Insert(ctx, doctype, doc, out))
}

// Update implements connector.ERPNext.
func (e erpEdge) Update(ctx context.Context, doctype, name string, fields any, out any) error {
	t := e.begin()
	return e.done("update", doctype, true, t, e.ERPNext.Update(ctx, doctype, name, fields, out))
}

// Call implements connector.ERPNext. The doctype label holds the method's last dotted part.
func (e erpEdge) Call(ctx context.Context, method string, args any, out any) error {
	t := e.begin()
	err := e.ERPNext.Call(ctx, method, args, out)
	short := method
	if i := strings.LastIndexByte(method, '.'); i >= 0 {
		short = method[i+1:]
	}
	return e.done("call", short, !readOnlyMethods[method], t, err)
}
