package reconcile

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Item kinds and sources.
const (
	KindPayment              = "payment"
	KindRefund               = "refund"
	KindSettlement           = "settlement"
	SourceRazorpay           = "razorpay"
	SourceIntegrationRequest = "integration_request"
)

// coverage is what the store already holds for a business key.
type coverage int

const (
	uncovered coverage = iota
	covDismissed
	covNotBooked // a row the worker skipped (e.g. "not booked by this version")
	covParked    // a parked or dead row: needs a person
	covQueued    // a row pending or processing, or an in_flight claim
	covBooked    // a booking, or a row done or duplicate
)

// cover reports how far key is on its way: the bookings row first, then the inbox rows of key
// whose event has that route. row is the inbox row that decided (nil for a booking); anyRow
// is true when some inbox row has key at all (then InsertEventIfNoKey would refuse, and a
// synthetic row is inserted by its own event id instead).
func (r *reconcileRun) cover(ctx context.Context, key string, route connector.Route) (cov coverage, row *connector.InboxEvent, anyRow bool, err error) {
	b, err := r.c.store.GetBooking(ctx, key)
	switch {
	case err == nil && (b.State == connector.BookingBooked || b.State == connector.BookingVoid):
		return covBooked, nil, true, nil
	case err == nil:
		cov = covQueued
	case !errors.Is(err, connector.ErrNotFound):
		return uncovered, nil, false, fmt.Errorf("read booking %s: %w", key, err)
	}
	rows, err := r.c.store.FindEvents(ctx, key)
	if err != nil {
		return uncovered, nil, false, fmt.Errorf("find inbox rows of %s: %w", key, err)
	}
	for i := range rows {
		ev := &rows[i]
		if ev.BusinessKey != key {
			continue
		}
		anyRow = true
		if connector.RouteOf(ev.Event) != route {
			continue
		}
		var c coverage
		switch ev.Status {
		case connector.StatusDone, connector.StatusDuplicate:
			c = covBooked
		case connector.StatusPending, connector.StatusProcessing:
			c = covQueued
		case connector.StatusParked, connector.StatusDead:
			c = covParked
		case connector.StatusSkipped:
			c = covNotBooked
		case connector.StatusDismissed:
			c = covDismissed
		}
		if c > cov {
			cov, row = c, ev
		}
	}
	return cov, row, anyRow, nil
}

// judge counts key by its coverage and returns true when it needs a synthetic row.
func (r *reconcileRun) judge(ctx context.Context, it Item, route connector.Route) (need, anyRow bool, err error) {
	cnt := r.counts(&it)
	if r.handled[it.ID] {
		cnt.InInbox++ // queued or judged earlier in this run, by another sweep
		return false, true, nil
	}
	cov, row, anyRow, err := r.cover(ctx, it.ID, route)
	if err != nil {
		return false, false, err
	}
	r.handled[it.ID] = true
	if row != nil {
		it.EventID, it.Status, it.Reason, it.Result = row.EventID, string(row.Status), row.LastError, resultOf(row)
	}
	switch cov {
	case covBooked:
		cnt.AlreadyBooked++
	case covQueued:
		cnt.InInbox++
	case covParked:
		cnt.Parked++
		r.rep.Parked = append(r.rep.Parked, it)
	case covNotBooked:
		cnt.NotBooked++
		r.rep.NotBooked = append(r.rep.NotBooked, it)
	case covDismissed:
		cnt.AlreadyBooked++ // a person decided; nothing to do
	default:
		return true, anyRow, nil
	}
	return false, anyRow, nil
}

func resultOf(ev *connector.InboxEvent) string {
	if ev.ResultName == "" {
		return ""
	}
	return strings.TrimSpace(ev.ResultDoctype + " " + ev.ResultName)
}

