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

// captured reports whether a payment's money is the merchant's: captured, or refunded after
// a capture (a fully refunded payment still needs its receipt before the refund).
func captured(p *razorpay.Payment) bool {
	return p.Status == "captured" || p.Status == "refunded" || bool(p.Captured)
}

// reads are Razorpay's API as the sweeps read it: each read retried with the worker's backoff.
type reads struct {
	rzp razorpayAPI
	// backoff is the delay before attempt n+1 of a read Razorpay failed transiently.
	backoff func(attempts int) time.Duration
}

// sweepPaged runs a Razorpay listing (retried as a whole by retry; an entity passed twice
// counts once) and hands the entities keep accepts to flush in pages of razorpay.PageSize, the
// last one shorter: flush looks a page up in the store with one batched statement per table,
// and only a page is held in memory. A flush error stops the listing and is returned.
func sweepPaged[T any](ctx context.Context, rd reads, t *tally, phase string, list func(each func(*T) error) error,
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
	return rd.retry(ctx, "list "+phase, func() error {
		err := list(func(v *T) error {
			k := id(v)
			if k == "" || seen[k] || !keep(v) {
				return nil
			}
			seen[k] = true
			t.progress(phase, len(seen), 0)
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

// reconcileReadAttempts bounds the retries of one Razorpay read (429, 5xx, transport).
const reconcileReadAttempts = 4

// retry runs a Razorpay read, retrying what the client edge classified as retryable (429,
// 5xx, transport) with the worker's backoff (or Retry-After when longer, up to a minute). A 401
// is returned at once: the keys are wrong, and no retry helps.
func (rd reads) retry(ctx context.Context, op string, f func() error) error {
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
		d := rd.backoff(attempt)
		if fl.RetryAfter > d {
			d = min(fl.RetryAfter, time.Minute)
		}
		_ = sleep.For(ctx, d) // a cancelled ctx fails the next attempt, which returns
	}
}

// getPayment reads one payment, retried.
func (rd reads) getPayment(ctx context.Context, id string) (p *razorpay.Payment, err error) {
	err = rd.retry(ctx, "get payment "+id, func() (err error) {
		p, err = rd.rzp.GetPayment(ctx, id)
		return err
	})
	return p, err
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
