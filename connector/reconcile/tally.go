package reconcile

import (
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// ListLimit bounds each of a report's lists of items (Queued, Parked, NotBooked): a run over a
// large backlog holds its counts and at most this many items of each list, not one item per
// payment. The counts stay exact; an item left out of a list is named in the inbox (`events
// list`), and the report says how many were left out (a warning per list).
const ListLimit = 1000

// listLimit is ListLimit, lowered by tests.
var listLimit = ListLimit

// tally is what every sweep of a run adds to: the report (its counts and lists), the items
// left out of the lists, the business keys judged so far, reconcile.since, and the run's
// warnings and progress.
type tally struct {
	rep   *Report
	since time.Time
	// handled are the business keys a sweep judged that a later sweep lists again (the
	// payments of Integration Requests, settlements): those count once.
	handled map[string]bool
	// unlisted counts what the report's lists left out (ListLimit).
	unlisted   unlisted
	log        zerolog.Logger
	onProgress func(Progress)
}

// unlisted are the items a run counted but left out of its lists (ListLimit). queuedRows are
// the inbox rows of the queued ones, which the drain still processes and counts.
type unlisted struct {
	queued, parked, notBooked int
	queuedRows                []unlistedRow
}

// unlistedRow is a queued row left out of Report.Queued: its id, and the counts it belongs to.
type unlistedRow struct {
	id  int64
	cnt *SweepCounts
}

func (t *tally) progress(phase string, done, total int) {
	if t.onProgress != nil {
		t.onProgress(Progress{Phase: phase, Done: done, Total: total})
	}
}

func (t *tally) warn(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	t.rep.Warnings = append(t.rep.Warnings, msg)
	t.log.Warn().Str("component", "reconcile").Msg(msg)
}

// counts returns the sweep counts an item belongs to.
func (t *tally) counts(it *Item) *SweepCounts {
	switch {
	case it.Source == SourceIntegrationRequest:
		return &t.rep.IntegrationRequests
	case it.Kind == KindRefund:
		return &t.rep.Refunds
	case it.Kind == KindSettlement:
		return &t.rep.SettlementCounts
	}
	return &t.rep.Payments
}

// summarise warns of items left out of the lists and sets NeedsAttention: something is
// parked, authorized past its age, or anomalous.
func (t *tally) summarise() {
	t.warnUnlisted()
	rep := t.rep
	rep.NeedsAttention = len(rep.Parked) > 0 || len(rep.Authorized) > 0 || len(rep.Anomalies) > 0
}

func (t *tally) beforeSince(unix int64) bool {
	return !t.since.IsZero() && time.Unix(unix, 0).Before(t.since)
}

// count counts it as scanned and reports whether it is to be looked up: not when it was
// created before reconcile.since, nor when another sweep of this run judged it already (then
// it counts as in the inbox).
func (t *tally) count(it Item, createdAt int64) bool {
	cnt := t.counts(&it)
	cnt.Scanned++
	switch {
	case t.beforeSince(createdAt):
		cnt.BeforeSince++
		return false
	case t.handled[it.ID]:
		cnt.InInbox++ // queued or judged earlier in this run, by another sweep
		return false
	}
	return true
}

// judgeCovered counts it by cv and lists it when it needs a person (parked) or was skipped;
// true when it needs a synthetic row.
func (t *tally) judgeCovered(it Item, cv covered) bool {
	cnt := t.counts(&it)
	if row := cv.row; row != nil {
		it.EventID, it.Status, it.Reason, it.Result = row.EventID, string(row.Status), row.LastError, resultOf(row)
	}
	switch cv.cov {
	case covBooked:
		cnt.AlreadyBooked++
	case covQueued:
		cnt.InInbox++
	case covParked:
		cnt.Parked++
		t.listParked(it)
	case covNotBooked:
		cnt.NotBooked++
		t.listNotBooked(it)
	case covDismissed:
		cnt.AlreadyBooked++ // a person decided; nothing to do
	default:
		return true
	}
	return false
}

// listQueued lists it in Report.Queued, or, past ListLimit, keeps only its row for the drain.
func (t *tally) listQueued(it Item) {
	if len(t.rep.Queued) < listLimit {
		t.rep.Queued = append(t.rep.Queued, it)
		return
	}
	t.unlisted.queued++
	if it.rowID != 0 {
		t.unlisted.queuedRows = append(t.unlisted.queuedRows, unlistedRow{id: it.rowID, cnt: t.counts(&it)})
	}
}

// listParked lists it in Report.Parked unless the list is full.
func (t *tally) listParked(it Item) {
	if len(t.rep.Parked) < listLimit {
		t.rep.Parked = append(t.rep.Parked, it)
		return
	}
	t.unlisted.parked++
}

// listNotBooked lists it in Report.NotBooked unless the list is full.
func (t *tally) listNotBooked(it Item) {
	if len(t.rep.NotBooked) < listLimit {
		t.rep.NotBooked = append(t.rep.NotBooked, it)
		return
	}
	t.unlisted.notBooked++
}

// warnUnlisted adds one warning per list that items were left out of.
func (t *tally) warnUnlisted() {
	u := t.unlisted
	for _, l := range []struct {
		n          int
		what, with string
	}{
		{u.queued, "queued (dry run: would queue)", "events list --status pending"},
		{u.parked, "parked", "events list --status parked"},
		{u.notBooked, "not booked by this version", "events list --status skipped"},
	} {
		if l.n > 0 {
			t.warn("%d more items %s are counted but not listed (a report lists at most %d of each kind); %s shows the inbox rows",
				l.n, l.what, listLimit, l.with)
		}
	}
}

// itemOfRow is the report item of a queued row that was not listed, as the drain read it back.
func itemOfRow(ev *connector.InboxEvent) Item {
	kind := KindPayment
	switch connector.RouteOf(ev.Event) {
	case connector.RouteRefund:
		kind = KindRefund
	case connector.RouteSettlement:
		kind = KindSettlement
	}
	return Item{Kind: kind, ID: ev.BusinessKey, Source: SourceRazorpay, EventID: ev.EventID, CreatedAt: ev.ReceivedAt,
		Status: string(ev.Status), Reason: ev.LastError, Result: resultOf(ev), rowID: ev.ID}
}
