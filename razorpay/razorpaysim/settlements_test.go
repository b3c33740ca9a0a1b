package razorpaysim_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// reconRows fetches the recon rows of settlement st through the API (its IST day, count 1000)
// and decodes them with the client's lenient types.
func reconRows(t *testing.T, s *razorpaysim.Sim, st *razorpay.Settlement) []razorpay.ReconItem {
	t.Helper()
	y, m, d := st.ReconDay()
	code, _, raw := apiCall(t, s, "GET", fmt.Sprintf("/v1/settlements/recon/combined?year=%d&month=%02d&day=%d&count=1000", y, m, d), "", nil)
	var col struct {
		Count int                  `json:"count"`
		Items []razorpay.ReconItem `json:"items"`
	}
	if err := json.Unmarshal(raw, &col); err != nil || code != 200 || col.Count != len(col.Items) {
		t.Fatalf("recon: %d %v\n%s", code, err, raw)
	}
	var out []razorpay.ReconItem
	for _, r := range col.Items {
		if r.SettlementID == st.ID {
			out = append(out, r)
		}
	}
	return out
}

// settledEvents returns the settlement.processed webhooks rc received, each verified with
// secret unless it is "".
func settledEvents(t *testing.T, rc *receiver, secret string) []*razorpay.Event {
	t.Helper()
	var out []*razorpay.Event
	for _, h := range rc.Hits() {
		if secret != "" {
			if err := razorpay.VerifySignature(h.Body, h.Header.Get("X-Razorpay-Signature"), []string{secret}); err != nil {
				t.Errorf("signature: %v", err)
			}
		}
		ev, err := razorpay.ParseEvent(h.Body)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Event == "settlement.processed" {
			out = append(out, ev)
		}
	}
	return out
}

