package razorpaysim

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// EmitDowntime is Sim.EmitDowntime.
func (wh *webhooks) EmitDowntime() {
	wh.st.mu.Lock()
	defer wh.st.mu.Unlock()
	now := wh.now().Unix()
	d := obj{
		{"id", "down_" + wh.st.randID()}, {"entity", "payment.downtime"}, {"method", "upi"},
		{"begin", now}, {"end", nil}, {"status", "started"}, {"scheduled", false},
		{"severity", "high"}, {"instrument", obj{{"psp", "google_pay"}}}, {"created_at", now},
		{"updated_at", now},
	}
	payload := obj{{"payment.downtime", wrap(d)}}
	wh.dispatch([]*event{wh.newEvent(razorpay.EventPaymentDowntimeStarted, []string{"payment.downtime"}, payload, now, false)},
		wh.ordering(""), false, false)
}

// serveControl serves /__sim/ (documented on ServeHTTP).
func (cs *control) serveControl(w http.ResponseWriter, r *http.Request) {
	if rest, ok := strings.CutPrefix(r.URL.Path, "/__sim/live/"); ok {
		if cs.sim.live == nil {
			cs.api.writeError(w, badRequest("Live mode is not configured (Options.LiveKeyID, --live-key-id).", ""))
			return
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path, r2.URL.RawPath = "/__sim/"+rest, ""
		cs.sim.live.control.serveControl(w, r2)
		return
	}
	route := r.Method + " " + r.URL.Path
	if id, ok := disputeStatusPath(r); ok {
		cs.controlDisputeStatus(w, r, id)
		return
	}
	if id, action, ok := itemAction(r, "/__sim/webhooks/"); ok && (action == "enable" || action == "disable") {
		cs.controlWebhook(w, id, action)
		return
	}
	if id, action, ok := itemAction(r, "/__sim/events/"); ok && action == "replay" {
		cs.controlReplay(w, r, id)
		return
	}
	if cs.serveSettleControl(w, r) {
		return
	}
	switch route {
	case "POST /__sim/disputes":
		cs.controlDispute(w, r)
	case "POST /__sim/payments":
		cs.controlPayment(w, r)
	case "POST /__sim/refunds":
		cs.controlRefund(w, r)
	case "GET /__sim/faults", "PUT /__sim/faults", "POST /__sim/faults":
		cs.controlFaults(w, r)
	case "POST /__sim/webhook-secret":
		cs.controlWebhookSecret(w, r)
	case "POST /__sim/downtime":
		cs.hooks.EmitDowntime()
		writeStd(w, map[string]string{"status": "emitted"})
	case "GET /__sim/state":
		writeStd(w, cs.sim.State())
	case "GET /__sim/webhooks":
		cs.st.mu.Lock()
		ws := cs.hooks.webhookStates()
		cs.st.mu.Unlock()
		writeStd(w, map[string]any{"webhooks": ws})
	default:
		cs.api.writeError(w, badPath())
	}
}

// controlFaults serves GET /__sim/faults (the faults in force) and PUT or POST (replace them).
func (cs *control) controlFaults(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		cs.st.mu.Lock()
		f := cs.st.faults
		cs.st.mu.Unlock()
		writeStd(w, f)
		return
	}
	var f Faults
	if e := decodeJSON(r, &f); e != nil {
		cs.api.writeError(w, e)
		return
	}
	cs.sim.SetFaults(f)
	writeStd(w, f)
}

// controlWebhookSecret serves POST /__sim/webhook-secret {"secret": …}.
func (cs *control) controlWebhookSecret(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Secret string `json:"secret"`
	}
	if e := decodeJSON(r, &b); e != nil {
		cs.api.writeError(w, e)
		return
	}
	cs.hooks.RotateWebhookSecret(b.Secret)
	writeStd(w, map[string]string{"status": "rotated"})
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

func (cs *control) controlPayment(w http.ResponseWriter, r *http.Request) {
	body, e := readBody(r)
	if e != nil {
		cs.api.writeError(w, e)
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
		cs.api.writeError(w, badRequest("Invalid payment: "+err.Error(), ""))
		return
	}
	if err := json.Unmarshal(body, &ctl); err != nil {
		cs.api.writeError(w, badRequest("Invalid options: "+err.Error(), ""))
		return
	}
	opt := PaymentOptions{
		Lose: ctl.Deliver != nil && !*ctl.Deliver, NoOrder: ctl.NoOrder, Receipt: ctl.Receipt,
		Link: ctl.Link, LinkReferenceID: ctl.LinkReferenceID, LateAuthorisation: ctl.LateAuthorisation,
		Ordering: ctl.Ordering, Duplicate: ctl.Duplicate,
	}
	out, err := cs.payments.CreatePayment(p, opt)
	if err != nil {
		cs.writeAnyError(w, err)
		return
	}
	cs.api.writeJSON(w, http.StatusOK, cs.render.renderPayment(out))
}

