package razorpaysim

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// State is a snapshot of the simulated account (GET /__sim/state): every entity and every
// webhook event with each delivery attempt, in creation order.
type State struct {
	AccountID    string                 `json:"account_id"`
	Mode         string                 `json:"mode"` // "test" or "live" (checklist item 15)
	Payments     []razorpay.Payment     `json:"payments"`
	Orders       []razorpay.Order       `json:"orders"`
	Refunds      []razorpay.Refund      `json:"refunds"`
	PaymentLinks []razorpay.PaymentLink `json:"payment_links"`
	Settlements  []razorpay.Settlement  `json:"settlements"`
	Disputes     []razorpay.Dispute     `json:"disputes"`
	Events       []EventRecord          `json:"events"`
	Webhooks     []WebhookState         `json:"webhooks"` // the default endpoint first (checklist items 8, 9)
	Alerts       []AlertEmail           `json:"alerts"`   // auto-disable notifications, oldest first (item 8)
}

// EventRecord is one webhook event and its deliveries. Body is the exact bytes sent (every
// attempt sends the same bytes, signature and id); Signature is the default endpoint's, "" when
// no secret was set. Lost: the event was created with deliver=false. Finished: delivered,
// lost or given up at every endpoint. Delivered: delivered to every endpoint it went to.
// Attempts lists the attempts to all endpoints in the order they ended; Deliveries has one
// entry per endpoint the event went to (checklist item 9).
type EventRecord struct {
	ID        string    `json:"id"`
	Event     string    `json:"event"`
	CreatedAt int64     `json:"created_at"`
	Body      string    `json:"body"`
	Signature string    `json:"signature"`
	Lost      bool      `json:"lost"`
	Delivered bool      `json:"delivered"`
	Finished  bool      `json:"finished"`
	Attempts  []Attempt `json:"attempts"`

	Deliveries []Delivery `json:"deliveries"`
}

// Delivery is an event's delivery to one endpoint: the signature made with that endpoint's
// secret, and whether it was delivered (a 2xx in time) and is finished (delivered, given up
// after the retry window or because the endpoint was disabled, or lost).
type Delivery struct {
	Webhook   string `json:"webhook"`
	Signature string `json:"signature"`
	Delivered bool   `json:"delivered"`
	Finished  bool   `json:"finished"`
}

// Attempt is one delivery of an event: At on the simulator clock; Status the HTTP status (0
// when there was no answer, then Error says why); Elapsed real time until the response headers;
// Success only for a 2xx within DeliveryTimeout; Duplicate for the extra copy sent on purpose
// after a success; Webhook the endpoint's id; Replay for a manual replay (ReplayEvent).
type Attempt struct {
	At        time.Time     `json:"at"`
	Status    int           `json:"status"`
	Error     string        `json:"error,omitempty"`
	Elapsed   time.Duration `json:"elapsed"`
	Success   bool          `json:"success"`
	Duplicate bool          `json:"duplicate,omitempty"`
	Webhook   string        `json:"webhook"`
	Replay    bool          `json:"replay,omitempty"`
}

