package booking

import (
	"context"
	"sync"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/kernel"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/settlement"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// The jobs, one per route (DESIGN.md §4 step 4), each holding the kernel and what it reads
// besides: the Account and its clients, the store, the clock, the logger, the counters and the
// spacing of a wait that re-polls (connector.BookingDeps).
type (
	// receiptJob books a payment's receipt (receipt.go, decide.go, resolve.go, customer.go,
	// entry.go, fields.go); ERPNext's own checkout is its checkout stage.
	receiptJob struct {
		*kernel.Kernel
		connector.BookingDeps
		checkout *checkoutJob
		mu       sync.Mutex
		// prInvoices maps a submitted Payment Request to its Sales Invoice (resolve.go), so
		// that a payment naming it takes the invoice lock before reading anything.
		prInvoices map[string]string
		// templates is what receipts need of each Payment Terms Template (invoice.go).
		templates map[string]termsTemplate
	}
	// checkoutJob finds the entry ERPNext's checkout made for a Payment Request (checkout.go).
	checkoutJob struct {
		*kernel.Kernel
		connector.BookingDeps
	}
	// refundJob books a refund against the credit note of its receipt's invoice (refund.go,
	// receipt_of.go); a failed refund is its void stage.
	refundJob struct {
		*kernel.Kernel
		connector.BookingDeps
		void *voidJob
	}
	// voidJob makes a failed refund void and cancels its entry (void.go).
	voidJob struct {
		*kernel.Kernel
		connector.BookingDeps
	}
	// disputeJob parks a dispute for a person, re-fetched first when the API is configured
	// (route.go).
	disputeJob struct{ rzp connector.RazorpayAPI }
)

// jobs are the jobs of one Account on one kernel: the connector.Booker New returns.
type jobs struct {
	k *kernel.Kernel
	connector.BookingDeps
	receipt    *receiptJob
	refund     *refundJob
	dispute    *disputeJob
	settlement *settlement.Job
}

var _ connector.Booker = (*jobs)(nil)

// New is the booking of d.Account (connector.Options.Booking): its kernel and the job of each
// route.
func New(d connector.BookingDeps) connector.Booker {
	k := kernel.New(d)
	return &jobs{
		k: k, BookingDeps: d,
		receipt: &receiptJob{Kernel: k, BookingDeps: d, checkout: &checkoutJob{k, d},
			prInvoices: map[string]string{}, templates: map[string]termsTemplate{}},
		refund:     &refundJob{Kernel: k, BookingDeps: d, void: &voidJob{k, d}},
		dispute:    &disputeJob{rzp: d.Account.Razorpay},
		settlement: settlement.New(k, d),
	}
}

// ExplainBank is the settlement job's explainBank (connector.Booker).
func (c *jobs) ExplainBank(ctx context.Context, e *razorpay.Event, pl *connector.Plan) (*connector.BankMatch, error) {
	return c.settlement.ExplainBank(ctx, e, pl)
}

// MatchSettlement is the settlement job's match (connector.Booker).
func (c *jobs) MatchSettlement(ctx context.Context, st *razorpay.Settlement, entry, owner string, dryRun bool) (connector.BankMatch, error) {
	return c.settlement.Match(ctx, st, entry, owner, dryRun)
}

// SettlementBreakdown is the settlement job's breakdown (connector.Booker).
func (c *jobs) SettlementBreakdown(ctx context.Context, st *razorpay.Settlement, entry string, line *connector.SettlementLine) error {
	return c.settlement.Breakdown(ctx, st, entry, line)
}

// ClearingBalance is the settlement job's clearingBalance (connector.Booker).
func (c *jobs) ClearingBalance(ctx context.Context) (string, int64, error) {
	return c.settlement.ClearingBalance(ctx)
}

// InvoiceOf resolves cands as a receipt does (connector.Booker).
func (c *jobs) InvoiceOf(ctx context.Context, cands []mapping.Candidate) (string, error) {
	res, err := c.receipt.resolveInvoice(ctx, cands, "")
	return res.invoice, err
}

// CommentEmail is the kernel's commentEmail (connector.Booker).
func (c *jobs) CommentEmail(ctx context.Context) string { return c.k.CommentEmail(ctx) }

// WakeWaiters is the kernel's WakeWaiters (connector.Booker).
func (c *jobs) WakeWaiters(ctx context.Context, waitFor connector.Wait, more ...connector.Wait) int {
	return c.k.WakeWaiters(ctx, waitFor, more...)
}
