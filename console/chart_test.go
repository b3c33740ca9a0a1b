package console

import (
	"strings"
	"testing"
	"time"
)

// Settlements compare like with like: each payout against what was booked net of Razorpay's
// fees and the refunds and not yet paid out, with the gross, fees and refunds beside it.
func TestSettlementChartComparesNetOfFeesAndRefunds(t *testing.T) {
	ist, _ := time.LoadLocation("Asia/Kolkata")
	d0 := time.Date(2026, 12, 1, 0, 0, 0, 0, ist)
	s := Settlements{Currency: "INR", ClearingAccount: "Razorpay Clearing - EC", Days: []SettlementDay{
		{Day: d0, BookedMinor: 1000000, FeesMinor: 30000, SettledMinor: 970000},                                      // fees only
		{Day: d0.AddDate(0, 0, 1), BookedMinor: 500000, FeesMinor: 11800, RefundsMinor: 50000, SettledMinor: 438200}, // fees and a refund
		{Day: d0.AddDate(0, 0, 2), BookedMinor: 200000, FeesMinor: 4720, SettledMinor: 185280},
	}}
	v := settlementChart(s, ist)
	if len(v.Diffs) != 0 || v.DaysWithoutDiff != 3 {
		t.Fatalf("diffs %+v (%d days without); want none", v.Diffs, v.DaysWithoutDiff)
	}
	if v.First != "booked net of fees and refunds" || v.TotalFirst != "₹16,034.80" || v.TotalSecond != "₹15,934.80" {
		t.Errorf("series %q: totals %s vs %s", v.First, v.TotalFirst, v.TotalSecond)
	}
	if want := "booked ₹17,000.00 − Razorpay's fees ₹465.20 − refunds ₹500.00"; v.Breakdown != want {
		t.Errorf("breakdown %q; want %q", v.Breakdown, want)
	}
	if !strings.Contains(v.ExtraLabel, "Razorpay Clearing - EC") ||
		v.DiffNote != "each payout against the receipts booked and not yet paid out, oldest first; receipts of the last 5 days may not be due yet" {
		t.Errorf("extra %q, note %q", v.ExtraLabel, v.DiffNote)
	}
}

// The README walkthrough's card (the tester's finding): today a ₹500.00 receipt settled the same
// day (Dr bank 490.00 + fees 8.47 + GST 1.53 = Cr clearing 500.00) beside a ₹12,000.00 receipt
// Razorpay never settled (its webhooks only). The lag that "fitted" 14 days best was 1, and the
// day read "booked net ₹0.00, settled ₹490.00, difference ₹490.00". A payout that balances
// against receipts booked before it is no difference, whatever the days around it hold.
func TestSettledDayBesideUnsettledReceiptsIsNoDifference(t *testing.T) {
	ist, _ := time.LoadLocation("Asia/Kolkata")
	d0 := time.Date(2026, 11, 19, 0, 0, 0, 0, ist)
	days := make([]SettlementDay, 14)
	for i := range days {
		days[i] = SettlementDay{Day: d0.AddDate(0, 0, i)}
	}
	days[13] = SettlementDay{Day: d0.AddDate(0, 0, 13), BookedMinor: 1250000, FeesMinor: 1000, SettledMinor: 49000}
	v := settlementChart(Settlements{Currency: "INR", Days: days}, ist)
	if len(v.Diffs) != 0 || v.DaysWithoutDiff != 14 || v.TotalFirst != "₹12,490.00" || v.TotalSecond != "₹490.00" {
		t.Fatalf("diffs %+v (%d days without), totals %s vs %s; want no difference, ₹12,490.00 vs ₹490.00",
			v.Diffs, v.DaysWithoutDiff, v.TotalFirst, v.TotalSecond)
	}
	// The same with a history of next-day payouts, and today's receipts paid the same day
	// beside the unsettled one: still no day differs.
	for i := 0; i < 13; i++ {
		days[i].BookedMinor, days[i].FeesMinor = 100000, 2360
		if i > 0 {
			days[i].SettledMinor = 97640
		}
	}
	days[13].SettledMinor = 97640 + 49000
	if v := settlementChart(Settlements{Currency: "INR", Days: days}, ist); len(v.Diffs) != 0 {
		t.Fatalf("with next-day history: diffs %+v; want none", v.Diffs)
	}
}

