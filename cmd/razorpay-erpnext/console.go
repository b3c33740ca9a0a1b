package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/check"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/httpapi"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/operator"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/console"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
)

// adminHandler serves admin_listen: the connector's /metrics, /readyz and /healthz, and the
// operator console on every other path. ctx bounds the console's background reads.
func (d *daemon) adminHandler(ctx context.Context) http.Handler {
	mux := http.NewServeMux()
	admin := httpapi.Admin(d.conn, d.conn.Metrics(), d.cfg.AdminToken)
	for _, p := range []string{"/metrics", "/readyz", "/healthz"} {
		mux.Handle(p, admin)
	}
	loc, err := time.LoadLocation(d.cfg.Mapping.Timezone)
	if err != nil {
		loc = time.UTC
	}
	b := newConsoleBackend(ctx, d, loc)
	secrets := append([]string{d.cfg.ERPNext.APISecret, d.cfg.ERPNext.APIKey, d.cfg.Razorpay.KeySecret, d.cfg.AdminToken},
		d.cfg.Razorpay.WebhookSecrets...)
	mux.Handle("/", console.New(console.Options{Backend: b, Token: d.cfg.AdminToken, ERPNextURL: d.cfg.ERPNext.URL,
		Location: loc, Secrets: secrets, Log: d.log, Conceal: concealStoreError}))
	return mux
}

// concealStoreError is the console's Conceal: a store failure is shown as what it means, its
// database text (table, column, the bytes MariaDB refused) only in the log.
func concealStoreError(err error) string {
	if errors.Is(err, connector.ErrStoreUnavailable) {
		return "the connector's database did not answer or refused the change; the daemon's log has its error"
	}
	return ""
}

// consoleBackend is console.Backend over a running daemon: its store, connector and clients,
// through the same core functions the CLI calls (Connector.Replay, Rebook, DismissPayment,
// Explain, reconcile --dry-run, check).
type consoleBackend struct {
	d        *daemon
	loc      *time.Location
	now      func() time.Time
	started  time.Time
	captured *capturedCache
}

var _ console.Backend = (*consoleBackend)(nil)

func newConsoleBackend(ctx context.Context, d *daemon, loc *time.Location) *consoleBackend {
	b := &consoleBackend{d: d, loc: loc, now: time.Now, started: time.Now()}
	if d.rzp != nil {
		b.captured = newCapturedCache(ctx, d.rzp, loc, b.now)
	}
	return b
}

// documentTimeout bounds the ERPNext read of an event's resulting document.
const documentTimeout = 10 * time.Second

func (b *consoleBackend) Events(ctx context.Context, q console.EventQuery) ([]console.EventRow, error) {
	rows, err := b.d.db.SearchEvents(ctx, store.EventQuery{Status: connector.Status(q.Status), Event: q.Event, Key: q.Key, Invoice: q.Invoice,
		From: q.From, To: q.To, Limit: q.Limit, Offset: q.Offset})
	if err != nil {
		return nil, err
	}
	out := make([]console.EventRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, eventRow(r.InboxEvent, r.BodyPurged))
	}
	return out, nil
}

func eventRow(e connector.InboxEvent, purged bool) console.EventRow {
	return console.EventRow{ID: e.ID, EventID: e.EventID, Event: e.Event, BusinessKey: e.BusinessKey, Status: string(e.Status),
		Attempts: e.Attempts, ReceivedAt: e.ReceivedAt, UpdatedAt: e.UpdatedAt, Reason: e.LastError,
		ResultDoctype: e.ResultDoctype, ResultName: e.ResultName, BodyPurged: purged}
}

// getEvent reads one row; console.ErrNotFound when there is none.
func (b *consoleBackend) getEvent(ctx context.Context, id int64) (*connector.InboxEvent, error) {
	e, err := b.d.db.GetEvent(ctx, id)
	if errors.Is(err, connector.ErrNotFound) {
		return nil, fmt.Errorf("event %d: %w", id, console.ErrNotFound)
	}
	return e, err
}

func (b *consoleBackend) Event(ctx context.Context, id int64) (console.EventDetail, error) {
	e, err := b.getEvent(ctx, id)
	if err != nil {
		return console.EventDetail{}, err
	}
	d := console.EventDetail{EventRow: eventRow(*e, e.RawBody == nil), AccountID: e.AccountID,
		EventCreatedAt: e.EventCreatedAt, Body: e.RawBody, ReasonFromERPNext: connector.QuotesERPNext(e.LastError)}
	if e.Status == connector.StatusPending {
		t := e.NextAttemptAt
		d.NextAttemptAt = &t
	}
	hist, err := b.d.ops.History(ctx, id)
	if err != nil {
		return console.EventDetail{}, err
	}
	for _, h := range hist {
		d.History = append(d.History, console.HistoryEntry{At: h.At, Actor: h.Actor, Action: h.Action, Detail: h.Detail})
	}
	d.AttemptsLabel, d.AttemptsValue = operator.AttemptsLine(*e, hist)
	doctype, name := e.ResultDoctype, e.ResultName
	if e.BusinessKey != "" {
		if bk, err := b.d.db.GetBooking(ctx, e.BusinessKey); err == nil {
			d.Booking = &console.Booking{State: string(bk.State), Kind: bk.Kind, Doctype: bk.Doctype, Name: bk.Name,
				AmountMinor: bk.AmountMinor, Currency: bk.Currency, Invoice: bk.Invoice, CreatedAt: bk.CreatedAt}
			if name == "" && bk.Name != "" {
				doctype, name = bk.Doctype, bk.Name
			}
		}
	}
	if name != "" {
		d.Document, err = b.document(ctx, doctype, name)
		if err != nil {
			d.DocumentErr = err.Error()
		}
	}
	d.Actions = b.actions(*e, d.Document)
	return d, nil
}

