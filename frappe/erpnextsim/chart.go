package erpnextsim

import (
	"strings"
	"time"
)

// accounts is the chart of accounts, Company and Account over REST, Accounts Settings and
// System Settings, and the default site New seeds.
type accounts struct {
	db      *store
	users   *users
	links   *links
	opt     Options
	now     func() time.Time
	company string
}

// chart is the recorded site's chart of accounts in tree order (recording
// 03-list-limit-page-length-0-account), plus GSTInputAccount, with one change:
// "Razorpay Clearing" is of type Cash, as the README tells a site to make it (the
// recorded site's was Bank: Options.ClearingAccountType). One account per line,
// indented by depth: "name|G(roup)|root_type|account_type".
const chart = `
Application of Funds (Assets)|G|Asset|
 Current Assets|G||
  Accounts Receivable|G||
   Debtors|||Receivable
   Debtors USD|||Receivable
  Bank Accounts|G||Bank
   Bank Account|||Bank
   Razorpay Clearing|||Cash
  Cash In Hand|G||Cash
   Cash|||Cash
  Loans and Advances (Assets)|G||
   Employee Advances|||
  Securities and Deposits|G||
   Earnest Money|||
  Stock Assets|G||Stock
   Stock In Hand|||Stock
  Tax Assets|G||
   Input Tax GST|||Tax
 Fixed Assets|G||
  Accumulated Depreciation|||Accumulated Depreciation
  Buildings|||Fixed Asset
  Capital Equipments|||Fixed Asset
  CWIP Account|||Capital Work in Progress
  Electronic Equipments|||Fixed Asset
  Furnitures and Fixtures|||Fixed Asset
  Office Equipments|||Fixed Asset
  Plants and Machineries|||Fixed Asset
  Softwares|||Fixed Asset
 Investments|G||
 Temporary Accounts|G||
  Temporary Opening|||Temporary
Equity|G|Equity|
 Capital Stock|||Equity
 Dividends Paid|||Equity
 Opening Balance Equity|||Equity
 Retained Earnings|||Equity
 Revaluation Surplus|||Equity
Expenses|G|Expense|
 Direct Expenses|G||
  Stock Expenses|G||
   Cost of Goods Sold|||Cost of Goods Sold
   Expenses Included In Asset Valuation|||Expenses Included In Asset Valuation
   Expenses Included In Valuation|||Expenses Included In Valuation
   Stock Adjustment|||Stock Adjustment
 Indirect Expenses|G||
  Administrative Expenses|||
  Commission on Sales|||
  Depreciation|||Depreciation
  Entertainment Expenses|||
  Exchange Gain/Loss|||
  Freight and Forwarding Charges|||Chargeable
  Gain/Loss on Asset Disposal|||
  Impairment|||
  Legal Expenses|||
  Marketing Expenses|||Chargeable
  Miscellaneous Expenses|||Chargeable
  Office Maintenance Expenses|||
  Office Rent|||
  Postal Expenses|||
  Print and Stationery|||
  Round Off|||Round Off
  Salary|||
  Sales Expenses|||
  Telephone Expenses|||
  Travel Expenses|||
  Utility Expenses|||
  Write Off|||
  Razorpay Fees|||
Income|G|Income|
 Direct Income|G||
  Sales|||
  Service|||
 Indirect Income|G||
Source of Funds (Liabilities)|G|Liability|
 Current Liabilities|G||
  Accounts Payable|G||Payable
   Creditors|||Payable
   Payroll Payable|||
  Duties and Taxes|G||Tax
  Loans (Liabilities)|G||
   Bank Overdraft Account|||
   Secured Loans|||
   Unsecured Loans|||
  Stock Liabilities|G||
   Asset Received But Not Billed|||Asset Received But Not Billed
   Stock Received But Not Billed|||Stock Received But Not Billed
`

// addChart creates the chart for company (account names "… - abbr"), numbering lft/rgt after
// the accounts already on the site.
func (ac *accounts) addChart(add func(dt, name string, fields map[string]any) *record, company, abbr string) {
	var parents []string
	var roots []string
	lft := int64(1)
	for _, a := range ac.db.docs["Account"] {
		lft = max(lft, a.int("rgt")+1)
	}
	for _, line := range strings.Split(strings.Trim(chart, "\n"), "\n") {
		depth := len(line) - len(strings.TrimLeft(line, " "))
		p := strings.Split(strings.TrimSpace(line), "|")
		name := p[0] + " - " + abbr
		parents = append(parents[:depth], name)
		if p[2] != "" {
			roots = append(roots[:0], p[2])
		}
		f := map[string]any{
			"account_name": p[0], "company": company, "is_group": int64(b2i(p[1] == "G")),
			"root_type": roots[0], "account_currency": DefaultCurrency, "freeze_account": "No",
			"disabled": int64(0), "include_in_gross": int64(0), "lft": lft, "rgt": lft + 1,
		}
		lft += 2
		if roots[0] == "Asset" || roots[0] == "Liability" || roots[0] == "Equity" {
			f["report_type"] = "Balance Sheet"
		} else {
			f["report_type"] = "Profit and Loss"
		}
		if depth > 0 {
			f["parent_account"] = parents[depth-1]
		}
		if p[3] != "" {
			f["account_type"] = p[3]
		}
		if name == ReceivableUSD {
			f["account_currency"] = "USD" // recordings 48-*, 49-*
		}
		add("Account", name, f)
	}
}
