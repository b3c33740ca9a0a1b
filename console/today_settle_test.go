package console_test

import (
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/console"
)

// The Today page of the README walkthrough (the tester's finding): today's ₹500.00 receipt
// settled the same day for ₹490.00 beside a ₹12,000.00 receipt Razorpay never settled. The
// card said "1 day differs … booked net ₹0.00, settled ₹490.00, difference ₹490.00"; it now
// says no day differs. Receipts left unpaid beyond 4 days are one row on the last day due,
// saying so.
func TestTodaySettlementCard(t *testing.T) {
	ist, _ := time.LoadLocation("Asia/Kolkata")
	d0 := time.Date(2026, 11, 19, 0, 0, 0, 0, ist)
	days := make([]console.SettlementDay, 14)
	for i := range days {
		days[i] = console.SettlementDay{Day: d0.AddDate(0, 0, i)}
	}
	days[13] = console.SettlementDay{Day: d0.AddDate(0, 0, 13), BookedMinor: 1250000, FeesMinor: 1000, SettledMinor: 49000}
	bearer := map[string]string{"Authorization": "Bearer " + token}
	page := func(days []console.SettlementDay) string {
		s := newSite(t, token)
		s.f.today = console.Today{LastWebhook: fixedNow, Settlements: &console.Settlements{Currency: "INR",
			ClearingAccount: "Razorpay Clearing - EC", ClearingBalanceMinor: 1200000, Days: days}}
		_, body := s.do(s.client(), "GET", "/", nil, bearer)
		i := strings.Index(body, `id="settlements"`)
		if i < 0 {
			t.Fatalf("no settlement card:\n%s", body)
		}
		return body[i:]
	}
	if card := page(days); strings.Contains(card, "differ") || !strings.Contains(card, "Every day: booked net of fees and refunds = settled, to the paisa") ||
		!strings.Contains(card, "₹12,490.00") || !strings.Contains(card, "clearing balance (Razorpay Clearing - EC): <strong>₹12,000.00") {
		t.Errorf("walkthrough card:\n%s", card)
	}
	// The ₹12,000.00 booked eight days back instead, never paid out: overdue (day 8, 27 Nov, is the
	// last day due). Today's ₹490.00 payout is taken from the oldest receipts, so the card says
	// at least ₹11,510.00 — the store does not know which receipts a payout paid.
	days[13].BookedMinor, days[13].FeesMinor = 50000, 1000
	days[5].BookedMinor = 1200000
	card := page(days)
	if !strings.Contains(card, "1 day differs") ||
		!strings.Contains(card, "(at least this much booked up to this day not paid out within 4 days)</span></td><td class=\"num\">₹11,510.00</td><td class=\"num\">₹0.00</td><td class=\"num pos\">−₹11,510.00</td>") {
		t.Errorf("overdue card:\n%s", card)
	}
}
