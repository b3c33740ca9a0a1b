package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Statuses are the inbox statuses the Events filter offers, in the order people look for them.
var Statuses = []string{"parked", "dead", "pending", "processing", "done", "duplicate", "skipped", "dismissed"}

// EventTypes are the Razorpay events the Events filter offers (any other name can be typed): the
// offered names of the event catalogue (razorpay.OfferedEvents).
var EventTypes = razorpay.OfferedEvents()

// eventPages are the Events pages: the list, one event with its plan and status, and the
// actions on it. loc is the console's location (the filter's dates).
type eventPages struct {
	v       *view
	backend Backend
	loc     *time.Location
	flash   flashes
}

// eventsPageSize is how many rows one Events page shows.
const eventsPageSize = 50

// eventsView is the Events page: the filter as typed, the rows and paging links.
type eventsView struct {
	Status, Event, Key, Invoice, From, To string
	Statuses, EventTypes                  []string
	Rows                                  []EventRow
	Page                                  int
	PrevURL, NextURL                      string
	Problem                               string
}

// list lists inbox events: GET /events?status=&event=&key=&invoice=&from=&to=&page= (from
// and to are dates, YYYY-MM-DD in the console's location; to is inclusive). A filter that
// does not parse answers 400 with the page and the reason.
func (e *eventPages) list(w http.ResponseWriter, r *http.Request, s session) {
	qv := r.URL.Query()
	v := eventsView{Status: qv.Get("status"), Event: strings.TrimSpace(qv.Get("event")), Key: strings.TrimSpace(qv.Get("key")),
		Invoice: strings.TrimSpace(qv.Get("invoice")), From: qv.Get("from"), To: qv.Get("to"),
		Statuses: Statuses, EventTypes: EventTypes, Page: 1}
	q, err := e.query(v, qv.Get("page"))
	if err != nil {
		v.Problem = err.Error()
		e.v.render(w, http.StatusBadRequest, "events", s, v)
		return
	}
	v.Page = q.Offset/eventsPageSize + 1
	rows, err := e.backend.Events(r.Context(), q)
	if err != nil {
		e.v.backendError(w, s, "list events", err)
		return
	}
	if len(rows) > eventsPageSize {
		rows = rows[:eventsPageSize]
		v.NextURL = pageURL(qv, v.Page+1)
	}
	if v.Page > 1 {
		v.PrevURL = pageURL(qv, v.Page-1)
	}
	v.Rows = rows
	e.v.render(w, http.StatusOK, "events", s, v)
}

// eventQuery turns the typed filter into a query for one page (one row more than a page, to
// know whether there is a next one).
func (e *eventPages) query(v eventsView, page string) (EventQuery, error) {
	q := EventQuery{Status: v.Status, Event: v.Event, Key: v.Key, Invoice: v.Invoice, Limit: eventsPageSize + 1}
	if q.Status != "" && !contains(Statuses, q.Status) {
		return q, fmt.Errorf("status %q: choose one of %s", q.Status, strings.Join(Statuses, ", "))
	}
	var err error
	if v.From != "" {
		if q.From, err = time.ParseInLocation("2006-01-02", v.From, e.loc); err != nil {
			return q, fmt.Errorf("from %q is not a date (YYYY-MM-DD)", v.From)
		}
	}
	if v.To != "" {
		to, err := time.ParseInLocation("2006-01-02", v.To, e.loc)
		if err != nil {
			return q, fmt.Errorf("to %q is not a date (YYYY-MM-DD)", v.To)
		}
		q.To = to.AddDate(0, 0, 1)
	}
	if !q.From.IsZero() && !q.To.IsZero() && !q.From.Before(q.To) {
		return q, fmt.Errorf("from %s is after to %s", v.From, v.To)
	}
	if page != "" {
		n, err := strconv.Atoi(page)
		if err != nil || n < 1 || n > 100000 {
			return q, fmt.Errorf("page %q is not a page number", page)
		}
		q.Offset = (n - 1) * eventsPageSize
	}
	return q, nil
}

