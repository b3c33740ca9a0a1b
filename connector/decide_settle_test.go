package connector_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/wire"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Decide for settlements, table-driven without HTTP: a settlement and its recon rows (an
// in-memory Razorpay), the ERPNext facts (fakeERP) and the connector's own rows → the plan and
// the exact Journal Entry lines for each kind of row.

// fakeRazorpay serves one settlement and its recon rows; every other call fails.
type fakeRazorpay struct {
	connector.RazorpayAPI // nil: any other call panics, which a test would see
	st                    razorpay.Settlement
	rows                  []razorpay.ReconItem
}

func (f *fakeRazorpay) GetSettlement(_ context.Context, id string) (*razorpay.Settlement, error) {
	if id != f.st.ID {
		return nil, errors.New("fakeRazorpay: no settlement " + id)
	}
	st := f.st
	return &st, nil
}

func (f *fakeRazorpay) ReconCombined(_ context.Context, year, month, day int, each func(*razorpay.ReconItem) error) error {
	if y, m, d := f.st.ReconDay(); y != year || m != month || d != day {
		return fmt.Errorf("fakeRazorpay: recon asked for %04d-%02d-%02d, the settlement is of %04d-%02d-%02d", year, month, day, y, m, d)
	}
	for i := range f.rows {
		if err := each(&f.rows[i]); err != nil {
			return err
		}
	}
	return nil
}

const (
	setlID  = "setl_T3stDecSetl001"
	setlUTR = "HDFCN20260116000001"
)

// setlPay is a payment row of the settlement (fee includes tax).
func setlPay(id string, amount, fee, tax int64) razorpay.ReconItem {
	return razorpay.ReconItem{EntityID: id, Type: razorpay.ReconPayment, Amount: amount, Fee: fee, Tax: tax, Credit: amount - fee,
		SettlementID: setlID, CreatedAt: t0.Unix() - 3600}
}

type settleCase struct {
	name     string
	cfg      func(*connector.Config)
	rows     []razorpay.ReconItem
	fees     [2]int64 // the settlement's own fees and tax
	status   string   // Razorpay's status now; default processed
	utr      *string
	facts    func(f *fakeERP, db connector.Store)
	booked   bool // book every item of rows as it should be
	action   string
	reason   string
	accounts []map[string]any // the exact accounts rows of the Journal Entry (create)
	check    func(t *testing.T, pl *connector.Plan)
	explain  string // what Explain's reason says, when it says more than Decide's (a dry run)
}

