package razorpaysim

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// field is one key of an ordered JSON object; obj keeps Razorpay's key order.
type field struct {
	k string
	v any
}

type obj []field

// sorted marks a value whose objects are written with keys in alphabetical order at every
// level, as Razorpay writes payment_link.* bodies (spec/razorpay.md §1.1).
type sorted struct{ v any }

// encode writes compact JSON without HTML escaping; quirks.EscapeSlashes turns "/" into "\/"
// (a "/" can only occur inside JSON strings, so the replacement is safe).
func encode(v any, q Quirks) []byte {
	var b bytes.Buffer
	return encodeTo(&b, v, q)
}

// encodeTo is encode into b (reset first); the result aliases b unless slashes are escaped.
func encodeTo(b *bytes.Buffer, v any, q Quirks) []byte {
	b.Reset()
	write(b, v, false)
	if q.EscapeSlashes {
		return bytes.ReplaceAll(b.Bytes(), []byte("/"), []byte(`\/`))
	}
	return b.Bytes()
}

// answers recycles the buffers API answers are encoded in (a page of 100 payments is ~150 KB).
var answers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func write(b *bytes.Buffer, v any, sortKeys bool) {
	switch x := v.(type) {
	case sorted:
		write(b, x.v, true)
	case obj:
		fs := x
		if sortKeys {
			fs = slices.Clone(x)
			slices.SortStableFunc(fs, func(a, c field) int { return strings.Compare(a.k, c.k) })
		}
		b.WriteByte('{')
		for i, f := range fs {
			if i > 0 {
				b.WriteByte(',')
			}
			scalar(b, f.k)
			b.WriteByte(':')
			write(b, f.v, sortKeys)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			write(b, e, sortKeys)
		}
		b.WriteByte(']')
	case []obj:
		items := make([]any, len(x))
		for i := range x {
			items[i] = x[i]
		}
		write(b, items, sortKeys)
	default:
		scalar(b, v)
	}
}

// scalar writes one JSON scalar (or a string map or slice) without HTML escaping. Integers,
// booleans, null and plain ASCII strings — nearly everything the simulator writes — take a
// fast path that gives the same bytes as encoding/json; anything else goes through it.
func scalar(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
		return
	case bool:
		b.WriteString(strconv.FormatBool(x))
		return
	case int:
		b.Write(strconv.AppendInt(b.AvailableBuffer(), int64(x), 10))
		return
	case int64:
		b.Write(strconv.AppendInt(b.AvailableBuffer(), x, 10))
		return
	case string:
		if plainASCII(x) {
			b.WriteByte('"')
			b.WriteString(x)
			b.WriteByte('"')
			return
		}
	}
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // only strings, numbers, bools, nil, string maps and slices reach here
	b.Truncate(b.Len() - 1)
}

// plainASCII reports whether s is printable ASCII without a quote or a backslash: JSON
// writes such a string as it is.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// nullable renders "" as null.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// notesValue renders notes: an object when non-empty, otherwise empty (Razorpay writes [] on
// payments, orders and refunds and null on payment links, spec/razorpay.md §3).
func notesValue(n razorpay.Notes, empty any) any {
	if len(n) == 0 {
		return empty
	}
	return stringObj(n)
}

// stringObj renders a string map with sorted keys.
func stringObj(m map[string]string) obj {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	o := make(obj, 0, len(keys))
	for _, k := range keys {
		o = append(o, field{k, m[k]})
	}
	return o
}