// enqueue inserts the synthetic row for it (body is the envelope), or in a dry run only lists
// it. A row that another process inserted first (a webhook arriving now) counts as in the inbox.
func (r *reconcileRun) enqueue(ctx context.Context, it Item, event string, body []byte, anyRow bool) error {
	cnt := r.counts(&it)
	it.EventID = connector.ReconcileEventPrefix + it.ID
	if r.req.DryRun {
		it.Status = "would queue"
		cnt.Queued++
		r.rep.Queued = append(r.rep.Queued, it)
		return nil
	}
	now := r.c.now().UTC()
	ev := &connector.InboxEvent{AccountID: r.c.cfg.Razorpay.AccountID, EventID: it.EventID, Event: event, BusinessKey: it.ID,
		RawBody: body, ReceivedAt: now, EventCreatedAt: &now, Status: connector.StatusPending, NextAttemptAt: now}
	insert := r.c.store.InsertEventIfNoKey
	if anyRow {
		// Rows of this key exist but none books it (e.g. only payment.authorized arrived):
		// the event id alone keeps the synthetic row unique.
		insert = r.c.store.InsertEvent
	}
	inserted, err := insert(ctx, ev)
	if err != nil {
		return fmt.Errorf("queue %s: %w", it.ID, err)
	}
	if !inserted {
		cnt.InInbox++
		return nil
	}
	it.rowID, it.Status = ev.ID, string(connector.StatusPending)
	cnt.Queued++
	r.rep.Queued = append(r.rep.Queued, it)
	r.c.Wake()
	return nil
}

// captured reports whether a payment's money is the merchant's: captured, or refunded after
// a capture (a fully refunded payment still needs its receipt before the refund).
func captured(p *razorpay.Payment) bool {
	return p.Status == "captured" || p.Status == "refunded" || bool(p.Captured)
}

func (r *reconcileRun) beforeSince(unix int64) bool {
	return !r.since.IsZero() && time.Unix(unix, 0).Before(r.since)
}

// sweepPayments pages Razorpay's payment list from the window start minus the lookback to the
// window end (the list filters on created_at; a payment captured inside the window may have
// been created up to 3 days before it) and queues every captured payment not yet on its way.
func (r *reconcileRun) sweepPayments(ctx context.Context) error {
	seen := map[string]bool{}
	n := 0
	return r.retry(ctx, "list payments", func() error {
		return r.c.rzp.ListPayments(ctx, r.rep.ListedFrom, r.rep.WindowTo, func(p *razorpay.Payment) error {
			if seen[p.ID] || p.ID == "" || !captured(p) {
				return nil
			}
			seen[p.ID] = true
			n++
			r.progress("payments", n, 0)
			return r.payment(ctx, p, SourceRazorpay, "", "")
		})
	})
}

// payment judges one captured payment and queues it when needed. paymentRequest, when set, is
// put into the payment's notes as "payment_request" (the booking engine's Payment Request path).
func (r *reconcileRun) payment(ctx context.Context, p *razorpay.Payment, source, ir, paymentRequest string) error {
	it := Item{Kind: KindPayment, ID: p.ID, Source: source, AmountMinor: p.Amount, Currency: p.Currency,
		CreatedAt: time.Unix(p.CreatedAt, 0).UTC(), IntegrationRequest: ir, PaymentRequest: paymentRequest}
	cnt := r.counts(&it)
	cnt.Scanned++
	if r.beforeSince(p.CreatedAt) {
		cnt.BeforeSince++
		return nil
	}
	need, anyRow, err := r.judge(ctx, it, connector.RouteReceipt)
	if err != nil || !need {
		return err
	}
	var body []byte
	if !r.req.DryRun {
		if body, err = r.paymentEnvelope(ctx, p, paymentRequest); err != nil {
			return err
		}
	}
	return r.enqueue(ctx, it, "payment.captured", body, anyRow)
}

// paymentEnvelope builds the body of a synthetic payment.captured row from the API entity,
// with its order when the payment has one (so order.receipt can name the invoice).
func (r *reconcileRun) paymentEnvelope(ctx context.Context, p *razorpay.Payment, paymentRequest string) ([]byte, error) {
	cp := *p
	if paymentRequest != "" && cp.Notes["payment_request"] == "" {
		notes := razorpay.Notes{}
		for k, v := range p.Notes {
			notes[k] = v
		}
		notes["payment_request"] = paymentRequest
		cp.Notes = notes
	}
	var order *razorpay.Order
	if cp.OrderID != "" {
		err := r.retry(ctx, "get order "+cp.OrderID, func() (err error) {
			order, err = r.c.rzp.GetOrder(ctx, cp.OrderID)
			return err
		})
		if err != nil {
			order = nil
			r.warn("payment %s: order %s not fetched (%v); queued without it", cp.ID, cp.OrderID, err)
		}
	}
	return connector.SyntheticEvent(r.c.cfg.Razorpay.AccountID, "payment.captured", r.c.now(), &cp, order, nil)
}

