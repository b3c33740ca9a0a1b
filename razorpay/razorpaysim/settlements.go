package razorpaysim

import (
	"cmp"
	"errors"
	"slices"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Settlement is a Razorpay settlement (spec/razorpay.md §3.5): Amount is the net payout in INR
// paise; Fees and Tax are 0 for scheduled settlements; UTR is the bank reference; CreatedAt is
// unix seconds.
type Settlement struct {
	ID        string `json:"id"`
	Entity    string `json:"entity"`
	Amount    int64  `json:"amount"`
	Status    string `json:"status"`
	Fees      int64  `json:"fees"`
	Tax       int64  `json:"tax"`
	UTR       string `json:"utr"`
	CreatedAt int64  `json:"created_at"`
}

// ReconItem is one row of GET /v1/settlements/recon/combined (spec/razorpay.md §3.5): a payment
// (Credit = amount − fee, in INR paise) or a refund (Debit = refund amount in INR paise). Notes
// is a string here, not an object. PaymentID is the parent payment of a refund ("" → null).
type ReconItem struct {
	EntityID      string  `json:"entity_id"`
	Type          string  `json:"type"`
	Debit         int64   `json:"debit"`
	Credit        int64   `json:"credit"`
	Amount        int64   `json:"amount"`
	Currency      string  `json:"currency"`
	Fee           int64   `json:"fee"`
	Tax           int64   `json:"tax"`
	OnHold        bool    `json:"on_hold"`
	Settled       bool    `json:"settled"`
	CreatedAt     int64   `json:"created_at"`
	SettledAt     int64   `json:"settled_at"`
	SettlementID  string  `json:"settlement_id"`
	SettlementUTR string  `json:"settlement_utr"`
	Description   string  `json:"description"`
	Notes         string  `json:"notes"`
	PaymentID     *string `json:"payment_id"`
	OrderID       *string `json:"order_id"`
	Method        *string `json:"method"`
}

type settleRec struct {
	st    Settlement
	items []ReconItem
	at    time.Time
}

// ErrNothingToSettle is returned by Settle when no captured payment or processed refund is
// waiting for settlement.
var ErrNothingToSettle = errors.New("razorpaysim: nothing to settle")

// ist is Asia/Kolkata (UTC+05:30, no DST), the calendar the recon endpoint's year/month/day use.
var ist = time.FixedZone("IST", 5*3600+1800)

// Settle pays out every captured payment and processed refund not settled yet: a settlement
// with Amount = Σ(base_amount − fee) − Σ refunds (INR paise) and a UTR, recon rows for each
// entity, and a settlement.processed webhook (checklist item 21). It returns
// ErrNothingToSettle when there is nothing to pay out.
func (s *Sim) Settle() (*Settlement, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	st := Settlement{
		ID: "setl_" + s.randID(), Entity: "settlement", Status: "processed",
		UTR: "HDFCN" + now.In(ist).Format("20060102") + digits(s, 6), CreatedAt: now.Unix(),
	}
	var items []ReconItem
	for _, pr := range s.sortedPayments() {
		p := &pr.p
		if pr.settled || (p.Status != "captured" && p.Status != "refunded") {
			continue
		}
		pr.settled = true
		base := p.Amount
		if p.BaseAmount != nil {
			base = *p.BaseAmount
		}
		var fee, tax int64
		if p.Fee != nil {
			fee = *p.Fee
		}
		if p.Tax != nil {
			tax = *p.Tax
		}
		items = append(items, ReconItem{
			EntityID: p.ID, Type: "payment", Credit: base - fee, Amount: base, Currency: "INR",
			Fee: fee, Tax: tax, Settled: true, CreatedAt: p.CreatedAt, SettledAt: st.CreatedAt,
			SettlementID: st.ID, SettlementUTR: st.UTR, Description: p.Description,
			Notes:   string(encode(notesValue(p.Notes, obj{}), Quirks{})),
			OrderID: strPtr(p.OrderID), Method: strPtr(p.Method),
		})
	}
	for _, rr := range s.sortedRefunds() {
		r := &rr.r
		if rr.settled || r.Status != "processed" {
			continue
		}
		rr.settled = true
		exp, _ := razorpay.Exponent(r.Currency)
		inr := s.toINR(r.Amount, r.Currency, exp)
		items = append(items, ReconItem{
			EntityID: r.ID, Type: "refund", Debit: inr, Amount: inr, Currency: "INR",
			Settled: true, CreatedAt: r.CreatedAt, SettledAt: st.CreatedAt, SettlementID: st.ID,
			SettlementUTR: st.UTR, Notes: string(encode(notesValue(r.Notes, obj{}), Quirks{})),
			PaymentID: strPtr(r.PaymentID),
		})
	}
	if len(items) == 0 {
		return nil, ErrNothingToSettle
	}
	for _, it := range items {
		st.Amount += it.Credit - it.Debit
	}
	s.settlements = append(s.settlements, &settleRec{st: st, items: items, at: now})
	payload := obj{{"settlement", wrap(renderSettlement(&st))}}
	s.dispatch([]*event{s.newEvent("settlement.processed", []string{"settlement"}, payload, now.Unix(), false)},
		s.ordering(""), false, false)
	out := st
	return &out, nil
}

func renderSettlement(st *Settlement) obj {
	return obj{
		{"id", st.ID}, {"entity", "settlement"}, {"amount", st.Amount}, {"status", st.Status},
		{"fees", st.Fees}, {"tax", st.Tax}, {"utr", st.UTR}, {"created_at", st.CreatedAt},
	}
}

func strPtr(v string) *string {
	if v == "" {
		return nil
	}
	return &v
}

// settleLoop settles at a fixed (scaled) interval until Close.
func (s *Sim) settleLoop(every time.Duration) {
	defer s.wg.Done()
	if every <= 0 {
		every = time.Millisecond
	}
	for s.sleep(every) {
		_, _ = s.Settle()
	}
}

// sortedPayments returns payments oldest first; the caller holds s.mu.
func (s *Sim) sortedPayments() []*payRec {
	out := make([]*payRec, 0, len(s.payments))
	for _, p := range s.payments {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *payRec) int {
		if a.p.CreatedAt != b.p.CreatedAt {
			return cmp.Compare(a.p.CreatedAt, b.p.CreatedAt)
		}
		return cmp.Compare(a.seq, b.seq)
	})
	return out
}

// sortedRefunds returns refunds oldest first; the caller holds s.mu.
func (s *Sim) sortedRefunds() []*refundRec {
	out := make([]*refundRec, 0, len(s.refunds))
	for _, r := range s.refunds {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *refundRec) int {
		if a.r.CreatedAt != b.r.CreatedAt {
			return cmp.Compare(a.r.CreatedAt, b.r.CreatedAt)
		}
		return cmp.Compare(a.seq, b.seq)
	})
	return out
}
