package main

import (
	"testing"
	"time"
)

// The browser test's seeded history lies wholly before Razorpay's listing at every hour of the
// day (CI runs at any hour): it failed at 19:0x UTC, when the settlement of 6 days back, posted
// at 10:15 IST, fell inside the listing (now − 5 days) and the audit reported its entry deleted.
// The chart still gets at least 7 seeded days, ending 13 back.
func TestSeedHistoryBeforeListingAtEveryHour(t *testing.T) {
	ist, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	const listed = 5 * 24 * time.Hour // reconcile.window 2 d + reconcile.lookback 3 d (defaults)
	for _, c := range []struct {
		utc   string
		first int
	}{
		// 00:00 UTC is 05:30 IST; 04:46 UTC is 10:16 IST, after the settlements' 10:15; 18:30 UTC
		// is midnight IST, a new local day.
		{"00:00", 7}, {"04:44", 7}, {"04:45", 7}, {"04:46", 6}, {"12:00", 6},
		{"18:29", 6}, {"18:30", 7}, {"19:00", 7}, {"23:59", 7},
	} {
		now, err := time.Parse(time.RFC3339, "2026-12-02T"+c.utc+":00Z")
		if err != nil {
			t.Fatal(err)
		}
		days := seedDays(now, ist, listed)
		if len(days) == 0 || days[0].back != c.first || days[len(days)-1].back != 13 || len(days) != 14-c.first {
			t.Errorf("%s UTC: seeded %d days, %v; want days %d to 13 back", c.utc, len(days), backs(days), c.first)
			continue
		}
		for _, d := range days {
			if !d.paid.Before(d.posted) || !d.posted.Before(now.Add(-listed)) {
				t.Errorf("%s UTC: day %d back: paid %s, settlement posted %s; the listing starts %s",
					c.utc, d.back, d.paid.In(ist), d.posted.In(ist), now.Add(-listed).In(ist))
			}
		}
	}
}

func backs(days []seedDay) []int {
	var b []int
	for _, d := range days {
		b = append(b, d.back)
	}
	return b
}
