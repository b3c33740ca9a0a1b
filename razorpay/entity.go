package razorpay

import "encoding/json"

// Payment is a Razorpay payment entity (`entity: "payment"`, spec/razorpay.md §3.1). Amounts
// are integers in minor units of Currency; Fee and Tax are in minor units of the account's base
// currency (INR paise) even when Currency is not INR, and Fee includes Tax. Fee, Tax and
// BaseAmount are nil when Razorpay sent null or nothing (fees are only known after capture).
// Timestamps are unix seconds. Empty strings mean absent.
type Payment struct {
	ID               string            `json:"id"`
	Entity           string            `json:"entity"`
	Amount           int64             `json:"amount"`
	Currency         string            `json:"currency"`
	BaseAmount       *int64            `json:"base_amount"`
	BaseCurrency     string            `json:"base_currency"`
	Status           string            `json:"status"`
	OrderID          string            `json:"order_id"`
	InvoiceID        string            `json:"invoice_id"`
	International    Bool              `json:"international"`
	Method           string            `json:"method"`
	AmountRefunded   int64             `json:"amount_refunded"`
	RefundStatus     string            `json:"refund_status"`
	Captured         Bool              `json:"captured"`
	Description      string            `json:"description"`
	CardID           string            `json:"card_id"`
	Bank             string            `json:"bank"`
	Wallet           string            `json:"wallet"`
	VPA              string            `json:"vpa"`
	Email            string            `json:"email"`
	Contact          string            `json:"contact"`
	Notes            Notes             `json:"notes"`
	Fee              *int64            `json:"fee"`
	Tax              *int64            `json:"tax"`
	FeeBearer        string            `json:"fee_bearer"`
	ErrorCode        string            `json:"error_code"`
	ErrorDescription string            `json:"error_description"`
	ErrorSource      string            `json:"error_source"`
	ErrorStep        string            `json:"error_step"`
	ErrorReason      string            `json:"error_reason"`
	AcquirerData     map[string]string `json:"acquirer_data"`
	CreatedAt        int64             `json:"created_at"`
}

// UnmarshalJSON decodes a payment leniently (spec/razorpay.md §3 typing rules). It fails only
// when a required field has an unusable JSON type: id or currency not a string, an amount, fee
// or timestamp not an integer, captured outside the accepted spellings. Optional fields of an
// unusable type (notes, acquirer_data, international) read as absent; ParseEvent names them in
// Event.Warnings, a standalone decode (an API answer) drops the warning.
func (p *Payment) UnmarshalJSON(data []byte) error {
	return decodeEntity(p, "payment", paymentKeys, data)
}

// setEmpty sets the value an absent payment decodes to.
func (p *Payment) setEmpty() { *p = Payment{Notes: Notes{}, AcquirerData: map[string]string{}} }

// build reads the fields of o (a payment object) into p.
func (p *Payment) build(o *object) error {
	*p = Payment{
		ID:               o.str("id"),
		Entity:           o.text("entity"),
		Amount:           o.int64("amount"),
		Currency:         o.str("currency"),
		BaseAmount:       o.int64p("base_amount"),
		BaseCurrency:     o.str("base_currency"),
		Status:           o.text("status"),
		OrderID:          o.str("order_id"),
		InvoiceID:        o.text("invoice_id"),
		International:    opt(o, "international", o.boolean, false),
		Method:           o.text("method"),
		AmountRefunded:   o.int64("amount_refunded"),
		RefundStatus:     o.text("refund_status"),
		Captured:         o.boolean("captured"),
		Description:      o.text("description"),
		CardID:           o.text("card_id"),
		Bank:             o.text("bank"),
		Wallet:           o.text("wallet"),
		VPA:              o.text("vpa"),
		Email:            o.text("email"),
		Contact:          o.text("contact"),
		Notes:            Notes(opt(o, "notes", o.stringMap, map[string]string{})),
		Fee:              o.int64p("fee"),
		Tax:              o.int64p("tax"),
		FeeBearer:        o.text("fee_bearer"),
		ErrorCode:        o.text("error_code"),
		ErrorDescription: o.text("error_description"),
		ErrorSource:      o.text("error_source"),
		ErrorStep:        o.text("error_step"),
		ErrorReason:      o.text("error_reason"),
		AcquirerData:     opt(o, "acquirer_data", o.stringMap, map[string]string{}),
		CreatedAt:        o.int64("created_at"),
	}
	return o.err
}

