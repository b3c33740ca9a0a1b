package erpnextsim_test

import (
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// 61-je-insert-draft, 61-je-get-submitted: the computed fields of a settlement Journal Entry.
func TestJE61InsertComputesTotalsTitleRemarkAndRows(t *testing.T) {
	h := settlementSite(t)
	r := mustOK(t, h.do("POST", jePath, settlementJE("UTR00012345601", "setl_00000000000001", nil), as(limitedUser)...))
	d := r.data()
	for k, want := range map[string]string{"name": "ACC-JV-2026-00001", "docstatus": "0", "title": hdfcGL, "total_debit": "10000.0",
		"total_credit": "10000.0", "difference": "0.0", "total_amount": "0.0", "total_amount_in_words": "INR Zero only.",
		"remark":        "Note: Razorpay settlement setl_00000000000001 UTR UTR00012345601\nReference #UTR00012345601 dated 01-12-2026",
		"naming_series": "ACC-JV-.YYYY.-", "is_opening": "No", "write_off_based_on": "Accounts Receivable", "multi_currency": "0"} {
		if got := field(d, k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if _, ok := d["status"]; ok {
		t.Error("a Journal Entry has no status field (61-je-get-submitted)")
	}
	rows := d["accounts"].([]any)
	wantRows := []struct{ account, typ, debit, credit, against string }{
		{hdfcGL, "Bank", "9764.0", "0.0", clearing},
		{feesAccount, "", "200.0", "0.0", clearing},
		{gstAccount, "Tax", "36.0", "0.0", clearing},
		{clearing, "Bank", "0.0", "10000.0", hdfcGL + ", " + feesAccount + ", " + gstAccount},
	}
	for i, w := range wantRows {
		row := rows[i].(map[string]any)
		for k, want := range map[string]string{"account": w.account, "account_type": w.typ, "debit": w.debit, "credit": w.credit,
			"debit_in_account_currency": w.debit, "credit_in_account_currency": w.credit, "cost_center": erpnextsim.CostCenter,
			"exchange_rate": "1.0", "account_currency": "INR", "against_account": w.against, "__unsaved": "1"} {
			if got := field(row, k); got != want {
				t.Errorf("row %d %s = %q, want %q", i+1, k, got, want)
			}
		}
	}
	if n := len(glEntries(t, h, "ACC-JV-2026-00001")); n != 0 {
		t.Errorf("a draft posted %d GL rows", n)
	}
}

// 61-je-insert-submitted, 61-je-gl-entries: submitted in one call, four balanced GL rows
// without `against` (set only while an entry is a draft), each with the row's cost center and
// the entry's remark.
func TestJE61SubmittedPostsGLWithoutAgainst(t *testing.T) {
	h := settlementSite(t)
	r := mustOK(t, h.do("POST", jePath, settlementJE("UTR00012345678", "setl_00000000000002", map[string]any{"docstatus": 1}), as(limitedUser)...))
	if field(r.data(), "docstatus") != "1" || field(row0(r.data(), "accounts"), "against_account") != "<nil>" {
		t.Fatalf("submitted entry: %s", r.raw)
	}
	rows := glEntries(t, h, "ACC-JV-2026-00001")
	if len(rows) != 4 {
		t.Fatalf("%d GL rows, want 4", len(rows))
	}
	if total := balanced(t, rows); total != 1_000_000 {
		t.Errorf("Σ debit %d paise, want 1000000", total)
	}
	want := map[string][2]int64{clearing: {0, 1_000_000}, feesAccount: {20_000, 0}, hdfcGL: {976_400, 0}, gstAccount: {3_600, 0}}
	for _, row := range rows {
		w := want[str(row["account"])]
		if paise(t, row["debit"]) != w[0] || paise(t, row["credit"]) != w[1] || row["against"] != nil ||
			field(row, "cost_center") != erpnextsim.CostCenter || field(row, "voucher_type") != "Journal Entry" ||
			field(row, "remarks") != "Note: Razorpay settlement setl_00000000000002 UTR UTR00012345678\nReference #UTR00012345678 dated 01-12-2026" {
			t.Errorf("GL row %v", row)
		}
	}
}

// 61-je-insert-client-name-submitted, 61-je-insert-client-name-duplicate: the client name is
// kept and a second insert of it is 409 with the recorded message.
func TestJE61ClientNameKeptAndRepeatIs409(t *testing.T) {
	h := settlementSite(t)
	body := settlementJE("UTR00012345608", "setl_00000000000008", map[string]any{"docstatus": 1, "name": "setl_00000000000008"})
	r := mustOK(t, h.do("POST", jePath, body, as(limitedUser)...))
	if field(r.data(), "name") != "setl_00000000000008" || field(r.data(), "naming_series") != "ACC-JV-.YYYY.-" {
		t.Fatalf("name: %s", r.raw)
	}
	again := h.do("POST", jePath, body, as(limitedUser)...)
	again.expectError(t, 409, "DuplicateEntryError", "Journal Entry <strong>setl_00000000000008</strong> already exists")
	if len(glEntries(t, h, "setl_00000000000008")) != 4 {
		t.Error("the refused repeat changed the ledger")
	}
}

// 62-*, 63-*: which refusals wait for submit and which come on every save, with the recorded
// texts; a refused insert quotes the series number the next insert then takes.
func TestJE62RefusalsAtTheRecordedTime(t *testing.T) {
	h := settlementSite(t)
	mustOK(t, h.do("POST", "/api/resource/Company", map[string]any{"company_name": "Other Company", "abbr": "OC", "default_currency": "INR", "country": "India"}, as(siteAdmin)...))
	utr := "UTR00012345603"
	cases := []struct {
		name      string
		over      map[string]any
		draftOK   bool
		excType   string
		message   string
		takesName bool // the message quotes the would-be name
	}{
		{"62-je-unbalanced", map[string]any{"accounts": jeRows(hdfcGL, 9764, feesAccount, 200, clearing, -10000)}, true,
			"ValidationError", "Total Debit must be equal to Total Credit. The difference is -36.0", false},
		{"62-je-bank-entry-no-cheque-no", map[string]any{"cheque_no": nil}, true, "ValidationError", "Reference No & Reference Date is required for Bank Entry", false},
		{"62-je-bank-entry-no-cheque-date", map[string]any{"cheque_date": nil}, false, "MandatoryError", "Please enter Reference date", false},
		{"63-je-account-of-other-company", map[string]any{"accounts": jeRows("Cash - OC", 9764, feesAccount, 200, gstAccount, 36, clearing, -10000)}, true,
			"ValidationError", "Journal Entry %s: Account Cash - OC does not belong to Company Example Company", true},
		{"63-je-group-account", map[string]any{"accounts": jeRows("Bank Accounts - EC", 9764, feesAccount, 200, gstAccount, 36, clearing, -10000)}, true,
			"ValidationError", "Journal Entry %s: Account Bank Accounts - EC is a Group Account and group accounts cannot be used in transactions", true},
		{"63-je-receivable-without-party", map[string]any{"accounts": jeRows(hdfcGL, 9764, feesAccount, 200, gstAccount, 36, erpnextsim.DefaultReceivable, -10000)}, false,
			"ValidationError", "Row 4: Party Type and Party is required for Receivable / Payable account Debtors - EC", false},
		{"63-je-unknown-account", map[string]any{"accounts": jeRows(hdfcGL, 9764, "No Such Account - EC", 200, gstAccount, 36, clearing, -10000)}, false,
			"LinkValidationError", "Could not find Row #2: Account: No Such Account - EC", false},
		{"63-je-debit-credit-only", map[string]any{"accounts": []any{map[string]any{"account": hdfcGL, "debit": 9764}, map[string]any{"account": clearing, "credit": 9764}}}, false,
			"ValidationError", "Row 1: Both Debit and Credit values cannot be zero", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			next := nextJEName(t, h)
			body := settlementJE(utr, "setl_00000000000003", tc.over)
			body["docstatus"] = 1
			msg := tc.message
			if tc.takesName {
				msg = sprintf(msg, next)
			}
			h.do("POST", jePath, body, as(limitedUser)...).expectError(t, 417, tc.excType, msg)
			delete(body, "docstatus")
			r := h.do("POST", jePath, body, as(limitedUser)...)
			switch {
			case tc.draftOK && r.status != 200:
				t.Fatalf("draft refused: %s", r.raw)
			case tc.draftOK && field(r.data(), "name") != next:
				t.Errorf("draft named %s, want the refused insert's %s", field(r.data(), "name"), next)
			case !tc.draftOK:
				r.expectError(t, 417, tc.excType, msg)
			}
		})
	}
}

// nextJEName is the name the next Journal Entry takes (the series counter of the site).
func nextJEName(t *testing.T, h *harness) string {
	t.Helper()
	r := mustOK(t, h.do("GET", list(jePath, map[string]string{"fields": `["name"]`, "filters": `[["name","like","ACC-JV-2026-%"]]`,
		"order_by": "name desc", "limit_page_length": "1"}), nil))
	rows := r.body["data"].([]any)
	n := 0
	if len(rows) > 0 {
		n = atoi(field(rows[0].(map[string]any), "name")[len("ACC-JV-2026-"):])
	}
	return sprintf("ACC-JV-2026-%05d", n+1)
}

// 64-je-submit-draft-put-docstatus-1, 64-je-cancel-frappe-client-cancel,
// 64-je-gl-entries-after-cancel, 64-je-cancel-again.
func TestJE64SubmitByPutCancelReversesAndCancelAgain(t *testing.T) {
	h := settlementSite(t)
	mustOK(t, h.do("POST", jePath, settlementJE("UTR00012345601", "setl_00000000000001", nil), as(limitedUser)...))
	before := balanceOn(t, h, limitedUser, clearing, "2026-12-01")
	r := mustOK(t, h.do("PUT", jePath+"/ACC-JV-2026-00001", map[string]any{"docstatus": 1}, as(limitedUser)...))
	if field(r.data(), "docstatus") != "1" || field(row0(r.data(), "accounts"), "against_account") != clearing {
		t.Fatalf("PUT docstatus 1: %s", r.raw)
	}
	gl := glEntries(t, h, "ACC-JV-2026-00001")
	if len(gl) != 4 || field(gl[0], "against") == "<nil>" {
		t.Fatalf("a former draft's GL rows carry against: %v", gl)
	}
	if got := balanceOn(t, h, limitedUser, clearing, "2026-12-01") - before; got != -1_000_000 {
		t.Errorf("clearing moved by %d paise, want -1000000", got)
	}
	c := mustOK(t, h.do("POST", "/api/method/frappe.client.cancel", map[string]any{"doctype": "Journal Entry", "name": "ACC-JV-2026-00001"}, as(limitedUser)...))
	if d := c.data(); field(d, "docstatus") != "2" || d["clearance_date"] != nil || d["finance_book"] != nil {
		t.Errorf("cancel answer (nulls kept): %s", c.raw)
	} else if _, ok := d["finance_book"]; !ok {
		t.Error("frappe.client.cancel keeps null fields")
	}
	gl = glEntries(t, h, "ACC-JV-2026-00001")
	if len(gl) != 8 {
		t.Fatalf("%d GL rows after cancel, want 4 originals + 4 reversals", len(gl))
	}
	var debit, credit int64
	for _, row := range gl {
		if field(row, "is_cancelled") != "1" {
			t.Errorf("live GL row after cancel: %v", row)
		}
		debit, credit = debit+paise(t, row["debit"]), credit+paise(t, row["credit"])
	}
	if debit != 2_000_000 || credit != 2_000_000 {
		t.Errorf("originals plus reversals: debit %d credit %d paise", debit, credit)
	}
	if got := balanceOn(t, h, limitedUser, clearing, "2026-12-01"); got != before {
		t.Errorf("clearing %d after cancel, want %d", got, before)
	}
	again := h.do("POST", "/api/method/frappe.client.cancel", map[string]any{"doctype": "Journal Entry", "name": "ACC-JV-2026-00001"}, as(limitedUser)...)
	again.expectError(t, 417, "ValidationError")
	if keys := keys(again.body); join(keys) != "_exc_source,exc,exc_type,exception" {
		t.Errorf("cancel again keys %v (64-je-cancel-again)", keys)
	}
	// A PUT does not pass through JournalEntry.cancel: Frappe's own refusal, no _exc_source.
	put := h.do("PUT", jePath+"/ACC-JV-2026-00001", map[string]any{"docstatus": 2}, as(limitedUser)...)
	put.expectError(t, 417, "ValidationError")
	if keys := keys(put.body); join(keys) != "exc,exc_type,exception" {
		t.Errorf("PUT on a cancelled entry: keys %v", keys)
	}
}

// 65-je-list-by-cheque-no-other-case, 65-je-list-by-user-remark-like,
// 65-je-list-child-filter-order-by-qualified: what a lookup by UTR or settlement id meets.
func TestJE65ListsMatchCaseInsensitiveAndLikeWildcard(t *testing.T) {
	h := settlementSite(t)
	mustOK(t, h.do("POST", jePath, settlementJE("UTR00012345678", "setl_00000000000002", map[string]any{"docstatus": 1}), as(limitedUser)...))
	mustOK(t, h.do("POST", jePath, settlementJE("UTR00012345679", "setlX00000000000002", map[string]any{"docstatus": 1}), as(limitedUser)...))
	byCheque := h.do("GET", list(jePath, map[string]string{"filters": `[["cheque_no","=","utr00012345678"]]`}), nil, as(limitedUser)...)
	if got := names(byCheque); join(got) != "ACC-JV-2026-00001" {
		t.Errorf("cheque_no = lower-case UTR: %v", got)
	}
	like := h.do("GET", list(jePath, map[string]string{"filters": `[["user_remark","like","%setl_00000000000002%"]]`, "order_by": "name asc"}), nil, as(limitedUser)...)
	if got := names(like); join(got) != "ACC-JV-2026-00001,ACC-JV-2026-00002" {
		t.Errorf("'_' is a LIKE wildcard, both entries match: %v", got)
	}
	child := mustOK(t, h.do("GET", list(jePath, map[string]string{"fields": `["name","` + "`tabJournal Entry Account`" + `.account","` + "`tabJournal Entry Account`" + `.debit_in_account_currency"]`,
		"filters": `[["Journal Entry Account","account","=","` + hdfcGL + `"],["docstatus","=",1]]`, "order_by": "`tabJournal Entry`.creation asc"}), nil, as(limitedUser)...))
	rows := child.body["data"].([]any)
	if len(rows) != 2 || field(rows[0].(map[string]any), "account") != hdfcGL || field(rows[0].(map[string]any), "debit_in_account_currency") != "9764.0" {
		t.Errorf("child filter, qualified order_by: %s", child.raw)
	}
}

// A Journal Entry with a row in another currency needs multi_currency (journal_entry.py
// validate_multi_currency, not recorded).
func TestJEForeignAccountNeedsMultiCurrency(t *testing.T) {
	h := settlementSite(t)
	body := settlementJE("UTR1", "setl_1", map[string]any{"accounts": []any{
		map[string]any{"account": erpnextsim.ReceivableUSD, "party_type": "Customer", "party": "USD Customer", "credit_in_account_currency": 10},
		map[string]any{"account": hdfcGL, "debit_in_account_currency": 840}}})
	if err := h.site.AddCustomer("USD Customer"); err != nil {
		t.Fatal(err)
	}
	h.do("POST", jePath, body, as(limitedUser)...).expectError(t, 417, "ValidationError", "Please check Multi Currency option to allow accounts with other currency")
}
