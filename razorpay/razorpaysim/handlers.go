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
func listed[T any](s *Sim, q url.Values, l *listing[T], render func(T) obj) (any, *razorpay.APIError) {
	p, e := parsePage(q, 100)
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	recs := l.page(p, s.now(), s.faults.ListLag)
	items := make([]obj, len(recs))
	for i, r := range recs {
		items[i] = render(r)
	}
	return collectionOf(items), nil
}

// listPayments serves GET /v1/payments.
func (s *Sim) listPayments(q url.Values) (any, *razorpay.APIError) {
	return listed(s, q, s.payList, func(r *payRec) obj { return s.renderPayment(&r.p) })
}

func (s *Sim) getPayment(id string) (any, *razorpay.APIError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.payments[id]
	if !ok {
		return nil, notFound()
	}
	return s.renderPayment(&r.p), nil
}

func (s *Sim) capture(r *http.Request, id string) (any, *razorpay.APIError) {
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
	p, err := s.Capture(id, amount, body.Currency)
	if err != nil {
		return nil, err.(*razorpay.APIError)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.renderPayment(p), nil
}

// listRefunds serves GET /v1/refunds (newest first, list lag, O(log n + count) per page) and,
// with paymentID, GET /v1/payments/{id}/refunds (that payment's refunds, no lag).
func (s *Sim) listRefunds(q url.Values, paymentID string) (any, *razorpay.APIError) {
	if paymentID == "" {
		return listed(s, q, s.refundList, func(r *refundRec) obj { return s.renderRefund(&r.r) })
	}
	p, e := parsePage(q, 100)
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.payments[paymentID]; !ok {
		return nil, notFound()
	}
	var recs []*refundRec
	for _, r := range s.paymentRefunds[paymentID] {
		if p.in(r.r.CreatedAt) {
			recs = append(recs, r)
		}
	}
	newestFirst(recs, func(r *refundRec) (int64, int64) { return r.r.CreatedAt, r.seq })
	recs = cut(recs, p)
	items := make([]obj, len(recs))
	for i, r := range recs {
		items[i] = s.renderRefund(&r.r)
	}
	return collectionOf(items), nil
}

func (s *Sim) getRefund(id, paymentID string) (any, *razorpay.APIError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.refunds[id]
	if !ok || (paymentID != "" && r.r.PaymentID != paymentID) {
		return nil, notFound()
	}
	return s.renderRefund(&r.r), nil
}

func (s *Sim) getOrder(id string) (any, *razorpay.APIError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.orders[id]
	if !ok {
		return nil, notFound()
	}
	return s.renderOrder(&r.o), nil
}

func (s *Sim) orderPayments(id string) (any, *razorpay.APIError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	or, ok := s.orders[id]
	if !ok {
		return nil, notFound()
	}
	recs := slices.Clone(or.payments)
	newestFirst(recs, func(r *payRec) (int64, int64) { return r.p.CreatedAt, r.seq })
	var items []obj
	for _, r := range recs {
		items = append(items, s.renderPayment(&r.p))
	}
	return collectionOf(items), nil
}

// linkWithPayments renders a link as the API shows it: with its payments list (null when none).
// The caller holds s.mu.
func (s *Sim) linkWithPayments(lr *linkRec) any {
	var ps []obj
	for _, id := range lr.paymentIDs {
		p := s.payments[id].p
		ps = append(ps, obj{
			{"payment_id", p.ID}, {"amount", p.Amount}, {"method", p.Method}, {"status", p.Status},
			{"plink_id", lr.l.ID}, {"created_at", p.CreatedAt}, {"updated_at", p.CreatedAt + 5},
		})
	}
	o := s.renderLink(&lr.l, ps)
	if ps == nil {
		o = append(o, field{"payments", nil})
	}
	return sorted{o}
}

func (s *Sim) listLinks(q url.Values) (any, *razorpay.APIError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var recs []*linkRec
	for _, lr := range s.links {
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
		items = append(items, s.linkWithPayments(lr))
	}
	return obj{{"payment_links", items}}, nil
}

func (s *Sim) getLink(id string) (any, *razorpay.APIError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lr, ok := s.links[id]
	if !ok {
		return nil, notFound()
	}
	return s.linkWithPayments(lr), nil
}
