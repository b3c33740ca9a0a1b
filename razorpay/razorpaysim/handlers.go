package razorpaysim

import (
	"cmp"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// newestFirst sorts by created_at descending, later-created records first on ties.
func newestFirst[T any](items []T, key func(T) (int64, int64)) {
	slices.SortStableFunc(items, func(a, b T) int {
		ca, sa := key(a)
		cb, sb := key(b)
		if c := cmp.Compare(cb, ca); c != 0 {
			return c
		}
		return cmp.Compare(sb, sa)
	})
}

// listed serves a list endpoint from its index: from/to on created_at, count 1–100, skip,
// newest first, list lag; O(log n + count) per page.
func listed[T any](ap *api, q url.Values, l *listing[T], render func(T) obj) (any, *razorpay.APIError) {
	p, e := parsePage(q, 100)
	if e != nil {
		return nil, e
	}
	ap.st.mu.Lock()
	defer ap.st.mu.Unlock()
	recs := l.page(p, ap.now(), ap.st.faults.ListLag)
	items := make([]obj, len(recs))
	for i, r := range recs {
		items[i] = render(r)
	}
	return collectionOf(items), nil
}

// listPayments serves GET /v1/payments.
func (ap *api) listPayments(q url.Values) (any, *razorpay.APIError) {
	return listed(ap, q, ap.st.payList, func(r *payRec) obj { return ap.render.renderPayment(&r.p) })
}

func (ap *api) getPayment(id string) (any, *razorpay.APIError) {
	ap.st.mu.Lock()
	defer ap.st.mu.Unlock()
	r, ok := ap.st.payments[id]
	if !ok {
		return nil, notFound()
	}
	return ap.render.renderPayment(&r.p), nil
}

func (ap *api) capture(r *http.Request, id string) (any, *razorpay.APIError) {
	var body struct {
		Amount   json.RawMessage `json:"amount"`
		Currency string          `json:"currency"`
	}
	if e := decodeJSON(r, &body); e != nil {
		return nil, e
	}
	if len(body.Amount) == 0 || string(body.Amount) == "null" {
		return nil, badRequest("The amount field is required.", "amount")
	}
	if !integer.MatchString(string(body.Amount)) {
		return nil, badRequest("The amount must be an integer.", "amount")
	}
	amount, err := strconv.ParseInt(string(body.Amount), 10, 64)
	if err != nil {
		return nil, badRequest("The amount must be an integer.", "amount")
	}
	p, err := ap.payments.Capture(id, amount, body.Currency)
	if err != nil {
		return nil, err.(*razorpay.APIError)
	}
	ap.st.mu.Lock()
	defer ap.st.mu.Unlock()
	return ap.render.renderPayment(p), nil
}

// listRefunds serves GET /v1/refunds (newest first, list lag, O(log n + count) per page) and,
// with paymentID, GET /v1/payments/{id}/refunds (that payment's refunds, no lag).
func (ap *api) listRefunds(q url.Values, paymentID string) (any, *razorpay.APIError) {
	if paymentID == "" {
		return listed(ap, q, ap.st.refundList, func(r *refundRec) obj { return ap.render.renderRefund(&r.r) })
	}
	p, e := parsePage(q, 100)
	if e != nil {
		return nil, e
	}
	ap.st.mu.Lock()
	defer ap.st.mu.Unlock()
	if _, ok := ap.st.payments[paymentID]; !ok {
		return nil, notFound()
	}
	var recs []*refundRec
	for _, r := range ap.st.paymentRefunds[paymentID] {
		if p.in(r.r.CreatedAt) {
			recs = append(recs, r)
		}
	}
	newestFirst(recs, func(r *refundRec) (int64, int64) { return r.r.CreatedAt, r.seq })
	recs = cut(recs, p)
	items := make([]obj, len(recs))
	for i, r := range recs {
		items[i] = ap.render.renderRefund(&r.r)
	}
	return collectionOf(items), nil
}

func (ap *api) getRefund(id, paymentID string) (any, *razorpay.APIError) {
	ap.st.mu.Lock()
	defer ap.st.mu.Unlock()
	r, ok := ap.st.refunds[id]
	if !ok || (paymentID != "" && r.r.PaymentID != paymentID) {
		return nil, notFound()
	}
	return ap.render.renderRefund(&r.r), nil
}

func (ap *api) getOrder(id string) (any, *razorpay.APIError) {
	ap.st.mu.Lock()
	defer ap.st.mu.Unlock()
	r, ok := ap.st.orders[id]
	if !ok {
		return nil, notFound()
	}
	return ap.render.renderOrder(&r.o), nil
}

func (ap *api) orderPayments(id string) (any, *razorpay.APIError) {
	ap.st.mu.Lock()
	defer ap.st.mu.Unlock()
	or, ok := ap.st.orders[id]
	if !ok {
		return nil, notFound()
	}
	recs := slices.Clone(or.payments)
	newestFirst(recs, func(r *payRec) (int64, int64) { return r.p.CreatedAt, r.seq })
	var items []obj
	for _, r := range recs {
		items = append(items, ap.render.renderPayment(&r.p))
	}
	return collectionOf(items), nil
}

// linkWithPayments renders a link as the API shows it: with its payments list (null when none).
// The caller holds s.mu.
func (ap *api) linkWithPayments(lr *linkRec) any {
	var ps []obj
	for _, id := range lr.paymentIDs {
		p := ap.st.payments[id].p
		ps = append(ps, obj{
			{"payment_id", p.ID}, {"amount", p.Amount}, {"method", p.Method}, {"status", p.Status},
			{"plink_id", lr.l.ID}, {"created_at", p.CreatedAt}, {"updated_at", p.CreatedAt + 5},
		})
	}
	o := ap.render.renderLink(&lr.l, ps)
	if ps == nil {
		o = append(o, field{"payments", nil})
	}
	return sorted{o}
}

func (ap *api) listLinks(q url.Values) (any, *razorpay.APIError) {
	ap.st.mu.Lock()
	defer ap.st.mu.Unlock()
	var recs []*linkRec
	for _, lr := range ap.st.links {
		if ref := q.Get("reference_id"); ref != "" && lr.l.ReferenceID != ref {
			continue
		}
		if pid := q.Get("payment_id"); pid != "" && !slices.Contains(lr.paymentIDs, pid) {
			continue
		}
		recs = append(recs, lr)
	}
	newestFirst(recs, func(r *linkRec) (int64, int64) { return r.l.CreatedAt, r.seq })
	items := make([]any, 0, len(recs))
	for _, lr := range recs {
		items = append(items, ap.linkWithPayments(lr))
	}
	return obj{{"payment_links", items}}, nil
}

func (ap *api) getLink(id string) (any, *razorpay.APIError) {
	ap.st.mu.Lock()
	defer ap.st.mu.Unlock()
	lr, ok := ap.st.links[id]
	if !ok {
		return nil, notFound()
	}
	return ap.linkWithPayments(lr), nil
}
