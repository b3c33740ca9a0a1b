package razorpaysim

import (
	"encoding/json"
	"net/http"
	"time"
)

// serveSettleControl serves the control endpoints of settlements, adjustments, transfers,
// holds and seeding (documented on ServeHTTP); it reports whether r was one of them.
func (cs *control) serveSettleControl(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	if id, action, ok := itemAction(r, "/__sim/settlements/"); ok && action == "process" {
		st, err := cs.settlements.ProcessSettlement(id)
		cs.writeResult(w, err, func() any { return renderSettlement(st) })
		return true
	}
	if id, action, ok := itemAction(r, "/__sim/payments/"); ok && (action == "hold" || action == "release") {
		if err := cs.settlements.SetOnHold(id, action == "hold"); err != nil {
			cs.writeAnyError(w, err)
			return true
		}
		v, e := cs.api.getPayment(id)
		if e != nil {
			cs.api.writeError(w, e)
			return true
		}
		cs.api.writeJSON(w, http.StatusOK, v)
		return true
	}
	switch r.URL.Path {
	case "/__sim/settlements":
		cs.controlSettle(w, r)
	case "/__sim/adjustments":
		var a Adjustment
		if cs.decodeControl(w, r, &a) {
			row, err := cs.settlements.AddAdjustment(a)
			cs.writeResult(w, err, func() any { return renderRecon(&row) })
		}
	case "/__sim/transfers":
		var t struct {
			PaymentID string `json:"payment_id"`
			Amount    int64  `json:"amount"`
		}
		if cs.decodeControl(w, r, &t) {
			row, err := cs.settlements.AddTransfer(t.PaymentID, t.Amount)
			cs.writeResult(w, err, func() any { return renderRecon(&row) })
		}
	case "/__sim/seed/payments":
		cs.controlSeed(w, r)
	default:
		return false
	}
	return true
}

// controlSettle serves POST /__sim/settlements with an optional body {"before": unix s,
// "status", "instant", "discrepancy", "deliver" (default true), "duplicate"}.
func (cs *control) controlSettle(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Before      int64  `json:"before"`
		Status      string `json:"status"`
		Instant     bool   `json:"instant"`
		Discrepancy int64  `json:"discrepancy"`
		Deliver     *bool  `json:"deliver"`
		Duplicate   bool   `json:"duplicate"`
	}
	if !cs.decodeControl(w, r, &b) {
		return
	}
	opt := SettleOptions{Status: b.Status, Instant: b.Instant, Discrepancy: b.Discrepancy,
		Lose: b.Deliver != nil && !*b.Deliver, Duplicate: b.Duplicate}
	if b.Before != 0 {
		opt.Before = time.Unix(b.Before, 0)
	}
	st, err := cs.settlements.SettleWith(opt)
	cs.writeResult(w, err, func() any { return renderSettlement(st) })
}

// decodeControl reads a control request's JSON body (empty means {}) into v, answering 400
// itself when it cannot.
func (cs *control) decodeControl(w http.ResponseWriter, r *http.Request, v any) bool {
	body, e := readBody(r)
	if e != nil {
		cs.api.writeError(w, e)
		return false
	}
	if err := json.Unmarshal(body, v); err != nil {
		cs.api.writeError(w, badRequest("The request body is not valid JSON: "+err.Error(), ""))
		return false
	}
	return true
}

// writeResult answers err as the error envelope (ErrAlreadyProcessed, ErrNothingToSettle and
// ErrNegativeBalance as 400 with their text), or 200 with render().
func (cs *control) writeResult(w http.ResponseWriter, err error, render func() any) {
	if err != nil {
		cs.writeAnyError(w, err)
		return
	}
	cs.api.writeJSON(w, http.StatusOK, render())
}
