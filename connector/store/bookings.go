package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// bookingColumns lists the bookings columns in bookingRow order.
const bookingColumns = `business_key, kind, state, owner, fence_until, doctype, name, amount_minor, currency,
	invoice, created_at, updated_at`

// bookingRow is a bookings row as both drivers return it.
type bookingRow struct {
	BusinessKey string                 `db:"business_key"`
	Kind        string                 `db:"kind"`
	State       connector.BookingState `db:"state"`
	Owner       string                 `db:"owner"`
	FenceUntil  dbTime                 `db:"fence_until"`
	Doctype     string                 `db:"doctype"`
	Name        string                 `db:"name"`
	AmountMinor int64                  `db:"amount_minor"`
	Currency    string                 `db:"currency"`
	Invoice     string                 `db:"invoice"`
	CreatedAt   dbTime                 `db:"created_at"`
	UpdatedAt   dbTime                 `db:"updated_at"`
}

func (r *bookingRow) booking() *connector.Booking {
	return &connector.Booking{
		BusinessKey: r.BusinessKey,
		Kind:        r.Kind,
		State:       r.State,
		Owner:       r.Owner,
		FenceUntil:  r.FenceUntil.Time,
		Doctype:     r.Doctype,
		Name:        r.Name,
		AmountMinor: r.AmountMinor,
		Currency:    r.Currency,
		Invoice:     r.Invoice,
		CreatedAt:   r.CreatedAt.Time,
		UpdatedAt:   r.UpdatedAt.Time,
	}
}

// takeoverSet lists the columns ClaimBooking writes when it takes over an in_flight row.
// fence_until comes last: MariaDB evaluates ON DUPLICATE KEY UPDATE assignments left to right,
// and every earlier condition must still see the old fence.
var takeoverSet = []string{"kind", "amount_minor", "currency", "invoice", "updated_at", "owner", "fence_until"}

// ClaimBooking claims b.BusinessKey for b.Owner in one statement: it inserts an in_flight row
// (FenceUntil b.FenceUntil, Kind, AmountMinor, Currency and Invoice from b, CreatedAt now), or
// takes over an in_flight row whose fence is before now (the same fields replace the old
// owner's). It then returns the row as it stands, with claimed=true when b.Owner holds it in
// flight. A booked row, or an in_flight row with a live fence, is left as it is: claimed=false
// for another owner, claimed=true (fence unchanged) when b.Owner already holds it.
//
// The row comes back from the statement itself (RETURNING): on MariaDB always, on SQLite when
// the statement inserted or took over the row; only a row SQLite left as it is is read again
// (GetBooking), so a fresh claim costs one statement.
func (d *DB) ClaimBooking(ctx context.Context, b connector.Booking, now time.Time) (connector.Booking, bool, error) {
	if err := checkKeyOwner("claim booking", b.BusinessKey, maxBusinessKey, b.Owner); err != nil {
		return connector.Booking{}, false, err
	}
	args := []any{b.BusinessKey, b.Kind, connector.BookingInFlight, b.Owner, d.arg(b.FenceUntil),
		b.AmountMinor, b.Currency, b.Invoice, d.arg(now), d.arg(now)}
	query := `INSERT INTO bookings (business_key, kind, state, owner, fence_until, doctype, name, amount_minor,
	currency, invoice, created_at, updated_at) VALUES (?, ?, ?, ?, ?, '', '', ?, ?, ?, ?, ?)`
	upsert, more := d.dl.claimBookingUpsert(d.arg(now))
	query += upsert
	args = append(args, more...)
	var r bookingRow
	err := d.returning(ctx, "claim booking "+b.BusinessKey, &r, query+` RETURNING `+bookingColumns, args...)
	row := r.booking()
	if errors.Is(err, sql.ErrNoRows) { // SQLite: booked, or in flight with a live fence
		row, err = d.GetBooking(ctx, b.BusinessKey)
	}
	if err != nil {
		return connector.Booking{}, false, err
	}
	return *row, row.State == connector.BookingInFlight && row.Owner == b.Owner, nil
}