// State returns a deep copy of the account and the delivery log.
func (s *Sim) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := State{AccountID: s.opt.AccountID, Mode: s.mode, Webhooks: s.webhookStates(),
		Alerts: slices.Clone(s.alerts)}
	for _, r := range s.payList.byCreated.items {
		st.Payments = append(st.Payments, clonePayment(r.p))
	}
	var orders []*orderRec
	for _, o := range s.orders {
		orders = append(orders, o)
	}
	newestFirst(orders, func(o *orderRec) (int64, int64) { return o.o.CreatedAt, o.seq })
	for i := len(orders) - 1; i >= 0; i-- {
		o := orders[i].o
		o.Notes = maps.Clone(o.Notes)
		st.Orders = append(st.Orders, o)
	}
	for _, r := range s.refundList.byCreated.items {
		rf := r.r
		rf.Notes, rf.AcquirerData = maps.Clone(rf.Notes), maps.Clone(rf.AcquirerData)
		st.Refunds = append(st.Refunds, rf)
	}
	var links []*linkRec
	for _, l := range s.links {
		links = append(links, l)
	}
	newestFirst(links, func(l *linkRec) (int64, int64) { return l.l.CreatedAt, l.seq })
	for i := len(links) - 1; i >= 0; i-- {
		l := links[i].l
		l.Notes = maps.Clone(l.Notes)
		st.PaymentLinks = append(st.PaymentLinks, l)
	}
	for _, sr := range s.settleList.byCreated.items {
		st.Settlements = append(st.Settlements, sr.st)
	}
	var disputes []*disputeRec
	for _, d := range s.disputes {
		disputes = append(disputes, d)
	}
	slices.SortFunc(disputes, func(a, b *disputeRec) int { return cmp.Compare(a.seq, b.seq) })
	for _, d := range disputes {
		st.Disputes = append(st.Disputes, d.d)
	}
	for _, e := range s.events {
		st.Events = append(st.Events, EventRecord{
			ID: e.id, Event: e.name, CreatedAt: e.createdAt, Body: string(e.body), Signature: e.sig,
			Lost: e.lost, Delivered: e.delivered, Finished: e.finished,
			Attempts: append([]Attempt(nil), e.attempts...),
		})
		rec := &st.Events[len(st.Events)-1]
		for _, d := range e.deliveries {
			rec.Deliveries = append(rec.Deliveries, Delivery{Webhook: d.ep.id, Signature: d.sig,
				Delivered: d.delivered, Finished: d.finished})
		}
	}
	return st
}

// EmitDowntime emits a payment.downtime.started event whose contains entry and payload key
// are the dotted "payment.downtime" (spec/razorpay.md §2.1, checklist item 3).
func (s *Sim) EmitDowntime() {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now().Unix()
	d := obj{
		{"id", "down_" + s.randID()}, {"entity", "payment.downtime"}, {"method", "upi"},
		{"begin", now}, {"end", nil}, {"status", "started"}, {"scheduled", false},
		{"severity", "high"}, {"instrument", obj{{"psp", "google_pay"}}}, {"created_at", now},
		{"updated_at", now},
	}
	payload := obj{{"payment.downtime", wrap(d)}}
	s.dispatch([]*event{s.newEvent(razorpay.EventPaymentDowntimeStarted, []string{"payment.downtime"}, payload, now, false)},
		s.ordering(""), false, false)
}

// serveControl serves /__sim/ (documented on ServeHTTP).
func (s *Sim) serveControl(w http.ResponseWriter, r *http.Request) {
	if rest, ok := strings.CutPrefix(r.URL.Path, "/__sim/live/"); ok {
		if s.live == nil {
			s.writeError(w, badRequest("Live mode is not configured (Options.LiveKeyID, --live-key-id).", ""))
			return
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path, r2.URL.RawPath = "/__sim/"+rest, ""
		s.live.serveControl(w, r2)
		return
	}
	route := r.Method + " " + r.URL.Path
	if id, ok := disputeStatusPath(r); ok {
		s.controlDisputeStatus(w, r, id)
		return
	}
	if id, action, ok := itemAction(r, "/__sim/webhooks/"); ok && (action == "enable" || action == "disable") {
		s.controlWebhook(w, id, action)
		return
	}
	if id, action, ok := itemAction(r, "/__sim/events/"); ok && action == "replay" {
		s.controlReplay(w, r, id)
		return
	}
	if s.serveSettleControl(w, r) {
		return
	}
	switch route {
	case "POST /__sim/disputes":
		s.controlDispute(w, r)
	case "POST /__sim/payments":
		s.controlPayment(w, r)
	case "POST /__sim/refunds":
		s.controlRefund(w, r)
	case "GET /__sim/faults":
		s.mu.Lock()
		f := s.faults
		s.mu.Unlock()
		writeStd(w, f)
	case "PUT /__sim/faults", "POST /__sim/faults":
		var f Faults
		if e := decodeJSON(r, &f); e != nil {
			s.writeError(w, e)
			return
		}
		s.SetFaults(f)
		writeStd(w, f)
	case "POST /__sim/webhook-secret":
		var b struct {
			Secret string `json:"secret"`
		}
		if e := decodeJSON(r, &b); e != nil {
			s.writeError(w, e)
			return
		}
		s.RotateWebhookSecret(b.Secret)
		writeStd(w, map[string]string{"status": "rotated"})
	case "POST /__sim/downtime":
		s.EmitDowntime()
		writeStd(w, map[string]string{"status": "emitted"})
	case "GET /__sim/state":
		writeStd(w, s.State())
	case "GET /__sim/webhooks":
		s.mu.Lock()
		ws := s.webhookStates()
		s.mu.Unlock()
		writeStd(w, map[string]any{"webhooks": ws})
	default:
		s.writeError(w, badPath())
	}
}

func writeStd(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// readBody reads a control request body (at most 1 MiB).
func readBody(r *http.Request) ([]byte, *razorpay.APIError) {
	b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, 1<<20))
	if err != nil {
		return nil, badRequest("The request body could not be read.", "")
	}
	if len(bytes.TrimSpace(b)) == 0 {
		b = []byte("{}")
	}
	return b, nil
}