// document reads an ERPNext document's docstatus; a 404 is console.DocDeleted.
func (b *consoleBackend) document(ctx context.Context, doctype, name string) (*console.Document, error) {
	ctx, cancel := context.WithTimeout(ctx, documentTimeout)
	defer cancel()
	var doc struct {
		Docstatus int `json:"docstatus"`
	}
	err := b.d.erp.Get(ctx, doctype, name, &doc)
	if frappe.IsNotFound(err) {
		return &console.Document{Doctype: doctype, Name: name, State: console.DocDeleted}, nil
	}
	if err != nil {
		return nil, err
	}
	state := map[int]string{0: console.DocDraft, 1: console.DocSubmitted, 2: console.DocCancelled}[doc.Docstatus]
	return &console.Document{Doctype: doctype, Name: name, State: state}, nil
}

// actions offers what the CLI would do: replay where connector.ReplayRefusal allows it, rebook
// for a finished event whose entry is cancelled or deleted in ERPNext (events replay --rebook
// refuses a live entry), dismiss where the status allows it.
func (b *consoleBackend) actions(e connector.InboxEvent, doc *console.Document) console.Actions {
	var a console.Actions
	why, _ := operator.ReplayRefusal(e, false)
	a.Replay, a.ReplayWhy = why == "", why
	if why, _ := operator.ReplayRefusal(e, true); why == "" && !a.Replay && doc != nil &&
		(doc.State == console.DocCancelled || doc.State == console.DocDeleted) {
		a.Rebook = true
	}
	a.Dismiss = e.Status.Dismissible()
	return a
}

func (b *consoleBackend) Replay(ctx context.Context, id int64, actor string) (console.ActionResult, error) {
	e, err := b.getEvent(ctx, id)
	if err != nil {
		return console.ActionResult{}, err
	}
	a, err := b.d.ops.Replay(ctx, *e, false, actor)
	return console.ActionResult{Changed: a.Changed, Message: a.Message}, err
}

// Rebook is `events replay ID --rebook` for one event: forget the booking whose entry was
// cancelled or deleted in ERPNext (refused while it is live), then replay it.
func (b *consoleBackend) Rebook(ctx context.Context, id int64, actor string) (console.ActionResult, error) {
	e, err := b.getEvent(ctx, id)
	if err != nil {
		return console.ActionResult{}, err
	}
	a, err := b.d.ops.Rebook(ctx, *e, actor)
	return console.ActionResult{Changed: a.Changed, Message: a.Message}, err
}

// Dismiss is `events dismiss <payment id> --reason`: every event of the payment (or refund)
// that may be dismissed is (operator.DismissPayment).
func (b *consoleBackend) Dismiss(ctx context.Context, id int64, actor, reason string) (console.ActionResult, error) {
	e, err := b.getEvent(ctx, id)
	if err != nil {
		return console.ActionResult{}, err
	}
	a, err := b.d.ops.DismissPayment(ctx, *e, actor, reason)
	return console.ActionResult{Changed: a.Changed, Message: a.Message}, err
}

// Explain is the dry run of the stored row: what the worker does when it claims it
// (connector.ExplainStored).
func (b *consoleBackend) Explain(ctx context.Context, id int64) (console.Plan, error) {
	e, err := b.getEvent(ctx, id)
	if err != nil {
		return console.Plan{}, err
	}
	x, err := b.d.conn.ExplainStored(ctx, e)
	if err != nil {
		return console.Plan{}, err
	}
	p := console.Plan{Action: x.Action, Existing: x.Existing, Reason: x.Reason}
	for _, f := range x.Fields {
		p.Fields = append(p.Fields, console.PlanField{Field: f.Field, Value: f.Value, Source: f.Source})
	}
	if x.Entry != nil {
		doc, _ := json.MarshalIndent(x.Entry, "", "  ")
		p.Document = string(doc)
	}
	return p, nil
}

func (b *consoleBackend) ReconcileRuns(ctx context.Context, limit int) ([]console.ReconcileRun, error) {
	runs, err := b.d.db.ListReconcileRuns(ctx, limit)
	if err != nil {
		return nil, err
	}
	out := make([]console.ReconcileRun, 0, len(runs))
	for _, r := range runs {
		out = append(out, consoleRun(r))
	}
	return out, nil
}

func consoleRun(r connector.ReconcileRun) console.ReconcileRun {
	return console.ReconcileRun{ID: r.ID, WindowFrom: r.WindowFrom, WindowTo: r.WindowTo, Scanned: r.Scanned,
		Queued: r.Queued, SettlementsQueued: r.SettlementsQueued, Booked: r.Booked, AlreadyBooked: r.AlreadyBooked, Parked: r.Parked, StartedAt: r.StartedAt,
		FinishedAt: r.FinishedAt, Error: r.Error}
}

// Check runs `check` for the running configuration (it writes nothing).
func (b *consoleBackend) Check(ctx context.Context) ([]console.CheckLine, error) {
	var rzp check.RazorpayLister
	if b.d.rzp != nil {
		rzp = b.d.rzp
	}
	rep := check.Run(ctx, b.d.cfg, b.d.erp, rzp, b.now())
	out := make([]console.CheckLine, 0, len(rep.Lines))
	for _, l := range rep.Lines {
		out = append(out, console.CheckLine{Item: l.Item, Status: l.Status, Detail: l.Detail, Fix: l.Fix})
	}
	return out, nil
}
