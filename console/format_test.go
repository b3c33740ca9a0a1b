package console

import (
	"strings"
	"testing"
	"time"
)

func TestDeskPathAndDuration(t *testing.T) {
	if got := deskPath("Payment Entry", "ACC-PAY-2026-00001"); got != "/app/payment-entry/ACC-PAY-2026-00001" {
		t.Errorf("deskPath = %q", got)
	}
	if got := deskPath("Sales Invoice", "A/B 1"); got != "/app/sales-invoice/A%2FB%201" {
		t.Errorf("deskPath escapes the name: %q", got)
	}
	for d, want := range map[time.Duration]string{-time.Second: "0s", 45 * time.Second: "45s", 12 * time.Minute: "12m",
		3*time.Hour + 5*time.Minute: "3h 05m", 50 * time.Hour: "2d 2h"} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q; want %q", d, got, want)
		}
	}
}

// Bars are scaled by integer division, the tallest fills the plot, a tiny non-zero amount is
// still visible, and every day whose amounts differ is listed with the difference to the paisa.
func TestMoneyChart(t *testing.T) {
	ist, _ := time.LoadLocation("Asia/Kolkata")
	d0 := time.Date(2026, 3, 12, 0, 0, 0, 0, ist)
	s := MoneySeries{Currency: "INR", CapturedKnown: true, Days: []MoneyDay{
		{Day: d0, BookedMinor: 3000000, CapturedMinor: 3000000},
		{Day: d0.AddDate(0, 0, 1), BookedMinor: 1, CapturedMinor: 0},
		{Day: d0.AddDate(0, 0, 2), BookedMinor: 1200000, CapturedMinor: 2449900},
	}}
	v := moneyChart(s, ist)
	if len(v.Bars) != 6 {
		t.Fatalf("%d bars; want 6", len(v.Bars))
	}
	if b := v.Bars[0]; b.H != plotH || b.Y != chartTop {
		t.Errorf("tallest bar %+v; want height %d from the top", b, plotH)
	}
	if b := v.Bars[2]; b.H != 1 {
		t.Errorf("one paisa bar height %d; want 1 (visible)", b.H)
	}
	if b := v.Bars[3]; b.H != 0 {
		t.Errorf("zero bar height %d", b.H)
	}
	if b := v.Bars[5]; b.H != int(2449900*int64(plotH)/3000000) {
		t.Errorf("captured bar height %d", b.H)
	}
	if len(v.Diffs) != 2 || v.Diffs[1].Diff != "₹12,499.00" || v.Diffs[0].Diff != "−₹0.01" || v.DaysWithoutDiff != 1 {
		t.Errorf("diffs %+v", v.Diffs)
	}
	if v.TotalFirst != "₹42,000.01" || v.TotalSecond != "₹54,499.00" {
		t.Errorf("totals %q, %q", v.TotalFirst, v.TotalSecond)
	}
	if last := v.Labels[len(v.Labels)-1]; last.Text != "14 Mar" {
		t.Errorf("the last day is not labelled: %+v", v.Labels)
	}
	// Without captured amounts only the booked bars are drawn and nothing is called a difference.
	s.CapturedKnown = false
	if v := moneyChart(s, ist); len(v.Bars) != 3 || len(v.Diffs) != 0 {
		t.Errorf("unknown captured: %d bars, %d diffs", len(v.Bars), len(v.Diffs))
	}
	if !strings.HasPrefix(v.TopLabel, "₹30,000.00") {
		t.Errorf("top label %q", v.TopLabel)
	}
}

// The settlement chart takes each payout against the receipts booked before it: settled the
// next day, net of the fee, no day is a difference; the clearing balance stands beside it.
func TestSettlementChartPairsPayoutsWithTheirDay(t *testing.T) {
	ist, _ := time.LoadLocation("Asia/Kolkata")
	d0 := time.Date(2026, 3, 12, 0, 0, 0, 0, ist)
	v := settlementChart(Settlements{Currency: "INR", ClearingAccount: "Razorpay Clearing - EC", ClearingBalanceMinor: 1200000, Days: []SettlementDay{
		{Day: d0, BookedMinor: 3000000, FeesMinor: 70800},
		{Day: d0.AddDate(0, 0, 1), BookedMinor: 1200000, SettledMinor: 2929200},
	}}, ist)
	if len(v.Bars) != 4 || len(v.Diffs) != 0 || v.DaysWithoutDiff != 2 {
		t.Errorf("%d bars, diffs %+v, %d days without; want 4 bars, no difference", len(v.Bars), v.Diffs, v.DaysWithoutDiff)
	}
	if v.TotalFirst != "₹41,292.00" || v.TotalSecond != "₹29,292.00" || v.ExtraLabel != "clearing balance (Razorpay Clearing - EC)" || v.ExtraValue != "₹12,000.00" {
		t.Errorf("totals %q %q, %s: %s", v.TotalFirst, v.TotalSecond, v.ExtraLabel, v.ExtraValue)
	}
}
