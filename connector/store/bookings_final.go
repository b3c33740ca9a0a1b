package store

import (
	"context"
	"errors"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// VoidBooking makes b.BusinessKey's row void: inserted when absent, otherwise its state becomes
// void whatever it was (in_flight, booked). Doctype and Name are taken from b when set (the
// cancelled entry), else kept. A void row is never claimed again: ClaimBooking only takes over
// in_flight rows.
func (d *DB) VoidBooking(ctx context.Context, b connector.Booking, now time.Time) error {
	if b.BusinessKey == "" {
		return errors.New("store: void booking: empty business key")
	}
	args := []any{b.BusinessKey, b.Kind, connector.BookingVoid, b.Owner, d.arg(now), b.Doctype, b.Name,
		b.AmountMinor, b.Currency, b.Invoice, d.arg(now), d.arg(now)}
	query := `INSERT INTO bookings (business_key, kind, state, owner, fence_until, doctype, name, amount_minor,
	currency, invoice, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	query += d.dl.voidBookingUpsert()
	_, err := d.exec(ctx, "void booking "+b.BusinessKey, query, args...)
	return err
}

// BookingsForDocument returns the rows naming doctype/name, by business key.
func (d *DB) BookingsForDocument(ctx context.Context, doctype, name string) ([]connector.Booking, error) {
	var rows []bookingRow
	err := d.db.SelectContext(ctx, &rows, `SELECT `+bookingColumns+` FROM bookings WHERE doctype = ? AND name = ?
		ORDER BY business_key`, doctype, name)
	if err != nil {
		return nil, d.unavailable("bookings for "+doctype+" "+name, err)
	}
	out := make([]connector.Booking, 0, len(rows))
	for i := range rows {
		out = append(out, *rows[i].booking())
	}
	return out, nil
}
