package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

const (
	setlBankGL  = "HDFC Bank - EC"
	setlBankDoc = "HDFC Current - HDFC Bank"
	setlAdjust  = "Razorpay Adjustments - EC"
)

// settlementSite adds the settlement set-up of erpnext-recorded-settlement/60-* to the site:
// the bank's GL account, its Bank and Bank Account, an adjustments account.
func settlementSite(e *env) {
	for _, a := range []erpnextsim.AccountSpec{
		{AccountName: "HDFC Bank", Parent: "Bank Accounts - EC", AccountType: "Bank"},
		{AccountName: "Razorpay Adjustments", Parent: "Indirect Expenses - EC", RootType: "Expense"},
	} {
		if _, err := e.site.AddAccount(a); err != nil {
			e.t.Fatal(err)
		}
	}
	if _, err := e.site.Insert(frappe.DoctypeBank, map[string]any{"bank_name": "HDFC Bank"}); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.site.Insert(frappe.DoctypeBankAccount, map[string]any{"account_name": "HDFC Current", "bank": "HDFC Bank",
		"account": setlBankGL, "company": erpnextsim.DefaultCompany, "is_company_account": 1}); err != nil {
		e.t.Fatal(err)
	}
}

func settlementTune(c *connector.Config) {
	c.Mapping.Fees.Mode, c.Mapping.Fees.FeeAccount, c.Mapping.Fees.TaxAccount, c.Mapping.Fees.CostCenter =
		"deduction", erpnextsim.FeeAccount, erpnextsim.GSTInputAccount, erpnextsim.CostCenter
	c.Settlements.Enabled = true
	c.Settlements.BankAccount, c.Settlements.BankAccountDoc, c.Settlements.AdjustmentsAccount = setlBankGL, setlBankDoc, setlAdjust
}

// settlementConfigFile is configFile with the mapping and settlements of settlementTune.
func (e *rzpEnv) settlementConfigFile() string {
	e.t.Helper()
	path := e.configFile()
	raw, err := os.ReadFile(path)
	if err != nil {
		e.t.Fatal(err)
	}
	y := strings.Replace(string(raw), fmt.Sprintf("mapping: {company: %q}", e.cfg.Mapping.Company), fmt.Sprintf(
		`mapping: {company: %q, fees: {mode: deduction, fee_account: %q, tax_account: %q, cost_center: %q}}
settlements: {enabled: true, bank_account: %q, bank_account_doc: %q, adjustments_account: %q}`,
		e.cfg.Mapping.Company, erpnextsim.FeeAccount, erpnextsim.GSTInputAccount, erpnextsim.CostCenter, setlBankGL, setlBankDoc, setlAdjust), 1)
	if y == string(raw) {
		e.t.Fatal("configFile changed its mapping line; update settlementConfigFile")
	}
	if err := os.WriteFile(path, []byte(y), 0o600); err != nil {
		e.t.Fatal(err)
	}
	return path
}