// Paid out two days later (T+2), or with a week's receipts not paid out yet at the end: no
// difference. A payout beyond what was booked and not paid out is one, on its day, by the
// excess — except in the chart's first days, when it pays receipts booked before the chart.
// Money unpaid beyond the receipts of the last 5 days is one row, on the last day due.
func TestSettlementDiffsRunningBalance(t *testing.T) {
	ist, _ := time.LoadLocation("Asia/Kolkata")
	d0 := time.Date(2026, 12, 1, 0, 0, 0, 0, ist)
	mk := func(booked, settled []int64) Settlements {
		s := Settlements{Currency: "INR"}
		for i := range booked {
			s.Days = append(s.Days, SettlementDay{Day: d0.AddDate(0, 0, i), BookedMinor: booked[i], FeesMinor: booked[i] / 50, SettledMinor: settled[i]})
		}
		return s
	}
	// ₹1,000.00 a day, ₹980.00 net; paid out two days later.
	t2 := mk([]int64{100000, 100000, 100000, 100000, 100000, 100000, 100000, 100000},
		[]int64{0, 0, 98000, 98000, 98000, 98000, 98000, 98000})
	if v := settlementChart(t2, ist); len(v.Diffs) != 0 {
		t.Errorf("T+2: diffs %+v; want none", v.Diffs)
	}
	// The first day pays ₹500.00 of receipts booked before the chart (no difference); day 7
	// pays ₹100.00 more than every receipt booked and unpaid.
	over := mk([]int64{0, 100000, 100000, 100000, 100000, 100000, 100000, 0},
		[]int64{50000, 0, 98000, 98000, 98000, 98000, 98000, 108000})
	v := settlementChart(over, ist)
	if len(v.Diffs) != 1 || !v.Diffs[0].Day.Equal(d0.AddDate(0, 0, 7)) || v.Diffs[0].First != "₹980.00" ||
		v.Diffs[0].Second != "₹1,080.00" || v.Diffs[0].Diff != "₹100.00" || !v.Diffs[0].SecondMore {
		t.Errorf("overpaid: diffs %+v; want 08 Dec, ₹980.00 vs ₹1,080.00, ₹100.00", v.Diffs)
	}
	// Receipts stop after day 2 and only ₹500.00 of them is ever paid out: by day 8 the last 5
	// days hold none, so ₹2,440.00 is overdue, one row on the last day due (day 3) — not made-up
	// figures on days 0–2, whose receipts the store cannot tell apart.
	late := mk([]int64{100000, 100000, 100000, 0, 0, 0, 0, 0, 0},
		[]int64{0, 0, 50000, 0, 0, 0, 0, 0, 0})
	v = settlementChart(late, ist)
	if len(v.Diffs) != 1 || v.DaysWithoutDiff != 8 || !v.Diffs[0].Day.Equal(d0.AddDate(0, 0, 3)) ||
		v.Diffs[0].First != "₹2,440.00" || v.Diffs[0].Second != "₹0.00" || v.Diffs[0].Diff != "−₹2,440.00" || !v.Diffs[0].FirstMore ||
		v.Diffs[0].Note != "at least this much booked up to this day not paid out within 4 days" {
		t.Errorf("unpaid: diffs %+v; want 04 Dec ₹2,440.00 booked and not paid out", v.Diffs)
	}
	// Receipts of day 0 are due by day 4: on a 5-day chart (today day 4) none is overdue yet; on
	// a 6-day one ₹480.00 of day 0's is, the rest being day 1 and 2's, within the last 5 days.
	if v := settlementChart(mk([]int64{100000, 100000, 100000, 0, 0}, []int64{0, 0, 50000, 0, 0}), ist); len(v.Diffs) != 0 {
		t.Errorf("5 days: diffs %+v; want none", v.Diffs)
	}
	v = settlementChart(mk([]int64{100000, 100000, 100000, 0, 0, 0}, []int64{0, 0, 50000, 0, 0, 0}), ist)
	if len(v.Diffs) != 1 || !v.Diffs[0].Day.Equal(d0) || v.Diffs[0].First != "₹480.00" || v.Diffs[0].Diff != "−₹480.00" {
		t.Errorf("6 days: diffs %+v; want 01 Dec −₹480.00", v.Diffs)
	}
}
