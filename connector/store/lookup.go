package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// lookupChunk is how many business keys one batched look-up statement asks about: few enough
// for any placeholder limit (SQLite 32,766, MariaDB 65,535), many enough that a reconcile page
// of 100 payments is one statement per table.
const lookupChunk = 500

// eventStatusColumns are the inbox columns of eventRow without raw_body: what a look-up of
// where a key stands needs, without reading the webhook bodies (a few KB each).
const eventStatusColumns = `id, account_id, event_id, event, business_key, received_at, event_created_at,
	status, attempts, next_attempt_at, lease_owner, lease_until, last_error, result_doctype, result_name, updated_at`

// BookingsByBusinessKeys returns the bookings rows of keys (any state), keyed by business key;
// a key without a row is absent from the map, and duplicate or empty keys are ignored. Keys
// compare case-sensitively. It is GetBooking for a whole page of keys at once (reconcile: one
// statement per lookupChunk keys instead of one per payment). Failures wrap
// connector.ErrStoreUnavailable.
func (d *DB) BookingsByBusinessKeys(ctx context.Context, keys []string) (map[string]connector.Booking, error) {
	out := map[string]connector.Booking{}
	err := eachChunk(uniqueKeys(keys), func(chunk []string, args []any) error {
		var rows []bookingRow
		query := `SELECT ` + bookingColumns + ` FROM bookings WHERE business_key IN (` + placeholders(len(chunk)) + `)`
		if err := d.db.SelectContext(ctx, &rows, query, args...); err != nil {
			return d.unavailable(fmt.Sprintf("bookings of %d keys from %s", len(chunk), chunk[0]), err)
		}
		for i := range rows {
			out[rows[i].BusinessKey] = *rows[i].booking()
		}
		return nil
	})
	return out, err
}

// EventsByBusinessKeys returns the inbox rows whose business key is one of keys, grouped by
// business key, each group oldest first (received_at, then id); keys without rows are absent,
// and duplicate or empty keys are ignored. Keys compare case-sensitively. RawBody is left nil:
// only the status columns are read, so a look-up of where payments stand (reconcile) does not
// read every webhook body. Unlike FindEvents, an event id equal to a key does not match.
// Failures wrap connector.ErrStoreUnavailable.
func (d *DB) EventsByBusinessKeys(ctx context.Context, keys []string) (map[string][]connector.InboxEvent, error) {
	out := map[string][]connector.InboxEvent{}
	err := eachChunk(uniqueKeys(keys), func(chunk []string, args []any) error {
		var rows []eventRow
		query := `SELECT ` + eventStatusColumns + ` FROM inbox WHERE business_key IN (` + placeholders(len(chunk)) +
			`) ORDER BY business_key, received_at, id`
		if err := d.db.SelectContext(ctx, &rows, query, args...); err != nil {
			return d.unavailable(fmt.Sprintf("inbox rows of %d keys from %s", len(chunk), chunk[0]), err)
		}
		for i := range rows {
			out[rows[i].BusinessKey] = append(out[rows[i].BusinessKey], *rows[i].event())
		}
		return nil
	})
	return out, err
}

// uniqueKeys drops empty and repeated keys, keeping the first occurrence's order.
func uniqueKeys(keys []string) []string {
	seen := make(map[string]bool, len(keys))
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		if k != "" && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// eachChunk calls fn with successive chunks of at most lookupChunk keys and the same keys as
// query arguments; it stops at the first error.
func eachChunk(keys []string, fn func(chunk []string, args []any) error) error {
	for start := 0; start < len(keys); start += lookupChunk {
		chunk := keys[start:min(start+lookupChunk, len(keys))]
		args := make([]any, len(chunk))
		for i, k := range chunk {
			args[i] = k
		}
		if err := fn(chunk, args); err != nil {
			return err
		}
	}
	return nil
}

// placeholders returns "?, ?, …" with n marks.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}
