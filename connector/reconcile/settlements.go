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

// settlementSweep is the settlement sweep and report of a run (config `settlements`) ending at
// the reconcile window's end, to; from is the window's start, before which a posted and
// matched settlement is left out of the report.
type settlementSweep struct {
	q        *queue
	rd       reads
	from, to time.Time
	// enabled, window, since and bankAccount are settlements.enabled, .window, .since (its
	// day in the account's time zone; zero: none) and .bank_account_doc.
	enabled     bool
	window      time.Duration
	since       time.Time
	bankAccount string
	// booker answers the bank statement match and breakdown of a line; owner names a new
	// owner of this process for a role, observe sets the oldest-unmatched gauge.
	booker  Settlements
	owner   func(role string) string
	observe func(oldestUnmatched time.Time)
	// listed are the processed settlements the sweep listed, for the report.
	listed []razorpay.Settlement
}

// run lists the window's settlements and queues the processed ones not on their way.
func (s *settlementSweep) run(ctx context.Context) error {
	if !s.enabled {
		return nil
	}
	to := s.to
	from := to.Add(-s.window)
	seen := map[string]bool{}
	return s.rd.retry(ctx, "list settlements", func() error {
		return s.rd.rzp.ListSettlements(ctx, from, to, func(st *razorpay.Settlement) error {
			if seen[st.ID] || st.ID == "" || st.Status != razorpay.SettlementProcessed {
				return nil
			}
			seen[st.ID] = true
			s.q.t.progress("settlements", len(seen), 0)
			return s.settlement(ctx, st)
		})
	})
}

// settlement judges one processed settlement and queues it when needed.
func (s *settlementSweep) settlement(ctx context.Context, st *razorpay.Settlement) error {
	it := Item{Kind: KindSettlement, ID: st.ID, Source: SourceRazorpay, AmountMinor: st.Amount, Currency: "INR",
		CreatedAt: time.Unix(st.CreatedAt, 0).UTC()}
	cnt := s.q.t.counts(&it)
	cnt.Scanned++
	if since := s.since; !since.IsZero() && st.CreatedAt < since.Unix() {
		cnt.BeforeSince++
		return nil
	}
	s.listed = append(s.listed, *st)
	cv, err := s.q.cover(ctx, st.ID, connector.RouteSettlement)
	if err != nil {
		return err
	}
	if cv.cov == covNotBooked && cv.row != nil {
		return s.requeue(ctx, it, cv.row)
	}
	need, anyRow, err := s.q.judge(ctx, it, connector.RouteSettlement)
	if err != nil || !need {
		return err
	}
	var body []byte
	if !s.q.dryRun {
		if body, err = connector.SyntheticSettlementEvent(s.q.accountID, s.q.now(), st); err != nil {
			return err
		}
	}
	return s.q.enqueue(ctx, it, connector.EventSettlementProcessed, body, anyRow)
}

// requeue sends a settlement's skipped row (settlements were off when it arrived) back to
// pending, from skipped only (one conditional write).
func (s *settlementSweep) requeue(ctx context.Context, it Item, row *connector.InboxEvent) error {
	q := s.q
	cnt := q.t.counts(&it)
	q.t.handled[it.ID] = true
	it.EventID, it.Status = row.EventID, "would queue"
	if !q.dryRun {
		if err := q.store.SetEventStatusFrom(ctx, row.ID, connector.StatusSkipped, connector.StatusPending, "", q.now()); err != nil {
			return fmt.Errorf("requeue %s: %w", row.EventID, err)
		}
		it.rowID, it.Status = row.ID, string(connector.StatusPending)
		q.wake()
	}
	cnt.Queued++
	q.t.listQueued(it)
	return nil
}

// report matches every posted settlement the sweep listed that is not matched yet
// (a dry run only looks), adds a line for each settlement of the reconcile window and each
// older one not posted or not matched, and sets the oldest-unmatched gauge.
func (s *settlementSweep) report(ctx context.Context) error {
	t := s.q.t
	if len(s.listed) == 0 {
		if !s.q.dryRun && s.enabled {
			s.observe(time.Time{})
		}
		return nil
	}
	owner := s.owner("reconcile")
	var oldest time.Time
	for i := range s.listed {
		st := &s.listed[i]
		line, err := s.line(ctx, st, owner)
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
			t.rep.Anomalies = append(t.rep.Anomalies, Anomaly{Kind: AnomalySettlementBankAmbiguous, Detail: fmt.Sprintf("settlement %s (UTR %s): %s", st.ID, st.UTR, line.Bank),
				Documents: append([]string{line.Entry}, line.Bank.Candidates...)})
		}
		done := line.Entry != "" && (line.Bank.State == connector.BankMatched || line.Bank.State == connector.BankOff)
		if done && line.CreatedAt.Before(s.from) {
			continue // posted and matched before this window: nothing to report
		}
		if err := s.rd.retry(ctx, "read settlement "+st.ID, func() error { return s.booker.SettlementBreakdown(ctx, st, line.Entry, &line) }); err != nil {
			t.warn("settlement %s: breakdown not read (%v)", st.ID, err)
		}
		t.rep.Settlements = append(t.rep.Settlements, line)
	}
	if !s.q.dryRun {
		s.observe(oldest)
	}
	return nil
}

// line is st's line without the breakdown: its entry (the booking) or the state of
// its inbox row, and the bank match of a posted one.
func (s *settlementSweep) line(ctx context.Context, st *razorpay.Settlement, owner string) (connector.SettlementLine, error) {
	line := connector.SettlementLine{ID: st.ID, UTR: st.UTR, CreatedAt: time.Unix(st.CreatedAt, 0).UTC(), Amount: st.Amount,
		Status: "not queued", Bank: connector.BankMatch{State: connector.BankOff}}
	if s.bankAccount != "" {
		line.Bank.State = connector.BankNotPosted
	}
	cv, err := s.q.cover(ctx, st.ID, connector.RouteSettlement)
	if err != nil {
		return line, err
	}
	if row := cv.row; row != nil {
		line.Status, line.Reason = string(row.Status), row.LastError
	} else if s.q.dryRun && cv.cov == uncovered {
		line.Status = "would queue"
	}
	b, err := s.q.store.GetBooking(ctx, st.ID)
	if err != nil || b.State != connector.BookingBooked {
		return line, nil
	}
	line.Entry, line.Status = b.Name, "posted"
	m, err := s.booker.MatchSettlement(ctx, st, b.Name, owner, s.q.dryRun)
	if err != nil {
		s.q.t.warn("settlement %s: bank statement match failed (%v); tried again next run", st.ID, err)
		m = connector.BankMatch{State: "failed"}
	}
	line.Bank = m
	return line, nil
}
