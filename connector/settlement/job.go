// Package settlement posts Razorpay settlements (DESIGN.md §5): one Journal Entry (Bank Entry)
// per processed settlement, moving its money from the clearing account to the bank account,
// planned from its recon rows (settle_build.go, settle_decide.go), looked up before it is
// created (settle_lookup.go), waiting for the payments and refunds it settles (settle_items.go),
// and matched with the imported bank statement line (settle_bank.go). It runs on the booking
// kernel (connector/kernel) and is wired by connector/booking; reconcile's report reads it
// through connector.Booker (settle_report.go).
package settlement

import (
	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/kernel"
)

// Job books a settlement (DESIGN.md §5): settlement.processed — a webhook, or the synthetic row
// of reconcile's settlement sweep — posts one Journal Entry (Bank Entry) per processed
// settlement, exactly once like a receipt, on the booking kernel (claim, lookup before create,
// apply), then matches it with the bank statement line. Build it with New.
type Job struct {
	*kernel.Kernel
	connector.BookingDeps
}

// New is the settlement job of d.Account on the kernel k.
func New(k *kernel.Kernel, d connector.BookingDeps) *Job { return &Job{Kernel: k, BookingDeps: d} }