func (s *Sim) controlPayment(w http.ResponseWriter, r *http.Request) {
	body, e := readBody(r)
	if e != nil {
		s.writeError(w, e)
		return
	}
	var p razorpay.Payment
	var ctl struct {
		Deliver           *bool    `json:"deliver"`
		NoOrder           bool     `json:"no_order"`
		Receipt           string   `json:"receipt"`
		Link              bool     `json:"payment_link"`
		LinkReferenceID   string   `json:"link_reference_id"`
		LateAuthorisation bool     `json:"late_authorisation"`
		Ordering          Ordering `json:"ordering"`
		Duplicate         bool     `json:"duplicate"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		s.writeError(w, badRequest("Invalid payment: "+err.Error(), ""))
		return
	}
	if err := json.Unmarshal(body, &ctl); err != nil {
		s.writeError(w, badRequest("Invalid options: "+err.Error(), ""))
		return
	}
	opt := PaymentOptions{
		Lose: ctl.Deliver != nil && !*ctl.Deliver, NoOrder: ctl.NoOrder, Receipt: ctl.Receipt,
		Link: ctl.Link, LinkReferenceID: ctl.LinkReferenceID, LateAuthorisation: ctl.LateAuthorisation,
		Ordering: ctl.Ordering, Duplicate: ctl.Duplicate,
	}
	out, err := s.CreatePayment(p, opt)
	if err != nil {
		s.writeAnyError(w, err)
		return
	}
	s.writeJSON(w, http.StatusOK, s.renderPayment(out))
}

func (s *Sim) controlRefund(w http.ResponseWriter, r *http.Request) {
	body, e := readBody(r)
	if e != nil {
		s.writeError(w, e)
		return
	}
	var rf razorpay.Refund
	var ctl struct {
		Deliver        *bool    `json:"deliver"`
		Final          string   `json:"final"`
		CreatedPending bool     `json:"created_pending"`
		Ordering       Ordering `json:"ordering"`
		Duplicate      bool     `json:"duplicate"`
	}
	if err := json.Unmarshal(body, &rf); err != nil {
		s.writeError(w, badRequest("Invalid refund: "+err.Error(), ""))
		return
	}
	if err := json.Unmarshal(body, &ctl); err != nil {
		s.writeError(w, badRequest("Invalid options: "+err.Error(), ""))
		return
	}
	// The refund's own "status" is ignored: the lifecycle comes from "final".
	out, err := s.CreateRefund(rf, RefundOptions{
		Lose: ctl.Deliver != nil && !*ctl.Deliver, Final: ctl.Final, CreatedPending: ctl.CreatedPending,
		Ordering: ctl.Ordering, Duplicate: ctl.Duplicate,
	})
	if err != nil {
		s.writeAnyError(w, err)
		return
	}
	s.writeJSON(w, http.StatusOK, s.renderRefund(out))
}

// disputeStatusPath matches POST /__sim/disputes/{id}/status and returns the id.
func disputeStatusPath(r *http.Request) (string, bool) {
	if r.Method != http.MethodPost {
		return "", false
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/__sim/disputes/")
	if !ok {
		return "", false
	}
	id, ok := strings.CutSuffix(rest, "/status")
	return id, ok && id != "" && !strings.Contains(id, "/")
}

func (s *Sim) controlDispute(w http.ResponseWriter, r *http.Request) {
	body, e := readBody(r)
	if e != nil {
		s.writeError(w, e)
		return
	}
	var d razorpay.Dispute
	var ctl struct {
		Deliver   *bool    `json:"deliver"`
		Then      []string `json:"then"`
		Ordering  Ordering `json:"ordering"`
		Duplicate bool     `json:"duplicate"`
	}
	if err := json.Unmarshal(body, &d); err != nil {
		s.writeError(w, badRequest("Invalid dispute: "+err.Error(), ""))
		return
	}
	if err := json.Unmarshal(body, &ctl); err != nil {
		s.writeError(w, badRequest("Invalid options: "+err.Error(), ""))
		return
	}
	out, err := s.CreateDispute(d, DisputeOptions{
		Lose: ctl.Deliver != nil && !*ctl.Deliver, Then: ctl.Then, Ordering: ctl.Ordering, Duplicate: ctl.Duplicate,
	})
	if err != nil {
		s.writeAnyError(w, err)
		return
	}
	s.writeJSON(w, http.StatusOK, renderDispute(out, true))
}

func (s *Sim) controlDisputeStatus(w http.ResponseWriter, r *http.Request, id string) {
	var b struct {
		Status string `json:"status"`
	}
	if e := decodeJSON(r, &b); e != nil {
		s.writeError(w, e)
		return
	}
	out, err := s.ResolveDispute(id, b.Status)
	if err != nil {
		s.writeAnyError(w, err)
		return
	}
	s.writeJSON(w, http.StatusOK, renderDispute(out, true))
}

func (s *Sim) writeAnyError(w http.ResponseWriter, err error) {
	var ae *razorpay.APIError
	if errors.As(err, &ae) {
		s.writeError(w, ae)
		return
	}
	s.writeError(w, badRequest(err.Error(), ""))
}

// itemAction matches POST {prefix}{id}/{action} and returns id and action.
func itemAction(r *http.Request, prefix string) (id, action string, ok bool) {
	if r.Method != http.MethodPost {
		return "", "", false
	}
	rest, ok := strings.CutPrefix(r.URL.Path, prefix)
	if !ok {
		return "", "", false
	}
	id, action, ok = strings.Cut(rest, "/")
	return id, action, ok && id != "" && action != "" && !strings.Contains(action, "/")
}

// controlWebhook serves POST /__sim/webhooks/{id}/enable and …/disable.
func (s *Sim) controlWebhook(w http.ResponseWriter, id, action string) {
	f := s.EnableWebhook
	if action == "disable" {
		f = s.DisableWebhook
	}
	if err := f(id); err != nil {
		s.writeError(w, notFound())
		return
	}
	s.mu.Lock()
	var ws WebhookState
	for _, x := range s.webhookStates() {
		if x.ID == id {
			ws = x
		}
	}
	s.mu.Unlock()
	writeStd(w, ws)
}

// controlReplay serves POST /__sim/events/{id}/replay with an optional body
// {"webhook": "<id>"}.
func (s *Sim) controlReplay(w http.ResponseWriter, r *http.Request, id string) {
	body, e := readBody(r)
	if e != nil {
		s.writeError(w, e)
		return
	}
	var b struct {
		Webhook string `json:"webhook"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		s.writeError(w, badRequest("The request body is not valid JSON.", ""))
		return
	}
	attempts, err := s.ReplayEvent(id, b.Webhook)
	switch {
	case errors.Is(err, ErrUnknownEvent), errors.Is(err, ErrUnknownWebhook):
		s.writeError(w, notFound())
	case errors.Is(err, ErrReplayTooOld):
		s.writeError(w, badRequest("The event is older than 15 days and can no longer be replayed.", ""))
	case errors.Is(err, ErrNothingToReplay):
		s.writeError(w, badRequest("No enabled webhook to replay the event to.", ""))
	case err != nil:
		s.writeError(w, badRequest(err.Error(), ""))
	default:
		writeStd(w, map[string]any{"event_id": id, "attempts": attempts})
	}
}