// TestItem21Settlement: a day of 50 payments with fees (one in USD), 5 processed refunds (and a
// pending and a failed one, which are not settled), a held payment, an adjustment, a lost
// dispute's deduction and a Route transfer, settled in one settlement whose amount is
// payments − fees (GST inside) − refunds − transfer ± adjustments to the paisa, with recon rows
// that add up to it and a signed settlement.processed (spec/razorpay.md checklist item 21).
func TestItem21Settlement(t *testing.T) {
	const secret = "whsec_settle"
	rc := newReceiver(t, nil)
	clk := newClock()
	s := newSim(t, rc, razorpaysim.Options{WebhookSecret: secret, Now: clk.Now, FXRates: map[string]int64{"USD": 8525}})
	var pays []*razorpay.Payment
	var want int64 // computed from the entities, not from the rows
	for i := range 50 {
		p := razorpay.Payment{Amount: 10000 + int64(i)*1137, Notes: razorpay.Notes{"invoice": fmt.Sprintf("INV-%02d", i)}}
		if i == 7 {
			p = razorpay.Payment{Amount: 2500, Currency: "USD"}
		}
		pays = append(pays, mustPay(t, s, p, razorpaysim.PaymentOptions{Lose: true, Receipt: fmt.Sprintf("INV-%02d", i)}))
		want += *pays[i].BaseAmount - *pays[i].Fee
	}
	held := mustPay(t, s, razorpay.Payment{Amount: 77700}, razorpaysim.PaymentOptions{Lose: true, OnHold: true})
	mustPay(t, s, razorpay.Payment{Amount: 9900, Status: "authorized"}, razorpaysim.PaymentOptions{Lose: true})
	var refunds []*razorpay.Refund
	for i := range 5 {
		r, err := s.CreateRefund(razorpay.Refund{PaymentID: pays[10+i].ID, Amount: 1000 * int64(i+1)}, razorpaysim.RefundOptions{Lose: true})
		if err != nil {
			t.Fatal(err)
		}
		refunds = append(refunds, r)
		want -= r.Amount
	}
	for _, final := range []string{"pending", "failed"} {
		if _, err := s.CreateRefund(razorpay.Refund{PaymentID: pays[20].ID, Amount: 500}, razorpaysim.RefundOptions{Lose: true, Final: final}); err != nil {
			t.Fatal(err)
		}
	}
	adj, err := s.AddAdjustment(razorpaysim.Adjustment{Amount: 1012, Description: "test reason"})
	if err != nil || adj.Credit != 1012 || !strings.HasPrefix(adj.EntityID, "adj_") {
		t.Fatalf("adjustment: %+v %v", adj, err)
	}
	want += 1012
	disp, err := s.CreateDispute(razorpay.Dispute{PaymentID: pays[3].ID}, razorpaysim.DisputeOptions{Lose: true, Then: []string{"lost"}})
	if err != nil {
		t.Fatal(err)
	}
	want -= disp.AmountDeducted // INR: in paise as it is
	trf, err := s.AddTransfer(pays[49].ID, 20000)
	if err != nil || trf.Debit != 20059 || trf.Fee != 59 || trf.Tax != 9 || trf.PaymentID != pays[49].ID {
		t.Fatalf("transfer: %+v %v", trf, err)
	}
	want -= 20059

	clk.Add(2 * time.Hour)
	st, err := s.Settle()
	if err != nil {
		t.Fatal(err)
	}
	if st.Amount != want || st.Status != "processed" || !strings.HasPrefix(st.UTR, "HDFCN20260115") || st.Fees != 0 || st.CreatedAt != t0+7200 {
		t.Fatalf("settlement %+v, want amount %d", st, want)
	}
	rows := reconRows(t, s, st)
	if len(rows) != 50+5+2+1 {
		t.Fatalf("%d recon rows, want 58", len(rows))
	}
	if d := st.Discrepancy(rows); d != 0 {
		t.Errorf("rows differ from the amount by %d paise", d)
	}
	checkRows(t, rows, st, pays, refunds, held, disp.ID)

	t.Run("WebhookSignedWithTheSettlement", func(t *testing.T) {
		wait(t, s)
		evs := settledEvents(t, rc, secret)
		if len(evs) != 1 || evs[0].Settlement == nil || *evs[0].Settlement != *st || evs[0].BusinessKey() != st.ID {
			t.Fatalf("settlement.processed webhooks: %+v", evs)
		}
	})
	t.Run("HeldPaymentSettlesAfterRelease", func(t *testing.T) {
		if _, err := s.Settle(); err != razorpaysim.ErrNothingToSettle {
			t.Fatalf("held payment settled: %v", err)
		}
		if code, m, _ := apiCall(t, s, "POST", "/__sim/payments/"+held.ID+"/release", "", nil); code != 200 || m["id"] != held.ID {
			t.Fatalf("release: %d %v", code, m)
		}
		st2, err := s.Settle()
		if err != nil || st2.Amount != 77700-*held.Fee {
			t.Fatalf("after release: %+v %v", st2, err)
		}
		rows := reconRows(t, s, st2)
		if len(rows) != 1 || rows[0].EntityID != held.ID || bool(rows[0].OnHold) || !bool(rows[0].Settled) {
			t.Errorf("released payment rows: %+v", rows)
		}
		if err := s.SetOnHold(held.ID, true); err == nil {
			t.Error("a settled payment was put on hold")
		}
	})
}

