package razorpay

import (
	"bytes"
	"encoding/json"
	"time"
)

// Settlement statuses (spec/razorpay.md §3.5). Failed is not final: Razorpay retries the
// transfer and the same settlement can still become processed. Processed means the transfer
// to the bank was initiated; the credit can take up to ~3 h (NEFT/RTGS/IMPS).
const (
	SettlementCreated   = "created"
	SettlementProcessed = "processed"
	SettlementFailed    = "failed"
)

// Recon item types (spec/razorpay.md §3.5).
const (
	ReconPayment    = "payment"
	ReconRefund     = "refund"
	ReconTransfer   = "transfer"
	ReconAdjustment = "adjustment"
)

// Settlement is a Razorpay settlement (`entity: "settlement"`, spec/razorpay.md §3.5): Amount
// is the net paid out, in INR paise (there is no currency field); Fees and Tax are 0 for
// scheduled settlements and set for instant ones, Fees including Tax as a payment's fee does
// (razorpay-go testdata/fake_instant_settlement.json: 200000 requested, fees 590 with tax 90,
// 199410 settled); UTR is the bank reference on the statement, "" while none is known;
// CreatedAt is unix seconds.
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

// UnmarshalJSON decodes a settlement leniently, with the same failure rules as Payment.
func (s *Settlement) UnmarshalJSON(data []byte) error {
	return decodeEntity(s, "settlement", settlementKeys, data)
}

// setEmpty sets the value an absent settlement decodes to.
func (s *Settlement) setEmpty() { *s = Settlement{} }

// build reads the fields of o (a settlement object) into s.
func (s *Settlement) build(o *object) error {
	*s = Settlement{
		ID:        o.str("id"),
		Entity:    o.text("entity"),
		Amount:    o.int64("amount"),
		Status:    o.text("status"),
		Fees:      o.int64("fees"),
		Tax:       o.int64("tax"),
		UTR:       o.text("utr"),
		CreatedAt: o.int64("created_at"),
	}
	return o.err
}

// ist is Asia/Kolkata (UTC+05:30, no DST), Razorpay's business calendar.
var ist = time.FixedZone("IST", 5*3600+1800)

// ReconDay returns the date to ask GET /v1/settlements/recon/combined for to get this
// settlement's rows: the Indian calendar date (Asia/Kolkata) of CreatedAt. Razorpay documents
// year/month/day as the date the settlement was made (markdown-docs
// api/settlements/fetch-recon.md); that the calendar is IST is our inference, and the
// simulator follows it.
func (s *Settlement) ReconDay() (year, month, day int) {
	t := time.Unix(s.CreatedAt, 0).In(ist)
	return t.Year(), int(t.Month()), t.Day()
}

// Discrepancy returns by how many paise the settlement's Amount exceeds what its recon rows
// add up to: Amount − (Σ Credit − Σ Debit − Fees), counting only rows whose SettlementID is
// s.ID. It is 0 when Razorpay's figures agree, which is the identity
// net = payments ± adjustments − refunds − fees − tax − transfers of spec/razorpay.md §3.5,
// since a payment row's Credit is already amount − fee (fee including GST) and a transfer
// row's Debit is amount + fee. Fees of the settlement itself include its Tax.
func (s *Settlement) Discrepancy(rows []ReconItem) int64 {
	net := -s.Fees
	for i := range rows {
		if rows[i].SettlementID == s.ID {
			net += rows[i].Credit - rows[i].Debit
		}
	}
	return s.Amount - net
}

