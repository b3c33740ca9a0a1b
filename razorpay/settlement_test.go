package razorpay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

func TestReconItemDecoding(t *testing.T) {
	t.Run("PaymentRow", func(t *testing.T) {
		var r razorpay.ReconItem
		err := json.Unmarshal([]byte(`{"entity_id":"pay_T3stPayCard001","type":"payment","debit":0,"credit":115640,
			"amount":118000,"currency":"INR","fee":2360,"tax":360,"on_hold":false,"settled":"1","created_at":1768453200,
			"settled_at":1768627800,"settlement_id":"setl_T3stSetl000001","posted_at":null,"credit_type":"default",
			"description":"Invoice ACC-SINV-2026-00001","notes":"{\"invoice\":\"ACC-SINV-2026-00001\"}","payment_id":null,
			"settlement_utr":"HDFCN52026011712345","order_id":"order_T3stOrdCard001","order_receipt":null,
			"method":"card","card_network":"Visa","card_issuer":"HDFC","card_type":"credit","dispute_id":null,"new_field":[1]}`), &r)
		want := razorpay.ReconItem{EntityID: "pay_T3stPayCard001", Type: "payment", Credit: 115640, Amount: 118000,
			Currency: "INR", Fee: 2360, Tax: 360, Settled: true, CreatedAt: 1768453200, SettledAt: 1768627800,
			SettlementID: "setl_T3stSetl000001", CreditType: "default", Description: "Invoice ACC-SINV-2026-00001",
			Notes: `{"invoice":"ACC-SINV-2026-00001"}`, SettlementUTR: "HDFCN52026011712345",
			OrderID: "order_T3stOrdCard001", Method: "card", CardNetwork: "Visa", CardIssuer: "HDFC", CardType: "credit"}
		if err != nil || r != want {
			t.Fatalf("decoded %+v, %v", r, err)
		}
	})
	t.Run("NotesAreText", func(t *testing.T) {
		for raw, want := range map[string]string{
			`"Beam me up"`: "Beam me up", `"{}"`: "{}", `null`: "", `{"a": "b"}`: `{"a":"b"}`, `[]`: "[]",
		} {
			var r razorpay.ReconItem
			if err := json.Unmarshal([]byte(`{"type":"adjustment","notes":`+raw+`}`), &r); err != nil || r.Notes != want {
				t.Errorf("notes %s: %q %v, want %q", raw, r.Notes, err, want)
			}
		}
	})
	t.Run("UnusableAmountNamesTheField", func(t *testing.T) {
		var r razorpay.ReconItem
		err := json.Unmarshal([]byte(`{"type":"refund","debit":10.5}`), &r)
		if err == nil || !strings.Contains(err.Error(), "recon_item.debit") {
			t.Errorf("error %v should name recon_item.debit", err)
		}
	})
	t.Run("SettlementNullUTR", func(t *testing.T) {
		var st razorpay.Settlement
		err := json.Unmarshal([]byte(`{"id":"setl_A","entity":"settlement","amount":50000,"status":"created","fees":0,"tax":0,"utr":null,"created_at":1768627800}`), &st)
		if err != nil || st.UTR != "" || st.Status != razorpay.SettlementCreated || st.Amount != 50000 {
			t.Errorf("%+v %v", st, err)
		}
	})
}

func TestSettlementDiscrepancyAndReconDay(t *testing.T) {
	st := razorpay.Settlement{ID: "setl_A", Amount: 100000 - 2000 - 5000 + 1012 - 20059 - 490, Fees: 490, Tax: 75,
		CreatedAt: 1768671000} // 2026-01-17 17:30 UTC = 23:00 IST
	rows := []razorpay.ReconItem{
		{SettlementID: "setl_A", Type: "payment", Amount: 100000, Fee: 2000, Credit: 98000},
		{SettlementID: "setl_A", Type: "refund", Debit: 5000},
		{SettlementID: "setl_A", Type: "adjustment", Credit: 1012},
		{SettlementID: "setl_A", Type: "transfer", Amount: 20000, Fee: 59, Debit: 20059},
		{SettlementID: "setl_B", Type: "payment", Credit: 777}, // another settlement's row
	}
	if d := st.Discrepancy(rows); d != 0 {
		t.Errorf("Discrepancy = %d, want 0", d)
	}
	st.Amount += 3
	if d := st.Discrepancy(rows); d != 3 {
		t.Errorf("Discrepancy = %d, want 3", d)
	}
	if y, m, d := st.ReconDay(); y != 2026 || m != 1 || d != 17 {
		t.Errorf("ReconDay = %d-%d-%d, want 2026-1-17", y, m, d)
	}
	st.CreatedAt += 3600 // 00:00 IST on the 18th
	if _, _, d := st.ReconDay(); d != 18 {
		t.Errorf("ReconDay day = %d, want 18 (IST)", d)
	}
}

// TestReconCombinedPages: count=1000 and skip per page, the period in the query, a row seen
// twice passed once, a short page ends it, and a bad period fails before any request.
func TestReconCombinedPages(t *testing.T) {
	var calls atomic.Int32
	c := setup(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		q := r.URL.Query()
		if r.URL.Path != "/v1/settlements/recon/combined" || q.Get("year") != "2026" || q.Get("month") != "1" ||
			q.Get("day") != "17" || q.Get("count") != "1000" {
			t.Errorf("request %s", r.URL)
		}
		skip, _ := strconv.Atoi(q.Get("skip"))
		n := min(1000, 2300-skip)
		items := make([]string, 0, n)
		for i := skip; i < skip+n; i++ {
			id := i
			if i == 1000 {
				id = 999 // the second page repeats the last row of the first
			}
			items = append(items, fmt.Sprintf(`{"entity_id":"pay_%014d","type":"payment","credit":1,"settlement_id":"setl_A"}`, id))
		}
		fmt.Fprintf(w, `{"entity":"collection","count":%d,"items":[%s]}`, n, strings.Join(items, ","))
	}, 5*time.Second)
	seen := map[string]bool{}
	err := c.ReconCombined(context.Background(), 2026, 1, 17, func(r *razorpay.ReconItem) error {
		if seen[r.EntityID] {
			t.Errorf("%s passed twice", r.EntityID)
		}
		seen[r.EntityID] = true
		return nil
	})
	if err != nil || len(seen) != 2299 || calls.Load() != 3 {
		t.Fatalf("%d rows in %d calls: %v", len(seen), calls.Load(), err)
	}
	for _, bad := range [][3]int{{26, 1, 1}, {2026, 13, 1}, {2026, 0, 0}, {2026, 1, 32}, {2026, 1, -1}} {
		if err := c.ReconCombined(context.Background(), bad[0], bad[1], bad[2], func(*razorpay.ReconItem) error { return nil }); err == nil {
			t.Errorf("period %v accepted", bad)
		}
	}
	if calls.Load() != 3 {
		t.Errorf("a bad period reached the server")
	}
}
