package razorpaysim

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// ist is Asia/Kolkata (UTC+05:30, no DST): UTR dates and the recon endpoint's year/month/day
// (razorpay.Settlement.ReconDay).
var ist = time.FixedZone("IST", 5*3600+1800)

// Card details the simulator gives every card payment (renderPayment's card object and the
// recon rows).
const (
	cardNetwork = "Visa"
	cardIssuer  = "HDFC"
	cardType    = "credit"
)

// paymentRow is a payment's recon row: Credit = base_amount − fee in INR paise, Fee with its
// GST (Tax) inside, notes as JSON text (spec/razorpay.md §3.5). The caller holds s.mu.
func (stl *settlements) paymentRow(pr *payRec) razorpay.ReconItem {
	p := &pr.p
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
	row := razorpay.ReconItem{
		EntityID: p.ID, Type: razorpay.ReconPayment, Credit: base - fee, Amount: base,
		Currency: "INR", Fee: fee, Tax: tax, CreatedAt: p.CreatedAt, CreditType: "default",
		Description: p.Description, Notes: notesText(p.Notes),
	}
	stl.describePayment(&row, p)
	return row
}

// describePayment copies a payment's order, method and card onto a row; the caller holds s.mu.
func (stl *settlements) describePayment(row *razorpay.ReconItem, p *razorpay.Payment) {
	row.OrderID, row.Method = p.OrderID, p.Method
	if or, ok := stl.st.orders[p.OrderID]; ok {
		row.OrderReceipt = or.o.Receipt
	}
	if p.Method == "card" {
		row.CardNetwork, row.CardType = cardNetwork, cardType
		if !p.International {
			row.CardIssuer = cardIssuer
		}
	}
}

// refundRow is a processed refund's recon row: Debit = the refund in INR paise, PaymentID the
// refunded payment. The caller holds s.mu.
func (stl *settlements) refundRow(rr *refundRec) razorpay.ReconItem {
	r := &rr.r
	inr := stl.payments.toINR(r.Amount, r.Currency)
	row := razorpay.ReconItem{
		EntityID: r.ID, Type: razorpay.ReconRefund, Debit: inr, Amount: inr, Currency: "INR",
		CreatedAt: r.CreatedAt, CreditType: "default", Notes: notesText(r.Notes), PaymentID: r.PaymentID,
	}
	if pr, ok := stl.st.payments[r.PaymentID]; ok {
		stl.describePayment(&row, &pr.p)
	}
	return row
}

// notesText renders notes as a recon row carries them: JSON text, "{}" when empty.
func notesText(n razorpay.Notes) string {
	return string(encode(notesValue(n, obj{}), Quirks{}))
}

// renderSettlement renders a settlement in the key order of Razorpay's samples; utr is null
// while none is known.
func renderSettlement(st *razorpay.Settlement) obj {
	return obj{
		{"id", st.ID}, {"entity", "settlement"}, {"amount", st.Amount}, {"status", st.Status},
		{"fees", st.Fees}, {"tax", st.Tax}, {"utr", nullable(st.UTR)}, {"created_at", st.CreatedAt},
	}
}

// renderRecon renders a recon row in the key order of Razorpay's sample (markdown-docs
// api/settlements/fetch-recon.md): absent text as null, settled_at null until settled,
// posted_at null, no credit_type on adjustments, notes a string on payments and refunds and
// null on transfers and adjustments.
func renderRecon(r *razorpay.ReconItem) obj {
	var settledAt any
	if r.SettledAt != 0 {
		settledAt = r.SettledAt
	}
	o := obj{
		{"entity_id", r.EntityID}, {"type", r.Type}, {"debit", r.Debit}, {"credit", r.Credit},
		{"amount", r.Amount}, {"currency", r.Currency}, {"fee", r.Fee}, {"tax", r.Tax},
		{"on_hold", bool(r.OnHold)}, {"settled", bool(r.Settled)}, {"created_at", r.CreatedAt},
		{"settled_at", settledAt}, {"settlement_id", r.SettlementID}, {"posted_at", nil},
	}
	if r.Type != razorpay.ReconAdjustment {
		o = append(o, field{"credit_type", nullable(r.CreditType)})
	}
	return append(o,
		field{"description", nullable(r.Description)}, field{"notes", nullable(r.Notes)},
		field{"payment_id", nullable(r.PaymentID)}, field{"settlement_utr", nullable(r.SettlementUTR)},
		field{"order_id", nullable(r.OrderID)}, field{"order_receipt", nullable(r.OrderReceipt)},
		field{"method", nullable(r.Method)}, field{"card_network", nullable(r.CardNetwork)},
		field{"card_issuer", nullable(r.CardIssuer)}, field{"card_type", nullable(r.CardType)},
		field{"dispute_id", nullable(r.DisputeID)},
	)
}

