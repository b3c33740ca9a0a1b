package erpnextsim_test

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// Names of the settlement set-up (recordings 60-*).
const (
	hdfcGL       = "HDFC Bank - EC"                    // the bank's GL account, account_type Bank
	hdfcDoc      = "HDFC Current - HDFC Bank"          // its Bank Account document
	plainClear   = "Razorpay Settlement Clearing - EC" // an Asset account without account_type
	feesAccount  = erpnextsim.FeeAccount
	gstAccount   = erpnextsim.GSTInputAccount
	clearing     = erpnextsim.RazorpayClearing // account_type Bank, like the recorded site's
	linkedMethod = "/api/method/erpnext.accounts.doctype.bank_reconciliation_tool.bank_reconciliation_tool.get_linked_payments"
	reconcileURL = "/api/method/erpnext.accounts.doctype.bank_reconciliation_tool.bank_reconciliation_tool.reconcile_vouchers"
	balanceURL   = "/api/method/erpnext.accounts.utils.get_balance_on"
)

// settlementSite is a site at the settlement recordings' clock with the HDFC Bank GL
// account, Bank, Bank Account and the untyped clearing account, made over REST as the
// System Manager made them (60-*).
func settlementSite(t *testing.T) *harness {
	t.Helper()
	h := newSettlementHarness(t)
	for _, step := range []struct {
		path string
		body map[string]any
	}{
		{"/api/resource/Account", map[string]any{"account_name": "HDFC Bank", "parent_account": "Bank Accounts - EC", "company": "Example Company", "account_type": "Bank", "is_group": 0, "account_currency": "INR"}},
		{"/api/resource/Bank", map[string]any{"bank_name": "HDFC Bank"}},
		{"/api/resource/Bank%20Account", map[string]any{"account_name": "HDFC Current", "bank": "HDFC Bank", "account": hdfcGL, "company": "Example Company", "is_company_account": 1}},
		{"/api/resource/Account", map[string]any{"account_name": "Razorpay Settlement Clearing", "parent_account": "Current Assets - EC", "company": "Example Company", "is_group": 0}},
	} {
		mustOK(t, h.do("POST", step.path, step.body, as(siteAdmin)...))
	}
	return h
}

func mustOK(t *testing.T, r resp) resp {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.raw)
	}
	return r
}

// settlementJE is the recorded settlement Journal Entry body (61-je-insert-*): Dr HDFC 9764,
// Dr fees 200, Dr GST 36, Cr clearing 10000; over replaces keys (nil deletes).
func settlementJE(utr, setl string, over map[string]any) map[string]any {
	b := map[string]any{"voucher_type": "Bank Entry", "company": "Example Company", "posting_date": "2026-12-01",
		"cheque_no": utr, "cheque_date": "2026-12-01", "user_remark": "Razorpay settlement " + setl + " UTR " + utr,
		"accounts": jeRows(hdfcGL, 9764, feesAccount, 200, gstAccount, 36, clearing, -10000)}
	return override(b, over)
}

// override sets over's keys on body, deleting those whose value is nil, and returns body.
func override(body, over map[string]any) map[string]any {
	for k, v := range over {
		if v == nil {
			delete(body, k)
		} else {
			body[k] = v
		}
	}
	return body
}

// jeRows builds accounts rows from account, amount pairs: positive = debit, negative = credit
// (in account currency, as the connector sends them).
func jeRows(pairs ...any) []any {
	var out []any
	for i := 0; i+1 < len(pairs); i += 2 {
		row := map[string]any{"account": pairs[i]}
		if n := pairs[i+1].(int); n >= 0 {
			row["debit_in_account_currency"] = n
		} else {
			row["credit_in_account_currency"] = -n
		}
		if pairs[i] == feesAccount {
			row["cost_center"] = erpnextsim.CostCenter
		}
		out = append(out, row)
	}
	return out
}

// bankLine is a Bank Transaction as a statement import makes it (66-bt-insert-*).
func bankLine(utr, setl string, deposit int, submit bool) map[string]any {
	b := map[string]any{"date": "2026-12-01", "bank_account": hdfcDoc, "deposit": deposit, "currency": "INR",
		"reference_number": utr, "transaction_id": setl, "description": "RAZORPAY SETTLEMENT " + setl + " NEFT " + utr}
	if submit {
		b["docstatus"] = 1
	}
	return b
}

// vouchers is reconcile_vouchers' vouchers argument: a JSON string.
func vouchers(doctype, name string, amount int) string {
	return `[{"payment_doctype": "` + doctype + `", "payment_name": "` + name + `", "amount": ` + strconv.Itoa(amount) + `}]`
}

// paise converts a decimal JSON number of a 2-decimal currency to minor units exactly.
func paise(t *testing.T, v any) int64 {
	t.Helper()
	s := num(v)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	frac = strings.TrimRight(frac, "0")
	if len(frac) > 2 {
		t.Fatalf("%s has more than 2 decimals", num(v))
	}
	frac += strings.Repeat("0", 2-len(frac))
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		t.Fatalf("not an amount: %v", v)
	}
	if neg {
		n = -n
	}
	return n
}

// glEntries lists a voucher's GL Entry rows (all fields the tests read).
func glEntries(t *testing.T, h *harness, voucher string) []map[string]any {
	t.Helper()
	r := mustOK(t, h.do("GET", list("/api/resource/GL%20Entry", map[string]string{
		"fields":  `["account","debit","credit","debit_in_account_currency","credit_in_account_currency","cost_center","against","remarks","is_cancelled","voucher_type"]`,
		"filters": `[["voucher_no","=","` + voucher + `"]]`, "limit_page_length": "0", "order_by": "account asc, debit asc"}), nil))
	var out []map[string]any
	for _, row := range r.body["data"].([]any) {
		out = append(out, row.(map[string]any))
	}
	return out
}

// balanceOn is get_balance_on(account, date) as user, in minor units.
func balanceOn(t *testing.T, h *harness, u erpnextsim.User, account, date string) int64 {
	t.Helper()
	q := url.Values{"account": {account}}
	if date != "" {
		q.Set("date", date)
	}
	r := mustOK(t, h.do("GET", balanceURL+"?"+q.Encode(), nil, as(u)...))
	return paise(t, r.body["message"])
}

// balanced checks Σ debit = Σ credit of live GL rows to the paisa and returns Σ debit.
func balanced(t *testing.T, rows []map[string]any) int64 {
	t.Helper()
	var debit, credit int64
	for _, r := range rows {
		if num(r["is_cancelled"]) == "0" {
			debit += paise(t, r["debit"])
			credit += paise(t, r["credit"])
		}
	}
	if debit != credit {
		t.Fatalf("GL rows do not balance: debit %d, credit %d paise", debit, credit)
	}
	return debit
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

func join(list []string) string { return strings.Join(list, ",") }

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// guest sends no Authorization header.
var guest = erpnextsim.User{}

func urlEscape(s string) string { return url.QueryEscape(s) }
