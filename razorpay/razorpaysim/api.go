package razorpaysim

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// ServeHTTP serves the REST API subset of spec/razorpay.md §5 under /v1/ and the control API
// under /__sim/.
//
// REST API (HTTP Basic auth with Options.KeyID/KeySecret when set; wrong credentials → 401).
// With live mode configured, Options.LiveKeyID/LiveKeySecret reach the live account instead:
// test and live data are disjoint, so an id from one mode is "The id provided does not exist"
// in the other (checklist item 15). Faults are those of the mode the keys select:
//
//	GET  /v1/payments                          collection, newest first; from, to, count (1–100, default 10), skip
//	GET  /v1/payments/{id}                     payment; unknown id → 400 "The id provided does not exist"
//	POST /v1/payments/{id}/capture             {"amount": int, "currency": "INR"} → payment
//	GET  /v1/payments/{id}/refunds[/{rfnd}]    collection of the payment's refunds / one refund
//	GET  /v1/orders/{id}, /v1/orders/{id}/payments
//	GET  /v1/refunds, /v1/refunds/{id}
//	GET  /v1/payment_links                     {"payment_links": [...]}; filters payment_id, reference_id
//	GET  /v1/payment_links/{id}
//	GET  /v1/settlements, /v1/settlements/{id}
//	GET  /v1/settlements/recon/combined        year, month (required), day, count (1–1000), skip
//	GET  /v1/disputes/{id}                     dispute (with reason_description and evidence)
//
// Every success is 200; lists are {"entity":"collection","count":<items in page>,"items":[…]}.
// Errors use the envelope {"error":{"code","description","source","step","reason","metadata",
// "field"}}: 400 BAD_REQUEST_ERROR for validation (with field), unknown ids and unknown paths or
// methods ("The requested URL was not found on the server."); injected faults (Faults) answer
// 429, or 500 SERVER_ERROR, 502/504 GATEWAY_ERROR, 503 SERVER_ERROR. Control endpoints are
// never authenticated nor faulted.
//
// Control API (JSON in and out; errors use the same envelope):
//
//	POST /__sim/payments      a payment's JSON (any razorpay.Payment fields) plus the options
//	                          "deliver" (default true; false loses all its webhooks), "no_order",
//	                          "receipt", "payment_link", "link_reference_id",
//	                          "late_authorisation", "ordering" (in_order|reversed|shuffled),
//	                          "duplicate" → the payment as GET /v1/payments/{id} shows it
//	POST /__sim/refunds       a refund's JSON (payment_id required) plus "deliver", "final"
//	                          (processed|failed|pending), "created_pending", "ordering",
//	                          "duplicate" → the refund
//	POST /__sim/settlements   settle now (SettleWith); optional {"before": unix s, "status":
//	                          "processed"|"created"|"failed", "instant", "discrepancy" (paise),
//	                          "deliver" (default true), "duplicate"} → the settlement; 400 when
//	                          nothing is due or what is due adds up to zero or less
//	POST /__sim/settlements/{id}/process  a created or failed settlement → processed (new UTR,
//	                          settlement.processed) → the settlement
//	POST /__sim/adjustments   {"amount": paise (negative debits), "description", "dispute_id"}
//	                          → its recon row, carried by the next settlement
//	POST /__sim/transfers     {"payment_id", "amount": paise} → its recon row (a Route transfer)
//	POST /__sim/payments/{id}/hold, …/release  keep a payment out of settlements, or let it in
//	                          → the payment
//	POST /__sim/seed/payments  a SeedSpec ({"count", "amount", "currency", "status", "method",
//	                          "from", "to", "invoice", "receipt", "no_order"}) → {"count",
//	                          "first_id", "last_id"}; no webhooks (count ≤ 1,000,000)
//	POST /__sim/disputes      a dispute's JSON (payment_id required; any razorpay.Dispute field,
//	                          status only "open") plus "deliver", "then" (transitions applied at
//	                          once, e.g. ["under_review","lost"]), "ordering", "duplicate"
//	                          → the dispute as GET /v1/disputes/{id} shows it; emits
//	                          payment.dispute.created (+ the events of "then")
//	POST /__sim/disputes/{id}/status  {"status": "under_review"|"action_required"|"won"|"lost"|
//	                          "closed"} → the dispute; emits payment.dispute.<status>; lost sets
//	                          amount_deducted = amount; won, lost and closed are final (400 after)
//	GET  /__sim/faults        the Faults in force;  PUT /__sim/faults replaces them (Faults JSON;
//	                          list_lag in nanoseconds)
//	POST /__sim/webhook-secret {"secret": "..."} rotates the signing secret for new events
//	POST /__sim/downtime      emits payment.downtime.started (payload key "payment.downtime")
//	GET  /__sim/state         State: every entity and every event with each delivery attempt,
//	                          the webhook endpoints and the alert emails
//	GET  /__sim/webhooks      {"webhooks": [WebhookState…]}, the default endpoint first
//	POST /__sim/webhooks/{id}/enable   re-enable an endpoint, e.g. one auto-disabled after 24 h
//	                          (scaled) of failed deliveries → its WebhookState; unknown id → 400
//	POST /__sim/webhooks/{id}/disable  disable it (no alert email) → its WebhookState
//	POST /__sim/events/{id}/replay     optional {"webhook": "<id>"}: resend a stored event (same
//	                          id, bytes and signature) once to each enabled endpoint it went to
//	                          → {"event_id", "attempts": [Attempt…]}; 400 when unknown, older
//	                          than 15 days (scaled) or no enabled endpoint is left
//	/__sim/live/…             every endpoint above, acting on the live-mode account (400 when
//	                          live mode is not configured); the unprefixed ones act on test
//	                          mode, except PUT /__sim/faults, which sets both modes' faults
func (s *Sim) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/__sim/") {
		s.control.serveControl(w, r)
		return
	}
	mode, e := s.authenticate(r)
	if e != nil {
		s.api.writeError(w, e)
		return
	}
	if e := mode.api.injectFault(); e != nil {
		mode.api.writeError(w, e)
		return
	}
	mode.api.serveAPI(w, r)
}