// SetBookingFence moves the fence of businessKey's in_flight row held by owner (after an
// ambiguous write: send time + server timeout + margin, DESIGN.md §4 step 7). It returns an
// error wrapping connector.ErrLeaseLost when the row is absent, booked or held by another owner.
func (d *DB) SetBookingFence(ctx context.Context, businessKey, owner string, fenceUntil time.Time) error {
	n, err := d.exec(ctx, "set booking fence of "+businessKey,
		`UPDATE bookings SET fence_until = ? WHERE business_key = ? AND owner = ? AND state = ?`,
		d.arg(fenceUntil), businessKey, owner, connector.BookingInFlight)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%w: booking %s is not in flight for %s", connector.ErrLeaseLost, businessKey, owner)
	}
	return nil
}

// FinishBooking marks b.BusinessKey booked with the ERPNext document b.Doctype b.Name and
// b.AmountMinor, b.Currency, b.Invoice (b.Kind too when set). It succeeds when the row is
// in_flight, whatever its owner (the document exists), or already booked with the same name
// (then nothing changes). It returns connector.ErrNotFound when there is no row, and a plain
// error when the row is booked with another name.
func (d *DB) FinishBooking(ctx context.Context, b connector.Booking, now time.Time) error {
	if b.BusinessKey == "" || b.Name == "" {
		return errors.New("store: finish booking: empty business key or document name")
	}
	op := "finish booking " + b.BusinessKey
	n, err := d.exec(ctx, op,
		`UPDATE bookings SET state = ?, kind = COALESCE(NULLIF(?, ''), kind), doctype = ?, name = ?,
		amount_minor = ?, currency = ?, invoice = ?, updated_at = ?
		WHERE business_key = ? AND state = ?`,
		connector.BookingBooked, b.Kind, b.Doctype, b.Name, b.AmountMinor, b.Currency, b.Invoice, d.arg(now),
		b.BusinessKey, connector.BookingInFlight)
	if err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	row, err := d.GetBooking(ctx, b.BusinessKey)
	if err != nil {
		return err
	}
	if row.State == connector.BookingBooked && row.Name == b.Name {
		return nil
	}
	if row.State == connector.BookingBooked {
		return fmt.Errorf("store: %s as %s %s: already booked as %s %s", op, b.Doctype, b.Name, row.Doctype, row.Name)
	}
	// The row was released and claimed again between the two statements.
	return fmt.Errorf("%w: %s: row changed concurrently, state %s", connector.ErrStoreUnavailable, op, row.State)
}

// ReleaseBooking deletes businessKey's in_flight row held by owner (nothing was, or can have
// been, written to ERPNext). No error when the row is absent, booked or someone else's.
func (d *DB) ReleaseBooking(ctx context.Context, businessKey, owner string) error {
	_, err := d.exec(ctx, "release booking "+businessKey,
		`DELETE FROM bookings WHERE business_key = ? AND owner = ? AND state = ?`,
		businessKey, owner, connector.BookingInFlight)
	return err
}

// ForgetBooking deletes businessKey's booked row (its ERPNext document was cancelled and no
// longer counts). An in_flight row is left alone, since its fence still guards a possible
// write; no error when there is no booked row.
func (d *DB) ForgetBooking(ctx context.Context, businessKey string) error {
	_, err := d.exec(ctx, "forget booking "+businessKey,
		`DELETE FROM bookings WHERE business_key = ? AND state = ?`, businessKey, connector.BookingBooked)
	return err
}

// GetBooking returns businessKey's row, or connector.ErrNotFound.
func (d *DB) GetBooking(ctx context.Context, businessKey string) (*connector.Booking, error) {
	var r bookingRow
	err := d.getContext(ctx, &r, `SELECT `+bookingColumns+` FROM bookings WHERE business_key = ?`, businessKey)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("booking %s: %w", businessKey, connector.ErrNotFound)
	}
	if err != nil {
		return nil, d.unavailable("get booking "+businessKey, err)
	}
	return r.booking(), nil
}
