package console

import (
	"fmt"
	"strconv"
	"time"
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
	// Lag is how many days after its receipts a settlement pays them out (settlement chart; 0
	// for the captured chart); DiffNote says how the days were paired when that is not the same day.
	Lag      int
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
// balance. Razorpay pays a day's receipts out a few days later (T+2 by default; the simulator
// at once), so each settlement day is compared with the booked net of the day settlementLag
// finds it pays: a normal day — its receipts less their fees — is not a difference; a
// settlement short or over by X still is, on its day, by X.
func settlementChart(s Settlements, loc *time.Location) chartView {
	days := make([]chartDay, len(s.Days))
	var gross, fees, refunds int64
	for i, d := range s.Days {
		days[i] = chartDay{day: d.Day, first: d.BookedNetMinor(), second: d.SettledMinor}
		gross, fees, refunds = gross+d.BookedMinor, fees+d.FeesMinor, refunds+d.RefundsMinor
	}
	v := drawChart(s.Currency, days, true, loc, "booked net of fees and refunds", "settled")
	v.Breakdown = "booked " + formatMoney(gross, s.Currency) + " − Razorpay's fees " + formatMoney(fees, s.Currency) +
		" − refunds " + formatMoney(refunds, s.Currency)
	v.Diffs, v.DaysWithoutDiff, v.Lag = nil, 0, settlementLag(days)
	for k := v.Lag; k < len(days); k++ {
		booked, settled := days[k-v.Lag].first, days[k].second
		notDueYet := settled == 0 && k >= len(days)-maxSettlementLag // recent receipts: their payout may not be due
		if booked == settled || notDueYet {
			v.DaysWithoutDiff++
			continue
		}
		v.Diffs = append(v.Diffs, dayDiff{Day: days[k].day, First: formatMoney(booked, s.Currency), Second: formatMoney(settled, s.Currency),
			Diff: formatMoney(settled-booked, s.Currency), SecondMore: settled > booked, FirstMore: booked > settled})
	}
	if v.Lag > 0 {
		v.DiffNote = fmt.Sprintf("each day's payout against the booked net of %d %s before", v.Lag, plural(v.Lag, "day", "days"))
	}
	v.ExtraLabel, v.ExtraValue = "clearing balance ("+s.ClearingAccount+")", formatMoney(s.ClearingBalanceMinor, s.Currency)
	if s.ClearingUnknown != "" {
		v.ExtraValue = "not available: " + s.ClearingUnknown
	}
	return v
}

// maxSettlementLag is the longest payout delay settlementLag considers, in days.
const maxSettlementLag = 4

// settlementLag is the delay L (0 … maxSettlementLag days) that pairs each day's payout
// (second) with the booked net of L days before (first) best: the one with the smallest mean
// absolute difference over the days it can pair, the shortest on a tie. Integer arithmetic:
// means are compared by cross-multiplying.
func settlementLag(days []chartDay) int {
	best, bestSum, bestN := 0, int64(-1), int64(0)
	for lag := 0; lag <= maxSettlementLag && lag < len(days); lag++ {
		var sum, n int64
		for k := lag; k < len(days); k++ {
			d := days[k].second - days[k-lag].first
			sum += max(d, -d)
			n++
		}
		if bestSum < 0 || sum*bestN < bestSum*n {
			best, bestSum, bestN = lag, sum, n
		}
	}
	return best
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
	v.TotalFirst, v.TotalSecond = formatMoney(totalFirst, currency), formatMoney(totalSecond, currency)
	v.TopLabel = formatMoney(top, currency)
	if len(days) == 0 {
		return v
	}
	slot := (chartW - chartLeft) / len(days)
	barW := max(slot*2/5, 2)
	for i, d := range days {
		x := chartLeft + i*slot + (slot-2*barW)/2
		label := d.day.In(loc).Format("02 Jan")
		v.Bars = append(v.Bars, bar(x, barW, d.first, top, "bar-first",
			label+" "+first+" "+formatMoney(d.first, currency)+countNote(d.fn)))
		if secondKnown {
			v.Bars = append(v.Bars, bar(x+barW, barW, d.second, top, "bar-second",
				label+" "+second+" "+formatMoney(d.second, currency)+countNote(d.sn)))
		}
		if (len(days)-1-i)%2 == 0 || len(days) <= 7 { // every other day, always the last
			v.Labels = append(v.Labels, chartLabel{X: chartLeft + i*slot + slot/2, Y: chartH - 8, Text: d.day.In(loc).Format("02 Jan")})
		}
		if secondKnown && d.first != d.second {
			v.Diffs = append(v.Diffs, dayDiff{Day: d.day, First: formatMoney(d.first, currency),
				Second: formatMoney(d.second, currency), Diff: formatMoney(d.second-d.first, currency),
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
