package erpnextsim_test

import (
	"testing"
)

// 66-bt-insert-draft, 66-bt-insert-submitted, 67-bt-get-submitted: status and computed
// amounts; company from the Bank Account.
func TestBT66StatusesAndAmounts(t *testing.T) {
	h := settlementSite(t)
	draft := mustOK(t, h.do("POST", btPath, bankLine("UTR00012345610", "setl_00000000000010", 9764, false), as(limitedUser)...)).data()
	sub := mustOK(t, h.do("POST", btPath, bankLine("UTR00012345678", "setl_00000000000002", 9764, true), as(limitedUser)...)).data()
	for _, c := range []struct {
		doc                     map[string]any
		name, status, docstatus string
	}{{draft, "ACC-BTN-2026-00001", "Pending", "0"}, {sub, "ACC-BTN-2026-00002", "Unreconciled", "1"}} {
		for k, want := range map[string]string{"name": c.name, "status": c.status, "docstatus": c.docstatus, "company": "Example Company",
			"deposit": "9764.0", "withdrawal": "0.0", "allocated_amount": "0.0", "unallocated_amount": "9764.0", "naming_series": "ACC-BTN-.YYYY.-"} {
			if got := field(c.doc, k); got != want {
				t.Errorf("%s %s = %q, want %q", c.name, k, got, want)
			}
		}
	}
	if field(sub, "modified") <= field(sub, "creation") {
		t.Errorf("a submitted transaction's modified %s is not after its creation %s (set_status writes it)", field(sub, "modified"), field(sub, "creation"))
	}
	// Nothing to allocate: unallocated 0 ≤ 0 is Reconciled at once (bank_transaction.py set_status).
	zero := mustOK(t, h.do("POST", btPath, bankLine("UTR0", "setl_zero", 0, true), as(limitedUser)...)).data()
	if field(zero, "status") != "Reconciled" {
		t.Errorf("a submitted line with no amount is %s, want Reconciled", field(zero, "status"))
	}
}

// 67-bt-duplicate-transaction-id, 67-bt-duplicate-transaction-id-draft: transaction_id is unique
// across drafts, submitted and in any case; the refusal names the would-be transaction, whose
// number the next insert takes.
func TestBT67TransactionIDIsUnique(t *testing.T) {
	h := settlementSite(t)
	mustOK(t, h.do("POST", btPath, bankLine("UTR00012345610", "setl_00000000000010", 9764, false), as(limitedUser)...))
	mustOK(t, h.do("POST", btPath, bankLine("UTR00012345678", "setl_00000000000002", 9764, true), as(limitedUser)...))
	for _, c := range []struct {
		id     string
		submit bool
	}{{"setl_00000000000002", true}, {"setl_00000000000010", false}, {"SETL_00000000000002", true}} {
		r := h.do("POST", btPath, bankLine("UTR1", c.id, 9764, c.submit), as(limitedUser)...)
		r.expectError(t, 417, "UniqueValidationError", "Transaction ID must be unique")
		want := `frappe.exceptions.UniqueValidationError: ('Bank Transaction', 'ACC-BTN-2026-00003', IntegrityError(1062, "Duplicate entry '` + c.id + `' for key 'transaction_id'"))`
		if got := str(r.body["exception"]); got != want {
			t.Errorf("exception %s, want %s", got, want)
		}
		if _, ok := r.body["_exc_source"]; ok {
			t.Error("a unique violation is Frappe's, not ERPNext's: no _exc_source")
		}
	}
	next := mustOK(t, h.do("POST", btPath, bankLine("UTR3", "setl_00000000000003", 9764, true), as(limitedUser)...))
	if field(next.data(), "name") != "ACC-BTN-2026-00003" {
		t.Errorf("next transaction %s, want the refused inserts' ACC-BTN-2026-00003", field(next.data(), "name"))
	}
}

// 66-bt-unknown-bank-account, 66-bt-gl-account-as-bank-account, 66-bt-currency-mismatch.
func TestBT66BankAccountNotLinkValidatedButCurrencyChecked(t *testing.T) {
	h := settlementSite(t)
	for _, ba := range []string{"No Such Bank Account", hdfcGL} {
		body := bankLine("UTR2", "setl_"+ba, 9764, true)
		body["bank_account"] = ba
		d := mustOK(t, h.do("POST", btPath, body, as(limitedUser)...)).data()
		if field(d, "bank_account") != ba || field(d, "company") != "Example Company" || field(d, "status") != "Unreconciled" {
			t.Errorf("bank_account %q: %v", ba, d)
		}
	}
	usd := bankLine("UTR00012345620", "setl_00000000000020", 9764, true)
	usd["currency"] = "USD"
	h.do("POST", btPath, usd, as(limitedUser)...).expectError(t, 417, "ValidationError",
		"Transaction currency: <strong>USD</strong> cannot be different from Bank Account(<strong>HDFC Current - HDFC Bank</strong>) currency: <strong>INR</strong>")
}

