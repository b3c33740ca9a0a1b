package erpnextsim_test

import (
	"testing"
)

// linked calls get_linked_payments and returns "doctype name rank paid_amount" per row, in order.
func linked(t *testing.T, h *harness, body map[string]any) []string {
	t.Helper()
	r := mustOK(t, h.do("POST", linkedMethod, body, as(limitedUser)...))
	var out []string
	for _, row := range r.body["message"].([]any) {
		m := row.(map[string]any)
		out = append(out, field(m, "doctype")+" "+field(m, "name")+" "+field(m, "rank")+" "+field(m, "paid_amount"))
	}
	return out
}

func window(bt string, types any) map[string]any {
	return map[string]any{"bank_transaction_name": bt, "document_types": types, "from_date": "2026-11-01", "to_date": "2026-12-31"}
}

// reconcile calls reconcile_vouchers as the Accounts User.
func reconcile(h *harness, bt, doctype, name string) resp {
	return h.do("POST", reconcileURL, map[string]any{"bank_transaction_name": bt, "vouchers": vouchers(doctype, name, 9764)}, as(limitedUser)...)
}

// 68-get-linked-payments-*, 72-get-linked-payments-other-reference*: dates are required, the
// rank adds the reference and the amount, exact_match filters the amount only, document_types
// may be a list or a JSON string.
func TestLinkedPayments68RankAndFilters(t *testing.T) {
	h := settlementSite(t)
	mustOK(t, h.do("POST", jePath, settlementJE("UTR00012345678", "setl_00000000000002", map[string]any{"docstatus": 1}), as(limitedUser)...))
	mustOK(t, h.do("POST", jePath, settlementJE("UTR00012345601", "setl_00000000000001", nil), as(limitedUser)...)) // a draft: never listed
	mustOK(t, h.do("POST", btPath, bankLine("UTR00012345678", "setl_00000000000002", 9764, true), as(limitedUser)...))
	mustOK(t, h.do("POST", btPath, bankLine("UTR99999999999", "setl_00000000000003", 9764, true), as(limitedUser)...))
	mustOK(t, h.do("POST", btPath, bankLine("UTR00012345678", "setl_small", 5000, true), as(limitedUser)...))
	exact := []any{"journal_entry", "exact_match"}
	for _, c := range []struct {
		name string
		body map[string]any
		want string
	}{
		{"68-no-dates", map[string]any{"bank_transaction_name": "ACC-BTN-2026-00001", "document_types": exact}, ""},
		{"68-one-date", map[string]any{"bank_transaction_name": "ACC-BTN-2026-00001", "document_types": exact, "from_date": "2026-11-01"}, ""},
		{"68-exact-with-dates", window("ACC-BTN-2026-00001", exact), "Journal Entry ACC-JV-2026-00001 3 9764.0"},
		{"68-all-types", window("ACC-BTN-2026-00001", []any{"payment_entry", "journal_entry", "sales_invoice", "bank_transaction"}), "Journal Entry ACC-JV-2026-00001 3 9764.0"},
		{"68-document-types-string", window("ACC-BTN-2026-00001", `["journal_entry","exact_match"]`), "Journal Entry ACC-JV-2026-00001 3 9764.0"},
		{"72-other-reference", window("ACC-BTN-2026-00002", []any{"journal_entry"}), "Journal Entry ACC-JV-2026-00001 2 9764.0"},
		{"72-other-reference-exact", window("ACC-BTN-2026-00002", exact), "Journal Entry ACC-JV-2026-00001 2 9764.0"},
		{"smaller-deposit-reference-only", window("ACC-BTN-2026-00003", []any{"journal_entry"}), "Journal Entry ACC-JV-2026-00001 2 9764.0"},
		{"smaller-deposit-exact", window("ACC-BTN-2026-00003", exact), ""},
		{"payment-entries-only", window("ACC-BTN-2026-00001", []any{"payment_entry"}), ""},
	} {
		if got := join(linked(t, h, c.body)); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	none := h.do("POST", linkedMethod, map[string]any{"bank_transaction_name": "ACC-BTN-2026-00001"}, as(limitedUser)...)
	none.expectError(t, 500, "TypeError")
}

// 68-get-linked-payments-bt-with-unknown-bank-account, 69-get-linked-payments-guest.
func TestLinkedPayments68UnknownBankAccountAndGuest(t *testing.T) {
	h := settlementSite(t)
	body := bankLine("UTR00012345621", "setl_00000000000021", 9764, true)
	body["bank_account"] = "No Such Bank Account"
	mustOK(t, h.do("POST", btPath, body, as(limitedUser)...))
	r := h.do("POST", linkedMethod, window("ACC-BTN-2026-00001", []any{"journal_entry"}), as(limitedUser)...)
	r.expectError(t, 500, "IndexError")
	if str(r.body["exception"]) != "IndexError: list index out of range" || str(r.body["_exc_source"]) != "erpnext (app)" {
		t.Errorf("body %s", r.raw)
	}
	g := h.do("POST", linkedMethod, window("ACC-BTN-2026-00001", []any{"journal_entry"}), as(guest)...)
	g.expectError(t, 403, "PermissionError", "<details><summary>You are not permitted to access this resource. Login to access</summary>Function <strong>erpnext.accounts.doctype.bank_reconciliation_tool.bank_reconciliation_tool.get_linked_payments</strong> is not whitelisted.</details>")
}

// 69-reconcile-vouchers, 70-*, 71-*: allocation, the silent drop, the already-reconciled
// refusal, the min with the unallocated amount, and vouchers not on the account.
func TestReconcile69AllocatesAsRecorded(t *testing.T) {
	h := settlementSite(t)
	mustOK(t, h.do("POST", jePath, settlementJE("UTR00012345678", "setl_00000000000002", map[string]any{"docstatus": 1}), as(limitedUser)...))
	mustOK(t, h.do("POST", jePath, settlementJE("UTR00012345698", "setl_00000000000004", map[string]any{"docstatus": 1}), as(limitedUser)...))
	mustOK(t, h.do("POST", jePath, settlementJE("UTR00012345604", "setl_00000000000009", nil), as(limitedUser)...)) // ACC-JV-2026-00003, a draft
	for _, line := range []map[string]any{bankLine("UTR00012345678", "setl_00000000000002", 9764, true),
		bankLine("UTR99999999999", "setl_00000000000003", 9764, true), bankLine("UTR00012345698", "setl_00000000000004", 5000, true)} {
		mustOK(t, h.do("POST", btPath, line, as(limitedUser)...))
	}
	r := mustOK(t, reconcile(h, "ACC-BTN-2026-00001", "Journal Entry", "ACC-JV-2026-00001"))
	d := r.data()
	row := row0(d, "payment_entries")
	if field(d, "status") != "Reconciled" || field(d, "allocated_amount") != "9764.0" || field(d, "unallocated_amount") != "0.0" ||
		field(row, "payment_document") != "Journal Entry" || field(row, "payment_entry") != "ACC-JV-2026-00001" ||
		field(row, "allocated_amount") != "9764.0" || field(row, "__unsaved") != "1" || field(row, "creation") != field(d, "creation") {
		t.Errorf("69-reconcile-vouchers: %s", r.raw)
	}
	if je, _ := h.site.Doc("Journal Entry", "ACC-JV-2026-00001"); je["clearance_date"] != nil {
		t.Error("70-je-get-after-reconcile: the clearing account is of type Bank, the entry must stay uncleared")
	}
	reconcile(h, "ACC-BTN-2026-00001", "Journal Entry", "ACC-JV-2026-00001").expectError(t, 417, "ValidationError",
		"Bank Transaction ACC-BTN-2026-00001 is already fully reconciled")
	if got := join(linked(t, h, window("ACC-BTN-2026-00002", []any{"journal_entry"}))); got != "Journal Entry ACC-JV-2026-00001 2 0.0,Journal Entry ACC-JV-2026-00002 2 9764.0" {
		t.Errorf("71-get-linked-payments-after-reconcile: %s", got)
	}
	drop := mustOK(t, reconcile(h, "ACC-BTN-2026-00002", "Journal Entry", "ACC-JV-2026-00001")).data()
	if field(drop, "status") != "Unreconciled" || field(drop, "allocated_amount") != "0.0" || len(drop["payment_entries"].([]any)) != 0 {
		t.Errorf("71-reconcile-je-already-allocated-elsewhere: %v", drop)
	}
	part := mustOK(t, reconcile(h, "ACC-BTN-2026-00003", "Journal Entry", "ACC-JV-2026-00002")).data()
	if field(part, "status") != "Reconciled" || field(row0(part, "payment_entries"), "allocated_amount") != "5000.0" {
		t.Errorf("71-reconcile-vouchers-amount-above-unallocated: %v", part)
	}
	for _, name := range []string{"ACC-JV-2026-99999", "ACC-JV-2026-00003"} {
		reconcile(h, "ACC-BTN-2026-00002", "Journal Entry", name).expectError(t, 417, "ValidationError",
			"Journal Entry "+name+" is not affecting bank account "+hdfcGL)
	}
	if got := join(linked(t, h, window("ACC-BTN-2026-00002", []any{"journal_entry"}))); got != "Journal Entry ACC-JV-2026-00001 2 0.0,Journal Entry ACC-JV-2026-00002 2 4764.0" {
		t.Errorf("allocations subtracted after ranking on the full amount: %s", got)
	}
}

// 72-*: a settlement entry crediting an untyped clearing account is cleared with the
// transaction's date and its modified bumped; spread over two transactions, it is cleared only
// by the one that completes it, with the later date.
func TestReconcile72ClearanceOnlyWhenEveryBankRowIsAllocated(t *testing.T) {
	h := settlementSite(t)
	je := settlementJE("UTR00012345697", "setl_00000000000005", map[string]any{"docstatus": 1,
		"accounts": jeRows(hdfcGL, 9764, feesAccount, 200, gstAccount, 36, plainClear, -10000)})
	mustOK(t, h.do("POST", jePath, je, as(limitedUser)...))
	before, _ := h.site.Doc("Journal Entry", "ACC-JV-2026-00001")
	first := bankLine("UTR00012345697", "setl_a", 5000, true)
	first["date"] = "2026-12-02"
	mustOK(t, h.do("POST", btPath, first, as(limitedUser)...))
	mustOK(t, reconcile(h, "ACC-BTN-2026-00001", "Journal Entry", "ACC-JV-2026-00001"))
	if mid, _ := h.site.Doc("Journal Entry", "ACC-JV-2026-00001"); mid["clearance_date"] != nil {
		t.Fatalf("cleared after 5000 of 9764: %v", mid["clearance_date"])
	}
	mustOK(t, h.do("POST", btPath, bankLine("UTR00012345697", "setl_b", 4764, true), as(limitedUser)...))
	r := mustOK(t, reconcile(h, "ACC-BTN-2026-00002", "Journal Entry", "ACC-JV-2026-00001"))
	if field(row0(r.data(), "payment_entries"), "allocated_amount") != "4764.0" {
		t.Errorf("second part: %s", r.raw)
	}
	after, _ := h.site.Doc("Journal Entry", "ACC-JV-2026-00001")
	if field(after, "clearance_date") != "2026-12-02" || field(after, "modified") <= field(before, "modified") {
		t.Errorf("clearance %s (want the later transaction date 2026-12-02), modified %s (was %s)", field(after, "clearance_date"), field(after, "modified"), field(before, "modified"))
	}
	if got := join(linked(t, h, window("ACC-BTN-2026-00002", []any{"journal_entry"}))); got != "" {
		t.Errorf("a cleared entry is no longer listed: %s", got)
	}
}

// 64-je-cancel-reconciled, 64-bt-get-after-je-cancel: cancelling an allocated entry takes it
// out of the transaction, which is Unreconciled again.
func TestJE64CancelReconciledUnlinksTheTransaction(t *testing.T) {
	h := settlementSite(t)
	mustOK(t, h.do("POST", jePath, settlementJE("UTR00012345698", "setl_00000000000004", map[string]any{"docstatus": 1}), as(limitedUser)...))
	mustOK(t, h.do("POST", btPath, bankLine("UTR00012345698", "setl_00000000000004", 5000, true), as(limitedUser)...))
	mustOK(t, reconcile(h, "ACC-BTN-2026-00001", "Journal Entry", "ACC-JV-2026-00001"))
	mustOK(t, h.do("POST", "/api/method/frappe.client.cancel", map[string]any{"doctype": "Journal Entry", "name": "ACC-JV-2026-00001"}, as(limitedUser)...))
	bt, _ := h.site.Doc("Bank Transaction", "ACC-BTN-2026-00001")
	if field(bt, "status") != "Unreconciled" || field(bt, "allocated_amount") != "0.0" || field(bt, "unallocated_amount") != "5000.0" ||
		len(bt["payment_entries"].([]any)) != 0 {
		t.Errorf("transaction after the entry's cancel: %v", bt)
	}
}

// A GET runs reconcile_vouchers but Frappe rolls its writes back (spec §2.1); a vouchers list
// sent as JSON (not a JSON string) is json.loads' TypeError.
func TestReconcileByGetKeepsNothingAndVouchersMustBeText(t *testing.T) {
	h := settlementSite(t)
	mustOK(t, h.do("POST", jePath, settlementJE("UTR1", "setl_1", map[string]any{"docstatus": 1}), as(limitedUser)...))
	mustOK(t, h.do("POST", btPath, bankLine("UTR1", "setl_1", 9764, true), as(limitedUser)...))
	get := mustOK(t, h.do("GET", reconcileURL+"?bank_transaction_name=ACC-BTN-2026-00001&vouchers="+urlEscape(vouchers("Journal Entry", "ACC-JV-2026-00001", 9764)), nil, as(limitedUser)...))
	if field(get.data(), "status") != "Reconciled" {
		t.Fatalf("GET answer: %s", get.raw)
	}
	if bt, _ := h.site.Doc("Bank Transaction", "ACC-BTN-2026-00001"); field(bt, "status") != "Unreconciled" {
		t.Errorf("a GET kept its writes: %v", bt)
	}
	h.do("POST", reconcileURL, map[string]any{"bank_transaction_name": "ACC-BTN-2026-00001",
		"vouchers": []any{map[string]any{"payment_doctype": "Journal Entry", "payment_name": "ACC-JV-2026-00001"}}}, as(limitedUser)...).expectError(t, 500, "TypeError")
}
