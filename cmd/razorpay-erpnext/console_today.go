package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/console"
)

// seriesDays is how many days the Today chart shows, today included.
const seriesDays = 14

// localMidnights returns the n+1 local midnights that bound the last n days, today last:
// [today−(n−1), …, today, tomorrow], each a midnight in loc (a 23- or 25-hour day stays one day).
func localMidnights(now time.Time, loc *time.Location, n int) []time.Time {
	y, m, d := now.In(loc).Date()
	out := make([]time.Time, 0, n+1)
	for i := n - 1; i >= -1; i-- {
		out = append(out, time.Date(y, m, d-i, 0, 0, 0, 0, loc))
	}
	return out
}

// Today reads every figure of the Today page: store counts (all replicas), this process's
// webhook answers (its Prometheus counters), the fault state and the 14-day money series.
func (b *consoleBackend) Today(ctx context.Context) (console.Today, error) {
	now := b.now()
	days := localMidnights(now, b.loc, seriesDays)
	today := days[len(days)-2]
	var t console.Today
	act, err := b.d.db.WebhookActivity(ctx, today)
	if err != nil {
		return t, err
	}
	t.StoredWebhooks, t.ReconcileRows, t.LastWebhook = act.Webhooks, act.ReconcileRows, act.Last
	counts, err := b.d.db.CountByStatus(ctx)
	if err != nil {
		return t, err
	}
	t.Statuses = make(map[string]int, len(counts))
	for s, n := range counts {
		t.Statuses[string(s)] = n
	}
	if oldest, ok, err := b.d.db.OldestPending(ctx); err != nil {
		return t, err
	} else if ok {
		t.OldestPending = oldest
	}
	booked, err := b.d.db.SumBookings(ctx, connector.KindReceipt, days)
	if err != nil {
		return t, err
	}
	refunds, err := b.d.db.SumBookings(ctx, connector.KindRefund, days[len(days)-2:])
	if err != nil {
		return t, err
	}
	for _, s := range booked {
		if s.Bucket == seriesDays-1 {
			t.BookedToday = append(t.BookedToday, console.Money{Currency: s.Currency, AmountMinor: s.AmountMinor, Count: s.Count})
		}
	}
	for _, s := range refunds {
		t.RefundedToday = append(t.RefundedToday, console.Money{Currency: s.Currency, AmountMinor: s.AmountMinor, Count: s.Count})
	}
	t.Replica, t.Faults = b.replicaCounts(), b.faults()
	t.Series, t.SeriesNote = b.series(days, booked)
	if t.Settlements, err = b.settlements(ctx, days, booked); err != nil {
		return t, err
	}
	return t, nil
}

// replicaCounts reads this process's razorpay_erpnext_webhooks_received_total by outcome.
func (b *consoleBackend) replicaCounts() console.ReplicaCounts {
	r := console.ReplicaCounts{Since: b.started, RejectedBy: map[string]int{}}
	for outcome, n := range b.counterByLabel(connector.MetricWebhooks, "outcome") {
		r.Received += n
		switch outcome {
		case "accepted":
			r.Accepted += n
		case "duplicate":
			r.Duplicate += n
		default:
			r.Rejected += n
			r.RejectedBy[strings.ReplaceAll(outcome, "_", " ")] += n
		}
	}
	return r
}

// counterByLabel sums a counter of the connector's registry by one label's values.
func (b *consoleBackend) counterByLabel(name, label string) map[string]int {
	out := map[string]int{}
	families, err := b.d.conn.Metrics().Gather()
	if err != nil {
		return out
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			out[labelValue(m, label)] += int(m.GetCounter().GetValue())
		}
	}
	return out
}

func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// faults is the state of ERPNext (paused by a 401/403 in this process, or slowed down by a 429
// or 503 with Retry-After: the seconds left), the Razorpay API (as
// the last read of the captured series found it) and the store (it just answered).
func (b *consoleBackend) faults() []console.Fault {
	erp := console.Fault{System: "ERPNext", State: console.FaultOK, Detail: b.d.cfg.ERPNext.URL}
	sds := b.d.conn.SlowDowns()
	if paused, why := b.d.conn.Paused(); paused {
		erp.State, erp.Detail = console.FaultDown, "all booking paused: "+why
	} else if note := slowDownNote(sds, connector.SystemERPNext); note != "" {
		erp.State, erp.Detail = console.FaultDown, note
	} else if errs := troubleClasses(b.counterByLabel(connector.MetricERPNextErrors, "class")); len(errs) > 0 {
		erp.Detail += "; calls that failed since this replica started: " + countList(errs)
	}
	rzp := console.Fault{System: "Razorpay API", State: console.FaultOff,
		Detail: "no razorpay.key_id/key_secret: no reconcile, no captured amounts"}
	if b.captured != nil {
		rzp.State, rzp.Detail = b.captured.state()
		if note := slowDownNote(sds, connector.SystemRazorpay); note != "" {
			rzp.State, rzp.Detail = console.FaultDown, note
		}
	}
	return []console.Fault{erp, rzp, {System: "Store", State: console.FaultOK, Detail: b.d.cfg.Database.Driver + ", every replica's rows"}}
}

// troubleClasses keeps the error classes that say something is wrong with ERPNext or the way
// to it (auth, server errors and timeouts, conflicts); a 404 of a lookup, a validation refusal
// (the payment parks) and a cancelled call are business as usual.
func troubleClasses(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, n := range m {
		switch k {
		case "not_found", "rejected", "canceled":
		default:
			out[k] = n
		}
	}
	return out
}

func countList(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// series joins the booked sums with the captured sums, one series per currency seen.
func (b *consoleBackend) series(days []time.Time, booked []store.BookedSum) ([]console.MoneySeries, string) {
	byCur := map[string]*console.MoneySeries{}
	get := func(cur string) *console.MoneySeries {
		if s, ok := byCur[cur]; ok {
			return s
		}
		s := &console.MoneySeries{Currency: cur}
		for _, d := range days[:seriesDays] {
			s.Days = append(s.Days, console.MoneyDay{Day: d})
		}
		byCur[cur] = s
		return s
	}
	for _, s := range booked {
		d := &get(s.Currency).Days[s.Bucket]
		d.BookedMinor, d.BookedCount = s.AmountMinor, s.Count
	}
	note := "razorpay.key_id and key_secret are not configured."
	if b.captured != nil {
		snap := b.captured.get(days[0])
		note = snap.note
		for cur, perDay := range snap.sums {
			s := get(cur)
			for i, d := range s.Days {
				if v, ok := perDay[d.Day.Unix()]; ok {
					s.Days[i].CapturedMinor, s.Days[i].CapturedCount = v.minor, v.count
				}
			}
		}
		for _, s := range byCur {
			s.CapturedKnown, s.CapturedAsOf = snap.known, snap.asOf
		}
	}
	out := make([]console.MoneySeries, 0, len(byCur))
	for _, s := range byCur {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Currency < out[j].Currency })
	return out, note
}