// authenticate picks the account the request's credentials belong to: live mode for the live
// key id (when configured), test mode otherwise, checked by checkAuth.
func (s *Sim) authenticate(r *http.Request) (*Sim, *razorpay.APIError) {
	if s.live != nil {
		if raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Basic "); ok {
			if dec, err := base64.StdEncoding.DecodeString(strings.TrimSpace(raw)); err == nil {
				if id, _, _ := strings.Cut(string(dec), ":"); id == s.live.opt.KeyID {
					return s.live, s.live.api.checkAuth(r)
				}
			}
		}
	}
	return s, s.api.checkAuth(r)
}

// checkAuth enforces HTTP Basic auth; the scheme word must be exactly "Basic"
// (spec/razorpay.md §5.1).
func (ap *api) checkAuth(r *http.Request) *razorpay.APIError {
	if ap.opt.KeyID == "" && ap.opt.KeySecret == "" {
		return nil
	}
	h := r.Header.Get("Authorization")
	fail := func(desc string) *razorpay.APIError {
		return &razorpay.APIError{Status: http.StatusUnauthorized, Code: razorpay.CodeBadRequest,
			Description: desc, Source: "NA", Step: "NA", Reason: "NA"}
	}
	raw, ok := strings.CutPrefix(h, "Basic ")
	if !ok {
		return fail("Please provide your api key for authentication purposes.")
	}
	dec, err := base64.StdEncoding.DecodeString(strings.TrimSpace(raw))
	if err != nil {
		return fail("Authentication failed")
	}
	id, secret, _ := strings.Cut(string(dec), ":")
	if id != ap.opt.KeyID {
		return fail("The api key provided is invalid")
	}
	if secret != ap.opt.KeySecret {
		return fail("The api secret provided is invalid")
	}
	return nil
}

