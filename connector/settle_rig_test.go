package connector_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/internal/sitetest"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// The settlement set-up of erpnext-recorded-settlement/60-*: the bank's GL account (type
// Bank), its Bank and Bank Account document, an Expense account for adjustments and a
// Cash-type clearing account.
const (
	hdfcGL       = sitetest.HDFCGL
	hdfcDoc      = sitetest.HDFCDoc
	adjustments  = sitetest.Adjustments
	cashClearing = sitetest.CashClearing
)

// setlRig is a rig with the Razorpay simulator, settlements on and the accounts above.
type setlRig struct {
	*rig
	delivered map[string]bool // simulator event ids delivered to the connector
}

// settleConfig turns settlements on (sitetest.SettleConfig).
func settleConfig(c *connector.Config) { sitetest.SettleConfig(c) }

func newSetlRig(t *testing.T, opts ...rigOption) *setlRig {
	t.Helper()
	r := newRig(t, append([]rigOption{withRazorpay, withConfig(settleConfig)}, opts...)...)
	if err := sitetest.Settlements(r.site); err != nil {
		t.Fatal(err)
	}
	return &setlRig{rig: r, delivered: map[string]bool{}}
}

// pay creates an invoice of amount paise and a captured payment for it (fee 2 % + GST, as the
// simulator charges); lose loses every webhook of it.
func (r *setlRig) pay(i int, amount int64, lose bool) string {
	r.t.Helper()
	inv := r.invoice("Test Customer", razorpay.FormatMinor(amount, 2))
	p, err := r.rzp.CreatePayment(razorpay.Payment{ID: fmt.Sprintf("pay_T3stSetlPay%04d", i), Amount: amount, Currency: "INR", Method: "upi",
		Notes: razorpay.Notes{"invoice": inv}}, razorpaysim.PaymentOptions{Lose: lose, Receipt: inv})
	if err != nil {
		r.t.Fatal(err)
	}
	return p.ID
}

// refund refunds amount paise of payment.
func (r *setlRig) refund(i int, payment string, amount int64) string {
	r.t.Helper()
	rf, err := r.rzp.CreateRefund(razorpay.Refund{ID: fmt.Sprintf("rfnd_T3stSetlRf%04d", i), PaymentID: payment, Amount: amount}, razorpaysim.RefundOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	return rf.ID
}

// flush delivers every simulator event not delivered yet and not lost, then works until idle.
func (r *setlRig) flush() {
	r.t.Helper()
	for _, ev := range r.rzp.State().Events {
		if r.delivered[ev.ID] || ev.Lost {
			continue
		}
		r.delivered[ev.ID] = true
		r.deliver(ev.ID, []byte(ev.Body))
	}
	r.work()
}

// settle makes a processed settlement of everything due (opt), delivers its webhook and works.
func (r *setlRig) settle(opt razorpaysim.SettleOptions) *razorpay.Settlement {
	r.t.Helper()
	st, err := r.rzp.SettleWith(opt)
	if err != nil {
		r.t.Fatal(err)
	}
	r.flush()
	return st
}

// settlementEvent is the inbox row of st's settlement.processed (the newest one).
func (r *setlRig) settlementEvent(st *razorpay.Settlement) connector.InboxEvent {
	r.t.Helper()
	rows, err := r.db.FindEvents(context.Background(), st.ID)
	if err != nil || len(rows) == 0 {
		r.t.Fatalf("no inbox row for %s: %v", st.ID, err)
	}
	return rows[len(rows)-1]
}

// journals returns the Journal Entries whose cheque_no is utr, any docstatus.
func (r *setlRig) journals(utr string) []map[string]any {
	var out []map[string]any
	for _, d := range r.site.Docs(frappe.DoctypeJournalEntry) {
		if d["cheque_no"] == utr {
			out = append(out, d)
		}
	}
	return out
}

// journal is the only Journal Entry of utr, which must be submitted.
func (r *setlRig) journal(utr string) map[string]any {
	r.t.Helper()
	js := r.journals(utr)
	if len(js) != 1 || fmt.Sprint(js[0]["docstatus"]) != "1" {
		r.t.Fatalf("Journal Entries with cheque_no %s: %v; want one submitted", utr, names(js))
	}
	return js[0]
}

// lines returns a Journal Entry's rows as account → debit − credit in paise, checking that the
// entry balances to the paisa.
func (r *setlRig) lines(je map[string]any) map[string]int64 {
	r.t.Helper()
	out := map[string]int64{}
	var dr, cr int64
	for _, row := range rows(je, "accounts") {
		d, c := minor(r.t, row["debit_in_account_currency"], 2), minor(r.t, row["credit_in_account_currency"], 2)
		if d != minor(r.t, row["debit"], 2) || c != minor(r.t, row["credit"], 2) {
			r.t.Errorf("row %v: company-currency amounts differ", row)
		}
		out[fmt.Sprint(row["account"])] += d - c
		dr, cr = dr+d, cr+c
	}
	if dr != cr || dr == 0 {
		r.t.Errorf("Journal Entry %v: Σ debit %d ≠ Σ credit %d", je["name"], dr, cr)
	}
	return out
}

// balance is get_balance_on of account on the site, through the connector's own client.
func (r *setlRig) balance(account string) int64 {
	r.t.Helper()
	var v any
	if err := r.erp.CallGET(context.Background(), frappe.MethodGetBalanceOn, map[string]string{"account": account}, &v); err != nil {
		r.t.Fatal(err)
	}
	return minor(r.t, v, 2)
}

// intoClearing is what the submitted Payment Entries of ids put into account (receipts'
// received_amount) less what they took out of it (refunds' paid_amount), in paise.
func (r *setlRig) intoClearing(account string, ids []string) int64 {
	r.t.Helper()
	var sum int64
	for _, id := range ids {
		pe := r.one(id)
		switch {
		case pe["paid_to"] == account:
			sum += minor(r.t, pe["received_amount"], 2)
		case pe["paid_from"] == account:
			sum -= minor(r.t, pe["paid_amount"], 2)
		default:
			r.t.Fatalf("%s (%v) does not touch %s", id, pe["name"], account)
		}
	}
	return sum
}

// bankTransaction imports a bank statement line on the HDFC Bank Account (as the user's
// statement import would) and returns its name.
func (r *setlRig) bankTransaction(deposit int64, reference, description string) string {
	r.t.Helper()
	bt, err := r.site.Insert(frappe.DoctypeBankTransaction, map[string]any{"date": r.clock.now().Format("2006-01-02"),
		"bank_account": hdfcDoc, "deposit": razorpay.FormatMinor(deposit, 2), "currency": "INR",
		"reference_number": reference, "description": description, "docstatus": 1})
	if err != nil {
		r.t.Fatal(err)
	}
	return fmt.Sprint(bt["name"])
}
