package reconcile

import (
	"context"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// The settlement sweep (settlements.enabled; DESIGN.md §5): Razorpay's settlements of the last
// settlements.window, so a lost settlement.processed changes nothing. A processed settlement
// (created on or after settlements.since) with neither a booking nor an inbox row on its way
// is queued as a synthetic settlement.processed row ("reconcile:setl_…") and posted by the
// workers through the same claim → lookup → create path as the webhook; one that a worker
// skipped while settlements were off is sent back to pending. After the drain every posted
// settlement not yet matched is matched with the bank statement (the bank line may have been
// imported since), and the report gets a line per settlement.

// sweepSettlements lists the window's settlements and queues the processed ones not on their way.
func (r *reconcileRun) sweepSettlements(ctx context.Context) error {
	s := r.c.a.Settlements
	if !s.Enabled {
		return nil
	}
	to := r.rep.WindowTo
	from := to.Add(-s.Window.D())
	seen := map[string]bool{}
	return r.retry(ctx, "list settlements", func() error {
		return r.c.rzp.ListSettlements(ctx, from, to, func(st *razorpay.Settlement) error {
			if seen[st.ID] || st.ID == "" || st.Status != razorpay.SettlementProcessed {
				return nil
			}
			seen[st.ID] = true
			r.progress("settlements", len(seen), 0)
			return r.settlement(ctx, st)
		})
	})
}

// settlement judges one processed settlement and queues it when needed.
func (r *reconcileRun) settlement(ctx context.Context, st *razorpay.Settlement) error {
	it := Item{Kind: KindSettlement, ID: st.ID, Source: SourceRazorpay, AmountMinor: st.Amount, Currency: "INR",
		CreatedAt: time.Unix(st.CreatedAt, 0).UTC()}
	cnt := r.counts(&it)
	cnt.Scanned++
	if since := r.c.a.Settlements.SinceIn(r.c.loc); !since.IsZero() && st.CreatedAt < since.Unix() {
		cnt.BeforeSince++
		return nil
	}
	r.settlements = append(r.settlements, *st)
	cv, err := r.cover(ctx, st.ID, connector.RouteSettlement)
	if err != nil {
		return err
	}
	if cv.cov == covNotBooked && cv.row != nil {
		return r.requeue(ctx, it, cv.row)
	}
	need, anyRow, err := r.judge(ctx, it, connector.RouteSettlement)
	if err != nil || !need {
		return err
	}
	var body []byte
	if !r.req.DryRun {
		if body, err = connector.SyntheticSettlementEvent(r.c.a.ID, r.c.now(), st); err != nil {
			return err
		}
	}
	return r.enqueue(ctx, it, connector.EventSettlementProcessed, body, anyRow)
}

// requeue sends a settlement's skipped row (settlements were off when it arrived) back to
// pending, from skipped only (one conditional write).
func (r *reconcileRun) requeue(ctx context.Context, it Item, row *connector.InboxEvent) error {
	cnt := r.counts(&it)
	r.handled[it.ID] = true
	it.EventID, it.Status = row.EventID, "would queue"
	if !r.req.DryRun {
		if err := r.c.store.SetEventStatusFrom(ctx, row.ID, connector.StatusSkipped, connector.StatusPending, "", r.c.now()); err != nil {
			return fmt.Errorf("requeue %s: %w", row.EventID, err)
		}
		it.rowID, it.Status = row.ID, string(connector.StatusPending)
		r.c.Wake()
	}
	cnt.Queued++
	r.listQueued(it)
	return nil
}

// reportSettlements matches every posted settlement the sweep listed that is not matched yet
// (a dry run only looks), adds a line for each settlement of the reconcile window and each
// older one not posted or not matched, and sets the oldest-unmatched gauge.
func (r *reconcileRun) reportSettlements(ctx context.Context) error {
	if len(r.settlements) == 0 {
		if !r.req.DryRun && r.c.a.Settlements.Enabled {
			r.c.d.ObserveSettlements(time.Time{})
		}
		return nil
	}
	owner := r.c.d.Owner("reconcile")
	var oldest time.Time
	for i := range r.settlements {
		st := &r.settlements[i]
		line, err := r.settlementLine(ctx, st, owner)
		if err != nil {
			return err
		}
		switch line.Bank.State {
		case connector.BankAwaiting, connector.BankAmbiguous, connector.BankWouldMatch, "failed":
			if created := time.Unix(st.CreatedAt, 0); oldest.IsZero() || created.Before(oldest) {
				oldest = created
			}
		}
		if line.Bank.State == connector.BankAmbiguous {
			r.rep.Anomalies = append(r.rep.Anomalies, Anomaly{Kind: AnomalySettlementBankAmbiguous, Detail: fmt.Sprintf("settlement %s (UTR %s): %s", st.ID, st.UTR, line.Bank),
				Documents: append([]string{line.Entry}, line.Bank.Candidates...)})
		}
		done := line.Entry != "" && (line.Bank.State == connector.BankMatched || line.Bank.State == connector.BankOff)
		if done && line.CreatedAt.Before(r.rep.WindowFrom) {
			continue // posted and matched before this window: nothing to report
		}
		if err := r.retry(ctx, "read settlement "+st.ID, func() error { return r.c.d.Settlement.SettlementBreakdown(ctx, st, line.Entry, &line) }); err != nil {
			r.warn("settlement %s: breakdown not read (%v)", st.ID, err)
		}
		r.rep.Settlements = append(r.rep.Settlements, line)
	}
	if !r.req.DryRun {
		r.c.d.ObserveSettlements(oldest)
	}
	return nil
}

// settlementLine is st's line without the breakdown: its entry (the booking) or the state of
// its inbox row, and the bank match of a posted one.
func (r *reconcileRun) settlementLine(ctx context.Context, st *razorpay.Settlement, owner string) (connector.SettlementLine, error) {
	line := connector.SettlementLine{ID: st.ID, UTR: st.UTR, CreatedAt: time.Unix(st.CreatedAt, 0).UTC(), Amount: st.Amount,
		Status: "not queued", Bank: connector.BankMatch{State: connector.BankOff}}
	if r.c.a.Settlements.BankAccountDoc != "" {
		line.Bank.State = connector.BankNotPosted
	}
	cv, err := r.cover(ctx, st.ID, connector.RouteSettlement)
	if err != nil {
		return line, err
	}
	if row := cv.row; row != nil {
		line.Status, line.Reason = string(row.Status), row.LastError
	} else if r.req.DryRun && cv.cov == uncovered {
		line.Status = "would queue"
	}
	b, err := r.c.store.GetBooking(ctx, st.ID)
	if err != nil || b.State != connector.BookingBooked {
		return line, nil
	}
	line.Entry, line.Status = b.Name, "posted"
	m, err := r.c.d.Settlement.MatchSettlement(ctx, st, b.Name, owner, r.req.DryRun)
	if err != nil {
		r.warn("settlement %s: bank statement match failed (%v); tried again next run", st.ID, err)
		m = connector.BankMatch{State: "failed"}
	}
	line.Bank = m
	return line, nil
}