// injectFault applies FailNext, the token bucket and the random error rate (checklist item 20).
func (ap *api) injectFault() *razorpay.APIError {
	ap.st.mu.Lock()
	defer ap.st.mu.Unlock()
	f := &ap.st.faults
	if len(f.FailNext) > 0 {
		st := f.FailNext[0]
		f.FailNext = f.FailNext[1:]
		return ap.faultError(st)
	}
	if f.RateLimit > 0 {
		burst := float64(max(f.Burst, 1))
		now := ap.now()
		if ap.st.tokensAt.IsZero() {
			ap.st.tokens, ap.st.tokensAt = burst, now
		}
		ap.st.tokens = min(burst, ap.st.tokens+now.Sub(ap.st.tokensAt).Seconds()*f.RateLimit)
		ap.st.tokensAt = now
		if ap.st.tokens < 1 {
			return ap.faultError(http.StatusTooManyRequests)
		}
		ap.st.tokens--
	}
	if f.ErrorRate > 0 && ap.st.rnd.Float64() < f.ErrorRate {
		return ap.faultError([]int{500, 502, 504}[ap.st.rnd.IntN(3)])
	}
	return nil
}

// faultError is the answer for an injected status (spec/razorpay.md §5.3).
func (ap *api) faultError(status int) *razorpay.APIError {
	e := &razorpay.APIError{Status: status, Source: "NA", Step: "NA", Reason: "NA"}
	switch {
	case status == http.StatusTooManyRequests:
		e.Code, e.Description = razorpay.CodeBadRequest, "Too many requests"
		e.RetryAfter = time.Duration(ap.st.faults.RetryAfter) * time.Second
	case status == http.StatusBadGateway || status == http.StatusGatewayTimeout:
		e.Code, e.Description = razorpay.CodeGateway, "Gateway error: the upstream did not answer in time"
	case status >= 500:
		e.Code = razorpay.CodeServer
		e.Description = "We are facing some trouble completing your request at the moment. Please try again shortly."
	default:
		e.Code, e.Description = razorpay.CodeBadRequest, http.StatusText(status)
	}
	return e
}

// writeError writes the error envelope; field only when set, metadata {}.
func (ap *api) writeError(w http.ResponseWriter, e *razorpay.APIError) {
	inner := obj{
		{"code", e.Code}, {"description", e.Description}, {"source", e.Source}, {"step", e.Step},
		{"reason", e.Reason}, {"metadata", obj{}},
	}
	if e.Field != "" {
		inner = append(inner, field{"field", e.Field})
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(e.RetryAfter/time.Second)))
	}
	ap.writeJSON(w, e.Status, obj{{"error", inner}})
}