// Order is a Razorpay order (`entity: "order"`, spec/razorpay.md §3.2). Amounts are integers
// in minor units of Currency; Receipt is the merchant's reference (often an ERPNext document
// name); CreatedAt is unix seconds.
type Order struct {
	ID         string `json:"id"`
	Entity     string `json:"entity"`
	Amount     int64  `json:"amount"`
	AmountPaid int64  `json:"amount_paid"`
	AmountDue  int64  `json:"amount_due"`
	Currency   string `json:"currency"`
	Receipt    string `json:"receipt"`
	Status     string `json:"status"`
	Attempts   int    `json:"attempts"`
	Notes      Notes  `json:"notes"`
	CreatedAt  int64  `json:"created_at"`
}

// UnmarshalJSON decodes an order leniently, with the same failure rules as Payment.
func (r *Order) UnmarshalJSON(data []byte) error { return decodeEntity(r, "order", orderKeys, data) }

// setEmpty sets the value an absent order decodes to.
func (r *Order) setEmpty() { *r = Order{Notes: Notes{}} }

// build reads the fields of o (a order object) into r.
func (r *Order) build(o *object) error {
	*r = Order{
		ID:         o.str("id"),
		Entity:     o.text("entity"),
		Amount:     o.int64("amount"),
		AmountPaid: o.int64("amount_paid"),
		AmountDue:  o.int64("amount_due"),
		Currency:   o.str("currency"),
		Receipt:    o.text("receipt"),
		Status:     o.text("status"),
		Attempts:   int(opt(o, "attempts", o.int64, 0)),
		Notes:      Notes(opt(o, "notes", o.stringMap, map[string]string{})),
		CreatedAt:  o.int64("created_at"),
	}
	return o.err
}

// PaymentLink is a Razorpay payment link as carried in payment_link.* webhooks (spec/razorpay.md
// §3.4; there is no `entity` field inside it). Amounts are minor units of Currency;
// ReferenceID is the merchant's reference; Customer holds any subset of name, email and contact
// (contact is free text, often without the country code); CreatedAt and UpdatedAt are unix
// seconds.
type PaymentLink struct {
	ID            string `json:"id"`
	Amount        int64  `json:"amount"`
	AmountPaid    int64  `json:"amount_paid"`
	Currency      string `json:"currency"`
	Status        string `json:"status"`
	ReferenceID   string `json:"reference_id"`
	Description   string `json:"description"`
	OrderID       string `json:"order_id"`
	ShortURL      string `json:"short_url"`
	AcceptPartial Bool   `json:"accept_partial"`
	Notes         Notes  `json:"notes"`
	Customer      struct {
		Name    string `json:"name"`
		Email   string `json:"email"`
		Contact string `json:"contact"`
	} `json:"customer"`
	CreatedAt int64 `json:"created_at"`
	UpdatedAt int64 `json:"updated_at"`
}

// UnmarshalJSON decodes a payment link leniently, with the same failure rules as Payment;
// notes may be null here, and customer may be {}, [] or null.
func (l *PaymentLink) UnmarshalJSON(data []byte) error {
	return decodeEntity(l, "payment_link", paymentLinkKeys, data)
}

// setEmpty sets the value an absent payment_link decodes to.
func (l *PaymentLink) setEmpty() { *l = PaymentLink{Notes: Notes{}} }

