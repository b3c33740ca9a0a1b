package razorpaysim

import (
	"encoding/json"
	"net/http"
	"time"
)

// serveSettleControl serves the control endpoints of settlements, adjustments, transfers,
// holds and seeding (documented on ServeHTTP); it reports whether r was one of them.
func (s *Sim) serveSettleControl(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	if id, action, ok := itemAction(r, "/__sim/settlements/"); ok && action == "process" {
		st, err := s.ProcessSettlement(id)
		s.writeResult(w, err, func() any { return renderSettlement(st) })
		return true
	}
	if id, action, ok := itemAction(r, "/__sim/payments/"); ok && (action == "hold" || action == "release") {
		if err := s.SetOnHold(id, action == "hold"); err != nil {
			s.writeAnyError(w, err)
			return true
		}
		v, e := s.getPayment(id)
		if e != nil {
			s.writeError(w, e)
			return true
		}
		s.writeJSON(w, http.StatusOK, v)
		return true
	}
	switch r.URL.Path {
	case "/__sim/settlements":
		s.controlSettle(w, r)
	case "/__sim/adjustments":
		var a Adjustment
		if s.decodeControl(w, r, &a) {
			row, err := s.AddAdjustment(a)
			s.writeResult(w, err, func() any { return renderRecon(&row) })
		}
	case "/__sim/transfers":
		var t struct {
			PaymentID string `json:"payment_id"`
			Amount    int64  `json:"amount"`
		}
		if s.decodeControl(w, r, &t) {
			row, err := s.AddTransfer(t.PaymentID, t.Amount)
			s.writeResult(w, err, func() any { return renderRecon(&row) })
		}
	case "/__sim/seed/payments":
		s.controlSeed(w, r)
	default:
		return false
	}
	return true
}

// controlSettle serves POST /__sim/settlements with an optional body {"before": unix s,
// "status", "instant", "discrepancy", "deliver" (default true), "duplicate"}.
func (s *Sim) controlSettle(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Before      int64  `json:"before"`
		Status      string `json:"status"`
		Instant     bool   `json:"instant"`
		Discrepancy int64  `json:"discrepancy"`
		Deliver     *bool  `json:"deliver"`
		Duplicate   bool   `json:"duplicate"`
	}
	if !s.decodeControl(w, r, &b) {
		return
	}
	opt := SettleOptions{Status: b.Status, Instant: b.Instant, Discrepancy: b.Discrepancy,
		Lose: b.Deliver != nil && !*b.Deliver, Duplicate: b.Duplicate}
	if b.Before != 0 {
		opt.Before = time.Unix(b.Before, 0)
	}
	st, err := s.SettleWith(opt)
	s.writeResult(w, err, func() any { return renderSettlement(st) })
}

// decodeControl reads a control request's JSON body (empty means {}) into v, answering 400
// itself when it cannot.
func (s *Sim) decodeControl(w http.ResponseWriter, r *http.Request, v any) bool {
	body, e := readBody(r)
	if e != nil {
		s.writeError(w, e)
		return false
	}
	if err := json.Unmarshal(body, v); err != nil {
		s.writeError(w, badRequest("The request body is not valid JSON: "+err.Error(), ""))
		return false
	}
	return true
}

// writeResult answers err as the error envelope (ErrAlreadyProcessed, ErrNothingToSettle and
// ErrNegativeBalance as 400 with their text), or 200 with render().
func (s *Sim) writeResult(w http.ResponseWriter, err error, render func() any) {
	if err != nil {
		s.writeAnyError(w, err)
		return
	}
	s.writeJSON(w, http.StatusOK, render())
}