// sweepRefunds queues every processed refund in the listed range not yet on its way, as a
// synthetic refund.processed row carrying the refund and its payment.
func (r *reconcileRun) sweepRefunds(ctx context.Context) error {
	seen := map[string]bool{}
	n := 0
	return r.retry(ctx, "list refunds", func() error {
		return r.c.rzp.ListRefunds(ctx, r.rep.ListedFrom, r.rep.WindowTo, func(rf *razorpay.Refund) error {
			if seen[rf.ID] || rf.ID == "" || rf.Status != "processed" {
				return nil
			}
			seen[rf.ID] = true
			n++
			r.progress("refunds", n, 0)
			return r.refund(ctx, rf)
		})
	})
}

func (r *reconcileRun) refund(ctx context.Context, rf *razorpay.Refund) error {
	it := Item{Kind: KindRefund, ID: rf.ID, Source: SourceRazorpay, AmountMinor: rf.Amount, Currency: rf.Currency,
		CreatedAt: time.Unix(rf.CreatedAt, 0).UTC()}
	cnt := r.counts(&it)
	cnt.Scanned++
	if r.beforeSince(rf.CreatedAt) {
		cnt.BeforeSince++
		return nil
	}
	need, anyRow, err := r.judge(ctx, it, connector.RouteRefund)
	if err != nil || !need {
		return err
	}
	var body []byte
	if !r.req.DryRun {
		var p *razorpay.Payment
		if rf.PaymentID != "" {
			err := r.retry(ctx, "get payment "+rf.PaymentID, func() (err error) {
				p, err = r.c.rzp.GetPayment(ctx, rf.PaymentID)
				return err
			})
			if err != nil {
				p = nil
				r.warn("refund %s: payment %s not fetched (%v); queued without it", rf.ID, rf.PaymentID, err)
			}
		}
		if body, err = connector.SyntheticEvent(r.c.cfg.Razorpay.AccountID, "refund.processed", r.c.now(), p, nil, rf); err != nil {
			return err
		}
	}
	return r.enqueue(ctx, it, "refund.processed", body, anyRow)
}

// reconcileReadAttempts bounds the retries of one Razorpay read (429, 5xx, transport).
const reconcileReadAttempts = 4

// retry runs a Razorpay read, retrying what the client edge classified as retryable (429,
// 5xx, transport) with the worker's backoff (or Retry-After when longer, up to a minute). A 401
// is returned at once: the keys are wrong, and no retry helps.
func (r *reconcileRun) retry(ctx context.Context, op string, f func() error) error {
	for attempt := 1; ; attempt++ {
		err := f()
		if err == nil {
			return nil
		}
		if authFault(err) {
			return fmt.Errorf("%s: Razorpay refused the API key (check razorpay.key_id and razorpay.key_secret): %w", op, err)
		}
		fl := connector.FailureOf(err)
		retryable := fl != nil && (fl.Kind == connector.FailRetry || fl.Kind == connector.FailThrottled)
		if !retryable || attempt >= reconcileReadAttempts || ctx.Err() != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		d := r.c.backoff(attempt)
		if fl.RetryAfter > d {
			d = min(fl.RetryAfter, time.Minute)
		}
		sleep(ctx, d)
	}
}

// authFault reports whether err is a configuration fault (Razorpay 401): it stops the run.
func authFault(err error) bool {
	f := connector.FailureOf(err)
	return f != nil && f.Kind == connector.FailAuth
}

// notFound reports whether err says the entity does not exist.
func notFound(err error) bool {
	f := connector.FailureOf(err)
	return f != nil && f.Kind == connector.FailNotFound
}
