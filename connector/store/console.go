package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// This file holds the read-only queries of the operator console (package console, through the
// adapter in cmd/razorpay-erpnext): inbox search with filters, per-day sums of booked amounts
// and webhook activity. They read rows every replica wrote, so the console shows the same
// figures whichever replica serves it.

// EventQuery selects inbox rows for the console. Zero fields do not filter.
type EventQuery struct {
	Status connector.Status // inbox status, e.g. connector.StatusParked
	Event  string           // event name, e.g. "payment.captured"
	From   time.Time        // received_at >= From
	To     time.Time        // received_at < To
	// Key is an event id, a business key (pay_…, rfnd_…) or the name of the resulting ERPNext
	// document (ACC-PAY-…), compared exactly (case-sensitively).
	Key string
	// Invoice is a Sales Invoice (or Payment Request) name: rows whose booking names it, whose
	// raw body holds it as a JSON string ("ACC-SINV-2026-00001", quotes included, so
	// ACC-SINV-2026-0001 does not match …-00010) or whose last_error names it (followed by a
	// space, punctuation or the end, see nameEnds). Exact case.
	Invoice string
	Limit   int // at most Limit rows; 0 = no limit
	Offset  int // rows to skip, for paging
}

// EventSummary is an inbox row without its raw body (RawBody is always nil here); BodyPurged
// tells whether the body is gone (retention purged it, or it was never stored).
type EventSummary struct {
	connector.InboxEvent
	BodyPurged bool
}

// summaryColumns are the inbox columns except raw_body, plus whether the body is gone.
const summaryColumns = `id, account_id, event_id, event, business_key, received_at, event_created_at,
	status, attempts, next_attempt_at, lease_owner, lease_until, last_error, result_doctype, result_name, updated_at,
	CASE WHEN raw_body IS NULL THEN 1 ELSE 0 END AS body_purged`

// summaryRow is an inbox row as summaryColumns returns it.
type summaryRow struct {
	eventRow
	BodyPurged int `db:"body_purged"`
}

// SearchEvents returns the rows matching q, newest first (received_at, then id, descending),
// without their raw bodies. Errors wrap connector.ErrStoreUnavailable.
func (d *DB) SearchEvents(ctx context.Context, q EventQuery) ([]EventSummary, error) {
	var where []string
	var args []any
	add := func(cond string, a ...any) {
		where = append(where, cond)
		args = append(args, a...)
	}
	if q.Status != "" {
		add("status = ?", q.Status)
	}
	if q.Event != "" {
		add("event = ?", q.Event)
	}
	if !q.From.IsZero() {
		add("received_at >= ?", d.arg(q.From))
	}
	if !q.To.IsZero() {
		add("received_at < ?", d.arg(q.To))
	}
	if q.Key != "" {
		add("(event_id = ? OR business_key = ? OR result_name = ?)", q.Key, q.Key, q.Key)
	}
	if q.Invoice != "" {
		cond, a := d.invoiceCondition(q.Invoice)
		add(cond, a...)
	}
	query := `SELECT ` + summaryColumns + ` FROM inbox`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	query += " ORDER BY received_at DESC, id DESC"
	if q.Limit > 0 || q.Offset > 0 {
		limit := q.Limit
		if limit <= 0 {
			limit = 1 << 31
		}
		query += " LIMIT ? OFFSET ?"
		args = append(args, limit, max(q.Offset, 0))
	}
	var rows []summaryRow
	if err := d.db.SelectContext(ctx, &rows, query, textArgs(args)...); err != nil {
		return nil, d.unavailable("search events", err)
	}
	out := make([]EventSummary, 0, len(rows))
	for i := range rows {
		out = append(out, EventSummary{InboxEvent: *rows[i].event(), BodyPurged: rows[i].BodyPurged != 0})
	}
	return out, nil
}

// nameEnds are the characters that may follow a document name in a reason ("… ACC-SINV-2026-00010
// does not exist", "…-00010: …", "(…-00010)"): a name followed by anything else (a digit) is a
// longer name, so ACC-SINV-2026-0001 does not match a reason about ACC-SINV-2026-00010.
var nameEnds = []string{" ", ":", ",", ".", ";", ")", "]", "'", "\"", "\n"}

