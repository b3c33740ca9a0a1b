package connector

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// instrumentedERP decorates an ERPNext with request duration and error metrics. Methods the
// ERPNext interface gains later pass through uninstrumented through the embedded value.
type instrumentedERP struct {
	ERPNext
	m *metrics
}

func (e instrumentedERP) observe(op, doctype string, write bool, started time.Time, err error) {
	e.m.erpDuration.WithLabelValues(op, doctype).Observe(time.Since(started).Seconds())
	if err != nil {
		e.m.erpErrors.WithLabelValues(op, erpClass(err, write)).Inc()
	}
}

// List implements ERPNext.
func (e instrumentedERP) List(ctx context.Context, doctype string, opt frappe.ListOptions, out any) error {
	t := time.Now()
	err := e.ERPNext.List(ctx, doctype, opt, out)
	e.observe("list", doctype, false, t, err)
	return err
}

// Get implements ERPNext.
func (e instrumentedERP) Get(ctx context.Context, doctype, name string, out any) error {
	t := time.Now()
	err := e.ERPNext.Get(ctx, doctype, name, out)
	e.observe("get", doctype, false, t, err)
	return err
}

// Insert implements ERPNext.
func (e instrumentedERP) Insert(ctx context.Context, doctype string, doc any, out any) error {
	t := time.Now()
	err := e.ERPNext.Insert(ctx, doctype, doc, out)
	e.observe("insert", doctype, true, t, err)
	return err
}

// Update implements ERPNext.
func (e instrumentedERP) Update(ctx context.Context, doctype, name string, fields any, out any) error {
	t := time.Now()
	err := e.ERPNext.Update(ctx, doctype, name, fields, out)
	e.observe("update", doctype, true, t, err)
	return err
}

// Call implements ERPNext. The doctype label holds the method's last dotted part.
func (e instrumentedERP) Call(ctx context.Context, method string, args any, out any) error {
	t := time.Now()
	err := e.ERPNext.Call(ctx, method, args, out)
	short := method
	if i := strings.LastIndexByte(method, '.'); i >= 0 {
		short = method[i+1:]
	}
	e.observe("call", short, true, t, err)
	return err
}

// erpClass names the class of an ERPNext failure for metrics.
func erpClass(err error, write bool) string {
	var fe *frappe.Error
	if errors.As(err, &fe) {
		switch {
		case fe.Status == 429:
			return "rate_limited"
		case fe.Status >= 500 && !(write && fe.NonJSON):
			return "server"
		}
	}
	var te *frappe.TransportError
	if errors.As(err, &te) && (!write || te.BeforeSend) {
		return "transport"
	}
	return errorClass(err, write)
}

// razorpayClass names the class of a Razorpay failure for metrics.
func razorpayClass(err error) string {
	var ae *razorpay.APIError
	var te *razorpay.TransportError
	switch {
	case errors.As(err, &te):
		return "transport"
	case razorpay.IsAuthFault(err):
		return "auth"
	case razorpay.IsNotFound(err):
		return "not_found"
	case errors.As(err, &ae) && ae.Status == 429:
		return "rate_limited"
	case errors.As(err, &ae) && ae.Status >= 500:
		return "server"
	case errors.As(err, &ae):
		return "rejected"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return "other"
}

// instrumentedRazorpay decorates a RazorpayAPI with request duration and error metrics.
type instrumentedRazorpay struct {
	RazorpayAPI
	m *metrics
}

// instrumentRazorpay wraps api; nil stays nil (the API is optional).
func instrumentRazorpay(api RazorpayAPI, m *metrics) RazorpayAPI {
	if api == nil {
		return nil
	}
	return instrumentedRazorpay{RazorpayAPI: api, m: m}
}

func (r instrumentedRazorpay) observe(op string, started time.Time, err error) {
	r.m.rzpDuration.WithLabelValues(op).Observe(time.Since(started).Seconds())
	if err != nil {
		r.m.rzpErrors.WithLabelValues(op, razorpayClass(err)).Inc()
	}
}

// GetPayment implements RazorpayAPI.
func (r instrumentedRazorpay) GetPayment(ctx context.Context, id string) (*razorpay.Payment, error) {
	t := time.Now()
	p, err := r.RazorpayAPI.GetPayment(ctx, id)
	r.observe("get_payment", t, err)
	return p, err
}

// GetOrder implements RazorpayAPI.
func (r instrumentedRazorpay) GetOrder(ctx context.Context, id string) (*razorpay.Order, error) {
	t := time.Now()
	o, err := r.RazorpayAPI.GetOrder(ctx, id)
	r.observe("get_order", t, err)
	return o, err
}

// GetRefund implements RazorpayAPI.
func (r instrumentedRazorpay) GetRefund(ctx context.Context, id string) (*razorpay.Refund, error) {
	t := time.Now()
	f, err := r.RazorpayAPI.GetRefund(ctx, id)
	r.observe("get_refund", t, err)
	return f, err
}

// ListPayments implements RazorpayAPI.
func (r instrumentedRazorpay) ListPayments(ctx context.Context, from, to time.Time, each func(*razorpay.Payment) error) error {
	t := time.Now()
	err := r.RazorpayAPI.ListPayments(ctx, from, to, each)
	r.observe("list_payments", t, err)
	return err
}

// ListRefunds implements RazorpayAPI.
func (r instrumentedRazorpay) ListRefunds(ctx context.Context, from, to time.Time, each func(*razorpay.Refund) error) error {
	t := time.Now()
	err := r.RazorpayAPI.ListRefunds(ctx, from, to, each)
	r.observe("list_refunds", t, err)
	return err
}

// Capture implements RazorpayAPI.
func (r instrumentedRazorpay) Capture(ctx context.Context, paymentID string, amount int64, currency string) (*razorpay.Payment, error) {
	t := time.Now()
	p, err := r.RazorpayAPI.Capture(ctx, paymentID, amount, currency)
	r.observe("capture", t, err)
	return p, err
}

// GetDispute implements RazorpayAPI.
func (r instrumentedRazorpay) GetDispute(ctx context.Context, id string) (*razorpay.Dispute, error) {
	t := time.Now()
	d, err := r.RazorpayAPI.GetDispute(ctx, id)
	r.observe("get_dispute", t, err)
	return d, err
}
