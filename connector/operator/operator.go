// Package operator is what a person does to the inbox, and what they read of it: replay,
// rebook, dismiss (events replay|dismiss and the console call the same functions, so both allow
// and refuse exactly the same things in the same words), finding the rows an ID names, a row's
// history and attempts, and the retention of raw webhook bodies. It works on the store and the
// ERPNext client it is given (Deps), never on a Connector.
package operator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
)

// Store is the part of connector.Store the operator actions use.
type Store interface {
	GetEvent(ctx context.Context, id int64) (*connector.InboxEvent, error)
	FindEvents(ctx context.Context, key string) ([]connector.InboxEvent, error)
	EventHistory(ctx context.Context, id int64) ([]connector.HistoryEntry, error)
	SetEventStatusBy(ctx context.Context, id int64, from, status connector.Status, reason string, h connector.HistoryEntry, now time.Time) error
	GetBooking(ctx context.Context, businessKey string) (*connector.Booking, error)
	ForgetBooking(ctx context.Context, businessKey string) error
	Dismissals(ctx context.Context, businessKey string) ([]connector.Dismissal, error)
	LiftDismissal(ctx context.Context, d connector.Dismissal, by, reason string, now time.Time) error
}

// ERPNext is the part of connector.ERPNext a rebook uses: it reads the booked entry.
type ERPNext interface {
	Get(ctx context.Context, doctype, name string, out any) error
}

// Deps are an Operator's collaborators. ERP may be nil when no rebook is asked for; Now
// defaults to time.Now and Wake (an idle worker is told a replayed row is due) to nothing.
type Deps struct {
	Store Store
	ERP   ERPNext
	Now   func() time.Time
	Wake  func()
}

// Operator carries out a person's decisions on inbox rows. Create it with New.
type Operator struct {
	store Store
	erp   ERPNext
	now   func() time.Time
	wake  func()
}

// New builds an Operator from d.
func New(d Deps) *Operator {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Wake == nil {
		d.Wake = func() {}
	}
	return &Operator{store: d.Store, erp: d.ERP, now: d.Now, wake: d.Wake}
}

// ErrStillBooked is returned by ForgetCancelledBooking when the booked ERPNext document is
// still submitted (or a draft): forgetting it would book the payment twice.
var ErrStillBooked = errors.New("the booked entry is still live in ERPNext")

// ForgetCancelledBooking lets a person book businessKey again after its Payment Entry was
// cancelled or deleted in ERPNext on purpose (the connector parks such events and never
// re-books on its own, DESIGN.md §4 step 5a). It reads the document first: a live entry is
// ErrStillBooked, a key with no booked row is not an error (nothing to forget). forgot is
// "<doctype> <name>" of the booking forgotten, "" when none was.
func (o *Operator) ForgetCancelledBooking(ctx context.Context, businessKey string) (forgot string, err error) {
	b, err := o.store.GetBooking(ctx, businessKey)
	if errors.Is(err, connector.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if b.State != connector.BookingBooked {
		return "", nil
	}
	var pe frappe.PaymentEntry
	err = o.erp.Get(ctx, b.Doctype, b.Name, &pe)
	if err != nil && !frappe.IsNotFound(err) {
		return "", fmt.Errorf("read %s %s: %w", b.Doctype, b.Name, err)
	}
	if err == nil && pe.Docstatus != 2 {
		return "", fmt.Errorf("%s %s (docstatus %d): %w", b.Doctype, b.Name, pe.Docstatus, ErrStillBooked)
	}
	if err := o.store.ForgetBooking(ctx, businessKey); err != nil {
		return "", err
	}
	return b.Doctype + " " + b.Name, nil
}

// Replay sends r back to pending (attempts 0, due now) unless ReplayRefusal objects; by names
// who asked ("hand" for the CLI, the console's user; invalid UTF-8 in it is replaced). Booking
// looks up before it creates, so a replay never books twice. A row a worker claimed meanwhile is
// left alone (Busy). The replay is recorded in the row's history (who, when, what it was), with
// the attempts made so far.
func (o *Operator) Replay(ctx context.Context, r connector.InboxEvent, rebook bool, by string) (RowAction, error) {
	return o.replay(ctx, r, rebook, by, connector.HistoryReplayed, "")
}

// replay is Replay recorded as action, with note added to the history entry's detail.
func (o *Operator) replay(ctx context.Context, r connector.InboxEvent, rebook bool, by, action, note string) (RowAction, error) {
	by = operatorText(by)
	if why, refused := ReplayRefusal(r, rebook); why != "" {
		return RowAction{Refused: refused, Message: r.EventID + ": " + why}, nil
	}
	was := "was " + string(r.Status) + ": " + shorten(r.LastError, 500)
	detail := was
	if note != "" {
		detail = note + "; " + was
	}
	reason := "replayed by " + by + " (" + was + ")"
	if err := o.liftDismissal(ctx, r, by); err != nil {
		return RowAction{}, err
	}
	a, err := o.setRowStatus(ctx, r, connector.StatusPending, reason, "replayed",
		connector.HistoryEntry{Actor: by, Action: action, Detail: detail})
	if a.Changed {
		o.wake()
	}
	return a, err
}

// liftDismissal ends a person's dismissal of r's payment when that person replays one of its
// receipt events: the dismissals of its other receipt rows are lifted (Store.LiftDismissal), and
// those rows stay dismissed (they are not booked themselves) with a reason saying so. r's own
// dismissal is lifted by its replay (Store.SetEventStatusBy).
func (o *Operator) liftDismissal(ctx context.Context, r connector.InboxEvent, by string) error {
	if r.BusinessKey == "" || connector.RouteOf(r.Event) != connector.RouteReceipt {
		return nil
	}
	ds, err := o.store.Dismissals(ctx, r.BusinessKey)
	if err != nil {
		return err
	}
	for _, d := range ds {
		if d.InboxID == r.ID || !d.Holds() || connector.RouteOf(d.Event) != connector.RouteReceipt {
			continue
		}
		reason := fmt.Sprintf("dismissal lifted: %s replayed by %s (was %s)", r.EventID, by, shorten(d.Text(), 500))
		if err := o.store.LiftDismissal(ctx, d, by, reason, o.now()); err != nil {
			return err
		}
	}
	return nil
}