// invoiceCondition is EventQuery.Invoice's condition and its arguments. INSTR is byte-exact on a
// BLOB (SQLite) and a LONGBLOB (MariaDB) and case-sensitive on last_error's binary collation;
// with no LIKE there is no wildcard to escape.
func (d *DB) invoiceCondition(invoice string) (string, []any) {
	reason := d.dl.concat("last_error", "' '")
	conds := []string{"business_key IN (SELECT business_key FROM bookings WHERE invoice = ? AND business_key <> '')",
		d.dl.contains("raw_body", "?")}
	args := []any{invoice, []byte(`"` + invoice + `"`)}
	for _, end := range nameEnds {
		conds = append(conds, d.dl.contains(reason, "?"))
		args = append(args, invoice+end)
	}
	return "(" + strings.Join(conds, " OR ") + ")", args
}

// BookedSum is the amount booked in one bucket of SumBookings, in one currency: AmountMinor
// in minor units of Currency over Count bookings.
type BookedSum struct {
	Bucket      int // i for [bounds[i], bounds[i+1])
	Currency    string
	AmountMinor int64
	Count       int
}

// maxSumBuckets bounds the CASE expression SumBookings builds.
const maxSumBuckets = 400

// SumBookings adds up the bookings rows of kind (connector.KindReceipt or KindRefund) in state
// booked whose created_at (when the connector claimed the business key, UTC) falls in
// [bounds[i], bounds[i+1]), per bucket i and currency, ordered by bucket then currency.
// Buckets without bookings are absent. bounds must be increasing, 2 to 401 of them (callers
// pass local midnights, so a day in any time zone is one bucket). The amounts are what the
// connector recorded (connector.Booking.AmountMinor: a receipt's gross amount, fee included).
func (d *DB) SumBookings(ctx context.Context, kind string, bounds []time.Time) ([]BookedSum, error) {
	if err := checkBounds("sum bookings", bounds); err != nil {
		return nil, err
	}
	bucket, args := d.bucketExpr(bounds, "created_at")
	args = append(args, connector.BookingBooked, kind, d.arg(bounds[0]), d.arg(bounds[len(bounds)-1]))
	var rows []struct {
		Bucket   int    `db:"bucket"`
		Currency string `db:"currency"`
		Amount   int64  `db:"amount"`
		N        int    `db:"n"`
	}
	err := d.db.SelectContext(ctx, &rows, `SELECT `+bucket+` AS bucket, currency,
		SUM(amount_minor) AS amount, COUNT(*) AS n FROM bookings
		WHERE state = ? AND kind = ? AND created_at >= ? AND created_at < ?
		GROUP BY bucket, currency ORDER BY bucket, currency`, args...)
	if err != nil {
		return nil, d.unavailable("sum bookings", err)
	}
	out := make([]BookedSum, 0, len(rows))
	for _, r := range rows {
		out = append(out, BookedSum{Bucket: r.Bucket, Currency: r.Currency, AmountMinor: r.Amount, Count: r.N})
	}
	return out, nil
}

// checkBounds refuses bucket bounds SumBookings and SumReceiptFees cannot use.
func checkBounds(op string, bounds []time.Time) error {
	if len(bounds) < 2 || len(bounds) > maxSumBuckets+1 {
		return fmt.Errorf("store: %s: want 2 to %d bounds, got %d", op, maxSumBuckets+1, len(bounds))
	}
	for i := 1; i < len(bounds); i++ {
		if !bounds[i].After(bounds[i-1]) {
			return fmt.Errorf("store: %s: bounds not increasing at %d", op, i)
		}
	}
	return nil
}

// bucketExpr is the SQL expression numbering the bucket [bounds[i], bounds[i+1]) column falls
// in, and its arguments.
func (d *DB) bucketExpr(bounds []time.Time, column string) (string, []any) {
	if len(bounds) == 2 {
		return "0", nil
	}
	var b strings.Builder
	var args []any
	b.WriteString("CASE")
	for i := 1; i < len(bounds)-1; i++ {
		fmt.Fprintf(&b, " WHEN %s < ? THEN %d", column, i-1)
		args = append(args, d.arg(bounds[i]))
	}
	fmt.Fprintf(&b, " ELSE %d END", len(bounds)-2)
	return b.String(), args
}

