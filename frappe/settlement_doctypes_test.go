package frappe_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/sharedtest"
)

// The settlement types decode the recorded answers of the real site.
func TestSettlementTypesDecodeRecordedAnswers(t *testing.T) {
	dir := sharedtest.Dir(t, "reference", "erpnext-recorded-settlement")
	body := func(name string) []byte {
		t.Helper()
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		var rec struct {
			Response struct {
				Body string `json:"body"`
			} `json:"response"`
		}
		if err := json.Unmarshal(raw, &rec); err != nil {
			t.Fatal(err)
		}
		return []byte(rec.Response.Body)
	}
	var je struct{ Data frappe.JournalEntry }
	if err := json.Unmarshal(body("61-je-get-submitted.json"), &je); err != nil {
		t.Fatal(err)
	}
	if je.Data.TotalDebit != "10000.0" || len(je.Data.Accounts) != 4 || je.Data.Accounts[3].CreditInAccountCurrency != "10000.0" ||
		je.Data.Accounts[0].AccountType != "Bank" || je.Data.ChequeNo != "UTR00012345678" || je.Data.Docstatus != 1 {
		t.Errorf("61-je-get-submitted: %+v", je.Data)
	}
	var bt struct{ Message frappe.BankTransaction }
	if err := json.Unmarshal(body("69-reconcile-vouchers.json"), &bt); err != nil {
		t.Fatal(err)
	}
	if bt.Message.Status != frappe.BankTransactionReconciled || bt.Message.UnallocatedAmount != "0.0" ||
		bt.Message.PaymentEntries[0].PaymentEntry != "ACC-JV-2026-00005" || bt.Message.PaymentEntries[0].AllocatedAmount != "9764.0" {
		t.Errorf("69-reconcile-vouchers: %+v", bt.Message)
	}
	var lp struct{ Message []frappe.LinkedPayment }
	if err := json.Unmarshal(body("76-get-linked-payments-internal-transfer.json"), &lp); err != nil {
		t.Fatal(err)
	}
	if len(lp.Message) != 4 || lp.Message[0].Rank != 3 || lp.Message[0].Doctype != "Payment Entry" || lp.Message[1].PaidAmount != "0.0" ||
		lp.Message[1].ReferenceNo != "UTR00012345678" || lp.Message[3].PaidAmount != "10000.0" {
		t.Errorf("76-get-linked-payments-internal-transfer: %+v", lp.Message)
	}
	var ba struct{ Data []frappe.BankAccount }
	if err := json.Unmarshal(body("66-bank-account-list-by-gl-account.json"), &ba); err != nil {
		t.Fatal(err)
	}
	if len(ba.Data) != 1 || ba.Data[0].Name != "HDFC Current - HDFC Bank" || ba.Data[0].Account != "HDFC Bank - EC" || ba.Data[0].IsCompanyAccount != 1 {
		t.Errorf("66-bank-account-list-by-gl-account: %+v", ba.Data)
	}
}

