package connector

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// ErrStillBooked is returned by ForgetCancelledBooking when the booked ERPNext document is
// still submitted (or a draft): forgetting it would book the payment twice.
var ErrStillBooked = errors.New("the booked entry is still live in ERPNext")

// ForgetCancelledBooking lets a person book businessKey again after its Payment Entry was
// cancelled or deleted in ERPNext on purpose (the connector parks such events and never
// re-books on its own, DESIGN.md §4 step 5a). It reads the document first: a live entry is
// ErrStillBooked, a key with no booked row is not an error (nothing to forget).
func (c *Connector) ForgetCancelledBooking(ctx context.Context, businessKey string) (forgot string, err error) {
	b, err := c.store.GetBooking(ctx, businessKey)
	if errors.Is(err, ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if b.State != BookingBooked {
		return "", nil
	}
	var pe frappe.PaymentEntry
	err = c.erp.Get(ctx, b.Doctype, b.Name, &pe)
	if err != nil && !frappe.IsNotFound(err) {
		return "", fmt.Errorf("read %s %s: %w", b.Doctype, b.Name, err)
	}
	if err == nil && pe.Docstatus != 2 {
		return "", fmt.Errorf("%s %s (docstatus %d): %w", b.Doctype, b.Name, pe.Docstatus, ErrStillBooked)
	}
	if err := c.store.ForgetBooking(ctx, businessKey); err != nil {
		return "", err
	}
	return b.Doctype + " " + b.Name, nil
}

// What a person may do with an inbox row (events replay|dismiss and the console call these,
// so both allow and refuse exactly the same things in the same words).

// RowAction is what a replay or dismiss did to one row. Exactly one of Changed, Busy, Refused
// is true, or none (already pending or processing: nothing to do). Message is the line the
// CLI prints, e.g. "EvtX: parked → pending".
type RowAction struct {
	Changed, Busy, Refused bool
	Message                string
}

// ReplayRefusal says why r may not be replayed now: refused when its body is gone or cannot be
// parsed (no replay can book it) or its status does not allow it (rebook also allows done and
// duplicate rows, whose entry was cancelled); not refused but nothing to do when it is pending
// or processing already. "" when it may be replayed.
func ReplayRefusal(r InboxEvent, rebook bool) (why string, refused bool) {
	switch {
	case r.RawBody == nil:
		return "not replayed: its raw body is gone (purged by retention after it finished, or never stored); reconcile does not re-create an event that has an inbox row", true
	case r.Status == StatusPending || r.Status == StatusProcessing:
		return "already " + string(r.Status), false
	case unparseable(r.RawBody) != "":
		return "not replayed: its body cannot be parsed, so no replay can book it (" + shorten(unparseable(r.RawBody), 200) +
			"); dismiss it: reconcile finds a payment it was about in Razorpay's own list", true
	case !r.Status.Replayable() && !(rebook && r.Status.Rebookable()):
		return fmt.Sprintf("not replayed: it is %s (%s)", r.Status, shorten(firstNonEmpty(r.ResultDoctype+" "+r.ResultName, r.LastError), 120)), true
	}
	return "", false
}

// unparseable is why body does not parse as a webhook event, "" when it does.
func unparseable(body []byte) string {
	if _, err := razorpay.ParseEvent(body); err != nil {
		return err.Error()
	}
	return ""
}

// Replay sends r back to pending (attempts 0, due now) unless ReplayRefusal objects; by names
// who asked ("hand" for the CLI, the console's user; invalid UTF-8 in it is replaced). Booking
// looks up before it creates, so a replay never books twice. A row a worker claimed meanwhile is
// left alone (Busy). The replay is recorded in the row's history (who, when, what it was), with
// the attempts made so far.
func (c *Connector) Replay(ctx context.Context, r InboxEvent, rebook bool, by string) (RowAction, error) {
	return c.replay(ctx, r, rebook, by, HistoryReplayed, "")
}

// replay is Replay recorded as action, with note added to the history entry's detail.
func (c *Connector) replay(ctx context.Context, r InboxEvent, rebook bool, by, action, note string) (RowAction, error) {
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
	if err := c.liftDismissal(ctx, r, by); err != nil {
		return RowAction{}, err
	}
	a, err := c.setRowStatus(ctx, r, StatusPending, reason, "replayed", HistoryEntry{Actor: by, Action: action, Detail: detail})
	if a.Changed {
		c.Wake()
	}
	return a, err
}

// liftDismissal ends a person's dismissal of r's payment when that person replays one of its
// receipt events: the other dismissed rows stay dismissed (they are not booked themselves) but
// their reason says the dismissal was lifted, so they no longer keep the payment's events from
// booking (dismissedPlan).
func (c *Connector) liftDismissal(ctx context.Context, r InboxEvent, by string) error {
	if r.BusinessKey == "" || RouteOf(r.Event) != RouteReceipt {
		return nil
	}
	rows, err := c.store.FindEvents(ctx, r.BusinessKey)
	if err != nil {
		return err
	}
	for _, o := range rows {
		if o.ID == r.ID || o.BusinessKey != r.BusinessKey || o.Status != StatusDismissed || RouteOf(o.Event) != RouteReceipt ||
			!strings.HasPrefix(o.LastError, dismissedBy) {
			continue
		}
		reason := fmt.Sprintf("dismissal lifted: %s replayed by %s (was %s)", r.EventID, by, shorten(o.LastError, 500))
		if err := c.store.SetEventStatusFrom(ctx, o.ID, StatusDismissed, StatusDismissed, reason, c.now()); err != nil &&
			!errors.Is(err, ErrStatusChanged) {
			return err
		}
	}
	return nil
}

// Rebook is Replay with rebook for a row whose entry was cancelled or deleted in ERPNext on
// purpose: the booking is forgotten first (ForgetCancelledBooking; a live entry is refused,
// nothing changes), then the row is replayed, recorded as rebooked.
func (c *Connector) Rebook(ctx context.Context, r InboxEvent, by string) (RowAction, error) {
	if why, _ := ReplayRefusal(r, true); why != "" {
		return RowAction{Refused: true, Message: r.EventID + ": " + why}, nil
	}
	forgot, err := c.ForgetCancelledBooking(ctx, r.BusinessKey)
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
	a, err := c.replay(ctx, r, true, by, HistoryRebooked, note)
	if a.Changed && forgot != "" {
		a.Message = fmt.Sprintf("%s; forgot %s (cancelled or deleted in ERPNext): it will be booked again", a.Message, forgot)
	}
	return a, err
}

// Dismiss marks r dismissed with "dismissed by <who>: <why>" unless its status forbids it
// (Status.Dismissible): kept for the record, never booked. Invalid UTF-8 in who or why is
// replaced by U+FFFD before it reaches the store. The dismissal is recorded in the row's history.
func (c *Connector) Dismiss(ctx context.Context, r InboxEvent, who, why string) (RowAction, error) {
	who, why = operatorText(who), operatorText(why)
	if !r.Status.Dismissible() {
		return RowAction{Refused: true, Message: fmt.Sprintf("%s: not dismissed: it is %s", r.EventID, r.Status)}, nil
	}
	return c.setRowStatus(ctx, r, StatusDismissed, fmt.Sprintf(dismissedBy+"%s: %s", who, why), "dismissed",
		HistoryEntry{Actor: who, Action: HistoryDismissed, Detail: why})
}

// DismissPayment dismisses r and every other dismissible row of its business key, so that a
// payment whose captured and order.paid events both parked stops needing a person at once; a
// row without a business key is dismissed alone. Nothing changes unless r itself may be
// dismissed. Message joins the messages of the rows changed.
func (c *Connector) DismissPayment(ctx context.Context, r InboxEvent, who, why string) (RowAction, error) {
	first, err := c.Dismiss(ctx, r, who, why)
	if err != nil || !first.Changed || r.BusinessKey == "" {
		return first, err
	}
	rows, err := c.store.FindEvents(ctx, r.BusinessKey)
	if err != nil {
		return first, err
	}
	msgs := []string{first.Message}
	for _, o := range rows {
		if o.ID == r.ID || o.BusinessKey != r.BusinessKey || !o.Status.Dismissible() {
			continue
		}
		a, err := c.Dismiss(ctx, o, who, why)
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
func (c *Connector) setRowStatus(ctx context.Context, r InboxEvent, status Status, reason, verb string, h HistoryEntry) (RowAction, error) {
	var hist []HistoryEntry
	if r.Status == StatusDismissed { // its attempts were recorded when it was dismissed
		var err error
		if hist, err = c.store.EventHistory(ctx, r.ID); err != nil {
			return RowAction{}, err
		}
	}
	h.Attempts = AttemptsMade(r, hist)
	err := c.store.SetEventStatusBy(ctx, r.ID, r.Status, status, reason, h, c.now())
	if errors.Is(err, ErrLeaseLost) {
		return RowAction{Busy: true, Message: fmt.Sprintf("%s: not %s: it is being processed right now; try again", r.EventID, verb)}, nil
	}
	if errors.Is(err, ErrStatusChanged) {
		return RowAction{Busy: true, Message: fmt.Sprintf("%s: not %s: it changed since it was read (%v); try again", r.EventID, verb, err)}, nil
	}
	if err != nil {
		return RowAction{}, err
	}
	return RowAction{Changed: true, Message: fmt.Sprintf("%s: %s → %s", r.EventID, r.Status, status)}, nil
}

// FindEvents resolves an ID a person typed: an event id names that event (even when the same
// text is another event's business key), a business key (pay_…, rfnd_…) its rows, else "#N"
// or N the row with that id. An error when nothing matches.
func (c *Connector) FindEvents(ctx context.Context, id string) ([]InboxEvent, error) {
	rows, err := c.store.FindEvents(ctx, id)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		if n, perr := strconv.ParseInt(strings.TrimPrefix(id, "#"), 10, 64); perr == nil {
			if ev, gerr := c.store.GetEvent(ctx, n); gerr == nil {
				return []InboxEvent{*ev}, nil
			}
		}
		return nil, fmt.Errorf("no inbox event has event id or business key %q", id)
	}
	var byEventID []InboxEvent
	for _, r := range rows {
		if r.EventID == id {
			byEventID = append(byEventID, r)
		}
	}
	if len(byEventID) > 0 {
		return byEventID, nil
	}
	return rows, nil
}

// operatorText is text a person typed (a reason, a name) made fit for the store: invalid UTF-8
// (a terminal in Latin-1, bytes pasted from a binary) becomes U+FFFD, as the console's login
// name does, so that MariaDB never refuses the row (error 1366) and the reason stays readable.
func operatorText(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// shorten makes s one line of at most n runes.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func firstNonEmpty(a ...string) string {
	for _, s := range a {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
