package main

import (
	"context"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
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
	account, paise, err := b.d.conn.ClearingBalance(ctx)
	s.ClearingAccount, s.ClearingBalanceMinor = account, paise
	if err != nil {
		b.d.log.Warn().Err(err).Msg("console: clearing balance not read")
		s.ClearingUnknown = "ERPNext did not answer get_balance_on"
	}
	return s, nil
}