// The whole daemon on settlements: payments booked from the simulator's webhooks; a
// settlement whose settlement.processed is lost; the bank statement line imported first.
// `explain --settlement` shows the entry it would post and the line it would match, writing
// nothing; `reconcile` posts it (one balanced Journal Entry) and reconciles the Bank
// Transaction; the lost webhook delivered afterwards and a second reconcile post nothing;
// `events list` shows the settlement's rows like the others.
func TestSettlementThroughTheDaemon(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, driver string) {
		e := newRzpEnv(t, driver, "", settlementTune, settlementSite)
		var ids []string
		for i := range 3 {
			ids = append(ids, e.addPayment(i+1, 100000+int64(i)*2500, time.Now().Add(-time.Hour), false))
		}
		e.settle()
		st, err := e.sim.SettleWith(razorpaysim.SettleOptions{Lose: true})
		if err != nil {
			t.Fatal(err)
		}
		bt, err := e.site.Insert(frappe.DoctypeBankTransaction, map[string]any{"date": time.Now().Format("2006-01-02"), "bank_account": setlBankDoc,
			"deposit": razorpay.FormatMinor(st.Amount, 2), "currency": "INR", "reference_number": st.UTR, "description": "NEFT RAZORPAY", "docstatus": 1})
		if err != nil {
			t.Fatal(err)
		}
		path := e.settlementConfigFile()

		code, out, errs := run(t, e.secret, "explain", "--config", path, "--settlement", st.ID, "--json")
		var x connector.Explanation
		if code != exitOK || json.Unmarshal([]byte(out), &x) != nil {
			t.Fatalf("explain: exit %d\n%s\n%s", code, out, errs)
		}
		if x.Action != connector.ExplainCreate || x.Settlement == nil || x.Settlement.Amount != st.Amount || x.Entry["cheque_no"] != st.UTR ||
			x.Bank == nil || x.Bank.State != connector.BankWouldMatch || x.Bank.Transaction != bt["name"] {
			t.Fatalf("explain %+v (bank %+v)", x, x.Bank)
		}
		if n := len(e.site.Docs(frappe.DoctypeJournalEntry)); n != 0 {
			t.Fatalf("explain wrote %d Journal Entries", n)
		}
		code, out, _ = run(t, e.secret, "explain", "--config", path, "--settlement", st.ID)
		for _, want := range []string{"settlement.processed " + st.ID + " → CREATE", "debit " + setlBankGL, "bank statement: would match Bank Transaction " + fmt.Sprint(bt["name"])} {
			if code != exitOK || !strings.Contains(out, want) {
				t.Errorf("explain (text) lacks %q:\n%s", want, out)
			}
		}

		var gross, put int64
		for i, id := range ids {
			sub, _ := e.entries(id)
			put += amountMinor(t, sub[0]["received_amount"])
			gross += 100000 + int64(i)*2500
		}
		wantToday(t, e, gross, gross-put, 0, put) // booked, not settled: the clearing account holds what the receipts put in

		rep := e.reconcile(path, exitOK)
		if rep.SettlementCounts.Queued != 1 || rep.SettlementCounts.Booked != 1 || len(rep.Settlements) != 1 {
			t.Fatalf("reconcile settlements %+v lines %+v\n%s", rep.SettlementCounts, rep.Settlements, e.logs.String())
		}
		line := rep.Settlements[0]
		jes := e.site.Docs(frappe.DoctypeJournalEntry)
		if len(jes) != 1 || line.Entry != jes[0]["name"] || line.Bank.State != connector.BankMatched || line.Bank.Transaction != bt["name"] ||
			line.ClearingResidue != 0 || line.Items != 3 || line.Summary == nil || line.Summary.Net != st.Amount {
			t.Fatalf("line %+v (summary %+v), entries %d", line, line.Summary, len(jes))
		}
		var dr, cr, bank, clearing int64
		for _, row := range rows(jes[0], "accounts") {
			d, c := amountMinor(t, row["debit"]), amountMinor(t, row["credit"])
			dr, cr = dr+d, cr+c
			switch row["account"] {
			case setlBankGL:
				bank += d - c
			case erpnextsim.RazorpayClearing:
				clearing += c - d
			}
		}
		if dr != cr || bank != st.Amount || clearing != put || put != st.Amount {
			t.Errorf("Journal Entry Σ debit %d Σ credit %d, bank %d (want %d), clearing %d (want what the receipts put in, %d)", dr, cr, bank, st.Amount, clearing, put)
		}
		if d, _ := e.site.Doc(frappe.DoctypeBankTransaction, fmt.Sprint(bt["name"])); d["status"] != "Reconciled" {
			t.Errorf("Bank Transaction %v is %v", bt["name"], d["status"])
		}

		wantToday(t, e, gross, gross-put, st.Amount, 0) // settled: the clearing account is back to zero

		for _, ev := range e.sim.State().Events {
			if ev.Event == "settlement.processed" {
				if code, resp := e.deliver(e.d, ev.ID, []byte(ev.Body)); code != http.StatusOK {
					t.Fatalf("settlement.processed: %d %s", code, resp)
				}
			}
		}
		e.waitIdle(e.d)
		again := e.reconcile(path, exitOK)
		if again.SettlementCounts.Queued != 0 || again.SettlementCounts.AlreadyBooked != 1 || len(e.site.Docs(frappe.DoctypeJournalEntry)) != 1 {
			t.Errorf("second reconcile %+v; %d Journal Entries", again.SettlementCounts, len(e.site.Docs(frappe.DoctypeJournalEntry)))
		}

		code, out, errs = run(t, e.secret, "events", "list", "--config", path, "--json")
		var list struct {
			Events []eventView `json:"events"`
		}
		if code != exitOK || json.Unmarshal([]byte(out), &list) != nil {
			t.Fatalf("events list: %d %s %s", code, out, errs)
		}
		statuses := map[string]string{}
		for _, v := range list.Events {
			if v.BusinessKey == st.ID {
				statuses[v.EventID] = string(v.Status) + " " + v.ResultDoctype + " " + v.ResultName
			}
		}
		name := fmt.Sprint(jes[0]["name"])
		if len(statuses) != 2 || statuses["reconcile:"+st.ID] != "done Journal Entry "+name {
			t.Errorf("settlement rows in events list: %v; want reconcile:%s done Journal Entry %s and the webhook a duplicate", statuses, st.ID, name)
		}
		code, out, _ = run(t, e.secret, "events", "show", "--config", path, st.ID)
		if want := "\nbooking:         booked settlement Journal Entry " + name + "\n"; code != exitOK || !strings.Contains(out, want) {
			t.Errorf("events show %s: exit %d, want %q (no invoice in brackets):\n%s", st.ID, code, want, out)
		}
		rowsOf, err := e.d.db.FindEvents(context.Background(), st.ID)
		if err != nil || len(rowsOf) != 2 || rowsOf[1].Status != connector.StatusDuplicate {
			t.Errorf("rows of %s: %+v %v", st.ID, rowsOf, err)
		}
	})
}

