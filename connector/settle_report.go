package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// What reconcile's settlement sweep (connector/reconcile) asks of the core about one settlement:
// its bank match, and its breakdown for the report.

// SettlementLine is one settlement as `reconcile` reports it. Amounts are INR paise.
// Summary (items, gross, fees, GST, refunds, adjustments, net) is nil when the settlement's
// rows could not be planned (Reason says why). ClearingResidue is what of the settlement's
// money is still in the clearing account: everything its items put there until its entry is
// posted, then that less the entry's clearing line — 0 when the entry took exactly what the
// items put in.
type SettlementLine struct {
	ID              string                     `json:"id"`
	UTR             string                     `json:"utr"`
	CreatedAt       time.Time                  `json:"created_at"`
	Amount          int64                      `json:"amount"`
	Items           int                        `json:"items"`
	Summary         *mapping.SettlementSummary `json:"summary,omitempty"`
	Entry           string                     `json:"entry,omitempty"` // the Journal Entry
	Status          string                     `json:"status"`          // the settlement event's status, or "posted"
	Reason          string                     `json:"reason,omitempty"`
	Bank            BankMatch                  `json:"bank"`
	ClearingResidue int64                      `json:"clearing_residue"`
}

// MatchSettlement matches the posted entry of st with the bank statement line, as the worker
// does after posting (dryRun finds and reconciles nothing), and counts it. owner holds the lock
// row around the write (Connector.Owner).
func (c *Connector) MatchSettlement(ctx context.Context, st *razorpay.Settlement, entry, owner string, dryRun bool) (BankMatch, error) {
	m, err := c.matchBank(ctx, settledEntry{id: st.ID, utr: st.UTR, entry: entry, amount: st.Amount}, owner, dryRun)
	if !dryRun {
		c.countMatch(m, err)
	}
	return m, err
}

// SettlementBreakdown fills line's breakdown for st: the planned entry from its recon rows
// (Summary, Items, or Reason when it does not plan), and the clearing residue against entry
// ("" while none is posted). Razorpay and ERPNext failures are returned.
func (c *Connector) SettlementBreakdown(ctx context.Context, st *razorpay.Settlement, entry string, line *SettlementLine) error {
	clearing, err := c.paidToAccount(ctx)
	if err != nil {
		return err
	}
	rows, err := c.reconRows(ctx, st)
	if err != nil {
		return err
	}
	sp, err := mapping.PlanSettlement(c.settlementRules(clearing), *st, rows)
	var p *mapping.Park
	if errors.As(err, &p) {
		line.Reason = p.Error()
		return nil
	} else if err != nil {
		return err
	}
	s := sp.Summary
	line.Summary = &s
	line.Items = s.Payments + s.Refunds + s.Adjustments + s.Transfers
	line.ClearingResidue = s.Clearing
	if entry == "" {
		return nil
	}
	var je frappe.JournalEntry
	if err := c.erp.Get(ctx, frappe.DoctypeJournalEntry, entry, &je); err != nil {
		return failed("read Journal Entry "+entry, err)
	}
	if je.Docstatus != frappe.DocstatusSubmitted {
		line.Reason = "Journal Entry " + entry + " is not submitted in ERPNext"
		return nil
	}
	for _, a := range je.Accounts {
		if a.Account != clearing {
			continue
		}
		cr, err1 := razorpay.ParseDecimal(orZero(a.CreditInAccountCurrency), 2)
		dr, err2 := razorpay.ParseDecimal(orZero(a.DebitInAccountCurrency), 2)
		if err1 != nil || err2 != nil {
			return failed("read the clearing line of "+entry, errors.Join(err1, err2))
		}
		line.ClearingResidue -= cr - dr
	}
	return nil
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
	account, err = c.paidToAccount(ctx)
	if err != nil || account == "" {
		return account, 0, err
	}
	var v json.Number
	if err := c.erp.Call(ctx, frappe.MethodGetBalanceOn, map[string]any{"account": account, "date": c.now().In(c.loc).Format("2006-01-02")}, &v); err != nil {
		return account, 0, failed("read the balance of "+account, err)
	}
	paise, err = parseAmount(v)
	return account, paise, err
}

// parseAmount reads a JSON number ERPNext sends for an amount (e.g. -7812.75, 0.0, 1e3) as paise.
func parseAmount(v json.Number) (int64, error) {
	p, err := razorpay.ParseDecimal(orZero(v), 2)
	if err != nil {
		return 0, fmt.Errorf("amount %q: %w", v, err)
	}
	return p, nil
}
