package reconcile

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/sleep"
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
		r.listQueued(it)
		return nil
	}
	now := r.c.now().UTC()
	ev := &connector.InboxEvent{AccountID: r.c.a.ID, EventID: it.EventID, Event: event, BusinessKey: it.ID,
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
	r.listQueued(it)
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
// been created up to 3 days before it) and queues every captured payment not yet on its way,
// looking each page up in the store at once (payments).
func (r *reconcileRun) sweepPayments(ctx context.Context) error {
	list := func(each func(*razorpay.Payment) error) error {
		return r.c.rzp.ListPayments(ctx, r.rep.ListedFrom, r.rep.WindowTo, each)
	}
	return sweepPaged(ctx, r, "payments", list, func(p *razorpay.Payment) string { return p.ID }, captured,
		func(page []*razorpay.Payment) error { return r.payments(ctx, page, SourceRazorpay, "", "") })
}

// sweepPaged runs a Razorpay listing (retried as a whole by retry; an entity passed twice
// counts once) and hands the entities keep accepts to flush in pages of razorpay.PageSize, the
// last one shorter: flush looks a page up in the store with one batched statement per table,
// and only a page is held in memory. A flush error stops the listing and is returned.
func sweepPaged[T any](ctx context.Context, r *reconcileRun, phase string, list func(each func(*T) error) error,
	id func(*T) string, keep func(*T) bool, flush func([]*T) error) error {
	seen := map[string]bool{}
	page := make([]*T, 0, razorpay.PageSize)
	send := func() error {
		if len(page) == 0 {
			return nil
		}
		err := flush(page)
		clear(page)
		page = page[:0]
		return err
	}
	return r.retry(ctx, "list "+phase, func() error {
		err := list(func(v *T) error {
			k := id(v)
			if k == "" || seen[k] || !keep(v) {
				return nil
			}
			seen[k] = true
			r.progress(phase, len(seen), 0)
			if page = append(page, v); len(page) == razorpay.PageSize {
				return send()
			}
			return nil
		})
		if ferr := send(); ferr != nil {
			return ferr
		}
		return err
	})
}

// payment judges one captured payment and queues it when needed (payments).
func (r *reconcileRun) payment(ctx context.Context, p *razorpay.Payment, source, ir, paymentRequest string) error {
	return r.payments(ctx, []*razorpay.Payment{p}, source, ir, paymentRequest)
}

// payments judges captured payments, looked up in the store together (coverKeys: two
// statements for the lot), and queues those not yet on their way. paymentRequest, when set, is
// put into each payment's notes as "payment_request" (the booking engine's Payment Request
// path). A payment of an Integration Request is remembered (handled), so that the list sweep
// counts it once.
func (r *reconcileRun) payments(ctx context.Context, ps []*razorpay.Payment, source, ir, paymentRequest string) error {
	items, keys, kept := make([]Item, 0, len(ps)), make([]string, 0, len(ps)), make([]*razorpay.Payment, 0, len(ps))
	for _, p := range ps {
		it := Item{Kind: KindPayment, ID: p.ID, Source: source, AmountMinor: p.Amount, Currency: p.Currency,
			CreatedAt: time.Unix(p.CreatedAt, 0).UTC(), IntegrationRequest: ir, PaymentRequest: paymentRequest}
		if r.count(it, p.CreatedAt) {
			items, keys, kept = append(items, it), append(keys, it.ID), append(kept, p)
		}
	}
	covs, err := r.coverKeys(ctx, keys, connector.RouteReceipt)
	if err != nil {
		return err
	}
	for i, it := range items {
		if source == SourceIntegrationRequest {
			r.handled[it.ID] = true
		}
		cv := covs[it.ID]
		if !r.judgeCovered(it, cv) {
			continue
		}
		var body []byte
		if !r.req.DryRun {
			if body, err = r.paymentEnvelope(ctx, kept[i], paymentRequest); err != nil {
				return err
			}
		}
		if err := r.enqueue(ctx, it, "payment.captured", body, cv.anyRow); err != nil {
			return err
		}
	}
	return nil
}

// count counts it as scanned and reports whether it is to be looked up: not when it was
// created before reconcile.since, nor when another sweep of this run judged it already (then
// it counts as in the inbox).
func (r *reconcileRun) count(it Item, createdAt int64) bool {
	cnt := r.counts(&it)
	cnt.Scanned++
	switch {
	case r.beforeSince(createdAt):
		cnt.BeforeSince++
		return false
	case r.handled[it.ID]:
		cnt.InInbox++ // queued or judged earlier in this run, by another sweep
		return false
	}
	return true
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
	return connector.SyntheticEvent(r.c.a.ID, "payment.captured", r.c.now(), &cp, order, nil)
}

// sweepRefunds queues every processed refund in the listed range not yet on its way, as a
// synthetic refund.processed row carrying the refund and its payment, a page at a time.
func (r *reconcileRun) sweepRefunds(ctx context.Context) error {
	list := func(each func(*razorpay.Refund) error) error {
		return r.c.rzp.ListRefunds(ctx, r.rep.ListedFrom, r.rep.WindowTo, each)
	}
	return sweepPaged(ctx, r, "refunds", list, func(rf *razorpay.Refund) string { return rf.ID },
		func(rf *razorpay.Refund) bool { return rf.Status == "processed" }, func(page []*razorpay.Refund) error { return r.refunds(ctx, page) })
}

// refunds judges processed refunds, looked up in the store together, and queues those not
// yet on their way (fetching each one's payment for the envelope).
func (r *reconcileRun) refunds(ctx context.Context, rfs []*razorpay.Refund) error {
	items, keys := make([]Item, 0, len(rfs)), make([]string, 0, len(rfs))
	byID := make(map[string]*razorpay.Refund, len(rfs))
	for _, rf := range rfs {
		it := Item{Kind: KindRefund, ID: rf.ID, Source: SourceRazorpay, AmountMinor: rf.Amount, Currency: rf.Currency,
			CreatedAt: time.Unix(rf.CreatedAt, 0).UTC()}
		if r.count(it, rf.CreatedAt) {
			items, keys, byID[rf.ID] = append(items, it), append(keys, it.ID), rf
		}
	}
	covs, err := r.coverKeys(ctx, keys, connector.RouteRefund)
	if err != nil {
		return err
	}
	for _, it := range items {
		cv := covs[it.ID]
		if !r.judgeCovered(it, cv) {
			continue
		}
		var body []byte
		if !r.req.DryRun {
			if body, err = r.refundEnvelope(ctx, byID[it.ID]); err != nil {
				return err
			}
		}
		if err := r.enqueue(ctx, it, "refund.processed", body, cv.anyRow); err != nil {
			return err
		}
	}
	return nil
}

// refundEnvelope builds the body of a synthetic refund.processed row, with the refund's
// payment as Razorpay answers it now (left out, with a warning, when it cannot be fetched).
func (r *reconcileRun) refundEnvelope(ctx context.Context, rf *razorpay.Refund) ([]byte, error) {
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
	return connector.SyntheticEvent(r.c.a.ID, "refund.processed", r.c.now(), p, nil, rf)
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
		if !fl.Retryable() || attempt >= reconcileReadAttempts || ctx.Err() != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		d := r.c.backoff(attempt)
		if fl.RetryAfter > d {
			d = min(fl.RetryAfter, time.Minute)
		}
		_ = sleep.For(ctx, d) // a cancelled ctx fails the next attempt, which returns
	}
}

// authFault reports whether err is a configuration fault (Razorpay 401): it stops the run.
func authFault(err error) bool {
	return connector.FailureOf(err).PausesWork()
}

// notFound reports whether err says the entity does not exist.
func notFound(err error) bool {
	f := connector.FailureOf(err)
	return f != nil && f.Kind == connector.FailNotFound
}
