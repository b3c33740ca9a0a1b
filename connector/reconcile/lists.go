package reconcile

import "github.com/razorpay-erpnext/razorpay-erpnext/connector"

// ListLimit bounds each of a report's lists of items (Queued, Parked, NotBooked): a run over a
// large backlog holds its counts and at most this many items of each list, not one item per
// payment. The counts stay exact; an item left out of a list is named in the inbox (`events
// list`), and the report says how many were left out (a warning per list).
const ListLimit = 1000

// listLimit is ListLimit, lowered by tests.
var listLimit = ListLimit

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

// listQueued lists it in Report.Queued, or, past ListLimit, keeps only its row for the drain.
func (r *reconcileRun) listQueued(it Item) {
	if len(r.rep.Queued) < listLimit {
		r.rep.Queued = append(r.rep.Queued, it)
		return
	}
	r.unlisted.queued++
	if it.rowID != 0 {
		r.unlisted.queuedRows = append(r.unlisted.queuedRows, unlistedRow{id: it.rowID, cnt: r.counts(&it)})
	}
}

// listParked lists it in Report.Parked unless the list is full.
func (r *reconcileRun) listParked(it Item) {
	if len(r.rep.Parked) < listLimit {
		r.rep.Parked = append(r.rep.Parked, it)
		return
	}
	r.unlisted.parked++
}

// listNotBooked lists it in Report.NotBooked unless the list is full.
func (r *reconcileRun) listNotBooked(it Item) {
	if len(r.rep.NotBooked) < listLimit {
		r.rep.NotBooked = append(r.rep.NotBooked, it)
		return
	}
	r.unlisted.notBooked++
}

// warnUnlisted adds one warning per list that items were left out of.
func (r *reconcileRun) warnUnlisted() {
	u := r.unlisted
	for _, l := range []struct {
		n          int
		what, with string
	}{
		{u.queued, "queued (dry run: would queue)", "events list --status pending"},
		{u.parked, "parked", "events list --status parked"},
		{u.notBooked, "not booked by this version", "events list --status skipped"},
	} {
		if l.n > 0 {
			r.warn("%d more items %s are counted but not listed (a report lists at most %d of each kind); %s shows the inbox rows",
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
