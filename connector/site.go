package connector

import (
	"context"
	"regexp"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
)

// What the connector knows of the ERPNext site and reads once: the paid_to account, the
// round-off account, the API user.

// SitePrecision is the number of decimals the ERPNext site keeps for currency amounts. Frappe's
// default (currency_precision empty → 2 from number_format "#,##,###.##", recording
// 55-*); System Settings is unreadable to an Accounts user, so it is not read from the site.
const SitePrecision = 2

// CompanyCurrency is the base currency of a Razorpay (India) account and of the ERPNext
// company it books into: fee and tax are in INR paise (spec/razorpay.md §3.1).
const CompanyCurrency = "INR"

// rules is the mapping configuration as the planners take it, with paid_to resolved.
func (c *Connector) rules(paidTo string) mapping.Rules {
	var pattern *regexp.Regexp
	if c.cfg.Mapping.DescriptionPattern != "" {
		pattern, _ = regexp.Compile(c.cfg.Mapping.DescriptionPattern) // validated with the config
	}
	return mapping.Rules{
		DescriptionPattern: pattern,
		Company:            c.cfg.Mapping.Company, ModeOfPayment: c.cfg.Mapping.ModeOfPayment, PaidTo: paidTo,
		Location: c.loc, InvoiceFrom: c.cfg.Mapping.InvoiceFrom, Excess: c.cfg.Mapping.Excess,
		CompanyCurrency: CompanyCurrency, SitePrecision: SitePrecision,
		Fees: mapping.FeeRules{Mode: c.cfg.Mapping.Fees.Mode, FeeAccount: c.cfg.Mapping.Fees.FeeAccount,
			TaxAccount: c.cfg.Mapping.Fees.TaxAccount, CostCenter: c.cfg.Mapping.Fees.CostCenter},
		RefundsWithoutCreditNote: c.cfg.Mapping.Refunds.WithoutCreditNote,
	}
}

// paidToAccount is mapping.paid_to, else the Mode of Payment's default account for the
// company ("" when it has none). ERPNext never derives paid_to from mode_of_payment on the
// server (spec/erpnext.md §3.1, §7), so it is always sent explicitly.
func (c *Connector) paidToAccount(ctx context.Context) (string, error) {
	if c.cfg.Mapping.PaidTo != "" {
		return c.cfg.Mapping.PaidTo, nil
	}
	cached := func() (string, bool) {
		c.mu.Lock()
		defer c.mu.Unlock()
		acct, ok := c.paidTo[c.cfg.Mapping.Company]
		return acct, ok
	}
	if acct, ok := cached(); ok {
		return acct, nil
	}
	// One read for all the workers that start at once (issue 13: calls per booking).
	c.siteReads.Lock()
	defer c.siteReads.Unlock()
	if acct, ok := cached(); ok {
		return acct, nil
	}
	var mop frappe.ModeOfPayment
	if err := c.erp.Get(ctx, frappe.DoctypeModeOfPayment, c.cfg.Mapping.ModeOfPayment, &mop); err != nil {
		return "", failed("resolve paid_to account", err)
	}
	for _, a := range mop.Accounts {
		if a.Company == c.cfg.Mapping.Company && a.DefaultAccount != "" {
			c.mu.Lock()
			c.paidTo[c.cfg.Mapping.Company] = a.DefaultAccount
			c.mu.Unlock()
			return a.DefaultAccount, nil
		}
	}
	return "", nil
}

// roundOff is the company's round_off_account and its cost center (round_off_cost_center,
// else the company's cost_center), read once per company.
func (c *Connector) roundOff(ctx context.Context, company string) (account, costCenter string, err error) {
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

// commentEmail is the API user's id (frappe.auth.get_logged_user), cached; "razorpay-erpnext"
// when the site does not say.
func (c *Connector) commentEmail(ctx context.Context) string {
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