// build reads the fields of o (a payment_link object) into l.
func (l *PaymentLink) build(o *object) error {
	*l = PaymentLink{
		ID:            o.str("id"),
		Amount:        o.int64("amount"),
		AmountPaid:    o.int64("amount_paid"),
		Currency:      o.str("currency"),
		Status:        o.text("status"),
		ReferenceID:   o.text("reference_id"),
		Description:   o.text("description"),
		OrderID:       o.str("order_id"),
		ShortURL:      o.text("short_url"),
		AcceptPartial: opt(o, "accept_partial", o.boolean, false),
		Notes:         Notes(opt(o, "notes", o.stringMap, map[string]string{})),
		CreatedAt:     o.int64("created_at"),
		UpdatedAt:     opt(o, "updated_at", o.int64, 0),
	}
	if o.err != nil {
		return o.err
	}
	c, ok, err := decodeObject("payment_link.customer", customerKeys, o.raw("customer"))
	if err != nil && o.warn != nil {
		*o.warn = append(*o.warn, err.Error()+"; treated as absent")
	}
	if ok {
		l.Customer.Name = c.text("name")
		l.Customer.Email = c.text("email")
		l.Customer.Contact = c.text("contact")
	}
	return nil
}

// Refund is a Razorpay refund (`entity: "refund"`, spec/razorpay.md §3.3). Amount is in minor
// units of Currency (the payment's currency); Status is pending, processed or failed;
// AcquirerData holds arn, rrn or utr once known (null values are dropped); CreatedAt is unix
// seconds.
type Refund struct {
	ID             string            `json:"id"`
	Entity         string            `json:"entity"`
	Amount         int64             `json:"amount"`
	Currency       string            `json:"currency"`
	PaymentID      string            `json:"payment_id"`
	Status         string            `json:"status"`
	Receipt        string            `json:"receipt"`
	SpeedRequested string            `json:"speed_requested"`
	SpeedProcessed string            `json:"speed_processed"`
	BatchID        string            `json:"batch_id"`
	Notes          Notes             `json:"notes"`
	AcquirerData   map[string]string `json:"acquirer_data"`
	CreatedAt      int64             `json:"created_at"`
}

// UnmarshalJSON decodes a refund leniently, with the same failure rules as Payment.
func (r *Refund) UnmarshalJSON(data []byte) error { return decodeEntity(r, "refund", refundKeys, data) }

// setEmpty sets the value an absent refund decodes to.
func (r *Refund) setEmpty() { *r = Refund{Notes: Notes{}, AcquirerData: map[string]string{}} }

// build reads the fields of o (a refund object) into r.
func (r *Refund) build(o *object) error {
	*r = Refund{
		ID:             o.str("id"),
		Entity:         o.text("entity"),
		Amount:         o.int64("amount"),
		Currency:       o.str("currency"),
		PaymentID:      o.str("payment_id"),
		Status:         o.text("status"),
		Receipt:        o.text("receipt"),
		SpeedRequested: o.text("speed_requested"),
		SpeedProcessed: o.text("speed_processed"),
		BatchID:        o.text("batch_id"),
		Notes:          Notes(opt(o, "notes", o.stringMap, map[string]string{})),
		AcquirerData:   opt(o, "acquirer_data", o.stringMap, map[string]string{}),
		CreatedAt:      o.int64("created_at"),
	}
	return o.err
}

// Dispute is a Razorpay dispute (`entity: "dispute"`, spec/razorpay.md §3.6). Amounts are minor
// units of Currency; AmountDeducted is 0 unless the dispute is lost; Status is open,
// under_review, won, lost or closed; Phase is fraud, retrieval, chargeback, pre_arbitration or
// arbitration; ReasonDescription is sent by the API only (not in webhooks); RespondBy (the
// deadline for evidence) and CreatedAt are unix seconds, RespondBy 0 when absent.
type Dispute struct {
	ID                string `json:"id"`
	Entity            string `json:"entity"`
	PaymentID         string `json:"payment_id"`
	Amount            int64  `json:"amount"`
	AmountDeducted    int64  `json:"amount_deducted"`
	Currency          string `json:"currency"`
	Status            string `json:"status"`
	Phase             string `json:"phase"`
	ReasonCode        string `json:"reason_code"`
	ReasonDescription string `json:"reason_description"`
	RespondBy         int64  `json:"respond_by"`
	CreatedAt         int64  `json:"created_at"`
}

