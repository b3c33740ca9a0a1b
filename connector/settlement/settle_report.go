package settlement

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Match is MatchSettlement.
func (c *Job) Match(ctx context.Context, st *razorpay.Settlement, entry, owner string, dryRun bool) (connector.BankMatch, error) {
	m, err := c.matchBank(ctx, settledEntry{id: st.ID, utr: st.UTR, entry: entry, amount: st.Amount}, owner, dryRun)
	if !dryRun {
		c.countMatch(m, err)
	}
	return m, err
}

// Breakdown is SettlementBreakdown.
func (c *Job) Breakdown(ctx context.Context, st *razorpay.Settlement, entry string, line *connector.SettlementLine) error {
	clearing, err := c.PaidToAccount(ctx)
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
	if err := c.Account.ERP.Get(ctx, frappe.DoctypeJournalEntry, entry, &je); err != nil {
		return connector.Failed("read Journal Entry "+entry, err)
	}
	if je.Docstatus != frappe.DocstatusSubmitted {
		line.Reason = "Journal Entry " + entry + " is not submitted in ERPNext"
		return nil
	}
	for _, a := range je.Accounts {
		if a.Account != clearing {
			continue
		}
		cr, err1 := razorpay.ParseDecimal(connector.OrZero(a.CreditInAccountCurrency), 2)
		dr, err2 := razorpay.ParseDecimal(connector.OrZero(a.DebitInAccountCurrency), 2)
		if err1 != nil || err2 != nil {
			return connector.Failed("read the clearing line of "+entry, errors.Join(err1, err2))
		}
		line.ClearingResidue -= cr - dr
	}
	return nil
}

// ClearingBalance is ClearingBalance.
func (c *Job) ClearingBalance(ctx context.Context) (account string, paise int64, err error) {
	account, err = c.PaidToAccount(ctx)
	if err != nil || account == "" {
		return account, 0, err
	}
	var v json.Number
	if err := c.Account.ERP.Call(ctx, frappe.MethodGetBalanceOn, map[string]any{"account": account, "date": c.Now().In(c.Account.Location).Format("2006-01-02")}, &v); err != nil {
		return account, 0, connector.Failed("read the balance of "+account, err)
	}
	paise, err = parseAmount(v)
	return account, paise, err
}

// parseAmount reads a JSON number ERPNext sends for an amount (e.g. -7812.75, 0.0, 1e3) as paise.
func parseAmount(v json.Number) (int64, error) {
	p, err := razorpay.ParseDecimal(connector.OrZero(v), 2)
	if err != nil {
		return 0, fmt.Errorf("amount %q: %w", v, err)
	}
	return p, nil
}