func TestDecideSettlements(t *testing.T) {
	pay := setlPay("pay_T3stDecSetP001", 1000000, 23600, 3600)
	pay2 := setlPay("pay_T3stDecSetP002", 500000, 11800, 1800)
	refund := razorpay.ReconItem{EntityID: "rfnd_T3stDecSetR01", Type: razorpay.ReconRefund, Amount: 50000, Debit: 50000, PaymentID: pay.EntityID, SettlementID: setlID}
	adjust := razorpay.ReconItem{EntityID: "adj_T3stDecSetA001", Type: razorpay.ReconAdjustment, Amount: 12345, Credit: 12345, SettlementID: setlID}
	dispute := razorpay.ReconItem{EntityID: "adj_T3stDecSetA002", Type: razorpay.ReconAdjustment, Amount: 30000, Debit: 30000, DisputeID: "disp_T3stDecDisp01", SettlementID: setlID}
	transfer := razorpay.ReconItem{EntityID: "trf_T3stDecSetT001", Type: razorpay.ReconTransfer, Amount: 20000, Fee: 59, Tax: 9, Debit: 20059, PaymentID: pay.EntityID, SettlementID: setlID}
	none := func(c *connector.Config) {
		c.Mapping.Fees.Mode = "none"
		c.Settlements.FeeAccount, c.Settlements.TaxAccount = "Razorpay Fees - EC", "Input Tax GST - EC"
	}
	dr := func(account, amount string) map[string]any {
		return map[string]any{"account": account, "debit_in_account_currency": json.Number(amount)}
	}
	cr := func(account, amount string) map[string]any {
		return map[string]any{"account": account, "credit_in_account_currency": json.Number(amount)}
	}
	cc := func(row map[string]any) map[string]any { row["cost_center"] = "Main - EC"; return row }
	const bank, clr, fees, gst, adj, trf = "HDFC Bank - EC", "Razorpay Clearing - EC", "Razorpay Fees - EC", "Input Tax GST - EC", "Razorpay Adjustments - EC", "Route Transfers - EC"
	noUTR := ""
	cases := []settleCase{
		{name: "PaymentFeesDeducted", rows: []razorpay.ReconItem{pay}, booked: true, action: connector.ExplainCreate,
			accounts: []map[string]any{dr(bank, "9764.00"), cr(clr, "9764.00")}},
		{name: "PaymentFeesNotDeducted", cfg: none, rows: []razorpay.ReconItem{pay}, booked: true, action: connector.ExplainCreate,
			accounts: []map[string]any{dr(bank, "9764.00"), cc(dr(fees, "200.00")), dr(gst, "36.00"), cr(clr, "10000.00")}},
		{name: "Refund", rows: []razorpay.ReconItem{pay, pay2, refund}, booked: true, action: connector.ExplainCreate,
			accounts: []map[string]any{dr(bank, "14146.00"), cr(clr, "14146.00")}},
		{name: "RefundFeesNotDeducted", cfg: none, rows: []razorpay.ReconItem{pay, pay2, refund}, booked: true, action: connector.ExplainCreate,
			accounts: []map[string]any{dr(bank, "14146.00"), cc(dr(fees, "300.00")), dr(gst, "54.00"), cr(clr, "14500.00")}},
		{name: "Adjustment", rows: []razorpay.ReconItem{pay, adjust}, booked: true, action: connector.ExplainCreate,
			accounts: []map[string]any{dr(bank, "9887.45"), cc(cr(adj, "123.45")), cr(clr, "9764.00")}},
		{name: "DisputeDeduction", cfg: none, rows: []razorpay.ReconItem{pay, dispute}, booked: true, action: connector.ExplainCreate,
			accounts: []map[string]any{dr(bank, "9464.00"), cc(dr(fees, "200.00")), dr(gst, "36.00"), cc(dr(adj, "300.00")), cr(clr, "10000.00")}},
		{name: "Transfer", cfg: func(c *connector.Config) { c.Settlements.TransfersAccount = trf }, rows: []razorpay.ReconItem{pay, transfer}, booked: true,
			action: connector.ExplainCreate, accounts: []map[string]any{dr(bank, "9563.41"), cc(dr(fees, "0.50")), dr(gst, "0.09"), dr(trf, "200.00"), cr(clr, "9764.00")}},
		{name: "InstantSettlementFee", rows: []razorpay.ReconItem{pay}, fees: [2]int64{2441, 372}, booked: true, action: connector.ExplainCreate,
			accounts: []map[string]any{dr(bank, "9739.59"), cc(dr(fees, "20.69")), dr(gst, "3.72"), cr(clr, "9764.00")}},
		{name: "TransferWithoutAccountParks", rows: []razorpay.ReconItem{pay, transfer}, booked: true, action: connector.ExplainPark,
			reason: "settlement rows not bookable: row trf_T3stDecSetT001 is a Route transfer of INR 200.00"},
		{name: "NotEnabled", cfg: func(c *connector.Config) { c.Settlements.Enabled = false }, rows: []razorpay.ReconItem{pay}, action: connector.ExplainSkip,
			reason: "settlements.enabled is false"},
		{name: "FailedIsNotPostedYet", status: "failed", rows: []razorpay.ReconItem{pay}, action: connector.ExplainSkip,
			reason: "settlement setl_T3stDecSetl001 is failed; it is posted once Razorpay reports it processed"},
		{name: "BeforeSince", cfg: func(c *connector.Config) { c.Settlements.Since = "2026-02-01" }, rows: []razorpay.ReconItem{pay}, action: connector.ExplainSkip,
			reason: "made before settlements.since 2026-02-01"},
		{name: "NoUTR", utr: &noUTR, rows: []razorpay.ReconItem{pay}, action: connector.ExplainPark, reason: "processed but Razorpay reports no UTR"},
		{name: "FoundByChequeNoAndRemark", rows: []razorpay.ReconItem{pay}, booked: true,
			facts: func(f *fakeERP, _ connector.Store) {
				f.add("Journal Entry", "ACC-JV-7", map[string]any{"cheque_no": setlUTR, "docstatus": 1, "user_remark": "Razorpay settlement " + setlID + " UTR " + setlUTR + ": 1 payments"})
			}, action: connector.ExplainReuse, reason: "found in ERPNext by cheque_no and the settlement id",
			check: func(t *testing.T, pl *connector.Plan) {
				if pl.Existing != "ACC-JV-7" || pl.Record == nil || pl.Record.Doctype != "Journal Entry" || pl.Record.Kind != connector.KindSettlement {
					t.Errorf("existing %q record %+v", pl.Existing, pl.Record)
				}
			}},
		{name: "FoundByItsName", rows: []razorpay.ReconItem{pay}, booked: true,
			facts: func(f *fakeERP, _ connector.Store) {
				f.add("Journal Entry", setlID, map[string]any{"cheque_no": setlUTR, "docstatus": 1})
			},
			action: connector.ExplainReuse},
		{name: "ChequeNoInAnotherCaseIsAnotherLine", rows: []razorpay.ReconItem{pay}, booked: true,
			facts: func(f *fakeERP, _ connector.Store) {
				f.add("Journal Entry", "ACC-JV-8", map[string]any{"cheque_no": strings.ToLower(setlUTR), "docstatus": 1, "user_remark": "Razorpay settlement " + setlID + " UTR x"})
			}, action: connector.ExplainCreate},
		{name: "RemarkOfALookalikeIdIsNotOurs", rows: []razorpay.ReconItem{pay}, booked: true,
			facts: func(f *fakeERP, _ connector.Store) {
				// "_" in setl_… is a LIKE wildcard: setlXT3st… would match a LIKE, never the exact marker.
				f.add("Journal Entry", "ACC-JV-9", map[string]any{"cheque_no": setlUTR, "docstatus": 1, "user_remark": "Razorpay settlement setlXT3stDecSetl001 UTR " + setlUTR})
			}, action: connector.ExplainPark, reason: "Journal Entry ACC-JV-9 already carries the UTR HDFCN20260116000001 of settlement setl_T3stDecSetl001 as its cheque_no"},
		{name: "OurDraftParks", rows: []razorpay.ReconItem{pay}, booked: true,
			facts: func(f *fakeERP, _ connector.Store) {
				f.add("Journal Entry", "ACC-JV-10", map[string]any{"cheque_no": setlUTR, "docstatus": 0, "user_remark": "Razorpay settlement " + setlID + " UTR " + setlUTR})
			}, action: connector.ExplainPark, reason: "draft Journal Entry ACC-JV-10 is this settlement's"},
		{name: "ItemsNeverSeenAreQueued", rows: []razorpay.ReconItem{pay, refund}, action: connector.ExplainWait,
			reason:  "never seen (every webhook lost), queued from Razorpay: pay_T3stDecSetP001, rfnd_T3stDecSetR01",
			explain: "never seen (every webhook lost), would be queued from Razorpay (explain queues nothing): pay_T3stDecSetP001, rfnd_T3stDecSetR01",
			check: func(t *testing.T, pl *connector.Plan) {
				want := []connector.QueuedItem{{Kind: connector.KindReceipt, ID: pay.EntityID}, {Kind: connector.KindRefund, ID: refund.EntityID}}
				if !reflect.DeepEqual(pl.QueueItems, want) {
					t.Errorf("queue %+v, want %+v", pl.QueueItems, want)
				}
			}},
		{name: "ItemOnItsWay", rows: []razorpay.ReconItem{pay}, facts: func(_ *fakeERP, db connector.Store) {
			inbox(t, db, pay.EntityID, "payment.captured", connector.StatusPending, "")
		},
			action: connector.ExplainWait, reason: "being booked: pay_T3stDecSetP001 (pending)"},
		{name: "ItemParkedNeedsAPerson", rows: []razorpay.ReconItem{pay},
			facts: func(_ *fakeERP, db connector.Store) {
				inbox(t, db, pay.EntityID, "payment.captured", connector.StatusParked, "invoice already settled: Sales Invoice SI-9")
			}, action: connector.ExplainPark, reason: "settlement setl_T3stDecSetl001 waits for a person: pay_T3stDecSetP001 is parked (invoice already settled: Sales Invoice SI-9)"},
		// A dismissed payment says what a person can do; an item whose webhooks were all lost is
		// queued meanwhile, not left for after the person.
		{name: "ItemDismissedSaysWhatToDoAndLostItemsAreQueued", rows: []razorpay.ReconItem{pay, refund},
			facts: func(_ *fakeERP, db connector.Store) {
				inbox(t, db, pay.EntityID, "payment.captured", connector.StatusDismissed, "dismissed by hand: booked by hand")
			}, action: connector.ExplainPark,
			reason: "settlement setl_T3stDecSetl001 waits for a person: pay_T3stDecSetP001 was dismissed by a person (dismissed by hand: booked by hand), " +
				"so the connector never books it: if it was booked by hand, give that Payment Entry reference_no pay_T3stDecSetP001 and replay the payment " +
				"(events replay pay_T3stDecSetP001: the lookup records the entry); otherwise replay it to have it booked; " +
				"never seen (every webhook lost), queued from Razorpay meanwhile: rfnd_T3stDecSetR01. Once each of them is booked, replay setl_T3stDecSetl001; " +
				"or post this settlement's Journal Entry by hand (cheque_no = its UTR) and dismiss setl_T3stDecSetl001",
			check: func(t *testing.T, pl *connector.Plan) {
				if want := []connector.QueuedItem{{Kind: connector.KindRefund, ID: refund.EntityID}}; !reflect.DeepEqual(pl.QueueItems, want) {
					t.Errorf("queue %+v, want %+v", pl.QueueItems, want)
				}
			}},
		{name: "ItemBookedWithAnotherAmount", rows: []razorpay.ReconItem{pay},
			facts: func(f *fakeERP, db connector.Store) {
				f.entry("ACC-PAY-1", pay.EntityID, 1, "10000.00") // received the gross: the fee was not deducted
				book(t, db, pay.EntityID, "ACC-PAY-1")
			}, action: connector.ExplainPark, reason: "pay_T3stDecSetP001 is booked as ACC-PAY-1 with received_amount 10000.00, but Razorpay settled INR 9764.00 for it"},
		{name: "ItemBookedOnAnotherAccount", rows: []razorpay.ReconItem{pay},
			facts: func(f *fakeERP, db connector.Store) {
				f.entry("ACC-PAY-1", pay.EntityID, 1, "9764.00")
				f.docs["Payment Entry"]["ACC-PAY-1"]["paid_to"] = "Cash - EC"
				book(t, db, pay.EntityID, "ACC-PAY-1")
			}, action: connector.ExplainPark, reason: "is booked as ACC-PAY-1 on Cash - EC, not on the clearing account Razorpay Clearing - EC"},
		{name: "ItemEntryCancelled", rows: []razorpay.ReconItem{pay},
			facts: func(f *fakeERP, db connector.Store) {
				f.entry("ACC-PAY-1", pay.EntityID, 2, "9764.00")
				book(t, db, pay.EntityID, "ACC-PAY-1")
			}, action: connector.ExplainPark, reason: "pay_T3stDecSetP001 was booked as Payment Entry ACC-PAY-1, which is no longer submitted in ERPNext"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runDecideSettlement(t, tc) })
	}
}

