package kernel

import (
	"context"
	"regexp"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
)

// What the connector knows of the ERPNext site and reads once: the paid_to account, the
// round-off account, the API user.

// Rules is the mapping configuration as the planners take it, with paid_to resolved.
func (c *Kernel) Rules(paidTo string) mapping.Rules {
	var pattern *regexp.Regexp
	if c.acct.Mapping.DescriptionPattern != "" {
		pattern, _ = regexp.Compile(c.acct.Mapping.DescriptionPattern) // validated with the config
	}
	return mapping.Rules{
		DescriptionPattern: pattern,
		Company:            c.acct.Mapping.Company, ModeOfPayment: c.acct.Mapping.ModeOfPayment, PaidTo: paidTo,
		Location: c.acct.Location, InvoiceFrom: c.acct.Mapping.InvoiceFrom, Excess: c.acct.Mapping.Excess,
		CompanyCurrency: connector.CompanyCurrency, SitePrecision: connector.SitePrecision,
		Fees: mapping.FeeRules{Mode: c.acct.Mapping.Fees.Mode, FeeAccount: c.acct.Mapping.Fees.FeeAccount,
			TaxAccount: c.acct.Mapping.Fees.TaxAccount, CostCenter: c.acct.Mapping.Fees.CostCenter},
		RefundsWithoutCreditNote: c.acct.Mapping.Refunds.WithoutCreditNote,
	}
}

// PaidToAccount is mapping.paid_to, else the Mode of Payment's default account for the
// company ("" when it has none). ERPNext never derives paid_to from mode_of_payment on the
// server (spec/erpnext.md §3.1, §7), so it is always sent explicitly.
func (c *Kernel) PaidToAccount(ctx context.Context) (string, error) {
	if c.acct.Mapping.PaidTo != "" {
		return c.acct.Mapping.PaidTo, nil
	}
	cached := func() (string, bool) {
		c.mu.Lock()
		defer c.mu.Unlock()
		acct, ok := c.paidTo[c.acct.Mapping.Company]
		return acct, ok
	}
	if acct, ok := cached(); ok {
		return acct, nil
	}
	// One read for all the workers that start at once (calls per booking).
	c.siteReads.Lock()
	defer c.siteReads.Unlock()
	if acct, ok := cached(); ok {
		return acct, nil
	}
	var mop frappe.ModeOfPayment
	if err := c.erp.Get(ctx, frappe.DoctypeModeOfPayment, c.acct.Mapping.ModeOfPayment, &mop); err != nil {
		return "", connector.Failed("resolve paid_to account", err)
	}
	for _, a := range mop.Accounts {
		if a.Company == c.acct.Mapping.Company && a.DefaultAccount != "" {
			c.mu.Lock()
			c.paidTo[c.acct.Mapping.Company] = a.DefaultAccount
			c.mu.Unlock()
			return a.DefaultAccount, nil
		}
	}
	return "", nil
}

// RoundOff is the company's round_off_account and its cost center (round_off_cost_center,
// else the company's cost_center), read once per company.
func (c *Kernel) RoundOff(ctx context.Context, company string) (account, costCenter string, err error) {
	c.mu.Lock()
	cached, ok := c.roundOffs[company]
	c.mu.Unlock()
	if ok {
		return cached[0], cached[1], nil
	}
	var co struct {
		RoundOffAccount    string `json:"round_off_account"`
		RoundOffCostCenter string `json:"round_off_cost_center"`
		CostCenter         string `json:"cost_center"`
	}
	if err := c.erp.Get(ctx, frappe.DoctypeCompany, company, &co); err != nil {
		return "", "", err
	}
	cc := co.RoundOffCostCenter
	if cc == "" {
		cc = co.CostCenter
	}
	c.mu.Lock()
	c.roundOffs[company] = [2]string{co.RoundOffAccount, cc}
	c.mu.Unlock()
	return co.RoundOffAccount, cc, nil
}

// CommentEmail is the API user's id (frappe.auth.get_logged_user), cached; "razorpay-erpnext"
// when the site does not say.
func (c *Kernel) CommentEmail(ctx context.Context) string {
	c.mu.Lock()
	user := c.apiUser
	c.mu.Unlock()
	if user != "" {
		return user
	}
	if err := c.erp.Call(ctx, frappe.MethodGetLoggedUser, nil, &user); err != nil || user == "" {
		return "razorpay-erpnext"
	}
	c.mu.Lock()
	c.apiUser = user
	c.mu.Unlock()
	return user
}