// UnmarshalJSON decodes a dispute leniently, with the same failure rules as Payment.
func (d *Dispute) UnmarshalJSON(data []byte) error {
	return decodeEntity(d, "dispute", disputeKeys, data)
}

// setEmpty sets the value an absent dispute decodes to.
func (d *Dispute) setEmpty() { *d = Dispute{} }

// build reads the fields of o (a dispute object) into d.
func (d *Dispute) build(o *object) error {
	*d = Dispute{
		ID:                o.str("id"),
		Entity:            o.text("entity"),
		PaymentID:         o.str("payment_id"),
		Amount:            o.int64("amount"),
		AmountDeducted:    o.int64("amount_deducted"),
		Currency:          o.str("currency"),
		Status:            o.text("status"),
		Phase:             o.text("phase"),
		ReasonCode:        o.text("reason_code"),
		ReasonDescription: o.text("reason_description"),
		RespondBy:         opt(o, "respond_by", o.int64, 0),
		CreatedAt:         o.int64("created_at"),
	}
	return o.err
}

// The fields each builder reads, in the order it reads them.
var (
	paymentKeys = newKeySet("id", "entity", "amount", "currency", "base_amount", "base_currency", "status",
		"order_id", "invoice_id", "international", "method", "amount_refunded", "refund_status", "captured",
		"description", "card_id", "bank", "wallet", "vpa", "email", "contact", "notes", "fee", "tax",
		"fee_bearer", "error_code", "error_description", "error_source", "error_step", "error_reason",
		"acquirer_data", "created_at")
	orderKeys = newKeySet("id", "entity", "amount", "amount_paid", "amount_due", "currency", "receipt",
		"status", "attempts", "notes", "created_at")
	paymentLinkKeys = newKeySet("id", "amount", "amount_paid", "currency", "status", "reference_id",
		"description", "order_id", "short_url", "accept_partial", "notes", "created_at", "updated_at", "customer")
	customerKeys = newKeySet("name", "email", "contact")
	refundKeys   = newKeySet("id", "entity", "amount", "currency", "payment_id", "status", "receipt",
		"speed_requested", "speed_processed", "batch_id", "notes", "acquirer_data", "created_at")
	disputeKeys = newKeySet("id", "entity", "payment_id", "amount", "amount_deducted", "currency", "status",
		"phase", "reason_code", "reason_description", "respond_by", "created_at")
	idKeys = newKeySet("id") // PeekEvent reads only the id of each entity
)

// entity is what decodeEntity needs of an entity type.
type entity[T any] interface {
	*T
	build(*object) error
	setEmpty()
}

// decodeEntity decodes one entity standalone (an API answer, or json.Unmarshal meeting an
// entity): an object is built; an absent value (null, "", [], {}) gives the empty entity; any
// other value, or text that is not JSON, is an error.
func decodeEntity[T any, P entity[T]](p P, name string, keys keySet, data []byte) error {
	o, ok, err := decodeObject(name, keys, data)
	if err != nil || !ok {
		p.setEmpty()
		return err
	}
	return p.build(o)
}

// compile-time checks that the entities decode leniently wherever encoding/json meets them.
var (
	_ json.Unmarshaler = (*Payment)(nil)
	_ json.Unmarshaler = (*Order)(nil)
	_ json.Unmarshaler = (*PaymentLink)(nil)
	_ json.Unmarshaler = (*Refund)(nil)
	_ json.Unmarshaler = (*Dispute)(nil)
	_ json.Unmarshaler = (*Notes)(nil)
	_ json.Unmarshaler = (*Bool)(nil)
)