func int64Value(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func (rn *renderer) boolValue(v bool) any {
	if rn.opt.Quirks.CapturedAsString {
		if v {
			return "1"
		}
		return "0"
	}
	return v
}

// renderPayment renders a payment in Razorpay's key order (spec/razorpay.md §3.1 and the
// reference payloads). Card payments carry a card object and "" in empty error fields; UPI
// payments a upi object.
func (rn *renderer) renderPayment(p *razorpay.Payment) obj {
	errText := func(v string) any { return nullable(v) }
	if p.Method == "card" {
		errText = func(v string) any { return v }
	}
	o := append(make(obj, 0, 48), obj{ // 48: every field below, without growing
		{"id", p.ID}, {"entity", "payment"}, {"amount", p.Amount}, {"currency", p.Currency},
		{"status", p.Status}, {"order_id", nullable(p.OrderID)}, {"invoice_id", nullable(p.InvoiceID)},
		{"international", bool(p.International)}, {"method", p.Method},
		{"amount_refunded", p.AmountRefunded}, {"amount_transferred", 0},
		{"refund_status", nullable(p.RefundStatus)}, {"captured", rn.boolValue(bool(p.Captured))},
		{"description", nullable(p.Description)}, {"card_id", nullable(p.CardID)},
	}...)
	if p.Method == "card" {
		issuer := any(cardIssuer)
		if p.International {
			issuer = nil
		}
		o = append(o, field{"card", obj{
			{"id", p.CardID}, {"entity", "card"}, {"name", "Test Customer"}, {"last4", "1111"},
			{"network", cardNetwork}, {"type", cardType}, {"issuer", issuer},
			{"international", bool(p.International)}, {"emi", false}, {"sub_type", "consumer"},
			{"token_iin", nil},
		}})
	}
	o = append(o,
		field{"bank", nullable(p.Bank)}, field{"wallet", nullable(p.Wallet)}, field{"vpa", nullable(p.VPA)},
		field{"email", nullable(p.Email)}, field{"contact", nullable(p.Contact)},
		field{"notes", notesValue(p.Notes, []any{})},
		field{"fee", int64Value(p.Fee)}, field{"tax", int64Value(p.Tax)},
		field{"error_code", errText(p.ErrorCode)}, field{"error_description", errText(p.ErrorDescription)},
		field{"error_source", errText(p.ErrorSource)}, field{"error_step", errText(p.ErrorStep)},
		field{"error_reason", errText(p.ErrorReason)},
		field{"acquirer_data", stringObj(p.AcquirerData)},
		field{"created_at", p.CreatedAt},
	)
	if p.Method == "upi" && p.VPA != "" {
		o = append(o, field{"upi", obj{{"payer_account_type", "bank_account"}, {"vpa", p.VPA}, {"flow", "intent"}}})
	}
	o = append(o, field{"token_id", nil})
	if p.BaseAmount != nil {
		o = append(o, field{"base_amount", *p.BaseAmount})
	}
	if p.BaseCurrency != "" {
		o = append(o, field{"base_currency", p.BaseCurrency})
	}
	if p.FeeBearer != "" {
		o = append(o, field{"fee_bearer", p.FeeBearer})
	}
	if rn.opt.Quirks.ExtraFields {
		o = append(o, field{"reward", nil}, field{"provider", nil}, field{"gateway_provider", "Razorpay"})
	}
	return o
}

// renderOrder renders an order (spec/razorpay.md §3.2).
func (rn *renderer) renderOrder(r *razorpay.Order) obj {
	return obj{
		{"id", r.ID}, {"entity", "order"}, {"amount", r.Amount}, {"amount_paid", r.AmountPaid},
		{"amount_due", r.AmountDue}, {"currency", r.Currency}, {"receipt", nullable(r.Receipt)},
		{"offer_id", nil}, {"status", r.Status}, {"attempts", r.Attempts},
		{"notes", notesValue(r.Notes, []any{})}, {"created_at", r.CreatedAt},
	}
}

// renderRefund renders a refund (spec/razorpay.md §3.3); acquirer_data is {"arn": null} until
// the bank reference is known.
func (rn *renderer) renderRefund(r *razorpay.Refund) obj {
	acq := any(obj{{"arn", nil}})
	if len(r.AcquirerData) > 0 {
		acq = stringObj(r.AcquirerData)
	}
	return obj{
		{"id", r.ID}, {"entity", "refund"}, {"amount", r.Amount}, {"currency", r.Currency},
		{"payment_id", r.PaymentID}, {"notes", notesValue(r.Notes, []any{})},
		{"receipt", nullable(r.Receipt)}, {"acquirer_data", acq}, {"created_at", r.CreatedAt},
		{"batch_id", nil}, {"status", r.Status}, {"speed_processed", r.SpeedProcessed},
		{"speed_requested", r.SpeedRequested},
	}
}

// renderLink renders a payment link (spec/razorpay.md §3.4): no entity key, notes null when
// empty, unset timestamps 0, user_id "". Written with sorted keys (wrap in sorted when encoding).
func (rn *renderer) renderLink(l *razorpay.PaymentLink, withPayments []obj) obj {
	o := obj{
		{"id", l.ID}, {"amount", l.Amount}, {"amount_paid", l.AmountPaid}, {"currency", l.Currency},
		{"accept_partial", bool(l.AcceptPartial)}, {"first_min_partial_amount", 0},
		{"status", l.Status}, {"reference_id", nullable(l.ReferenceID)},
		{"description", nullable(l.Description)},
		{"customer", obj{{"contact", l.Customer.Contact}, {"email", l.Customer.Email}, {"name", l.Customer.Name}}},
		{"notes", notesValue(l.Notes, nil)},
		{"notify", obj{{"email", true}, {"sms", true}, {"whatsapp", false}}},
		{"reminder_enable", true}, {"reminders", obj{}},
		{"short_url", l.ShortURL}, {"callback_url", "https://erp.example.com/payment-return"},
		{"callback_method", "get"}, {"order_id", nullable(l.OrderID)},
		{"expire_by", l.CreatedAt + 15*86400}, {"expired_at", 0}, {"cancelled_at", 0},
		{"upi_link", false}, {"whatsapp_link", false}, {"user_id", ""},
		{"created_at", l.CreatedAt}, {"updated_at", l.UpdatedAt},
	}
	if withPayments != nil {
		items := make([]any, len(withPayments))
		for i := range withPayments {
			items[i] = withPayments[i]
		}
		o = append(o, field{"payments", items})
	}
	return o
}

// collectionOf renders a list answer: count is the number of items in this page
// (spec/razorpay.md §5.1).
func collectionOf(items []obj) obj {
	list := make([]any, len(items))
	for i := range items {
		list[i] = items[i]
	}
	return obj{{"entity", "collection"}, {"count", len(items)}, {"items", list}}
}