// checkRows checks each recon row of the day's settlement against the entity it settles.
func checkRows(t *testing.T, rows []razorpay.ReconItem, st *razorpay.Settlement, pays []*razorpay.Payment,
	refunds []*razorpay.Refund, held *razorpay.Payment, disputeID string) {
	t.Helper()
	byID := map[string]razorpay.ReconItem{}
	for _, r := range rows {
		byID[r.EntityID] = r
		if !bool(r.Settled) || r.SettledAt != st.CreatedAt || bool(r.OnHold) || r.Currency != "INR" {
			t.Errorf("row %s: settled %v at %d, on hold %v, %s", r.EntityID, r.Settled, r.SettledAt, r.OnHold, r.Currency)
		}
		if wantUTR := st.UTR; (r.Type == "adjustment") != (r.SettlementUTR == "") || (r.SettlementUTR != "" && r.SettlementUTR != wantUTR) {
			t.Errorf("row %s (%s): utr %q", r.EntityID, r.Type, r.SettlementUTR)
		}
	}
	for i, p := range pays {
		r := byID[p.ID]
		if r.Type != "payment" || r.Amount != *p.BaseAmount || r.Fee != *p.Fee || r.Tax != *p.Tax ||
			r.Credit != *p.BaseAmount-*p.Fee || r.Debit != 0 || r.PaymentID != "" || r.OrderID != p.OrderID || r.Method != "card" {
			t.Errorf("payment %d row %+v", i, r)
		}
		if i != 7 && (r.Notes != fmt.Sprintf(`{"invoice":"INV-%02d"}`, i) || r.OrderReceipt != fmt.Sprintf("INV-%02d", i) || r.CardIssuer != "HDFC") {
			t.Errorf("payment %d notes %q receipt %q issuer %q", i, r.Notes, r.OrderReceipt, r.CardIssuer)
		}
	}
	if r := byID[pays[7].ID]; r.Amount != 213125 || r.CardIssuer != "" || r.Notes != "{}" {
		t.Errorf("USD payment row %+v", r)
	}
	for _, rf := range refunds {
		if r := byID[rf.ID]; r.Type != "refund" || r.Debit != rf.Amount || r.Amount != rf.Amount || r.Credit != 0 || r.PaymentID != rf.PaymentID {
			t.Errorf("refund row %+v", r)
		}
	}
	if _, ok := byID[held.ID]; ok {
		t.Error("held payment has a row")
	}
	var deduction razorpay.ReconItem
	for _, r := range rows {
		if r.DisputeID == disputeID {
			deduction = r
		}
	}
	if deduction.Type != "adjustment" || deduction.Debit != pays[3].Amount || deduction.Credit != 0 {
		t.Errorf("dispute deduction row %+v", deduction)
	}
}

