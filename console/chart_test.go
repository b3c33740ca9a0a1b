package console

import (
	"strings"
	"testing"
	"time"
)

// Settlements compare like with like: a day settled exactly its receipts less Razorpay's fees
// and the refunds is not a difference (issue 14: it was listed as −fees in a warning colour);
// a day settled short of that still is, by exactly the shortfall.
func TestSettlementChartComparesNetOfFeesAndRefunds(t *testing.T) {
	ist, _ := time.LoadLocation("Asia/Kolkata")
	d0 := time.Date(2026, 12, 1, 0, 0, 0, 0, ist)
	s := Settlements{Currency: "INR", ClearingAccount: "Razorpay Clearing - EC", Days: []SettlementDay{
		{Day: d0, BookedMinor: 1000000, FeesMinor: 30000, SettledMinor: 970000},                                      // normal: fees only
		{Day: d0.AddDate(0, 0, 1), BookedMinor: 500000, FeesMinor: 11800, RefundsMinor: 50000, SettledMinor: 438200}, // fees and a refund
		{Day: d0.AddDate(0, 0, 2), BookedMinor: 200000, FeesMinor: 4720, SettledMinor: 185280},                       // ₹100.00 short
	}}
	v := settlementChart(s, ist)
	if len(v.Diffs) != 1 || v.Diffs[0].Diff != "−₹100.00" || !v.Diffs[0].Day.Equal(d0.AddDate(0, 0, 2)) || v.DaysWithoutDiff != 2 {
		t.Fatalf("diffs %+v (%d days without); want only 03 Dec, −₹100.00", v.Diffs, v.DaysWithoutDiff)
	}
	if v.First != "booked net of fees and refunds" || v.TotalFirst != "₹16,034.80" || v.TotalSecond != "₹15,934.80" {
		t.Errorf("series %q: totals %s vs %s", v.First, v.TotalFirst, v.TotalSecond)
	}
	if want := "booked ₹17,000.00 − Razorpay's fees ₹465.20 − refunds ₹500.00"; v.Breakdown != want {
		t.Errorf("breakdown %q; want %q", v.Breakdown, want)
	}
	if !strings.Contains(v.ExtraLabel, "Razorpay Clearing - EC") || v.Lag != 0 || v.DiffNote != "" {
		t.Errorf("extra %q, lag %d %q", v.ExtraLabel, v.Lag, v.DiffNote)
	}
	// The same days paid out two days later (T+2): paired with their own days, the same one
	// difference; the last two days' receipts are not due yet.
	late := Settlements{Currency: "INR"}
	for _, d := range s.Days {
		late.Days = append(late.Days, SettlementDay{Day: d.Day, BookedMinor: d.BookedMinor, FeesMinor: d.FeesMinor, RefundsMinor: d.RefundsMinor})
	}
	for i := 0; i < 2; i++ {
		late.Days = append(late.Days, SettlementDay{Day: d0.AddDate(0, 0, 3+i)})
	}
	for i, d := range s.Days {
		late.Days[i+2].SettledMinor = d.SettledMinor
	}
	v = settlementChart(late, ist)
	if v.Lag != 2 || len(v.Diffs) != 1 || v.Diffs[0].Diff != "−₹100.00" || !v.Diffs[0].Day.Equal(d0.AddDate(0, 0, 4)) ||
		v.DiffNote != "each day's payout against the booked net of 2 days before" {
		t.Errorf("T+2: lag %d, diffs %+v, note %q; want lag 2 and only the short payout of 05 Dec", v.Lag, v.Diffs, v.DiffNote)
	}
	// Receipts of the last days not paid out yet are not differences; an old day never paid is.
	unpaid := Settlements{Currency: "INR", Days: make([]SettlementDay, 8)}
	for i := range unpaid.Days {
		unpaid.Days[i] = SettlementDay{Day: d0.AddDate(0, 0, i), BookedMinor: 100000, FeesMinor: 2360}
		if i > 0 && i != 2 && i < 4 {
			unpaid.Days[i].SettledMinor = 97640
		}
	}
	v = settlementChart(unpaid, ist)
	if v.Lag != 1 || len(v.Diffs) != 1 || !v.Diffs[0].Day.Equal(d0.AddDate(0, 0, 2)) || v.Diffs[0].Diff != "−₹976.40" {
		t.Errorf("unpaid: lag %d, diffs %+v; want lag 1 and only the day a payout was missing", v.Lag, v.Diffs)
	}
}