// inbox inserts an inbox row of key with status.
func inbox(t *testing.T, db connector.Store, key, event string, status connector.Status, reason string) {
	t.Helper()
	ctx := context.Background()
	ev := &connector.InboxEvent{AccountID: account, EventID: "evt_" + key, Event: event, BusinessKey: key, RawBody: []byte("{}"), ReceivedAt: t0}
	if _, err := db.InsertEvent(ctx, ev); err != nil {
		t.Fatal(err)
	}
	if status != connector.StatusPending {
		if err := db.SetEventStatus(ctx, ev.ID, status, reason, t0); err != nil {
			t.Fatal(err)
		}
	}
}

func runDecideSettlement(t *testing.T, tc settleCase) {
	t.Helper()
	f := newFakeERP()
	db := sqliteStore(t)
	st := razorpay.Settlement{ID: setlID, Entity: "settlement", Status: "processed", UTR: setlUTR, CreatedAt: t0.Unix(), Fees: tc.fees[0], Tax: tc.fees[1]}
	if tc.utr != nil {
		st.UTR = *tc.utr
	}
	st.Amount = -st.Fees
	for _, r := range tc.rows {
		st.Amount += r.Credit - r.Debit
	}
	rzp := &fakeRazorpay{st: st, rows: tc.rows}
	if tc.status != "" {
		rzp.st.Status = tc.status
	}
	cfg := intakeConfig()
	settleConfig(&cfg)
	cfg.Settlements.BankAccountDoc = "" // statement matching is the rig's (settle_test.go)
	cfg.Razorpay.KeyID, cfg.Razorpay.KeySecret = rzpKey, rzpSecret
	if tc.cfg != nil {
		tc.cfg(&cfg)
	}
	if tc.booked {
		for _, r := range tc.rows {
			switch r.Type {
			case razorpay.ReconPayment:
				received := r.Amount
				if cfg.Mapping.Fees.Mode == "deduction" {
					received = r.Credit
				}
				f.entry("PE-"+r.EntityID, r.EntityID, 1, razorpay.FormatMinor(received, 2))
				book(t, db, r.EntityID, "PE-"+r.EntityID)
			case razorpay.ReconRefund:
				f.entry("PE-"+r.EntityID, r.EntityID, 1, razorpay.FormatMinor(r.Amount, 2))
				pe := f.docs["Payment Entry"]["PE-"+r.EntityID]
				pe["payment_type"], pe["paid_from"], pe["paid_to"] = "Pay", "Razorpay Clearing - EC", "Debtors - EC"
				book(t, db, r.EntityID, "PE-"+r.EntityID)
			}
		}
	}
	if tc.facts != nil {
		tc.facts(f, db)
	}
	c, err := wire.New(wire.Options{Config: cfg, Store: db, ERP: f, Razorpay: rzp, Log: zerolog.Nop(), Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	snapshot := st
	ev := &razorpay.Event{Entity: "event", Event: connector.EventSettlementProcessed, AccountID: account, Settlement: &snapshot}
	pl, err := c.Decide(context.Background(), ev)
	if len(f.writes) > 0 {
		t.Errorf("Decide wrote: %v", f.writes)
	}
	if err != nil {
		t.Fatalf("Decide: %v", err)
	}
	if pl.Action != tc.action || !strings.Contains(pl.Reason, tc.reason) {
		t.Fatalf("plan %s %q, want %s %q", pl.Action, pl.Reason, tc.action, tc.reason)
	}
	if pl.Key != setlID || pl.Event != connector.EventSettlementProcessed {
		t.Errorf("plan of %s %s", pl.Event, pl.Key)
	}
	if tc.accounts != nil {
		wantSettlementDoc(t, pl, st, tc.accounts)
	}
	if tc.check != nil {
		tc.check(t, pl)
	}
	if tc.explain != "" {
		x, err := c.Explain(context.Background(), ev)
		if err != nil || x.Action != tc.action || !strings.Contains(x.Reason, tc.explain) || strings.Contains(x.Reason, ", queued from") {
			t.Errorf("explain %+v, %v; want %s %q", x, err, tc.action, tc.explain)
		}
	}
}

// wantSettlementDoc checks the planned Journal Entry: its header, exactly the accounts rows
// given, that they balance, and the booking row it records.
func wantSettlementDoc(t *testing.T, pl *connector.Plan, st razorpay.Settlement, accounts []map[string]any) {
	t.Helper()
	d := pl.Document
	if pl.Doctype != "Journal Entry" || d["voucher_type"] != "Bank Entry" || d["cheque_no"] != st.UTR || d["posting_date"] != "2026-01-16" ||
		d["cheque_date"] != "2026-01-16" || d["docstatus"] != 1 || d["company"] != "Example Company" ||
		!strings.HasPrefix(fmt.Sprint(d["user_remark"]), "Razorpay settlement "+st.ID+" UTR "+st.UTR+": ") {
		t.Errorf("document %v", d)
	}
	got, _ := d["accounts"].([]any)
	want := make([]any, len(accounts))
	for i, a := range accounts {
		want[i] = a
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("accounts\n got %v\nwant %v", got, want)
	}
	var sum int64
	for _, l := range pl.Settlement.Lines {
		sum += l.Debit - l.Credit
	}
	if sum != 0 || pl.Settlement.Lines[0].Debit != st.Amount {
		t.Errorf("lines %+v: Σ debit − credit %d, want 0 with the bank line %d first", pl.Settlement.Lines, sum, st.Amount)
	}
	if pl.Booking.BusinessKey != st.ID || pl.Booking.Kind != connector.KindSettlement || pl.Booking.AmountMinor != st.Amount || pl.Booking.Currency != "INR" {
		t.Errorf("booking %+v", pl.Booking)
	}
}
