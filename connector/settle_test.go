package connector_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/reconcile"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/wire"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// A day of 50 payments with fees, 5 refunds and one adjustment, settled in one settlement: one
// submitted Journal Entry, balanced, Dr bank = the settlement amount to the paisa, Cr clearing
// exactly what those items put into it, so the clearing account's balance moves by exactly
// that; settlement.processed delivered again and a reconcile afterwards post nothing.
func TestSettlementPostsOneBalancedJournalEntry(t *testing.T) {
	for _, mode := range []string{"deduction", "none"} {
		t.Run("Fees"+strings.ToUpper(mode[:1])+mode[1:], func(t *testing.T) {
			r := newSetlRig(t, withConfig(func(c *connector.Config) {
				if mode == "none" {
					c.Mapping.Fees.Mode = "none"
					c.Settlements.FeeAccount, c.Settlements.TaxAccount = erpnextsim.FeeAccount, erpnextsim.GSTInputAccount
				}
			}))
			var items []string
			var gross, fees, gst, refunded int64
			for i := range 50 {
				id := r.pay(i, 100000+int64(i)*1137, false)
				items = append(items, id)
			}
			r.flush()
			for i := range 5 {
				items = append(items, r.refund(i, items[i*7], 20000+int64(i)*100))
			}
			if _, err := r.rzp.AddAdjustment(razorpaysim.Adjustment{Amount: -5000, Description: "chargeback fee"}); err != nil {
				t.Fatal(err)
			}
			r.flush()
			before := r.balance(erpnextsim.RazorpayClearing)
			put := r.intoClearing(erpnextsim.RazorpayClearing, items)

			st := r.settle(razorpaysim.SettleOptions{})
			rows, err := r.rzp.Recon(st.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range rows {
				switch row.Type {
				case razorpay.ReconPayment:
					gross, fees, gst = gross+row.Amount, fees+row.Fee-row.Tax, gst+row.Tax
				case razorpay.ReconRefund:
					refunded += row.Debit
				}
			}
			if len(rows) != 56 || st.Amount != gross-fees-gst-refunded-5000 {
				t.Fatalf("settlement %+v with %d rows: the simulator does not add up", st, len(rows))
			}
			ev := r.want(r.settlementEvent(st).EventID, connector.StatusDone, "posted: 50 payments, 5 refunds, 1 adjustments")
			je := r.journal(st.UTR)
			if ev.ResultDoctype != "Journal Entry" || ev.ResultName != je["name"] {
				t.Errorf("event result %s %s, want the Journal Entry %v", ev.ResultDoctype, ev.ResultName, je["name"])
			}
			want := map[string]int64{hdfcGL: st.Amount, erpnextsim.RazorpayClearing: -put, adjustments: 5000}
			if mode == "none" {
				want[erpnextsim.FeeAccount], want[erpnextsim.GSTInputAccount] = fees, gst
				if put != gross-refunded {
					t.Errorf("fees none: receipts put %d into clearing, want gross − refunds %d", put, gross-refunded)
				}
			} else if put != gross-fees-gst-refunded {
				t.Errorf("fees deducted: receipts put %d into clearing, want gross − fees − refunds %d", put, gross-fees-gst-refunded)
			}
			if got := r.lines(je); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("Journal Entry lines %v\nwant %v", got, want)
			}
			if je["voucher_type"] != "Bank Entry" || je["posting_date"] != r.clock.now().In(ist(t)).Format("2006-01-02") || je["cheque_date"] != je["posting_date"] ||
				!strings.HasPrefix(fmt.Sprint(je["user_remark"]), "Razorpay settlement "+st.ID+" UTR "+st.UTR+": 50 payments") {
				t.Errorf("Journal Entry header %v %v %v %q", je["voucher_type"], je["posting_date"], je["cheque_date"], je["user_remark"])
			}
			after := r.balance(erpnextsim.RazorpayClearing)
			if after-before != -put || r.balance(hdfcGL) != st.Amount {
				t.Errorf("clearing %d → %d (moved %d), bank %d: want the clearing to move by exactly −%d and the bank to hold %d",
					before, after, after-before, r.balance(hdfcGL), put, st.Amount)
			}

			// settlement.processed again (Razorpay's retry), and a reconcile: nothing more is posted.
			r.deliver("evt_T3stSetlAgain01", []byte(r.settlementBody(st)))
			r.work()
			r.want("evt_T3stSetlAgain01", connector.StatusDuplicate, "already booked as Journal Entry "+fmt.Sprint(je["name"]))
			rep, err := reconcile.Run(context.Background(), r.conn.Reconcile(), reconcile.Request{Drain: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Settlements) != 1 || rep.Settlements[0].ID != st.ID || rep.Settlements[0].Entry != je["name"] || rep.SettlementCounts.Queued != 0 {
				t.Errorf("reconcile settlements %+v counts %+v", rep.Settlements, rep.SettlementCounts)
			}
			for outcome, want := range map[string]float64{"booked": 1, "duplicate": 1} {
				if got := counter(t, r.conn, connector.MetricBookings, "kind", "settlement", "outcome", outcome); got != want {
					t.Errorf("%s{kind=settlement,outcome=%s} = %v, want %v", connector.MetricBookings, outcome, got, want)
				}
			}
			if got := counter(t, r.conn, connector.MetricSettlementBankMatches, "state", connector.BankAwaiting); got < 1 {
				t.Errorf("%s{state=awaiting} = %v, want at least 1", connector.MetricSettlementBankMatches, got)
			}
			if n := len(r.journals(st.UTR)); n != 1 || r.balance(erpnextsim.RazorpayClearing) != after {
				t.Errorf("%d Journal Entries after the redelivery and the reconcile; clearing %d", n, r.balance(erpnextsim.RazorpayClearing))
			}
		})
	}
}

// settlementBody is a settlement.processed webhook body for st, as Razorpay sends it.
func (r *setlRig) settlementBody(st *razorpay.Settlement) string {
	r.t.Helper()
	b, err := connector.SyntheticSettlementEvent(account, r.clock.now(), st)
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

func ist(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// A settlement whose refund was never seen (its webhook not delivered) queues it from Razorpay
// and waits for that refund's booking, which wakes it: it posts in the same pass, the clock
// not moving.
func TestSettlementWokenByItsRefund(t *testing.T) {
	r := newSetlRig(t)
	paid := r.pay(1, 250000, false)
	r.flush()
	rf := r.refund(1, paid, 50000)
	st, err := r.rzp.SettleWith(razorpaysim.SettleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range r.rzp.State().Events {
		if ev.Event == "settlement.processed" {
			r.deliver(ev.ID, []byte(ev.Body))
		}
	}
	if did, err := r.conn.ProcessNext(context.Background(), 0); !did || err != nil {
		t.Fatalf("ProcessNext: %v %v", did, err)
	}
	ev := r.want(r.settlementEvent(st).EventID, connector.StatusPending, "queued from Razorpay: "+rf)
	if ev.WaitFor != (connector.Wait{Kind: connector.WaitOnRefund, Key: rf}) {
		t.Fatalf("settlement waits for %q, want refund:%s", ev.WaitFor, rf)
	}
	if n := r.work(); n != 2 {
		t.Fatalf("processed %d events, want the queued refund and the settlement it wakes", n)
	}
	r.want("reconcile:"+rf, connector.StatusDone)
	r.want(ev.EventID, connector.StatusDone, "posted: 1 payments, 1 refunds")
	if js := r.journals(st.UTR); len(js) != 1 {
		t.Fatalf("journals %v, want one", names(js))
	}
}

// A settlement that contains a payment whose webhooks were all lost: the settlement finds it
// with neither a booking nor an inbox row, queues it from Razorpay (reconcile:<id>) and waits
// for its receipt; the payment is booked, and its booking wakes the settlement, which posts at
// once — the clock does not move, the settlement's own retry is minutes away.
func TestSettlementBooksLostPaymentFirst(t *testing.T) {
	r := newSetlRig(t)
	seen := r.pay(1, 250000, false)
	lost := r.pay(2, 118000, true)
	r.flush()
	if got := r.entries(lost); len(got) != 0 {
		t.Fatalf("the lost payment is booked already: %v", names(got))
	}
	st, err := r.rzp.SettleWith(razorpaysim.SettleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range r.rzp.State().Events {
		if ev.Event == "settlement.processed" {
			r.deliver(ev.ID, []byte(ev.Body))
		}
	}
	if did, err := r.conn.ProcessNext(context.Background(), 0); !did || err != nil {
		t.Fatalf("ProcessNext: %v %v", did, err)
	}
	ev := r.want(r.settlementEvent(st).EventID, connector.StatusPending, "waits for its payments and refunds to be booked first",
		"never seen (every webhook lost), queued from Razorpay: "+lost)
	if js := r.journals(st.UTR); len(js) != 0 || ev.Attempts != 0 {
		t.Fatalf("posted %v before the lost payment was booked (attempts %d)", names(js), ev.Attempts)
	}
	if ev.WaitFor != (connector.Wait{Kind: connector.WaitOnReceipt, Key: lost}) || !ev.NextAttemptAt.After(r.clock.now()) {
		t.Fatalf("settlement waits for %q until %s, want the receipt of %s, later than now", ev.WaitFor, ev.NextAttemptAt, lost)
	}
	if n := r.work(); n != 2 { // the queued payment, then the settlement it wakes
		t.Fatalf("processed %d events, want the queued payment and the settlement", n)
	}
	r.one(lost)
	r.want("reconcile:"+lost, connector.StatusDone)
	r.want(ev.EventID, connector.StatusDone, "posted: 2 payments")
	je := r.journal(st.UTR)
	put := r.intoClearing(erpnextsim.RazorpayClearing, []string{seen, lost})
	if got := r.lines(je); got[erpnextsim.RazorpayClearing] != -put || got[hdfcGL] != st.Amount {
		t.Errorf("lines %v: want clearing −%d, bank %d", got, put, st.Amount)
	}
	queued := counter(t, r.conn, connector.MetricSettlementItemsQueued, "kind", connector.KindReceipt)
	if queued != 1 {
		t.Errorf("%s = %v, want 1", connector.MetricSettlementItemsQueued, queued)
	}
}

// A settlement whose rows do not add up to its amount parks with the difference, and nothing
// is posted; the clearing account keeps its balance.
func TestSettlementThatDoesNotAddUpParks(t *testing.T) {
	r := newSetlRig(t)
	r.pay(1, 100000, false)
	r.flush()
	before := r.balance(erpnextsim.RazorpayClearing)
	st := r.settle(razorpaysim.SettleOptions{Discrepancy: 150})
	r.want(r.settlementEvent(st).EventID, connector.StatusParked, "settlement does not add up", "difference INR 1.50", st.ID)
	if js := r.journals(st.UTR); len(js) != 0 || r.balance(erpnextsim.RazorpayClearing) != before {
		t.Errorf("Journal Entries %v posted for a settlement that does not add up", names(js))
	}
}

// Bank statement matching: a Bank Transaction carrying the UTR, imported before the
// settlement, is reconciled against the Journal Entry through reconcile_vouchers, and with a
// Cash-type clearing account the entry's clearance_date is set; with the recorded Bank-type
// clearing account it never is (erpnext-recorded-settlement/70-*, 72-*). Without a Bank
// Transaction the settlement is "awaiting bank statement", and a later reconcile matches it
// once the line appears. A line with another reference, or the UTR in another case, is never
// taken, whatever its amount.
func TestSettlementMatchesBankStatement(t *testing.T) {
	t.Run("ImportedBeforeWithCashClearing", func(t *testing.T) {
		r := newSetlRig(t, withConfig(func(c *connector.Config) { c.Mapping.PaidTo = cashClearing }))
		r.pay(1, 100000, false)
		r.flush()
		st, err := r.rzp.SettleWith(razorpaysim.SettleOptions{Lose: true})
		if err != nil {
			t.Fatal(err)
		}
		decoy := r.bankTransaction(st.Amount, "UTR99999999999", "NEFT another payout") // amount only: never matched
		bt := r.bankTransaction(st.Amount, "", "NEFT CR "+st.UTR+" RAZORPAY SOFTWARE")
		r.deliver("evt_T3stSetlCash001", []byte(r.settlementBody(st)))
		r.work()
		je := r.journal(st.UTR)
		r.want("evt_T3stSetlCash001", connector.StatusDone, "bank: matched Bank Transaction "+bt+", cleared "+r.clock.now().Format("2006-01-02"))
		wantReconciled(t, r, bt, je, st.Amount)
		if je["clearance_date"] != r.clock.now().Format("2006-01-02") {
			t.Errorf("clearance_date %v, want the Bank Transaction's date with a Cash-type clearing account", je["clearance_date"])
		}
		if d, _ := r.site.Doc("Bank Transaction", decoy); d["status"] != "Unreconciled" {
			t.Errorf("the decoy with another reference is %v", d["status"])
		}
	})
	t.Run("AwaitingThenMatchedByReconcile", func(t *testing.T) {
		r := newSetlRig(t)
		if err := r.site.SetAccountType(erpnextsim.RazorpayClearing, "Bank"); err != nil { // the recorded site's
			t.Fatal(err)
		}
		r.pay(1, 100000, false)
		r.flush()
		st := r.settle(razorpaysim.SettleOptions{})
		r.want(r.settlementEvent(st).EventID, connector.StatusDone, "bank: awaiting bank statement")
		rep := runReconcile(t, r)
		if len(rep.Settlements) != 1 || rep.Settlements[0].Bank.State != connector.BankAwaiting {
			t.Fatalf("report %+v: want the settlement awaiting its bank statement", rep.Settlements)
		}
		if g := gauge(t, r.conn, connector.MetricSettlementOldestUnmatched); g != float64(st.CreatedAt) {
			t.Errorf("%s = %v, want %d", connector.MetricSettlementOldestUnmatched, g, st.CreatedAt)
		}
		other := r.bankTransaction(st.Amount, strings.ToLower(st.UTR), "") // the UTR in another case: not this line
		bt := r.bankTransaction(st.Amount, st.UTR, "")
		rep = runReconcile(t, r)
		je := r.journal(st.UTR)
		if len(rep.Settlements) != 1 || rep.Settlements[0].Bank.State != connector.BankMatched || rep.Settlements[0].Bank.Transaction != bt {
			t.Fatalf("report %+v: want it matched with %s", rep.Settlements, bt)
		}
		wantReconciled(t, r, bt, je, st.Amount)
		if je["clearance_date"] != nil && je["clearance_date"] != "" {
			t.Errorf("clearance_date %v with a Bank-type clearing account, want none (70-je-get-after-reconcile)", je["clearance_date"])
		}
		if d, _ := r.site.Doc("Bank Transaction", other); d["status"] != "Unreconciled" {
			t.Errorf("the line with the UTR in another case is %v", d["status"])
		}
		if g := gauge(t, r.conn, connector.MetricSettlementOldestUnmatched); g != 0 {
			t.Errorf("%s = %v after the match, want 0", connector.MetricSettlementOldestUnmatched, g)
		}
		if n := len(r.journals(st.UTR)); n != 1 {
			t.Errorf("%d Journal Entries", n)
		}
	})
	t.Run("TwoCandidatesAreReportedNotGuessed", func(t *testing.T) {
		r := newSetlRig(t)
		r.pay(1, 100000, false)
		r.flush()
		st, err := r.rzp.SettleWith(razorpaysim.SettleOptions{Lose: true})
		if err != nil {
			t.Fatal(err)
		}
		a, b := r.bankTransaction(st.Amount, st.UTR, ""), r.bankTransaction(st.Amount, "", "IMPS "+st.UTR)
		rep := runReconcile(t, r)
		if len(rep.Settlements) != 1 || rep.Settlements[0].Bank.State != connector.BankAmbiguous || !rep.NeedsAttention ||
			len(rep.Anomalies) != 1 || rep.Anomalies[0].Kind != reconcile.AnomalySettlementBankAmbiguous {
			t.Fatalf("report %+v anomalies %+v: want the two candidates reported", rep.Settlements, rep.Anomalies)
		}
		if c := rep.Settlements[0].Bank.Candidates; len(c) != 2 || c[0] != a || c[1] != b {
			t.Errorf("candidates %v, want %s and %s", c, a, b)
		}
		for _, name := range []string{a, b} {
			if d, _ := r.site.Doc("Bank Transaction", name); d["status"] != "Unreconciled" {
				t.Errorf("%s is %v: nothing may be reconciled when two lines match", name, d["status"])
			}
		}
	})
}

// wantReconciled checks that Bank Transaction bt is Reconciled with exactly the Journal Entry
// je for amount paise.
func wantReconciled(t *testing.T, r *setlRig, bt string, je map[string]any, amount int64) {
	t.Helper()
	d, ok := r.site.Doc("Bank Transaction", bt)
	if !ok {
		t.Fatalf("no Bank Transaction %s", bt)
	}
	pes := rows(d, "payment_entries")
	if d["status"] != "Reconciled" || len(pes) != 1 || pes[0]["payment_document"] != "Journal Entry" || pes[0]["payment_entry"] != je["name"] ||
		minor(t, pes[0]["allocated_amount"], 2) != amount || minor(t, d["unallocated_amount"], 2) != 0 {
		t.Errorf("Bank Transaction %s: status %v, rows %v, unallocated %v; want Reconciled with %v for %d", bt, d["status"], pes, d["unallocated_amount"], je["name"], amount)
	}
}

// runReconcile runs a reconcile by hand (drained) on the rig's connector.
func runReconcile(t *testing.T, r *setlRig) *reconcile.Report {
	t.Helper()
	rep, err := reconcile.Run(context.Background(), r.conn.Reconcile(), reconcile.Request{Drain: true})
	if err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	return rep
}

// gauge reads a gauge of c's registry (0 when absent).
func gauge(t *testing.T, c *wire.Core, name string) float64 {
	t.Helper()
	mf, err := c.Metrics().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range mf {
		if f.GetName() == name && len(f.GetMetric()) > 0 {
			return f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	return 0
}

// Exactly once through an ambiguous write (DESIGN.md §4 step 7): ERPNext commits the Journal
// Entry and the answer is lost (504). The settlement id stays claimed until its fence; then the
// lookup before create finds the entry by cheque_no and the settlement id, and records it: one
// entry. Under erpnext.name_entries_by_payment_id the entry is named after the settlement id,
// and a Journal Entry of that name a person made for something else answers the insert with
// 409, which parks rather than posts.
func TestSettlementAmbiguousWriteIsPostedOnce(t *testing.T) {
	for _, named := range []bool{false, true} {
		t.Run(fmt.Sprintf("Named%v", named), func(t *testing.T) {
			r := newSetlRig(t, withConfig(func(c *connector.Config) { c.ERPNext.NameEntriesByPaymentID = named }))
			r.pay(1, 100000, false)
			r.flush()
			st, err := r.rzp.SettleWith(razorpaysim.SettleOptions{Lose: true})
			if err != nil {
				t.Fatal(err)
			}
			r.site.DropResponseAfterCommit(1)
			r.deliver("evt_T3stSetlAmbig01", []byte(r.settlementBody(st)))
			r.work()
			ev := r.want("evt_T3stSetlAmbig01", connector.StatusPending, "insert Journal Entry for "+st.ID+": outcome unknown")
			if len(r.journals(st.UTR)) != 1 {
				t.Fatalf("the site did not commit the entry: %v", names(r.journals(st.UTR)))
			}
			r.clock.advance(ev.NextAttemptAt.Sub(r.clock.now()) + time.Second)
			r.work()
			r.want("evt_T3stSetlAmbig01", connector.StatusDone, "found in ERPNext by cheque_no and the settlement id")
			je := r.journal(st.UTR)
			if named != (je["name"] == st.ID) {
				t.Errorf("entry named %v (name_entries_by_payment_id %v)", je["name"], named)
			}
		})
	}
	t.Run("NameTakenByAnotherEntry", func(t *testing.T) {
		r := newSetlRig(t, withConfig(func(c *connector.Config) { c.ERPNext.NameEntriesByPaymentID = true }))
		r.pay(1, 100000, false)
		r.flush()
		st, err := r.rzp.SettleWith(razorpaysim.SettleOptions{Lose: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.site.Insert("Journal Entry", map[string]any{"name": st.ID, "voucher_type": "Journal Entry", "company": erpnextsim.DefaultCompany,
			"posting_date": r.clock.now().Format("2006-01-02"), "accounts": []any{
				map[string]any{"account": erpnextsim.CashAccount, "debit_in_account_currency": "1.00"},
				map[string]any{"account": adjustments, "credit_in_account_currency": "1.00"}}, "docstatus": 1}); err != nil {
			t.Fatal(err)
		}
		r.deliver("evt_T3stSetlNamed01", []byte(r.settlementBody(st)))
		r.work()
		r.want("evt_T3stSetlNamed01", connector.StatusParked, "insert Journal Entry for "+st.ID, "already exists")
		if js := r.journals(st.UTR); len(js) != 0 {
			t.Errorf("posted %v", names(js))
		}
	})
}

// counter reads the counter name of c's registry whose labels are the given name, value pairs.
func counter(t *testing.T, c *wire.Core, name string, labels ...string) float64 {
	t.Helper()
	mf, err := c.Metrics().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range mf {
		if f.GetName() != name {
			continue
		}
	metrics:
		for _, m := range f.GetMetric() {
			for i := 0; i+1 < len(labels); i += 2 {
				found := false
				for _, l := range m.GetLabel() {
					found = found || l.GetName() == labels[i] && l.GetValue() == labels[i+1]
				}
				if !found {
					continue metrics
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}
