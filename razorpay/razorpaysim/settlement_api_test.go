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

// TestSettlementAPI: GET /v1/settlements, /v1/settlements/{id} and
// /v1/settlements/recon/combined with Razorpay's shapes, paging, validation messages, auth,
// faults and list lag (checklist items 15–17, 19–21).
func TestSettlementAPI(t *testing.T) {
	clk := newClock()
	s := newSim(t, nil, razorpaysim.Options{KeyID: "rzp_test_k", KeySecret: "sekret", Now: clk.Now})
	auth := basic("rzp_test_k", "sekret")
	var ids []string // oldest first, one settlement an hour, three payments each
	for i := range 30 {
		for range 3 {
			mustPay(t, s, razorpay.Payment{Amount: 10000}, razorpaysim.PaymentOptions{Lose: true})
		}
		st, err := s.Settle()
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, st.ID)
		if i < 29 {
			clk.Add(time.Hour)
		}
	}
	get := func(path string) (int, map[string]any, []byte) { return apiCall(t, s, "GET", path, auth, nil) }
	t.Run("ListNewestFirstPaged", func(t *testing.T) {
		_, m, raw := get("/v1/settlements?count=7&skip=3")
		items := m["items"].([]any)
		if m["entity"] != "collection" || num(t, m["count"]) != 7 || items[0].(map[string]any)["id"] != ids[26] ||
			items[6].(map[string]any)["id"] != ids[20] {
			t.Fatalf("page: %s", raw)
		}
		if _, m, _ := get("/v1/settlements"); num(t, m["count"]) != 10 {
			t.Errorf("default count %v", m["count"])
		}
		from, to := t0+2*3600, t0+5*3600 // inclusive: settlements 2..5
		if _, m, _ := get(fmt.Sprintf("/v1/settlements?count=100&from=%d&to=%d", from, to)); num(t, m["count"]) != 4 {
			t.Errorf("from/to count %v, want 4", m["count"])
		}
		first := items[0].(map[string]any)
		want := []string{"id", "entity", "amount", "status", "fees", "tax", "utr", "created_at"}
		if got := firstItemKeys(t, raw); got != strings.Join(want, ",") || first["entity"] != "settlement" {
			t.Errorf("settlement keys %v", got)
		}
	})
	t.Run("GetByID", func(t *testing.T) {
		if code, m, _ := get("/v1/settlements/" + ids[4]); code != 200 || m["id"] != ids[4] || num(t, m["created_at"]) != t0+4*3600 {
			t.Errorf("GET: %d %v", code, m)
		}
		code, m, _ := get("/v1/settlements/setl_DoesNotExist01")
		if code != 400 || errOf(t, m)["description"] != "The id provided does not exist" {
			t.Errorf("unknown id: %d %v", code, m)
		}
	})
	t.Run("ReconPagesOverRows", func(t *testing.T) {
		_, m, raw := get("/v1/settlements/recon/combined?year=2026&month=01&day=15&count=1000")
		all := m["items"].([]any)
		if len(all) != 3*14 { // 05:00 UTC = 10:30 IST: settlements 0..13 fall on the 15th
			t.Fatalf("day rows %d, want 42", len(all))
		}
		want := []string{"entity_id", "type", "debit", "credit", "amount", "currency", "fee", "tax", "on_hold",
			"settled", "created_at", "settled_at", "settlement_id", "posted_at", "credit_type", "description", "notes",
			"payment_id", "settlement_utr", "order_id", "order_receipt", "method", "card_network", "card_issuer",
			"card_type", "dispute_id"}
		if got := firstItemKeys(t, raw); got != strings.Join(want, ",") {
			t.Errorf("recon keys %v", got)
		}
		var paged []any
		for skip := 0; ; skip += 5 {
			_, m, _ := get(fmt.Sprintf("/v1/settlements/recon/combined?year=2026&month=1&day=15&count=5&skip=%d", skip))
			items := m["items"].([]any)
			paged = append(paged, items...)
			if len(items) < 5 {
				break
			}
		}
		if fmt.Sprint(paged) != fmt.Sprint(all) {
			t.Errorf("pages of 5 differ from one page of 1000")
		}
		if _, m, _ := get("/v1/settlements/recon/combined?year=2026&month=1"); num(t, m["count"]) != 10 {
			t.Errorf("month, default count: %v", m["count"])
		}
		if _, m, _ := get("/v1/settlements/recon/combined?year=2026&month=1&day=16&count=1000"); num(t, m["count"]) != 3*16 {
			t.Errorf("the 16th: %v rows", m["count"])
		}
	})
	t.Run("Validation", func(t *testing.T) {
		bad := map[string][2]string{
			"/v1/settlements?count=0":                                     {"count", "The count must be at least 1."},
			"/v1/settlements?count=101":                                   {"count", "The count may not be greater than 100."},
			"/v1/settlements?from=5":                                      {"from", "The from must be between 946684800 and 4765046400."},
			"/v1/settlements/recon/combined?month=1":                      {"year", "The year field is required."},
			"/v1/settlements/recon/combined?year=26&month=1":              {"year", "The year must be 4 digits."},
			"/v1/settlements/recon/combined?year=2026":                    {"month", "The month field is required."},
			"/v1/settlements/recon/combined?year=2026&month=13":           {"month", "The month is not a valid month."},
			"/v1/settlements/recon/combined?year=2026&month=0":            {"month", "The month is not a valid month."},
			"/v1/settlements/recon/combined?year=2026&month=1&day=32":     {"day", "The day must be between 1 and 2 digits."},
			"/v1/settlements/recon/combined?year=2026&month=1&day=x":      {"day", "The day must be between 1 and 2 digits."},
			"/v1/settlements/recon/combined?year=2026&month=1&count=0":    {"count", "The count must be at least 1."},
			"/v1/settlements/recon/combined?year=2026&month=1&count=1001": {"count", "The count may not be greater than 1000."},
		}
		for path, want := range bad {
			code, m, _ := get(path)
			e := errOf(t, m)
			if code != 400 || e["field"] != want[0] || e["description"] != want[1] || e["code"] != "BAD_REQUEST_ERROR" {
				t.Errorf("%s: %d %v", path, code, e)
			}
		}
		if code, _, _ := apiCall(t, s, "GET", "/v1/settlements", basic("rzp_test_k", "wrong"), nil); code != 401 {
			t.Errorf("wrong secret: %d", code)
		}
	})
	t.Run("FaultsAndListLag", func(t *testing.T) {
		s.SetFaults(razorpaysim.Faults{FailNext: []int{429, 503}})
		for _, want := range []int{429, 503, 200} {
			if code, _, _ := get("/v1/settlements/recon/combined?year=2026&month=1"); code != want {
				t.Errorf("recon with FailNext: %d, want %d", code, want)
			}
		}
		s.SetFaults(razorpaysim.Faults{ListLag: 10 * time.Minute})
		mustPay(t, s, razorpay.Payment{Amount: 10000}, razorpaysim.PaymentOptions{Lose: true})
		fresh, err := s.Settle()
		if err != nil {
			t.Fatal(err)
		}
		if _, m, _ := get("/v1/settlements?count=1"); m["items"].([]any)[0].(map[string]any)["id"] == fresh.ID {
			t.Error("a settlement younger than the list lag is listed")
		}
		y, mo, d := fresh.ReconDay()
		path := fmt.Sprintf("/v1/settlements/recon/combined?year=%d&month=%d&day=%d&count=1000", y, mo, d)
		if _, m, raw := get(path); strings.Contains(string(raw), fresh.ID) {
			t.Errorf("recon rows of a lagging settlement listed (%v rows)", m["count"])
		}
		if code, _, _ := get("/v1/settlements/" + fresh.ID); code != 200 {
			t.Errorf("fetch by id during the lag: %d", code)
		}
		clk.Add(11 * time.Minute)
		if _, _, raw := get(path); !strings.Contains(string(raw), fresh.ID) {
			t.Error("recon rows still hidden after the lag")
		}
	})
}

// firstItemKeys returns the keys, in order and joined with ",", of a collection's first item.
func firstItemKeys(t *testing.T, raw []byte) string {
	t.Helper()
	var col struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(raw, &col); err != nil || len(col.Items) == 0 {
		t.Fatalf("no items in %s", raw)
	}
	return objectKeys(t, col.Items[0])
}