// ReconItem is one row of GET /v1/settlements/recon/combined (spec/razorpay.md §3.5; shape
// from markdown-docs api/settlements/fetch-recon.md and razorpay-go
// testdata/settlement_report_collection.json). Amounts are INR paise: a payment row has
// Credit = Amount − Fee (Fee includes Tax, the GST part); a refund row has Debit = Amount and
// PaymentID set; a transfer row has Debit = Amount + Fee; an adjustment row has either, often
// no SettlementUTR, and DisputeID set when it is a dispute deduction. Notes is a string here
// (free text or JSON text such as "{}"), not an object. Timestamps are unix seconds, 0 when
// null. Empty strings mean absent.
type ReconItem struct {
	EntityID      string `json:"entity_id"`
	Type          string `json:"type"`
	Debit         int64  `json:"debit"`
	Credit        int64  `json:"credit"`
	Amount        int64  `json:"amount"`
	Currency      string `json:"currency"`
	Fee           int64  `json:"fee"`
	Tax           int64  `json:"tax"`
	OnHold        Bool   `json:"on_hold"`
	Settled       Bool   `json:"settled"`
	CreatedAt     int64  `json:"created_at"`
	SettledAt     int64  `json:"settled_at"`
	SettlementID  string `json:"settlement_id"`
	SettlementUTR string `json:"settlement_utr"`
	PostedAt      int64  `json:"posted_at"`
	CreditType    string `json:"credit_type"`
	Description   string `json:"description"`
	Notes         string `json:"notes"`
	PaymentID     string `json:"payment_id"`
	OrderID       string `json:"order_id"`
	OrderReceipt  string `json:"order_receipt"`
	Method        string `json:"method"`
	CardNetwork   string `json:"card_network"`
	CardIssuer    string `json:"card_issuer"`
	CardType      string `json:"card_type"`
	DisputeID     string `json:"dispute_id"`
}

// UnmarshalJSON decodes a recon row leniently, with the same failure rules as Payment. Notes
// keeps a string as it is and turns an object or array into its compact JSON text.
func (r *ReconItem) UnmarshalJSON(data []byte) error {
	return decodeEntity(r, "recon_item", reconItemKeys, data)
}

// setEmpty sets the value an absent recon row decodes to.
func (r *ReconItem) setEmpty() { *r = ReconItem{} }

// build reads the fields of o (a recon row) into r.
func (r *ReconItem) build(o *object) error {
	*r = ReconItem{
		EntityID:      o.str("entity_id"),
		Type:          o.text("type"),
		Debit:         o.int64("debit"),
		Credit:        o.int64("credit"),
		Amount:        o.int64("amount"),
		Currency:      o.str("currency"),
		Fee:           o.int64("fee"),
		Tax:           o.int64("tax"),
		OnHold:        o.boolean("on_hold"),
		Settled:       o.boolean("settled"),
		CreatedAt:     o.int64("created_at"),
		SettledAt:     o.int64("settled_at"),
		SettlementID:  o.str("settlement_id"),
		SettlementUTR: o.text("settlement_utr"),
		PostedAt:      o.int64("posted_at"),
		CreditType:    o.text("credit_type"),
		Description:   o.text("description"),
		Notes:         jsonText(o.raw("notes")),
		PaymentID:     o.str("payment_id"),
		OrderID:       o.str("order_id"),
		OrderReceipt:  o.text("order_receipt"),
		Method:        o.text("method"),
		CardNetwork:   o.text("card_network"),
		CardIssuer:    o.text("card_issuer"),
		CardType:      o.text("card_type"),
		DisputeID:     o.str("dispute_id"),
	}
	return o.err
}

// jsonText renders a value that should be text: strings unquoted, objects and arrays as
// compact JSON text, null or missing as "".
func jsonText(raw []byte) string {
	if len(raw) > 0 && (raw[0] == '{' || raw[0] == '[') {
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err == nil {
			return b.String()
		}
	}
	s, _ := valueText(raw)
	return s
}

// compile-time checks that settlements and recon rows decode leniently wherever
// encoding/json meets them.
var (
	_ json.Unmarshaler = (*Settlement)(nil)
	_ json.Unmarshaler = (*ReconItem)(nil)
)

// The fields the settlement builders read, in the order they read them.
var (
	settlementKeys = newKeySet("id", "entity", "amount", "status", "fees", "tax", "utr", "created_at")
	reconItemKeys  = newKeySet("entity_id", "type", "debit", "credit", "amount", "currency", "fee", "tax",
		"on_hold", "settled", "created_at", "settled_at", "settlement_id", "settlement_utr", "posted_at",
		"credit_type", "description", "notes", "payment_id", "order_id", "order_receipt", "method",
		"card_network", "card_issuer", "card_type", "dispute_id")
)
