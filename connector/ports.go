package connector

import (
	"context"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// The ports of the core: the clients of ERPNext and Razorpay it needs (implemented by
// frappe.Client and razorpay.Client), the store (store.go), and what another process of the
// core (connector/reconcile) uses of a Connector.

// ERPNext is the part of the Frappe REST client the connector uses (frappe.Client).
type ERPNext interface {
	List(ctx context.Context, doctype string, opt frappe.ListOptions, out any) error
	Get(ctx context.Context, doctype, name string, out any) error
	Insert(ctx context.Context, doctype string, doc any, out any) error
	Update(ctx context.Context, doctype, name string, fields any, out any) error
	Call(ctx context.Context, method string, args any, out any) error
}

var _ ERPNext = (*frappe.Client)(nil)

// RazorpayAPI is the part of the Razorpay REST client the connector uses (razorpay.Client):
// re-fetching entities before acting on them and filling in what an event does not carry.
// Nil when razorpay.key_id/key_secret are not configured.
type RazorpayAPI interface {
	GetPayment(ctx context.Context, id string) (*razorpay.Payment, error)
	GetOrder(ctx context.Context, id string) (*razorpay.Order, error)
	GetRefund(ctx context.Context, id string) (*razorpay.Refund, error)
	ListPayments(ctx context.Context, from, to time.Time, each func(*razorpay.Payment) error) error
	ListRefunds(ctx context.Context, from, to time.Time, each func(*razorpay.Refund) error) error
	GetDispute(ctx context.Context, id string) (*razorpay.Dispute, error)
	// Capture is used only with reconcile.capture_authorized.
	Capture(ctx context.Context, paymentID string, amount int64, currency string) (*razorpay.Payment, error)
	// Settlements (settlements.enabled): one settlement, the settlements of a window, and the
	// recon rows of a day (ReconCombined filters nothing: rows of every settlement of the day).
	GetSettlement(ctx context.Context, id string) (*razorpay.Settlement, error)
	ListSettlements(ctx context.Context, from, to time.Time, each func(*razorpay.Settlement) error) error
	ReconCombined(ctx context.Context, year, month, day int, each func(*razorpay.ReconItem) error) error
}

var _ RazorpayAPI = (*razorpay.Client)(nil)
