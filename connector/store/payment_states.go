package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// paymentStateRow is a payment_states row as both drivers return it.
type paymentStateRow struct {
	PaymentID string `db:"payment_id"`
	State     string `db:"state"`
	Rank      int    `db:"state_rank"`
	EventID   string `db:"event_id"`
	UpdatedAt dbTime `db:"updated_at"`
}

func (r *paymentStateRow) paymentState() *connector.PaymentState {
	return &connector.PaymentState{
		PaymentID: r.PaymentID,
		State:     r.State,
		EventID:   r.EventID,
		Rank:      r.Rank,
		UpdatedAt: r.UpdatedAt.Time,
	}
}

// RecordPaymentState records s.State with s.Rank and s.EventID for s.PaymentID (UpdatedAt now;
// s.UpdatedAt is ignored) in one statement: it inserts the first state of a payment, replaces a
// stored state of lower rank, and leaves a stored state of higher or equal rank as it is, so
// states only move forward (DESIGN.md §4 step 4). It returns moved=true and the row as this
// call wrote it (UpdatedAt now in UTC, to the microsecond) when it wrote it, with no second
// statement; otherwise moved=false and the stored row, read after the upsert. Either way a
// concurrent call may already have moved the row further.
// Ids are compared byte for byte: ids differing by letter case are different payments.
func (d *DB) RecordPaymentState(ctx context.Context, s connector.PaymentState, now time.Time) (connector.PaymentState, bool, error) {
	if s.PaymentID == "" || utf8.RuneCountInString(s.PaymentID) > maxBusinessKey {
		return connector.PaymentState{}, false, fmt.Errorf("store: record payment state: payment id must be 1 to %d characters", maxBusinessKey)
	}
	if s.State == "" || utf8.RuneCountInString(s.State) > maxPaymentState {
		return connector.PaymentState{}, false, fmt.Errorf("store: record payment state of %s: state must be 1 to %d characters", s.PaymentID, maxPaymentState)
	}
	if utf8.RuneCountInString(s.EventID) > maxEventID {
		return connector.PaymentState{}, false, fmt.Errorf("store: record payment state of %s: event id longer than %d characters", s.PaymentID, maxEventID)
	}
	query := d.dl.recordPaymentStateQuery()
	op := fmt.Sprintf("record payment state %s of %s", s.State, s.PaymentID)
	res, err := d.execResult(ctx, op, query, s.PaymentID, s.State, s.Rank, s.EventID, d.arg(now))
	if err != nil {
		return connector.PaymentState{}, false, err
	}
	moved, err := d.dl.paymentStateMoved(res)
	if err != nil {
		return connector.PaymentState{}, false, d.unavailable(op, err)
	}
	if moved {
		s.UpdatedAt = utc(now)
		return s, true, nil
	}
	row, err := d.GetPaymentState(ctx, s.PaymentID)
	if err != nil {
		return connector.PaymentState{}, false, err
	}
	return *row, false, nil
}

// GetPaymentState returns the stored state of paymentID; an error wrapping connector.ErrNotFound
// when none has been recorded.
func (d *DB) GetPaymentState(ctx context.Context, paymentID string) (*connector.PaymentState, error) {
	var r paymentStateRow
	err := d.db.GetContext(ctx, &r,
		`SELECT payment_id, state, state_rank, event_id, updated_at FROM payment_states WHERE payment_id = ?`, paymentID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("payment state %s: %w", paymentID, connector.ErrNotFound)
	}
	if err != nil {
		return nil, d.unavailable("get payment state "+paymentID, err)
	}
	return r.paymentState(), nil
}
