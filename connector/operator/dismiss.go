package operator

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// Rebook is Replay with rebook for a row whose entry was cancelled or deleted in ERPNext on
// purpose: the booking is forgotten first (ForgetCancelledBooking; a live entry is refused,
// nothing changes), then the row is replayed, recorded as rebooked.
func (o *Operator) Rebook(ctx context.Context, r connector.InboxEvent, by string) (RowAction, error) {
	if why, _ := ReplayRefusal(r, true); why != "" {
		return RowAction{Refused: true, Message: r.EventID + ": " + why}, nil
	}
	forgot, err := o.ForgetCancelledBooking(ctx, r.BusinessKey)
	if errors.Is(err, ErrStillBooked) {
		return RowAction{Refused: true, Message: fmt.Sprintf("%s: not rebooked: %v", r.EventID, err)}, nil
	}
	if err != nil {
		return RowAction{}, err
	}
	note := ""
	if forgot != "" {
		note = "forgot " + forgot + " (cancelled or deleted in ERPNext)"
	}
	a, err := o.replay(ctx, r, true, by, connector.HistoryRebooked, note)
	if a.Changed && forgot != "" {
		a.Message = fmt.Sprintf("%s; forgot %s (cancelled or deleted in ERPNext): it will be booked again", a.Message, forgot)
	}
	return a, err
}

// Dismiss marks r dismissed with "dismissed by <who>: <why>" unless its status forbids it
// (Status.Dismissible): kept for the record, never booked. Invalid UTF-8 in who or why is
// replaced by U+FFFD before it reaches the store. The dismissal is recorded in the row's history.
func (o *Operator) Dismiss(ctx context.Context, r connector.InboxEvent, who, why string) (RowAction, error) {
	who, why = operatorText(who), operatorText(why)
	if !r.Status.Dismissible() {
		return RowAction{Refused: true, Message: fmt.Sprintf("%s: not dismissed: it is %s", r.EventID, r.Status)}, nil
	}
	return o.setRowStatus(ctx, r, connector.StatusDismissed, fmt.Sprintf(connector.DismissedBy+"%s: %s", who, why), "dismissed",
		connector.HistoryEntry{Actor: who, Action: connector.HistoryDismissed, Detail: why})
}

// DismissPayment dismisses r and every other dismissible row of its business key, so that a
// payment whose captured and order.paid events both parked stops needing a person at once; a
// row without a business key is dismissed alone. Nothing changes unless r itself may be
// dismissed. Message joins the messages of the rows changed.
func (o *Operator) DismissPayment(ctx context.Context, r connector.InboxEvent, who, why string) (RowAction, error) {
	first, err := o.Dismiss(ctx, r, who, why)
	if err != nil || !first.Changed || r.BusinessKey == "" {
		return first, err
	}
	rows, err := o.store.FindEvents(ctx, r.BusinessKey)
	if err != nil {
		return first, err
	}
	msgs := []string{first.Message}
	for _, e := range rows {
		if e.ID == r.ID || e.BusinessKey != r.BusinessKey || !e.Status.Dismissible() {
			continue
		}
		a, err := o.Dismiss(ctx, e, who, why)
		if err != nil {
			return RowAction{Changed: true, Message: strings.Join(msgs, "; ")}, err
		}
		msgs = append(msgs, a.Message)
	}
	return RowAction{Changed: true, Message: strings.Join(msgs, "; ")}, nil
}

// setRowStatus moves one row to status, only while it still has the status the decision was
// made on (one conditional statement, Store.SetEventStatusBy, with h as its history entry,
// Attempts set from the row); Busy (no error) when a worker claimed it meanwhile
// (ErrLeaseLost) or it changed since it was read (ErrStatusChanged).
func (o *Operator) setRowStatus(ctx context.Context, r connector.InboxEvent, status connector.Status, reason, verb string, h connector.HistoryEntry) (RowAction, error) {
	var hist []connector.HistoryEntry
	if r.Status == connector.StatusDismissed { // its attempts were recorded when it was dismissed
		var err error
		if hist, err = o.store.EventHistory(ctx, r.ID); err != nil {
			return RowAction{}, err
		}
	}
	h.Attempts = AttemptsMade(r, hist)
	err := o.store.SetEventStatusBy(ctx, r.ID, r.Status, status, reason, h, o.now())
	if errors.Is(err, connector.ErrLeaseLost) {
		return RowAction{Busy: true, Message: fmt.Sprintf("%s: not %s: it is being processed right now; try again", r.EventID, verb)}, nil
	}
	if errors.Is(err, connector.ErrStatusChanged) {
		return RowAction{Busy: true, Message: fmt.Sprintf("%s: not %s: it changed since it was read (%v); try again", r.EventID, verb, err)}, nil
	}
	if err != nil {
		return RowAction{}, err
	}
	return RowAction{Changed: true, Message: fmt.Sprintf("%s: %s → %s", r.EventID, r.Status, status)}, nil
}