// SumReceiptFees adds up, per bucket of SumBookings (a booked receipt's created_at in
// [bounds[i], bounds[i+1])) and currency of the booking, the fee Razorpay keeps of each receipt
// booked: the payment's fee (GST included, INR paise: spec/razorpay.md §3.1) as the body of its
// done inbox event holds it (payload.payment.entity.fee), unless the customer bore it
// (fee_bearer "customer": then the booked amount already excludes it). A receipt whose body is
// gone (retention) or has no fee counts 0. BookedSum.Count is the receipts with a fee. Errors
// wrap connector.ErrStoreUnavailable.
func (d *DB) SumReceiptFees(ctx context.Context, bounds []time.Time) ([]BookedSum, error) {
	if err := checkBounds("sum receipt fees", bounds); err != nil {
		return nil, err
	}
	bucket, args := d.bucketExpr(bounds, "b.created_at")
	fee, bearer := d.dl.bodyJSON("i.raw_body", "payload.payment.entity.fee", true),
		d.dl.bodyJSON("i.raw_body", "payload.payment.entity.fee_bearer", false)
	args = append(args, connector.BookingBooked, connector.KindReceipt, d.arg(bounds[0]), d.arg(bounds[len(bounds)-1]), connector.StatusDone)
	var rows []struct {
		Bucket   int    `db:"bucket"`
		Currency string `db:"currency"`
		Amount   int64  `db:"amount"`
		N        int    `db:"n"`
	}
	err := d.db.SelectContext(ctx, &rows, `SELECT bucket, currency, SUM(fee) AS amount, COUNT(*) AS n FROM (
		SELECT `+bucket+` AS bucket, b.currency AS currency, `+fee+` AS fee, `+bearer+` AS bearer
		FROM bookings b JOIN inbox i ON i.business_key = b.business_key AND i.result_name = b.name
		WHERE b.state = ? AND b.kind = ? AND b.created_at >= ? AND b.created_at < ? AND i.status = ? AND i.raw_body IS NOT NULL
	) f WHERE fee > 0 AND (bearer IS NULL OR bearer <> 'customer')
	GROUP BY bucket, currency ORDER BY bucket, currency`, args...)
	if err != nil {
		return nil, d.unavailable("sum receipt fees", err)
	}
	out := make([]BookedSum, 0, len(rows))
	for _, r := range rows {
		out = append(out, BookedSum{Bucket: r.Bucket, Currency: r.Currency, AmountMinor: r.Amount, Count: r.N})
	}
	return out, nil
}

// WebhookActivity is what the inbox says about webhooks from every replica: rows that came as
// webhooks (not reconcile:… rows) and were stored since a time, rows reconcile added since
// then, and the arrival time of the latest webhook ever stored (zero when none).
type WebhookActivity struct {
	Webhooks      int
	ReconcileRows int
	Last          time.Time
}

// reconcileEventPrefix starts the event id of every row reconcile inserts (DESIGN.md §8).
const reconcileEventPrefix = "reconcile:"

// WebhookActivity counts the inbox rows received at or after since, split into webhooks and
// reconcile rows, and finds the latest webhook's received_at. A webhook Razorpay sent twice is
// one row (the second was a duplicate, never stored); a signed body that did not parse is a
// row too (stored as dead).
func (d *DB) WebhookActivity(ctx context.Context, since time.Time) (WebhookActivity, error) {
	var counts struct {
		Webhooks  int `db:"webhooks"`
		Reconcile int `db:"reconcile"`
	}
	isRecon := `SUBSTR(event_id, 1, ` + fmt.Sprint(len(reconcileEventPrefix)) + `) = ?`
	err := d.db.GetContext(ctx, &counts, `SELECT
		COALESCE(SUM(CASE WHEN `+isRecon+` THEN 0 ELSE 1 END), 0) AS webhooks,
		COALESCE(SUM(CASE WHEN `+isRecon+` THEN 1 ELSE 0 END), 0) AS reconcile
		FROM inbox WHERE received_at >= ?`, reconcileEventPrefix, reconcileEventPrefix, d.arg(since))
	if err != nil {
		return WebhookActivity{}, d.unavailable("webhook activity", err)
	}
	var last []dbTime
	err = d.db.SelectContext(ctx, &last, `SELECT received_at FROM inbox WHERE NOT `+isRecon+`
		ORDER BY received_at DESC LIMIT 1`, reconcileEventPrefix)
	if err != nil {
		return WebhookActivity{}, d.unavailable("last webhook", err)
	}
	a := WebhookActivity{Webhooks: counts.Webhooks, ReconcileRows: counts.Reconcile}
	if len(last) == 1 {
		a.Last = last[0].Time
	}
	return a, nil
}