// wantToday checks the console's settlement card: today's INR receipts booked (gross), the
// fees Razorpay keeps of them, settlements posted (net), and the clearing account's balance as
// ERPNext gives it. Once settled, the day's booked net of fees equals what was settled: the
// day is not listed as a difference of −fees.
func wantToday(t *testing.T, e *rzpEnv, booked, fees, settled, clearing int64) {
	t.Helper()
	ist, _ := time.LoadLocation(e.cfg.Mapping.Timezone)
	today, err := newConsoleBackend(context.Background(), e.d, ist).Today(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := today.Settlements
	if s == nil || len(s.Days) != seriesDays {
		t.Fatalf("Today settlements %+v", s)
	}
	last := s.Days[len(s.Days)-1]
	if last.BookedMinor != booked || last.FeesMinor != fees || last.RefundsMinor != 0 || last.SettledMinor != settled ||
		s.ClearingAccount != erpnextsim.RazorpayClearing || s.ClearingBalanceMinor != clearing || s.ClearingUnknown != "" {
		t.Errorf("Today: booked %d fees %d refunds %d settled %d, clearing %s %d (%q); want booked %d fees %d settled %d clearing %d",
			last.BookedMinor, last.FeesMinor, last.RefundsMinor, last.SettledMinor, s.ClearingAccount, s.ClearingBalanceMinor, s.ClearingUnknown,
			booked, fees, settled, clearing)
	}
	if settled != 0 && last.BookedNetMinor() != last.SettledMinor {
		t.Errorf("Today: booked net of fees %d, settled %d: a normal day shows as a difference", last.BookedNetMinor(), last.SettledMinor)
	}
}