func TestSettlementLifecycle(t *testing.T) {
	const secret = "whsec_life"
	t.Run("FailedIsNotFinal", func(t *testing.T) {
		rc := newReceiver(t, nil)
		s := newSim(t, rc, razorpaysim.Options{WebhookSecret: secret, Now: newClock().Now})
		mustPay(t, s, razorpay.Payment{Amount: 50000}, razorpaysim.PaymentOptions{Lose: true})
		st, err := s.SettleWith(razorpaysim.SettleOptions{Status: "failed"})
		if err != nil || st.Status != "failed" || st.UTR == "" {
			t.Fatalf("failed settlement %+v %v", st, err)
		}
		_, m, _ := apiCall(t, s, "GET", "/v1/settlements/"+st.ID, "", nil)
		if m["status"] != "failed" {
			t.Errorf("GET failed settlement: %v", m)
		}
		if rows := reconRows(t, s, st); len(rows) != 1 || bool(rows[0].Settled) || rows[0].SettledAt != 0 || rows[0].SettlementUTR != "" {
			t.Errorf("rows of a failed settlement: %+v", rows)
		}
		wait(t, s)
		if n := len(settledEvents(t, rc, secret)); n != 0 {
			t.Fatalf("%d settlement.processed for a failed settlement", n)
		}
		code, m, _ := apiCall(t, s, "POST", "/__sim/settlements/"+st.ID+"/process", "", nil)
		if code != 200 || m["status"] != "processed" || m["utr"] == st.UTR || num(t, m["amount"]) != st.Amount {
			t.Fatalf("process: %d %v", code, m)
		}
		wait(t, s)
		evs := settledEvents(t, rc, secret)
		if len(evs) != 1 || evs[0].Settlement.UTR != m["utr"] || evs[0].Settlement.Status != "processed" {
			t.Errorf("webhooks after processing: %+v", evs)
		}
		if rows := reconRows(t, s, st); !bool(rows[0].Settled) || rows[0].SettlementUTR != m["utr"] {
			t.Errorf("rows after processing: %+v", rows)
		}
		if _, err := s.ProcessSettlement(st.ID); err != razorpaysim.ErrAlreadyProcessed {
			t.Errorf("second process: %v", err)
		}
	})
	t.Run("CreatedHasNoUTRYet", func(t *testing.T) {
		s := newSim(t, nil, razorpaysim.Options{Now: newClock().Now})
		mustPay(t, s, razorpay.Payment{Amount: 50000}, razorpaysim.PaymentOptions{Lose: true})
		code, m, raw := apiCall(t, s, "POST", "/__sim/settlements", "", map[string]any{"status": "created"})
		if code != 200 || m["status"] != "created" || !strings.Contains(string(raw), `"utr":null`) {
			t.Fatalf("created: %d %s", code, raw)
		}
		st, err := s.ProcessSettlement(m["id"].(string))
		if err != nil || st.UTR == "" {
			t.Fatalf("process: %+v %v", st, err)
		}
	})
	t.Run("AdjustmentRowShape", func(t *testing.T) {
		s := newSim(t, nil, razorpaysim.Options{Now: newClock().Now})
		mustPay(t, s, razorpay.Payment{Amount: 50000}, razorpaysim.PaymentOptions{Lose: true})
		code, m, _ := apiCall(t, s, "POST", "/__sim/adjustments", "", map[string]any{"amount": -5000, "description": "chargeback fee"})
		if code != 200 || num(t, m["debit"]) != 5000 || m["type"] != "adjustment" {
			t.Fatalf("adjustment: %d %v", code, m)
		}
		if code, _, _ := apiCall(t, s, "POST", "/__sim/adjustments", "", map[string]any{"amount": 0}); code != 400 {
			t.Errorf("zero adjustment: %d", code)
		}
		usd := mustPay(t, s, razorpay.Payment{Amount: 2500, Currency: "USD"}, razorpaysim.PaymentOptions{Lose: true})
		d, err := s.CreateDispute(razorpay.Dispute{PaymentID: usd.ID, Amount: 1000}, razorpaysim.DisputeOptions{Lose: true})
		if err != nil {
			t.Fatal(err)
		}
		ded, err := s.AddAdjustment(razorpaysim.Adjustment{DisputeID: d.ID}) // the disputed amount, in INR paise
		if err != nil || ded.Debit != 85250 || ded.DisputeID != d.ID || ded.Type != "adjustment" {
			t.Errorf("dispute deduction: %+v %v", ded, err)
		}
		if _, err := s.AddAdjustment(razorpaysim.Adjustment{DisputeID: "disp_Unknown000001"}); !razorpay.IsNotFound(err) {
			t.Errorf("unknown dispute: %v", err)
		}
		if _, err := s.Settle(); err != nil {
			t.Fatal(err)
		}
		_, _, raw := apiCall(t, s, "GET", "/v1/settlements/recon/combined?year=2026&month=1&day=15", "", nil)
		var col struct{ Items []json.RawMessage }
		_ = json.Unmarshal(raw, &col)
		want := "entity_id,type,debit,credit,amount,currency,fee,tax,on_hold,settled,created_at,settled_at," +
			"settlement_id,posted_at,description,notes,payment_id,settlement_utr,order_id,order_receipt,method," +
			"card_network,card_issuer,card_type,dispute_id" // no credit_type, as in Razorpay's sample
		if len(col.Items) != 4 || objectKeys(t, col.Items[2]) != want ||
			!strings.Contains(string(col.Items[2]), `"notes":null,"payment_id":null,"settlement_utr":null`) {
			t.Errorf("adjustment row: %s", col.Items)
		}
	})
	t.Run("DiscrepancyAndInstantFees", func(t *testing.T) {
		s := newSim(t, nil, razorpaysim.Options{Now: newClock().Now})
		p := mustPay(t, s, razorpay.Payment{Amount: 200000}, razorpaysim.PaymentOptions{Lose: true})
		st, err := s.SettleWith(razorpaysim.SettleOptions{Discrepancy: 7})
		if err != nil || st.Amount != 200000-*p.Fee+7 || st.Discrepancy(reconRows(t, s, st)) != 7 {
			t.Fatalf("discrepancy: %+v %v", st, err)
		}
		p = mustPay(t, s, razorpay.Payment{Amount: 200000}, razorpaysim.PaymentOptions{Lose: true})
		st, err = s.SettleWith(razorpaysim.SettleOptions{Instant: true})
		net := 200000 - *p.Fee // 196000
		if err != nil || st.Fees != 490 || st.Tax != 75 || st.Amount != net-490 || st.Discrepancy(reconRows(t, s, st)) != 0 {
			t.Fatalf("instant: %+v %v (net %d)", st, err, net)
		}
	})
	t.Run("NegativeBalanceWaits", func(t *testing.T) {
		s := newSim(t, nil, razorpaysim.Options{Now: newClock().Now})
		p := mustPay(t, s, razorpay.Payment{Amount: 50000}, razorpaysim.PaymentOptions{Lose: true})
		if _, err := s.Settle(); err != nil {
			t.Fatal(err)
		}
		r, err := s.CreateRefund(razorpay.Refund{PaymentID: p.ID, Amount: 30000}, razorpaysim.RefundOptions{Lose: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Settle(); err != razorpaysim.ErrNegativeBalance {
			t.Fatalf("refund alone: %v", err)
		}
		p2 := mustPay(t, s, razorpay.Payment{Amount: 100000}, razorpaysim.PaymentOptions{Lose: true})
		st, err := s.Settle()
		if err != nil || st.Amount != 100000-*p2.Fee-r.Amount || len(reconRows(t, s, st)) != 2 {
			t.Fatalf("refund carried forward: %+v %v", st, err)
		}
	})
	t.Run("WebhookRetriedThenDuplicated", func(t *testing.T) {
		rc := newReceiver(t, func(n int, _ hit) (int, time.Duration) {
			if n < 2 {
				return 500, 0
			}
			return 200, 0
		})
		s := newSim(t, rc, razorpaysim.Options{WebhookSecret: secret, Now: newClock().Now})
		mustPay(t, s, razorpay.Payment{Amount: 50000}, razorpaysim.PaymentOptions{Lose: true})
		if _, err := s.SettleWith(razorpaysim.SettleOptions{Duplicate: true}); err != nil {
			t.Fatal(err)
		}
		wait(t, s)
		hits := rc.Hits()
		if len(hits) != 4 || string(hits[0].Body) != string(hits[3].Body) ||
			hits[0].Header.Get("X-Razorpay-Event-Id") != hits[3].Header.Get("X-Razorpay-Event-Id") {
			t.Fatalf("%d deliveries, want 2 failures, a success and a duplicate of the same bytes", len(hits))
		}
	})
}

// TestScheduledSettlement runs the schedule: T+2-style cut-off, a failed settlement processed
// at the following tick.
func TestScheduledSettlement(t *testing.T) {
	rc := newReceiver(t, nil)
	clk := newClock()
	s := newSim(t, rc, razorpaysim.Options{TimeScale: 0.001, SettleEvery: 20 * time.Second, SettleDelay: 48 * time.Hour,
		Now: clk.Now, Faults: razorpaysim.Faults{FailSettlements: 1}})
	old := mustPay(t, s, razorpay.Payment{Amount: 50000, CreatedAt: t0 - 3*86400}, razorpaysim.PaymentOptions{Lose: true})
	recent := mustPay(t, s, razorpay.Payment{Amount: 60000, CreatedAt: t0 - 3600}, razorpaysim.PaymentOptions{Lose: true})
	settlements := func(n int) []razorpay.Settlement {
		var st []razorpay.Settlement
		waitFor(t, fmt.Sprintf("processed settlement %d", n), func() bool {
			st = s.State().Settlements
			return len(st) >= n && st[n-1].Status == "processed"
		})
		return st
	}
	first := settlements(1)[0]
	if first.Amount != 50000-*old.Fee {
		t.Errorf("first scheduled settlement %+v: only the payment past T+2 is due", first)
	}
	if rows, _ := s.Recon(first.ID); len(rows) != 1 || rows[0].EntityID != old.ID {
		t.Errorf("first settlement rows %+v", rows)
	}
	clk.Add(48 * time.Hour)
	second := settlements(2)[1]
	if second.Amount != 60000-*recent.Fee {
		t.Errorf("second scheduled settlement %+v", second)
	}
	wait(t, s)
	if n := len(settledEvents(t, rc, "")); n < 2 {
		t.Errorf("%d settlement.processed webhooks, want one per settlement", n)
	}
}