func pageURL(q url.Values, page int) string {
	p := url.Values{}
	for k, v := range q {
		p[k] = v
	}
	p.Set("page", strconv.Itoa(page))
	return "/events?" + p.Encode()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// eventView is the detail page.
type eventView struct {
	EventDetail
	Plan       *Plan
	PlanErr    string
	Flash      string
	FlashError bool
	Poll       bool // the page polls its status while a worker may change it
}

// explainTimeout bounds the explain the detail page runs (it reads ERPNext).
const explainTimeout = 20 * time.Second

func (e *eventPages) show(w http.ResponseWriter, r *http.Request, s session) {
	flash := e.flash.take(w, r)
	e.detail(w, r, s, http.StatusOK, flash, false)
}

// detail shows one event with its plan; flash is a message about the last action.
func (e *eventPages) detail(w http.ResponseWriter, r *http.Request, s session, status int, flash string, flashErr bool) {
	id, ok := eventID(r)
	if !ok {
		e.v.renderError(w, http.StatusNotFound, s, "There is no event "+r.PathValue("id")+".")
		return
	}
	d, err := e.backend.Event(r.Context(), id)
	if err != nil {
		e.v.backendError(w, s, "read event", err)
		return
	}
	v := eventView{EventDetail: d, Flash: flash, FlashError: flashErr,
		Poll: d.Status == "pending" || d.Status == "processing"}
	if d.Body != nil {
		ctx, cancel := context.WithTimeout(r.Context(), explainTimeout)
		p, err := e.backend.Explain(ctx, id)
		cancel()
		if err != nil {
			v.PlanErr = err.Error()
		} else {
			v.Plan = &p
		}
	}
	e.v.render(w, status, "event", s, v)
}

func eventID(r *http.Request) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	return id, err == nil && id > 0
}

// status answers {"status": "..."} for the page's poller.
func (e *eventPages) status(w http.ResponseWriter, r *http.Request, s session) {
	id, ok := eventID(r)
	if !ok {
		http.NotFound(w, r)
		return
	}
	d, err := e.backend.Event(r.Context(), id)
	if errors.Is(err, ErrNotFound) {
		http.NotFound(w, r)
		return
	}
	if err != nil {
		http.Error(w, "could not read the event", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]string{"status": d.Status})
}

func (e *eventPages) replay(w http.ResponseWriter, r *http.Request, s session) {
	e.act(w, r, s, func(ctx context.Context, id int64) (ActionResult, error) {
		return e.backend.Replay(ctx, id, s.actor)
	})
}

func (e *eventPages) rebook(w http.ResponseWriter, r *http.Request, s session) {
	e.act(w, r, s, func(ctx context.Context, id int64) (ActionResult, error) {
		return e.backend.Rebook(ctx, id, s.actor)
	})
}

func (e *eventPages) dismiss(w http.ResponseWriter, r *http.Request, s session) {
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	if reason == "" {
		e.detail(w, r, s, http.StatusBadRequest, "Dismiss needs a reason: it is kept with the event.", true)
		return
	}
	e.act(w, r, s, func(ctx context.Context, id int64) (ActionResult, error) {
		return e.backend.Dismiss(ctx, id, s.actor, reason)
	})
}

// act runs one action on the event of the path. Done: 303 back to the event with the message.
// Refused (nothing changed): 409 with the event and the message.
func (e *eventPages) act(w http.ResponseWriter, r *http.Request, s session, do func(context.Context, int64) (ActionResult, error)) {
	id, ok := eventID(r)
	if !ok {
		e.v.renderError(w, http.StatusNotFound, s, "There is no event "+r.PathValue("id")+".")
		return
	}
	res, err := do(r.Context(), id)
	if err != nil {
		e.v.backendError(w, s, "act on the event", err)
		return
	}
	if !res.Changed {
		e.detail(w, r, s, http.StatusConflict, res.Message, true)
		return
	}
	e.flash.set(w, r, res.Message)
	http.Redirect(w, r, fmt.Sprintf("/events/%d", id), http.StatusSeeOther)
}

func isUnavailable(err error) bool { return errors.Is(err, ErrUnavailable) }
