package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/edge"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/console"
)

// settlements is the Today page's settlement card (settlements.enabled): per day of the chart
// the INR receipts booked (gross, from booked), Razorpay's fees on them (from their stored
// bodies), the refunds booked and the settlements posted (net, by the day the connector posted
// them), and the clearing account's balance now, read from ERPNext. nil while settlements are
// off; a balance ERPNext does not give is left out, never guessed.
func (b *consoleBackend) settlements(ctx context.Context, days []time.Time, booked []store.BookedSum) (*console.Settlements, error) {
	if !b.d.cfg.Settlements.Enabled {
		return nil, nil
	}
	settled, err := b.d.db.SumBookings(ctx, connector.KindSettlement, days)
	if err != nil {
		return nil, err
	}
	fees, err := b.d.db.SumReceiptFees(ctx, days)
	if err != nil {
		return nil, err
	}
	refunds, err := b.d.db.SumBookings(ctx, connector.KindRefund, days)
	if err != nil {
		return nil, err
	}
	s := &console.Settlements{Currency: "INR"}
	for _, d := range days[:seriesDays] {
		s.Days = append(s.Days, console.SettlementDay{Day: d})
	}
	for _, x := range booked {
		if x.Currency == s.Currency {
			s.Days[x.Bucket].BookedMinor += x.AmountMinor
		}
	}
	for _, x := range settled {
		s.Days[x.Bucket].SettledMinor += x.AmountMinor
	}
	for _, x := range fees {
		if x.Currency == s.Currency { // fees are INR paise; only INR receipts are on this card
			s.Days[x.Bucket].FeesMinor += x.AmountMinor
		}
	}
	for _, x := range refunds {
		if x.Currency == s.Currency {
			s.Days[x.Bucket].RefundsMinor += x.AmountMinor
		}
	}
	cctx, cancel := context.WithTimeout(ctx, todayCallTimeout)
	account, paise, err := b.d.conn.Booking().ClearingBalance(cctx)
	cancel()
	s.ClearingAccount, s.ClearingBalanceMinor = account, paise
	if err != nil {
		b.d.log.Warn().Err(err).Msg("console: clearing balance not read")
		s.ClearingUnknown = b.unanswered(connector.SystemERPNext, "get_balance_on", err)
	}
	return s, nil
}

// todayCallTimeout bounds each outside call the Today page waits for (the clearing balance
// from ERPNext): a slow site, or one that asked for a pause, leaves that figure "not
// available" and the page still answers.
const todayCallTimeout = 5 * time.Second

// unanswered says why a call of the Today page to system got no figure: the pause the system
// asked for (with the seconds left), the page's deadline, or that it failed.
func (b *consoleBackend) unanswered(system, what string, err error) string {
	if msg := slowDownNote(b.d.conn.SlowDowns(), system); msg != "" {
		return msg
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("%s did not answer %s within %s", system, what, todayCallTimeout)
	}
	return system + " did not answer " + what
}

// slowDownNote is "ERPNext asked to slow down, 287 s left" while system's pause runs, with
// what it asked for when that was capped; "" when its calls flow.
func slowDownNote(sds []edge.SlowDown, system string) string {
	for _, sd := range sds {
		if sd.System != system || !sd.Active() {
			continue
		}
		msg := fmt.Sprintf("%s asked to slow down, %d s left", system, int64(sd.Left/time.Second))
		if sd.Capped > 0 {
			msg += fmt.Sprintf(" (it asked for %s; %s caps the wait)", sd.Asked, capKeyOf(system))
		}
		return msg
	}
	return ""
}

func capKeyOf(system string) string {
	if system == connector.SystemRazorpay {
		return "razorpay.max_retry_after"
	}
	return "erpnext.max_retry_after"
}
