package razorpay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// collection is a list answer: {"entity": "collection", "count": N, "items": [...]} where count
// is the number of items in this page (spec/razorpay.md §5.1).
type collection struct {
	Entity string            `json:"entity"`
	Count  int               `json:"count"`
	Items  []json.RawMessage `json:"items"`
}

// maxPages bounds one listing (100 items a page: a million entities).
const maxPages = 10000

// windowQuery renders from/to as unix seconds on created_at; a zero time is left out.
func windowQuery(from, to time.Time) url.Values {
	q := url.Values{}
	if !from.IsZero() {
		q.Set("from", strconv.FormatInt(from.Unix(), 10))
	}
	if !to.IsZero() {
		q.Set("to", strconv.FormatInt(to.Unix(), 10))
	}
	return q
}

// listAll pages through a collection with count=PageSize and skip, newest first, calling each
// once per id (pages overlap when entities are created while paging), and stops on a short
// page. A full page without any new id ends the listing with an error rather than looping.
func listAll[T any](ctx context.Context, c *Client, path string, q url.Values, id func(*T) string, each func(*T) error) error {
	return listSized(ctx, c, path, q, PageSize, id, each)
}

// listSized is listAll with size items a page.
func listSized[T any](ctx context.Context, c *Client, path string, q url.Values, size int, id func(*T) string, each func(*T) error) error {
	seen := map[string]bool{}
	skip := 0
	for page := 0; ; page++ {
		if page >= maxPages {
			return fmt.Errorf("razorpay: GET %s: more than %d pages", path, maxPages)
		}
		pq := url.Values{}
		for k, v := range q {
			pq[k] = v
		}
		pq.Set("count", strconv.Itoa(size))
		pq.Set("skip", strconv.Itoa(skip))
		var col collection
		if err := c.do(ctx, http.MethodGet, path, pq, nil, &col); err != nil {
			return err
		}
		fresh := 0
		for i, raw := range col.Items {
			var v T
			if err := json.Unmarshal(raw, &v); err != nil {
				return fmt.Errorf("razorpay: GET %s: item %d at skip %d: %w", path, i, skip, err)
			}
			key := id(&v)
			if key != "" && seen[key] {
				continue
			}
			seen[key] = true
			fresh++
			if err := each(&v); err != nil {
				return err
			}
		}
		if len(col.Items) < size {
			return nil
		}
		if fresh == 0 {
			return fmt.Errorf("razorpay: GET %s: page at skip %d repeated earlier items", path, skip)
		}
		skip += len(col.Items)
	}
}

// ListPayments calls each for every payment created in [from, to] (unix seconds on
// created_at; a zero time leaves that bound open): GET /v1/payments with count=100 and skip,
// newest first, until a page holds fewer than 100 items (spec/razorpay.md §5.1). A payment seen
// twice while paging is passed once. An error from each stops the listing and is returned as is.
// List endpoints may lag behind fetch-by-id by minutes: use a trailing safety window.
func (c *Client) ListPayments(ctx context.Context, from, to time.Time, each func(*Payment) error) error {
	if each == nil {
		return errors.New("razorpay: ListPayments: nil callback")
	}
	return listAll(ctx, c, "/v1/payments", windowQuery(from, to), func(p *Payment) string { return p.ID }, each)
}

// ListRefunds calls each for every refund created in [from, to]: GET /v1/refunds, paged like
// ListPayments (spec/razorpay.md §5.2).
func (c *Client) ListRefunds(ctx context.Context, from, to time.Time, each func(*Refund) error) error {
	if each == nil {
		return errors.New("razorpay: ListRefunds: nil callback")
	}
	return listAll(ctx, c, "/v1/refunds", windowQuery(from, to), func(r *Refund) string { return r.ID }, each)
}

// ListPaymentRefunds returns every refund of one payment, newest first:
// GET /v1/payments/{id}/refunds, paged like ListPayments (spec/razorpay.md §5.2).
func (c *Client) ListPaymentRefunds(ctx context.Context, paymentID string) ([]Refund, error) {
	path, err := entityPath("/v1/payments", paymentID, "refunds")
	if err != nil {
		return nil, err
	}
	var out []Refund
	err = listAll(ctx, c, path, url.Values{}, func(r *Refund) string { return r.ID }, func(r *Refund) error {
		out = append(out, *r)
		return nil
	})
	return out, err
}

// ListOrderPayments returns every payment of one order (failed, authorized and captured):
// GET /v1/orders/{id}/payments, one unpaged collection (spec/razorpay.md §5.2).
func (c *Client) ListOrderPayments(ctx context.Context, orderID string) ([]Payment, error) {
	path, err := entityPath("/v1/orders", orderID, "payments")
	if err != nil {
		return nil, err
	}
	var col collection
	if err := c.do(ctx, http.MethodGet, path, nil, nil, &col); err != nil {
		return nil, err
	}
	out := make([]Payment, 0, len(col.Items))
	for i, raw := range col.Items {
		var p Payment
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("razorpay: GET %s: item %d: %w", path, i, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// quietLogger keeps resty from writing anything: callers log, with their own redaction.
type quietLogger struct{}

// Errorf discards the message.
func (quietLogger) Errorf(string, ...any) {}

// Warnf discards the message.
func (quietLogger) Warnf(string, ...any) {}

// Debugf discards the message.
func (quietLogger) Debugf(string, ...any) {}
