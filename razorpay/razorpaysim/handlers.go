package razorpaysim

import (
	"cmp"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

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

// lagging reports whether an entity added at `added` is still hidden from list endpoints.
func (s *Sim) lagging(added time.Time) bool {
	return s.faults.ListLag > 0 && s.now().Sub(added) < s.faults.ListLag
}

func (s *Sim) listPayments(q url.Values) (any, *razorpay.APIError) {
	p, e := parsePage(q, 100)
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var recs []*payRec
	for _, r := range s.payments {
		if p.in(r.p.CreatedAt) && !s.lagging(r.added) {
			recs = append(recs, r)
		}
	}
	newestFirst(recs, func(r *payRec) (int64, int64) { return r.p.CreatedAt, r.seq })
	var items []obj
	for _, r := range cut(recs, p) {
		items = append(items, s.renderPayment(&r.p))
	}
	return collectionOf(items), nil
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

func (s *Sim) listRefunds(q url.Values, paymentID string) (any, *razorpay.APIError) {
	p, e := parsePage(q, 100)
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if paymentID != "" {
		if _, ok := s.payments[paymentID]; !ok {
			return nil, notFound()
		}
	}
	var recs []*refundRec
	for _, r := range s.refunds {
		if paymentID != "" && r.r.PaymentID != paymentID {
			continue
		}
		if paymentID == "" && s.lagging(r.added) {
			continue
		}
		if p.in(r.r.CreatedAt) {
			recs = append(recs, r)
		}
	}
	newestFirst(recs, func(r *refundRec) (int64, int64) { return r.r.CreatedAt, r.seq })
	var items []obj
	for _, r := range cut(recs, p) {
		items = append(items, s.renderRefund(&r.r))
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
	if _, ok := s.orders[id]; !ok {
		return nil, notFound()
	}
	var recs []*payRec
	for _, r := range s.payments {
		if r.p.OrderID == id {
			recs = append(recs, r)
		}
	}
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

func (s *Sim) listSettlements(q url.Values) (any, *razorpay.APIError) {
	p, e := parsePage(q, 100)
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var recs []*settleRec
	for _, sr := range s.settlements {
		if p.in(sr.st.CreatedAt) {
			recs = append(recs, sr)
		}
	}
	slices.Reverse(recs) // appended oldest first
	var items []obj
	for _, sr := range cut(recs, p) {
		items = append(items, renderSettlement(&sr.st))
	}
	return collectionOf(items), nil
}

func (s *Sim) getSettlement(id string) (any, *razorpay.APIError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sr := range s.settlements {
		if sr.st.ID == id {
			return renderSettlement(&sr.st), nil
		}
	}
	return nil, notFound()
}

// recon serves GET /v1/settlements/recon/combined: rows of the settlements made on the given
// IST calendar year/month[/day] (spec/razorpay.md §3.5, §5.2).
func (s *Sim) recon(q url.Values) (any, *razorpay.APIError) {
	p, e := parsePage(q, 1000)
	if e != nil {
		return nil, e
	}
	num := func(name string, lo, hi int, required bool, msg string) (int, *razorpay.APIError) {
		v := q.Get(name)
		if v == "" {
			if required {
				return 0, badRequest("The "+name+" field is required.", name)
			}
			return 0, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || !integer.MatchString(v) || n < lo || n > hi {
			return 0, badRequest(msg, name)
		}
		return n, nil
	}
	year, e := num("year", 1000, 9999, true, "The year must be 4 digits.")
	if e != nil {
		return nil, e
	}
	month, e := num("month", 1, 12, true, "The month must be between 1 and 12.")
	if e != nil {
		return nil, e
	}
	day, e := num("day", 1, 31, false, "The day must be between 1 and 31.")
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var rows []ReconItem
	for _, sr := range s.settlements {
		t := time.Unix(sr.st.CreatedAt, 0).In(ist)
		if t.Year() != year || int(t.Month()) != month || (day != 0 && t.Day() != day) {
			continue
		}
		rows = append(rows, sr.items...)
	}
	rows = cut(rows, p)
	items := make([]any, len(rows))
	for i := range rows {
		raw, _ := json.Marshal(rows[i])
		items[i] = json.RawMessage(raw)
	}
	return obj{{"entity", "collection"}, {"count", len(rows)}, {"items", items}}, nil
}
