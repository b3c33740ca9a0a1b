package console_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/console"
)

// fakeBackend is an in-memory Backend: events by id, recorded actions, canned pages.
type fakeBackend struct {
	mu      sync.Mutex
	events  map[int64]*console.EventDetail
	actions []string // "replay 1 by X", "dismiss 2 by X: reason"
	today   console.Today
	plan    console.Plan
	runs    []console.ReconcileRun
	report  console.ReconcileReport
	dryErr  error
	// last and lastErr are what LastReconcileReport answers.
	last    *console.RunReport
	lastErr error
	// todayErr is what Today fails with (nil: it answers f.today).
	todayErr error
	checks   []console.CheckLine
	queries  []console.EventQuery
}

func newFake() *fakeBackend { return &fakeBackend{events: map[int64]*console.EventDetail{}} }

func (f *fakeBackend) add(d console.EventDetail) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events[d.ID] = &d
}

func (f *fakeBackend) Today(ctx context.Context) (console.Today, error) { return f.today, f.todayErr }

func (f *fakeBackend) Events(ctx context.Context, q console.EventQuery) ([]console.EventRow, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, q)
	var out []console.EventRow
	for id := int64(len(f.events) + 100); id > 0; id-- {
		if d, ok := f.events[id]; ok && (q.Status == "" || d.Status == q.Status) {
			out = append(out, d.EventRow)
		}
	}
	return out, nil
}

func (f *fakeBackend) Event(ctx context.Context, id int64) (console.EventDetail, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.events[id]
	if !ok {
		return console.EventDetail{}, fmt.Errorf("event %d: %w", id, console.ErrNotFound)
	}
	return *d, nil
}

func (f *fakeBackend) Explain(ctx context.Context, id int64) (console.Plan, error) {
	return f.plan, nil
}

func (f *fakeBackend) act(id int64, what, status string) (console.ActionResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.events[id]
	if !ok {
		return console.ActionResult{}, console.ErrNotFound
	}
	if d.Status == "processing" {
		return console.ActionResult{Message: d.EventID + ": not " + what + ": it is being processed right now; try again"}, nil
	}
	f.actions = append(f.actions, what)
	msg := fmt.Sprintf("%s: %s → %s", d.EventID, d.Status, status)
	d.Status = status
	return console.ActionResult{Changed: true, Message: msg}, nil
}

func (f *fakeBackend) Replay(ctx context.Context, id int64, actor string) (console.ActionResult, error) {
	return f.act(id, fmt.Sprintf("replay %d by %s", id, actor), "pending")
}

func (f *fakeBackend) Rebook(ctx context.Context, id int64, actor string) (console.ActionResult, error) {
	return f.act(id, fmt.Sprintf("rebook %d by %s", id, actor), "pending")
}

func (f *fakeBackend) Dismiss(ctx context.Context, id int64, actor, reason string) (console.ActionResult, error) {
	return f.act(id, fmt.Sprintf("dismiss %d by %s: %s", id, actor, reason), "dismissed")
}

func (f *fakeBackend) ReconcileRuns(ctx context.Context, limit int) ([]console.ReconcileRun, error) {
	return f.runs, nil
}

func (f *fakeBackend) DryRunReconcile(ctx context.Context) (console.ReconcileReport, error) {
	return f.report, f.dryErr
}

func (f *fakeBackend) Check(ctx context.Context) ([]console.CheckLine, error) { return f.checks, nil }

func (f *fakeBackend) recorded() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.actions...)
}

// fixedNow is the fake clock of the console tests: 14 March 2026, 15:00 IST.
var fixedNow = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

func (f *fakeBackend) LastReconcileReport(ctx context.Context) (*console.RunReport, error) {
	return f.last, f.lastErr
}