func (cs *control) controlRefund(w http.ResponseWriter, r *http.Request) {
	body, e := readBody(r)
	if e != nil {
		cs.api.writeError(w, e)
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
		cs.api.writeError(w, badRequest("Invalid refund: "+err.Error(), ""))
		return
	}
	if err := json.Unmarshal(body, &ctl); err != nil {
		cs.api.writeError(w, badRequest("Invalid options: "+err.Error(), ""))
		return
	}
	// The refund's own "status" is ignored: the lifecycle comes from "final".
	out, err := cs.refunds.CreateRefund(rf, RefundOptions{
		Lose: ctl.Deliver != nil && !*ctl.Deliver, Final: ctl.Final, CreatedPending: ctl.CreatedPending,
		Ordering: ctl.Ordering, Duplicate: ctl.Duplicate,
	})
	if err != nil {
		cs.writeAnyError(w, err)
		return
	}
	cs.api.writeJSON(w, http.StatusOK, cs.render.renderRefund(out))
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

func (cs *control) controlDispute(w http.ResponseWriter, r *http.Request) {
	body, e := readBody(r)
	if e != nil {
		cs.api.writeError(w, e)
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
		cs.api.writeError(w, badRequest("Invalid dispute: "+err.Error(), ""))
		return
	}
	if err := json.Unmarshal(body, &ctl); err != nil {
		cs.api.writeError(w, badRequest("Invalid options: "+err.Error(), ""))
		return
	}
	out, err := cs.disputes.CreateDispute(d, DisputeOptions{
		Lose: ctl.Deliver != nil && !*ctl.Deliver, Then: ctl.Then, Ordering: ctl.Ordering, Duplicate: ctl.Duplicate,
	})
	if err != nil {
		cs.writeAnyError(w, err)
		return
	}
	cs.api.writeJSON(w, http.StatusOK, renderDispute(out, true))
}

func (cs *control) controlDisputeStatus(w http.ResponseWriter, r *http.Request, id string) {
	var b struct {
		Status string `json:"status"`
	}
	if e := decodeJSON(r, &b); e != nil {
		cs.api.writeError(w, e)
		return
	}
	out, err := cs.disputes.ResolveDispute(id, b.Status)
	if err != nil {
		cs.writeAnyError(w, err)
		return
	}
	cs.api.writeJSON(w, http.StatusOK, renderDispute(out, true))
}

func (cs *control) writeAnyError(w http.ResponseWriter, err error) {
	var ae *razorpay.APIError
	if errors.As(err, &ae) {
		cs.api.writeError(w, ae)
		return
	}
	cs.api.writeError(w, badRequest(err.Error(), ""))
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
func (cs *control) controlWebhook(w http.ResponseWriter, id, action string) {
	f := cs.hooks.EnableWebhook
	if action == "disable" {
		f = cs.hooks.DisableWebhook
	}
	if err := f(id); err != nil {
		cs.api.writeError(w, notFound())
		return
	}
	cs.st.mu.Lock()
	var ws WebhookState
	for _, x := range cs.hooks.webhookStates() {
		if x.ID == id {
			ws = x
		}
	}
	cs.st.mu.Unlock()
	writeStd(w, ws)
}

// controlReplay serves POST /__sim/events/{id}/replay with an optional body
// {"webhook": "<id>"}.
func (cs *control) controlReplay(w http.ResponseWriter, r *http.Request, id string) {
	body, e := readBody(r)
	if e != nil {
		cs.api.writeError(w, e)
		return
	}
	var b struct {
		Webhook string `json:"webhook"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		cs.api.writeError(w, badRequest("The request body is not valid JSON.", ""))
		return
	}
	attempts, err := cs.hooks.ReplayEvent(id, b.Webhook)
	switch {
	case errors.Is(err, ErrUnknownEvent), errors.Is(err, ErrUnknownWebhook):
		cs.api.writeError(w, notFound())
	case errors.Is(err, ErrReplayTooOld):
		cs.api.writeError(w, badRequest("The event is older than 15 days and can no longer be replayed.", ""))
	case errors.Is(err, ErrNothingToReplay):
		cs.api.writeError(w, badRequest("No enabled webhook to replay the event to.", ""))
	case err != nil:
		cs.api.writeError(w, badRequest(err.Error(), ""))
	default:
		writeStd(w, map[string]any{"event_id": id, "attempts": attempts})
	}
}
