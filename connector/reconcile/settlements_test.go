package reconcile_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/intake"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/reconcile"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/wire"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// settlementEnv is a reconcileEnv with the settlement accounts of erpnext-recorded-
// settlement/60-* and settlements configured (off until a test turns them on).
func settlementEnv(t *testing.T) *reconcileEnv {
	t.Helper()
	e := newReconcileEnv(t, nil)
	for _, a := range []erpnextsim.AccountSpec{
		{AccountName: "HDFC Bank", Parent: "Bank Accounts - EC", AccountType: "Bank"},
		{AccountName: "Razorpay Adjustments", Parent: "Indirect Expenses - EC", RootType: "Expense"},
	} {
		if _, err := e.site.AddAccount(a); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.site.Insert(frappe.DoctypeBank, map[string]any{"bank_name": "HDFC Bank"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.site.Insert(frappe.DoctypeBankAccount, map[string]any{"account_name": "HDFC Current", "bank": "HDFC Bank",
		"account": "HDFC Bank - EC", "company": erpnextsim.DefaultCompany, "is_company_account": 1}); err != nil {
		t.Fatal(err)
	}
	if err := e.site.AddCustomer("Test Customer"); err != nil {
		t.Fatal(err)
	}
	f := &e.cfg.Mapping.Fees
	f.Mode, f.FeeAccount, f.TaxAccount, f.CostCenter = "deduction", erpnextsim.FeeAccount, erpnextsim.GSTInputAccount, erpnextsim.CostCenter
	s := &e.cfg.Settlements
	s.BankAccount, s.BankAccountDoc, s.AdjustmentsAccount = "HDFC Bank - EC", "HDFC Current - HDFC Bank", "Razorpay Adjustments - EC"
	return e
}

// liveConnector is a connector on e whose clock runs (waits and fences pass while it drains).
func (e *reconcileEnv) liveConnector() *wire.Core {
	e.t.Helper()
	e.live = true
	return e.connector()
}

// The settlement sweep: a settlement.processed that arrived while settlements were off was
// skipped; once they are on, a dry run lists it as would-queue and writes nothing; a run sends
// the row back to pending and posts the settlement; the line reports it awaiting its bank
// statement (and the gauge holds its created_at) until the Bank Transaction is imported, when
// the next run matches it.
func TestSettlementSweep(t *testing.T) {
	e := settlementEnv(t)
	ctx := context.Background()
	for i := range 2 {
		inv, err := e.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true,
			Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "1000.00"}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.sim.CreatePayment(razorpay.Payment{ID: fmt.Sprintf("pay_T3stSweepSet%02d", i), Amount: 100000, Currency: "INR", Method: "upi",
			CreatedAt: time.Now().Add(-time.Hour).Unix(), Notes: razorpay.Notes{"invoice": inv}}, razorpaysim.PaymentOptions{Lose: true, Receipt: inv}); err != nil {
			t.Fatal(err)
		}
	}
	off := e.liveConnector()
	if rep := e.reconcile(off, reconcile.Request{Drain: true}); rep.Payments.Booked != 2 || rep.SettlementCounts.Scanned != 0 {
		t.Fatalf("payments %+v settlements %+v: want both payments booked and no settlement sweep while off", rep.Payments, rep.SettlementCounts)
	}
	st, err := e.sim.SettleWith(razorpaysim.SettleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range e.sim.State().Events {
		if ev.Event == connector.EventSettlementProcessed {
			if _, err := off.Intake().Receive(ctx, intake.Delivery{Body: []byte(ev.Body), Signature: razorpay.Sign("whsec-reconcile", []byte(ev.Body)), EventID: ev.ID}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if did, err := off.ProcessNext(ctx, 0); !did || err != nil {
		t.Fatalf("ProcessNext %v %v", did, err)
	}
	rows, _ := e.db.FindEvents(ctx, st.ID)
	if len(rows) != 1 || rows[0].Status != connector.StatusSkipped {
		t.Fatalf("rows of %s: %+v; want one skipped while settlements are off", st.ID, rows)
	}

	e.cfg.Settlements.Enabled = true
	on := e.liveConnector()
	dry := e.reconcile(on, reconcile.Request{DryRun: true})
	if dry.SettlementCounts.Scanned != 1 || dry.SettlementCounts.Queued != 1 || len(dry.Settlements) != 1 || dry.Settlements[0].Status != "skipped" ||
		dry.Settlements[0].Summary == nil || dry.Settlements[0].Summary.Payments != 2 || dry.Settlements[0].ClearingResidue != st.Amount {
		t.Fatalf("dry run settlements %+v lines %+v", dry.SettlementCounts, dry.Settlements)
	}
	if rows, _ := e.db.FindEvents(ctx, st.ID); rows[0].Status != connector.StatusSkipped || len(e.site.Docs(frappe.DoctypeJournalEntry)) != 0 {
		t.Fatalf("the dry run wrote: %+v", rows)
	}

	rep := e.reconcile(on, reconcile.Request{Drain: true})
	jes := e.site.Docs(frappe.DoctypeJournalEntry)
	if rep.SettlementCounts.Queued != 1 || rep.SettlementCounts.Booked != 1 || len(jes) != 1 || len(rep.Settlements) != 1 {
		t.Fatalf("settlements %+v lines %+v; %d Journal Entries\n%+v", rep.SettlementCounts, rep.Settlements, len(jes), rep.Parked)
	}
	line := rep.Settlements[0]
	if line.Entry != jes[0]["name"] || line.Status != "posted" || line.Bank.State != connector.BankAwaiting || line.ClearingResidue != 0 ||
		line.Items != 2 || line.Amount != st.Amount || line.UTR != st.UTR {
		t.Errorf("line %+v", line)
	}
	if g := unmatchedGauge(t, on); g != float64(st.CreatedAt) {
		t.Errorf("oldest unmatched %v, want %d", g, st.CreatedAt)
	}

	if _, err := e.site.Insert(frappe.DoctypeBankTransaction, map[string]any{"date": time.Now().Format("2006-01-02"), "bank_account": "HDFC Current - HDFC Bank",
		"deposit": razorpay.FormatMinor(st.Amount, 2), "currency": "INR", "description": "NEFT " + st.UTR, "docstatus": 1}); err != nil {
		t.Fatal(err)
	}
	again := e.reconcile(on, reconcile.Request{Drain: true})
	if again.SettlementCounts.AlreadyBooked != 1 || len(again.Settlements) != 1 || again.Settlements[0].Bank.State != connector.BankMatched {
		t.Fatalf("after the import: %+v %+v", again.SettlementCounts, again.Settlements)
	}
	if g := unmatchedGauge(t, on); g != 0 || len(e.site.Docs(frappe.DoctypeJournalEntry)) != 1 {
		t.Errorf("oldest unmatched %v after the match, want 0", g)
	}
}

func unmatchedGauge(t *testing.T, c *wire.Core) float64 {
	t.Helper()
	mf, err := c.Metrics().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range mf {
		if f.GetName() == connector.MetricSettlementOldestUnmatched {
			return f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("%s not registered", connector.MetricSettlementOldestUnmatched)
	return 0
}
