package console

import (
	"fmt"
	"strconv"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// The Today chart is inline SVG drawn from integers: bar heights are minor units scaled by
// integer division, so no amount passes through a float. Two bars per day (booked, then
// captured or settled); on the booked vs captured chart a day whose two amounts differ is
// listed under the chart with the difference, to the paisa.

// Chart geometry, in SVG user units (the SVG scales to its box).
const (
	chartW      = 720
	chartH      = 240
	chartLeft   = 8
	chartTop    = 14
	chartBottom = 28 // room for the day labels
	plotH       = chartH - chartTop - chartBottom
)

// chartView is one drawn chart and the figures beside it.
type chartView struct {
	Currency        string
	Width, Height   int
	First, Second   string // series names: "booked", "captured" (or "settled")
	Bars            []chartBar
	Labels          []chartLabel
	BaseY           int
	TopLabel        string // the amount of the top grid line
	TopY            int
	Diffs           []dayDiff
	TotalFirst      string
	TotalSecond     string
	SecondKnown     bool
	SecondAsOf      time.Time
	ExtraLabel      string // e.g. the clearing balance
	ExtraValue      string
	Breakdown       string // how the first series is made, e.g. "booked ₹… − Razorpay's fees ₹… − refunds ₹…"
	DaysWithoutDiff int
	// DiffNote says how the settlement chart compares its days ("" on the captured chart).
	DiffNote string
}

type chartBar struct {
	X, Y, W, H int
	Class      string
	Title      string
}

type chartLabel struct {
	X, Y int
	Text string
}

// dayDiff is a day whose two series differ: Diff = second − first.
type dayDiff struct {
	Day                   time.Time
	First, Second, Diff   string
	SecondMore, FirstMore bool
	// Note says what the row stands for when it is not the day's own figures ("" when it is).
	Note string
}

// chartDay is one day of a two-series chart, in minor units.
type chartDay struct {
	day           time.Time
	first, second int64
	fn, sn        int
}

// moneyChart draws booked vs captured.
func moneyChart(s MoneySeries, loc *time.Location) chartView {
	days := make([]chartDay, len(s.Days))
	for i, d := range s.Days {
		days[i] = chartDay{day: d.Day, first: d.BookedMinor, second: d.CapturedMinor, fn: d.BookedCount, sn: d.CapturedCount}
	}
	v := drawChart(s.Currency, days, s.CapturedKnown, loc, "booked", "captured")
	v.SecondAsOf = s.CapturedAsOf
	return v
}

// settlementChart draws booked vs settled, like with like: what each day's receipts are worth
// once Razorpay has taken its fees and the refunds out (SettlementDay.BookedNetMinor) against
// what the settlements paid out, with the gross, fees and refunds beside it and the clearing
// balance. The differences are settlementDiffs': no lag is guessed, so a settlement is never
// called a difference for paying receipts of another day, nor for sitting beside receipts it
// does not cover.
func settlementChart(s Settlements, loc *time.Location) chartView {
	days := make([]chartDay, len(s.Days))
	var gross, fees, refunds int64
	for i, d := range s.Days {
		days[i] = chartDay{day: d.Day, first: d.BookedNetMinor(), second: d.SettledMinor}
		gross, fees, refunds = gross+d.BookedMinor, fees+d.FeesMinor, refunds+d.RefundsMinor
	}
	v := drawChart(s.Currency, days, true, loc, "booked net of fees and refunds", "settled")
	v.Breakdown = "booked " + razorpay.MoneyDisplay(gross, s.Currency) + " − Razorpay's fees " + razorpay.MoneyDisplay(fees, s.Currency) +
		" − refunds " + razorpay.MoneyDisplay(refunds, s.Currency)
	v.Diffs = settlementDiffs(days, s.Currency)
	v.DaysWithoutDiff = len(days) - len(v.Diffs)
	v.DiffNote = fmt.Sprintf("each payout against the receipts booked and not yet paid out, oldest first; "+
		"receipts of the last %d days may not be due yet", maxSettlementLag+1)
	v.ExtraLabel, v.ExtraValue = "clearing balance ("+s.ClearingAccount+")", razorpay.MoneyDisplay(s.ClearingBalanceMinor, s.Currency)
	if s.ClearingUnknown != "" {
		v.ExtraValue = "not available: " + s.ClearingUnknown
	}
	return v
}

// maxSettlementLag is the longest payout delay of a normal settlement, in days: Razorpay's
// default cycle is T+2 working days (its settlement docs; README "For accountants"), 4
// calendar days over a weekend.
const maxSettlementLag = 4

// settlementDiffs are the days of a settlement chart (first: booked net, second: settled, in
// minor units) that are differences, from what every settlement is: the connector posts a
// settlement's entry only once every payment and refund it pays out is booked (DESIGN.md §5),
// so a payout pays receipts booked on its day or before. Which ones the store does not record,
// so the days are a running balance — what was booked and not yet paid out — and a payout pays
// the oldest first:
//   - a payout larger than that balance paid out money the connector did not book (an
//     adjustment Razorpay credited, say) and is a difference on its day by the excess; in the
//     first maxSettlementLag days the excess is taken to pay receipts booked before the chart;
//   - what is still unpaid at the end beyond the receipts of the last maxSettlementLag+1 days
//     (not due yet) was not paid out in time — a settlement short of its receipts, receipts
//     Razorpay never settled — and is one row on the last day due: at least that much booked
//     up to it and not paid out (at least: a later payout taken for old receipts may have paid
//     new ones). Which of those days' receipts it is the store does not know, so no day's own
//     figures are made up for it.
//
// A day whose payouts balance against receipts booked before them is never a difference, on
// whatever day those receipts were booked.
func settlementDiffs(days []chartDay, currency string) []dayDiff {
	var diffs []dayDiff
	var unpaid int64
	for k, d := range days {
		before := unpaid + d.first
		unpaid = before - d.second
		if unpaid >= 0 {
			continue
		}
		if k >= maxSettlementLag {
			diffs = append(diffs, newDayDiff(d.day, before, d.second, currency))
		}
		unpaid = 0
	}
	due := len(days) - 2 - maxSettlementLag // the last day whose receipts are due by now (today is the last)
	for k := max(due+1, 0); k < len(days); k++ {
		unpaid -= max(days[k].first, 0)
	}
	if due >= 0 && unpaid > 0 {
		d := newDayDiff(days[due].day, unpaid, 0, currency)
		d.Note = fmt.Sprintf("at least this much booked up to this day not paid out within %d days", maxSettlementLag)
		diffs = append(diffs, d)
	}
	return diffs
}

// newDayDiff is a difference of day: first and second in minor units of currency.
func newDayDiff(day time.Time, first, second int64, currency string) dayDiff {
	return dayDiff{Day: day, First: razorpay.MoneyDisplay(first, currency), Second: razorpay.MoneyDisplay(second, currency),
		Diff: razorpay.MoneyDisplay(second-first, currency), SecondMore: second > first, FirstMore: first > second}
}

func drawChart(currency string, days []chartDay, secondKnown bool, loc *time.Location, first, second string) chartView {
	v := chartView{Currency: currency, Width: chartW, Height: chartH, First: first, Second: second,
		SecondKnown: secondKnown, BaseY: chartTop + plotH, TopY: chartTop}
	var top, totalFirst, totalSecond int64
	for _, d := range days {
		top = max(top, d.first, d.second)
		totalFirst += d.first
		totalSecond += d.second
	}
	v.TotalFirst, v.TotalSecond = razorpay.MoneyDisplay(totalFirst, currency), razorpay.MoneyDisplay(totalSecond, currency)
	v.TopLabel = razorpay.MoneyDisplay(top, currency)
	if len(days) == 0 {
		return v
	}
	slot := (chartW - chartLeft) / len(days)
	barW := max(slot*2/5, 2)
	for i, d := range days {
		x := chartLeft + i*slot + (slot-2*barW)/2
		label := d.day.In(loc).Format("02 Jan")
		v.Bars = append(v.Bars, bar(x, barW, d.first, top, "bar-first",
			label+" "+first+" "+razorpay.MoneyDisplay(d.first, currency)+countNote(d.fn)))
		if secondKnown {
			v.Bars = append(v.Bars, bar(x+barW, barW, d.second, top, "bar-second",
				label+" "+second+" "+razorpay.MoneyDisplay(d.second, currency)+countNote(d.sn)))
		}
		if (len(days)-1-i)%2 == 0 || len(days) <= 7 { // every other day, always the last
			v.Labels = append(v.Labels, chartLabel{X: chartLeft + i*slot + slot/2, Y: chartH - 8, Text: d.day.In(loc).Format("02 Jan")})
		}
		if secondKnown && d.first != d.second {
			v.Diffs = append(v.Diffs, dayDiff{Day: d.day, First: razorpay.MoneyDisplay(d.first, currency),
				Second: razorpay.MoneyDisplay(d.second, currency), Diff: razorpay.MoneyDisplay(d.second-d.first, currency),
				SecondMore: d.second > d.first, FirstMore: d.first > d.second})
		}
	}
	v.DaysWithoutDiff = len(days) - len(v.Diffs)
	return v
}

// bar is one bar: height value/top of the plot (integer division); a non-zero value is at
// least 1 unit high so it shows.
func bar(x, w int, value, top int64, class, title string) chartBar {
	h := 0
	if top > 0 && value > 0 {
		h = int(value * int64(plotH) / top)
		if h == 0 {
			h = 1
		}
	}
	return chartBar{X: x, Y: chartTop + plotH - h, W: w, H: h, Class: class, Title: title}
}

func countNote(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return " (1 payment)"
	}
	return " (" + strconv.Itoa(n) + " payments)"
}
