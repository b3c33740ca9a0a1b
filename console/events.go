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

// events lists inbox events: GET /events?status=&event=&key=&invoice=&from=&to=&page= (from
// and to are dates, YYYY-MM-DD in the console's location; to is inclusive). A filter that
// does not parse answers 400 with the page and the reason.
func (c *Console) events(w http.ResponseWriter, r *http.Request, s session) {
	qv := r.URL.Query()
	v := eventsView{Status: qv.Get("status"), Event: strings.TrimSpace(qv.Get("event")), Key: strings.TrimSpace(qv.Get("key")),
		Invoice: strings.TrimSpace(qv.Get("invoice")), From: qv.Get("from"), To: qv.Get("to"),
		Statuses: Statuses, EventTypes: EventTypes, Page: 1}
	q, err := c.eventQuery(v, qv.Get("page"))
	if err != nil {
		v.Problem = err.Error()
		c.render(w, http.StatusBadRequest, "events", s, v)
		return
	}
	v.Page = q.Offset/eventsPageSize + 1
	rows, err := c.o.Backend.Events(r.Context(), q)
	if err != nil {
		c.backendError(w, s, "list events", err)
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
	c.render(w, http.StatusOK, "events", s, v)
}

// eventQuery turns the typed filter into a query for one page (one row more than a page, to
// know whether there is a next one).
func (c *Console) eventQuery(v eventsView, page string) (EventQuery, error) {
	q := EventQuery{Status: v.Status, Event: v.Event, Key: v.Key, Invoice: v.Invoice, Limit: eventsPageSize + 1}
	if q.Status != "" && !contains(Statuses, q.Status) {
		return q, fmt.Errorf("status %q: choose one of %s", q.Status, strings.Join(Statuses, ", "))
	}
	var err error
	if v.From != "" {
		if q.From, err = time.ParseInLocation("2006-01-02", v.From, c.o.Location); err != nil {
			return q, fmt.Errorf("from %q is not a date (YYYY-MM-DD)", v.From)
		}
	}
	if v.To != "" {
		to, err := time.ParseInLocation("2006-01-02", v.To, c.o.Location)
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

func (c *Console) event(w http.ResponseWriter, r *http.Request, s session) {
	flash := c.takeFlash(w, r)
	c.renderEvent(w, r, s, http.StatusOK, flash, false)
}

// renderEvent shows one event with its plan; flash is a message about the last action.
func (c *Console) renderEvent(w http.ResponseWriter, r *http.Request, s session, status int, flash string, flashErr bool) {
	id, ok := eventID(r)
	if !ok {
		c.renderError(w, http.StatusNotFound, s, "There is no event "+r.PathValue("id")+".")
		return
	}
	d, err := c.o.Backend.Event(r.Context(), id)
	if err != nil {
		c.backendError(w, s, "read event", err)
		return
	}
	v := eventView{EventDetail: d, Flash: flash, FlashError: flashErr,
		Poll: d.Status == "pending" || d.Status == "processing"}
	if d.Body != nil {
		ctx, cancel := context.WithTimeout(r.Context(), explainTimeout)
		p, err := c.o.Backend.Explain(ctx, id)
		cancel()
		if err != nil {
			v.PlanErr = err.Error()
		} else {
			v.Plan = &p
		}
	}
	c.render(w, status, "event", s, v)
}

func eventID(r *http.Request) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	return id, err == nil && id > 0
}

// eventStatus answers {"status": "..."} for the page's poller.
func (c *Console) eventStatus(w http.ResponseWriter, r *http.Request, s session) {
	id, ok := eventID(r)
	if !ok {
		http.NotFound(w, r)
		return
	}
	d, err := c.o.Backend.Event(r.Context(), id)
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

func (c *Console) replay(w http.ResponseWriter, r *http.Request, s session) {
	c.act(w, r, s, func(ctx context.Context, id int64) (ActionResult, error) {
		return c.o.Backend.Replay(ctx, id, s.actor)
	})
}

func (c *Console) rebook(w http.ResponseWriter, r *http.Request, s session) {
	c.act(w, r, s, func(ctx context.Context, id int64) (ActionResult, error) {
		return c.o.Backend.Rebook(ctx, id, s.actor)
	})
}

func (c *Console) dismiss(w http.ResponseWriter, r *http.Request, s session) {
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	if reason == "" {
		c.renderEvent(w, r, s, http.StatusBadRequest, "Dismiss needs a reason: it is kept with the event.", true)
		return
	}
	c.act(w, r, s, func(ctx context.Context, id int64) (ActionResult, error) {
		return c.o.Backend.Dismiss(ctx, id, s.actor, reason)
	})
}

// act runs one action on the event of the path. Done: 303 back to the event with the message.
// Refused (nothing changed): 409 with the event and the message.
func (c *Console) act(w http.ResponseWriter, r *http.Request, s session, do func(context.Context, int64) (ActionResult, error)) {
	id, ok := eventID(r)
	if !ok {
		c.renderError(w, http.StatusNotFound, s, "There is no event "+r.PathValue("id")+".")
		return
	}
	res, err := do(r.Context(), id)
	if err != nil {
		c.backendError(w, s, "act on the event", err)
		return
	}
	if !res.Changed {
		c.renderEvent(w, r, s, http.StatusConflict, res.Message, true)
		return
	}
	c.setFlash(w, r, res.Message)
	http.Redirect(w, r, fmt.Sprintf("/events/%d", id), http.StatusSeeOther)
}

// backendError shows a backend failure: 404 for ErrNotFound, 409 for a feature this
// configuration lacks, else 503 (the store or ERPNext did not answer).
func (c *Console) backendError(w http.ResponseWriter, s session, what string, err error) {
	switch {
	case errors.Is(err, ErrNotFound):
		c.renderError(w, http.StatusNotFound, s, "Not found: "+err.Error())
	case errors.Is(err, ErrUnavailable):
		c.renderError(w, http.StatusConflict, s, err.Error())
	default:
		c.o.Log.Warn().Err(err).Str("op", what).Msg("console: backend failed")
		c.renderError(w, http.StatusServiceUnavailable, s, "Could not "+what+": "+c.errorText(err))
	}
}

// errorText is a backend error as a page shows it: Options.Conceal's words when it recognises
// err, else err's own text.
func (c *Console) errorText(err error) string {
	if c.o.Conceal != nil {
		if alt := c.o.Conceal(err); alt != "" {
			return alt
		}
	}
	return err.Error()
}

func isUnavailable(err error) bool { return errors.Is(err, ErrUnavailable) }