// listSettlements serves GET /v1/settlements: newest first, from/to on created_at, count
// 1–100, skip, list lag (spec/razorpay.md §5.2).
func (ap *api) listSettlements(q url.Values) (any, *razorpay.APIError) {
	return listed(ap, q, ap.st.settleList, func(r *settleRec) obj { return renderSettlement(&r.st) })
}

func (ap *api) getSettlement(id string) (any, *razorpay.APIError) {
	ap.st.mu.Lock()
	defer ap.st.mu.Unlock()
	rec, ok := ap.st.settlements[id]
	if !ok {
		return nil, notFound()
	}
	return renderSettlement(&rec.st), nil
}

// reconPeriod validates year, month and day of the recon endpoint with Razorpay's messages
// (markdown-docs api/settlements/fetch-recon.md) and returns the IST period [from, to] in unix
// seconds.
func reconPeriod(q url.Values) (from, to int64, e *razorpay.APIError) {
	num := func(name string, digits, lo, hi int, required bool, msg string) (int, *razorpay.APIError) {
		v, ok := q[name]
		if !ok || strings.TrimSpace(v[0]) == "" {
			if required {
				return 0, badRequest("The "+name+" field is required.", name)
			}
			return 0, nil
		}
		t := strings.TrimSpace(v[0])
		n, err := strconv.Atoi(t)
		if err != nil || !integer.MatchString(t) || len(t) > digits || (digits == 4 && len(t) != 4) || n < lo || n > hi {
			return 0, badRequest(msg, name)
		}
		return n, nil
	}
	year, e := num("year", 4, 1000, 9999, true, "The year must be 4 digits.")
	if e != nil {
		return 0, 0, e
	}
	month, e := num("month", 2, 1, 12, true, "The month is not a valid month.")
	if e != nil {
		return 0, 0, e
	}
	day, e := num("day", 2, 1, 31, false, "The day must be between 1 and 2 digits.")
	if e != nil {
		return 0, 0, e
	}
	start := time.Date(year, time.Month(month), max(day, 1), 0, 0, 0, 0, ist)
	end := start.AddDate(0, 1, 0)
	if day != 0 {
		end = start.AddDate(0, 0, 1)
	}
	return start.Unix(), end.Unix() - 1, nil
}

// recon serves GET /v1/settlements/recon/combined: the rows of the settlements created on the
// IST day (or month) asked for, settlements oldest first and each one's rows in order, then
// skip and count (1–1000) over rows (spec/razorpay.md §3.5, §5.2). Settlements still hidden by
// list lag are left out. Cost: O(log n + settlements of the period + count).
func (ap *api) recon(q url.Values) (any, *razorpay.APIError) {
	p, e := parsePage(q, 1000)
	if e != nil {
		return nil, e
	}
	from, to, e := reconPeriod(q)
	if e != nil {
		return nil, e
	}
	ap.st.mu.Lock()
	defer ap.st.mu.Unlock()
	hidden := map[*settleRec]bool{}
	for _, r := range ap.st.settleList.hidden(ap.now(), ap.st.faults.ListLag) {
		hidden[r] = true
	}
	x := &ap.st.settleList.byCreated
	lo, hi := x.window(from, to)
	items := []any{}
	skip := p.skip
	for _, rec := range x.items[lo:hi] {
		if hidden[rec] {
			continue
		}
		if skip >= len(rec.rows) {
			skip -= len(rec.rows)
			continue
		}
		for i := skip; i < len(rec.rows) && len(items) < p.count; i++ {
			items = append(items, renderRecon(&rec.rows[i]))
		}
		skip = 0
		if len(items) == p.count {
			break
		}
	}
	return obj{{"entity", "collection"}, {"count", len(items)}, {"items", items}}, nil
}
