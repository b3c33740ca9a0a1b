package razorpay

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"
)

// ReconPageSize is the count ReconCombined asks for: the maximum Razorpay allows for
// GET /v1/settlements/recon/combined (spec/razorpay.md §5.1, §5.2).
const ReconPageSize = 1000

// ListSettlements calls each for every settlement created in [from, to] (unix seconds on
// created_at; a zero time leaves that bound open): GET /v1/settlements with count=100 and
// skip, newest first, until a page holds fewer than 100 items (spec/razorpay.md §5.2). A
// settlement seen twice while paging is passed once. An error from each stops the listing and
// is returned as is. Every status is listed (created, processed, failed); only processed ones
// have been paid out.
func (c *Client) ListSettlements(ctx context.Context, from, to time.Time, each func(*Settlement) error) error {
	if each == nil {
		return errors.New("razorpay: ListSettlements: nil callback")
	}
	return listAll(ctx, c, "/v1/settlements", windowQuery(from, to), func(s *Settlement) string { return s.ID }, each)
}

// GetSettlement fetches one settlement: GET /v1/settlements/{id} (spec/razorpay.md §5.2). An
// unknown id is an error for which IsNotFound is true.
func (c *Client) GetSettlement(ctx context.Context, id string) (*Settlement, error) {
	return get[Settlement](ctx, c, "/v1/settlements", id)
}

// ReconCombined calls each for every recon row of the settlements made on one Indian calendar
// day (day 1–31) or, with day 0, one month: GET /v1/settlements/recon/combined with year,
// month, day, count=1000 and skip, until a page holds fewer than 1000 rows (spec/razorpay.md
// §3.5, §5.2; Settlement.ReconDay gives a settlement's date). Rows of every settlement of that
// period come back, in Razorpay's order; filter on SettlementID. A row seen twice while paging
// (same type, entity id and settlement id) is passed once. An error from each stops the
// listing and is returned as is. It fails without calling Razorpay when year is not 4 digits,
// month is outside 1–12 or day outside 0–31; Razorpay answers 400 with field year, month or
// day for such values.
func (c *Client) ReconCombined(ctx context.Context, year, month, day int, each func(*ReconItem) error) error {
	if each == nil {
		return errors.New("razorpay: ReconCombined: nil callback")
	}
	if year < 1000 || year > 9999 || month < 1 || month > 12 || day < 0 || day > 31 {
		return fmt.Errorf("razorpay: ReconCombined: no such period %04d-%02d-%02d", year, month, day)
	}
	q := url.Values{}
	q.Set("year", strconv.Itoa(year))
	q.Set("month", strconv.Itoa(month))
	if day > 0 {
		q.Set("day", strconv.Itoa(day))
	}
	key := func(r *ReconItem) string { return r.Type + "\x00" + r.EntityID + "\x00" + r.SettlementID }
	return listSized(ctx, c, "/v1/settlements/recon/combined", q, ReconPageSize, key, each)
}