// 72-bt-cancel-api-user-403, 72-bt-cancel-system-manager, 72-je-get-after-bt-cancel,
// 72-bt-get-after-cancel: the Accounts User may not cancel; a cancel keeps the allocations and
// takes the entry's clearance date back.
func TestBT72CancelNeedsTheRightAndUnclears(t *testing.T) {
	h := settlementSite(t)
	je := settlementJE("UTR00012345697", "setl_00000000000005", map[string]any{"docstatus": 1,
		"accounts": jeRows(hdfcGL, 9764, feesAccount, 200, gstAccount, 36, plainClear, -10000)})
	mustOK(t, h.do("POST", jePath, je, as(limitedUser)...))
	mustOK(t, h.do("POST", btPath, bankLine("UTR00012345697", "setl_00000000000005", 9764, true), as(limitedUser)...))
	mustOK(t, h.do("POST", reconcileURL, map[string]any{"bank_transaction_name": "ACC-BTN-2026-00001", "vouchers": vouchers("Journal Entry", "ACC-JV-2026-00001", 9764)}, as(limitedUser)...))
	cleared, _ := h.site.Doc("Journal Entry", "ACC-JV-2026-00001")
	if field(cleared, "clearance_date") != "2026-12-01" {
		t.Fatalf("entry not cleared: %v", cleared)
	}
	cancel := map[string]any{"doctype": "Bank Transaction", "name": "ACC-BTN-2026-00001"}
	denied := h.do("POST", "/api/method/frappe.client.cancel", cancel, as(limitedUser)...)
	denied.expectError(t, 403, "PermissionError", "User <strong>"+limitedUser.Email+"</strong> does not have doctype access via role permission for document <strong>Bank Transaction</strong>")
	if join(keys(denied.body)) != "_error_message,_server_messages,exc_type" || str(denied.body["_error_message"]) != "No permission for Bank Transaction" {
		t.Errorf("403 body %s", denied.raw)
	}
	d := mustOK(t, h.do("POST", "/api/method/frappe.client.cancel", cancel, as(siteAdmin)...)).data()
	row := row0(d, "payment_entries")
	if field(d, "status") != "Cancelled" || field(d, "docstatus") != "2" || field(d, "allocated_amount") != "9764.0" ||
		field(d, "unallocated_amount") != "0.0" || field(row, "allocated_amount") != "9764.0" || field(row, "docstatus") != "2" {
		t.Errorf("cancelled transaction: %v", d)
	}
	after, _ := h.site.Doc("Journal Entry", "ACC-JV-2026-00001")
	if _, ok := after["clearance_date"]; ok || field(after, "modified") <= field(cleared, "modified") || field(after, "modified_by") != siteAdmin.Email {
		t.Errorf("entry after the cancel: clearance %v, modified %s by %s (was %s)", after["clearance_date"], field(after, "modified"), field(after, "modified_by"), field(cleared, "modified"))
	}
}

// An update after submit that drops a row takes that voucher's clearance date back and frees
// the amount (before_update_after_submit: delink_old_payment_entries; not recorded).
func TestBTUpdateAfterSubmitDroppingARowDelinks(t *testing.T) {
	h := settlementSite(t)
	mustOK(t, h.do("POST", jePath, settlementJE("UTR7", "setl_7", map[string]any{"docstatus": 1,
		"accounts": jeRows(hdfcGL, 9764, feesAccount, 200, gstAccount, 36, plainClear, -10000)}), as(limitedUser)...))
	mustOK(t, h.do("POST", btPath, bankLine("UTR7", "setl_7", 9764, true), as(limitedUser)...))
	mustOK(t, h.do("POST", reconcileURL, map[string]any{"bank_transaction_name": "ACC-BTN-2026-00001", "vouchers": vouchers("Journal Entry", "ACC-JV-2026-00001", 9764)}, as(limitedUser)...))
	r := mustOK(t, h.do("PUT", btPath+"/ACC-BTN-2026-00001", map[string]any{"payment_entries": []any{}}, as(limitedUser)...))
	if d := r.data(); field(d, "status") != "Unreconciled" || field(d, "unallocated_amount") != "9764.0" || field(d, "allocated_amount") != "0.0" {
		t.Errorf("after dropping the row: %v", d)
	}
	if je, _ := h.site.Doc("Journal Entry", "ACC-JV-2026-00001"); je["clearance_date"] != nil {
		t.Errorf("the entry kept clearance_date %v", je["clearance_date"])
	}
	h.do("PUT", btPath+"/ACC-BTN-2026-00001", map[string]any{"deposit": 1}, as(limitedUser)...).expectError(t, 417, "UpdateAfterSubmitError")
}