// The settlement flow through the client against the simulator: a submitted settlement entry
// named after the settlement, its bank line, the match, the reconciliation and the balances.
func TestSettlementFlowThroughClient(t *testing.T) {
	ctx := context.Background()
	admin := erpnextsim.User{Email: "siteadmin@example.com", Key: "ADMKEY", Secret: "ADMSECRET",
		Roles: []string{erpnextsim.RoleSystemManager, erpnextsim.RoleAccountsManager, erpnextsim.RoleAccountsUser}}
	_, url := simSite(t, 0, erpnextsim.Options{Users: []erpnextsim.User{admin}, Now: func() time.Time { return simNow }})
	c := newClient(t, frappe.Config{URL: url})
	setup := newClient(t, frappe.Config{URL: url, APIKey: admin.Key, APISecret: admin.Secret})
	for _, step := range []struct {
		doctype string
		doc     map[string]any
	}{
		{frappe.DoctypeAccount, map[string]any{"account_name": "HDFC Bank", "parent_account": "Bank Accounts - EC", "company": "Example Company", "account_type": "Bank"}},
		{frappe.DoctypeBank, map[string]any{"bank_name": "HDFC Bank"}},
		{frappe.DoctypeBankAccount, map[string]any{"account_name": "HDFC Current", "bank": "HDFC Bank", "account": "HDFC Bank - EC", "company": "Example Company", "is_company_account": 1}},
	} {
		if err := setup.Insert(ctx, step.doctype, step.doc, nil); err != nil {
			t.Fatalf("set up %s: %v", step.doctype, err)
		}
	}
	entry := frappe.JournalEntry{Name: "setl_00000000000002", VoucherType: frappe.VoucherTypeBankEntry, Company: "Example Company",
		PostingDate: "2026-11-30", ChequeNo: "UTR00012345678", ChequeDate: "2026-11-30", UserRemark: "Razorpay settlement setl_00000000000002",
		Docstatus: 1, Accounts: []frappe.JournalEntryAccount{
			{Account: "HDFC Bank - EC", DebitInAccountCurrency: "9764.00"},
			{Account: erpnextsim.FeeAccount, DebitInAccountCurrency: "200.00", CostCenter: erpnextsim.CostCenter},
			{Account: erpnextsim.GSTInputAccount, DebitInAccountCurrency: "36.00"},
			{Account: erpnextsim.RazorpayClearing, CreditInAccountCurrency: "10000.00"}}}
	var got frappe.JournalEntry
	if err := c.Insert(ctx, frappe.DoctypeJournalEntry, entry, &got); err != nil {
		t.Fatal(err)
	}
	if got.Name != "setl_00000000000002" || got.TotalDebit != "10000.0" || got.TotalCredit != "10000.0" || got.Difference != "0.0" ||
		got.Accounts[1].Debit != "200.0" || got.Title != "HDFC Bank - EC" {
		t.Fatalf("inserted entry: %+v", got)
	}
	var fe *frappe.Error
	if err := c.Insert(ctx, frappe.DoctypeJournalEntry, entry, nil); !errors.As(err, &fe) || fe.Status != 409 || fe.ExcType != "DuplicateEntryError" {
		t.Errorf("a repeated settlement name: %v, want 409 DuplicateEntryError", err)
	}
	line := frappe.BankTransaction{Date: "2026-11-30", BankAccount: "HDFC Current - HDFC Bank", Deposit: "9764.00", Currency: "INR",
		ReferenceNumber: "UTR00012345678", TransactionID: "setl_00000000000002", Docstatus: 1}
	var bt frappe.BankTransaction
	if err := c.Insert(ctx, frappe.DoctypeBankTransaction, line, &bt); err != nil {
		t.Fatal(err)
	}
	var matches []frappe.LinkedPayment
	if err := c.Call(ctx, frappe.MethodGetLinkedPayments, frappe.LinkedPaymentsArgs{BankTransactionName: bt.Name,
		DocumentTypes: []string{frappe.LinkedJournalEntry, frappe.LinkedExactMatch}, FromDate: "2026-11-01", ToDate: "2026-11-30"}, &matches); err != nil {
		t.Fatal(err)
	}
	if len(matches) != 1 || matches[0].Name != "setl_00000000000002" || matches[0].Rank != 3 || matches[0].PaidAmount != "9764.0" {
		t.Fatalf("linked payments: %+v", matches)
	}
	args, err := frappe.ReconcileVouchersArgs(bt.Name, frappe.ReconcileVoucher{PaymentDoctype: frappe.DoctypeJournalEntry, PaymentName: got.Name, Amount: "9764.00"})
	if err != nil {
		t.Fatal(err)
	}
	var after frappe.BankTransaction
	if err := c.Call(ctx, frappe.MethodReconcileVouchers, args, &after); err != nil {
		t.Fatal(err)
	}
	if after.Status != frappe.BankTransactionReconciled || after.AllocatedAmount != "9764.0" || len(after.PaymentEntries) != 1 {
		t.Errorf("after reconcile_vouchers: %+v", after)
	}
	for account, want := range map[string]json.Number{"HDFC Bank - EC": "9764.0", erpnextsim.RazorpayClearing: "-10000.0"} {
		var balance json.Number
		if err := c.CallGET(ctx, frappe.MethodGetBalanceOn, map[string]string{"account": account, "date": "2026-11-30"}, &balance); err != nil {
			t.Fatal(err)
		}
		if balance != want {
			t.Errorf("balance of %s = %s, want %s", account, balance, want)
		}
	}
	var unknown json.Number
	if err := c.CallGET(ctx, frappe.MethodGetBalanceOn, map[string]string{"account": "No Such Account - EC"}, &unknown); !frappe.IsNotFound(err) {
		t.Errorf("unknown account: %v, want not found", err)
	}
}