func (ap *api) writeJSON(w http.ResponseWriter, status int, v any) {
	b := answers.Get().(*bytes.Buffer)
	defer answers.Put(b)
	body := encodeTo(b, v, ap.opt.Quirks)
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func badPath() *razorpay.APIError {
	return &razorpay.APIError{Status: http.StatusBadRequest, Code: razorpay.CodeBadRequest,
		Description: "The requested URL was not found on the server.", Source: "NA", Step: "NA", Reason: "NA"}
}

// serveAPI routes /v1/ requests.
func (ap *api) serveAPI(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/v1/")
	if !ok {
		ap.writeError(w, badPath())
		return
	}
	seg := strings.Split(strings.TrimSuffix(rest, "/"), "/")
	for i := range seg {
		if u, err := url.PathUnescape(seg[i]); err == nil {
			seg[i] = u
		}
	}
	q := r.URL.Query()
	get := r.Method == http.MethodGet
	var v any
	var e *razorpay.APIError
	switch {
	case get && len(seg) == 1 && seg[0] == "payments":
		v, e = ap.listPayments(q)
	case get && len(seg) == 2 && seg[0] == "payments":
		v, e = ap.getPayment(seg[1])
	case r.Method == http.MethodPost && len(seg) == 3 && seg[0] == "payments" && seg[2] == "capture":
		v, e = ap.capture(r, seg[1])
	case get && len(seg) == 3 && seg[0] == "payments" && seg[2] == "refunds":
		v, e = ap.listRefunds(q, seg[1])
	case get && len(seg) == 4 && seg[0] == "payments" && seg[2] == "refunds":
		v, e = ap.getRefund(seg[3], seg[1])
	case get && len(seg) == 2 && seg[0] == "orders":
		v, e = ap.getOrder(seg[1])
	case get && len(seg) == 3 && seg[0] == "orders" && seg[2] == "payments":
		v, e = ap.orderPayments(seg[1])
	case get && len(seg) == 1 && seg[0] == "refunds":
		v, e = ap.listRefunds(q, "")
	case get && len(seg) == 2 && seg[0] == "refunds":
		v, e = ap.getRefund(seg[1], "")
	case get && len(seg) == 1 && seg[0] == "payment_links":
		v, e = ap.listLinks(q)
	case get && len(seg) == 2 && seg[0] == "payment_links":
		v, e = ap.getLink(seg[1])
	case get && len(seg) == 3 && seg[0] == "settlements" && seg[1] == "recon" && seg[2] == "combined":
		v, e = ap.recon(q)
	case get && len(seg) == 1 && seg[0] == "settlements":
		v, e = ap.listSettlements(q)
	case get && len(seg) == 2 && seg[0] == "settlements":
		v, e = ap.getSettlement(seg[1])
	case get && len(seg) == 2 && seg[0] == "disputes":
		v, e = ap.getDispute(seg[1])
	default:
		e = badPath()
	}
	if e != nil {
		ap.writeError(w, e)
		return
	}
	ap.writeJSON(w, http.StatusOK, v)
}

// page is a validated from/to/count/skip query (spec/razorpay.md §5.1).
type page struct {
	from, to    int64 // unix seconds; 0 = open
	count, skip int
}

const (
	minUnix = 946684800
	maxUnix = 4765046400
)

var integer = regexp.MustCompile(`^[0-9]+$`)

// parsePage validates pagination; max is 100 for entities and 1000 for recon.
func parsePage(q url.Values, max int) (page, *razorpay.APIError) {
	p := page{count: 10}
	if v, ok := q["count"]; ok {
		c := strings.TrimSpace(v[0])
		if !integer.MatchString(c) {
			return p, badRequest("The count must be an integer.", "count")
		}
		n, err := strconv.Atoi(c)
		switch {
		case err != nil || n > max:
			return p, badRequest("The count may not be greater than "+strconv.Itoa(max)+".", "count")
		case n < 1:
			return p, badRequest("The count must be at least 1.", "count")
		}
		p.count = n
	}
	if v, ok := q["skip"]; ok {
		c := strings.TrimSpace(v[0])
		if !integer.MatchString(c) {
			return p, badRequest("The skip must be an integer.", "skip")
		}
		n, err := strconv.Atoi(c)
		if err != nil {
			return p, badRequest("The skip must be an integer.", "skip")
		}
		p.skip = n
	}
	for _, name := range []string{"from", "to"} {
		v, ok := q[name]
		if !ok {
			continue
		}
		c := strings.TrimSpace(v[0])
		if !integer.MatchString(c) {
			return p, badRequest("The "+name+" must be an integer.", name)
		}
		n, err := strconv.ParseInt(c, 10, 64)
		if err != nil || n < minUnix || n > maxUnix {
			return p, badRequest("The "+name+" must be between 946684800 and 4765046400.", name)
		}
		if name == "from" {
			p.from = n
		} else {
			p.to = n
		}
	}
	return p, nil
}

// in reports whether created_at (unix s) lies in [from, to] (both inclusive, open when 0).
func (p page) in(createdAt int64) bool {
	return (p.from == 0 || createdAt >= p.from) && (p.to == 0 || createdAt <= p.to)
}

// cut applies skip and count to a newest-first list.
func cut[T any](items []T, p page) []T {
	if p.skip >= len(items) {
		return nil
	}
	items = items[p.skip:]
	if len(items) > p.count {
		items = items[:p.count]
	}
	return items
}

func decodeJSON(r *http.Request, v any) *razorpay.APIError {
	if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<20)).Decode(v); err != nil {
		var se *json.UnmarshalTypeError
		if errors.As(err, &se) && se.Field != "" {
			return badRequest("The "+se.Field+" must be "+article(se.Type.String())+".", se.Field)
		}
		return badRequest("The request body is not valid JSON.", "")
	}
	return nil
}

func article(t string) string {
	if strings.HasPrefix(t, "int") {
		return "an integer"
	}
	return "a " + t
}
