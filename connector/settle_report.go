package connector

import (
	"context"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// What reconcile's settlement sweep (connector/reconcile) asks of the core about one settlement:
// its bank match, and its breakdown for the report.

// MatchSettlement matches the posted entry of st with the bank statement line, as the worker
// does after posting (dryRun finds and reconciles nothing), and counts it. owner holds the lock
// row around the write (Connector.Owner).
func (c *Connector) MatchSettlement(ctx context.Context, st *razorpay.Settlement, entry, owner string, dryRun bool) (BankMatch, error) {
	return c.booker.MatchSettlement(ctx, st, entry, owner, dryRun)
}

// SettlementBreakdown fills line's breakdown for st: the planned entry from its recon rows
// (Summary, Items, or Reason when it does not plan), and the clearing residue against entry
// ("" while none is posted). Razorpay and ERPNext failures are returned.
func (c *Connector) SettlementBreakdown(ctx context.Context, st *razorpay.Settlement, entry string, line *SettlementLine) error {
	return c.booker.SettlementBreakdown(ctx, st, entry, line)
}

// ObserveSettlements sets the oldest-unmatched gauge: the created_at of the oldest posted
// settlement without its bank statement line (zero when there is none).
func (c *Connector) ObserveSettlements(oldestUnmatched time.Time) {
	c.metrics.settleUnmatched.Set(unixOrZero(oldestUnmatched))
}

// ClearingBalance is the clearing account (the receipts' paid_to) and its balance today in
// paise, debit minus credit, from ERPNext's get_balance_on (erpnext-recorded-settlement/80-*:
// the Accounts User reads what the System Manager reads; negative allowed).
func (c *Connector) ClearingBalance(ctx context.Context) (account string, paise int64, err error) {
	return c.booker.ClearingBalance(ctx)
}
