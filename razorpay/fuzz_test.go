package razorpay_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// FuzzParseEvent decodes arbitrary bodies (seeded in testdata/fuzz/FuzzParseEvent with the
// sample payloads of shared/reference/razorpay-payloads). For every input: no panic; an error's
// text is valid UTF-8; a parsed event holds only valid UTF-8, has the business key of the entity
// its event name selects, and survives MarshalJSON → ParseEvent unchanged (but for Warnings).
func FuzzParseEvent(f *testing.F) {
	f.Add(paymentEvent(`"notes":[],"captured":"1","fee":""`))
	f.Add([]byte(`{"payload":{"payment":{"entity":{"notes":"{\"a\":1}"}}}}`))
	f.Add([]byte(`{"event":"refund.processed","payload":{"refund":{"entity":{"id":"rfnd_X","notes":"free"}},"payment":{"entity":{"id":"pay_X"}}}}`))
	f.Add([]byte("\xff\xfe{}"))
	f.Add([]byte(nestedInvalidUTF8))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, body []byte) {
		e, err := razorpay.ParseEvent(body)
		if err != nil {
			if !utf8.ValidString(err.Error()) {
				t.Fatalf("error text is not valid UTF-8: %q", err.Error())
			}
			return
		}
		if path := invalidUTF8(reflect.ValueOf(e), "event"); path != "" {
			t.Fatalf("invalid UTF-8 at %s", path)
		}
		if got, want := e.BusinessKey(), keyOf(e); got != want {
			t.Fatalf("business key %q, entity says %q", got, want)
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("Marshal of a parsed event: %v", err)
		}
		back, err := razorpay.ParseEvent(b)
		if err != nil {
			t.Fatalf("re-parse of %s: %v", b, err)
		}
		again := *e
		again.Warnings = nil
		if back.Warnings != nil || !reflect.DeepEqual(&again, back) {
			t.Fatalf("round trip differs:\n%+v\n%+v", &again, back)
		}
	})
}

// keyOf is the business key read from the entities, independently of BusinessKey
// (DESIGN.md §4: refund id for refund.*, dispute id for payment.dispute.*, else payment id).
func keyOf(e *razorpay.Event) string {
	switch {
	case strings.HasPrefix(e.Event, "refund."):
		if e.Refund == nil {
			return ""
		}
		return e.Refund.ID
	case strings.HasPrefix(e.Event, "payment.dispute."):
		if e.Dispute == nil {
			return ""
		}
		return e.Dispute.ID
	case strings.HasPrefix(e.Event, "settlement."):
		if e.Settlement == nil {
			return ""
		}
		return e.Settlement.ID
	case e.Payment == nil:
		return ""
	}
	return e.Payment.ID
}

// invalidUTF8 returns the path of the first string (or map key) in v that is not valid UTF-8.
func invalidUTF8(v reflect.Value, path string) string {
	switch v.Kind() {
	case reflect.String:
		if !utf8.ValidString(v.String()) {
			return path
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return invalidUTF8(v.Elem(), path)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if p := invalidUTF8(v.Field(i), path+"."+v.Type().Field(i).Name); p != "" {
				return p
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			if p := invalidUTF8(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			if p := invalidUTF8(k, path+" key"); p != "" {
				return p
			}
			if p := invalidUTF8(v.MapIndex(k), path+"["+k.String()+"]"); p != "" {
				return p
			}
		}
	}
	return ""
}

// FuzzVerifySignature checks verification against an independent HMAC (seeded in
// testdata/fuzz/FuzzVerifySignature with every sample payload and its README signature). The
// property: VerifySignature accepts exactly a signature whose hex decodes to HMAC-SHA256(secret,
// body) for a configured non-empty secret; Sign's output always verifies, also beside a second
// (rotated) secret; one changed byte of the body never verifies.
func FuzzVerifySignature(f *testing.F) {
	f.Add([]byte(knownBody), testSecret, knownAnswerHS)
	f.Add([]byte(knownBody), testSecret, strings.ToUpper(knownAnswerHS))
	f.Add([]byte{}, "", "")
	f.Add([]byte("\xff\xfe{}"), "s", "zz")
	f.Fuzz(func(t *testing.T, body []byte, secret, signature string) {
		err := razorpay.VerifySignature(body, signature, []string{secret})
		want := expectedVerdict(body, secret, signature)
		if !errors.Is(err, want) && !(err == nil && want == nil) {
			t.Fatalf("VerifySignature(%q, %q, [%q]) = %v, want %v", body, signature, secret, err, want)
		}
		if secret == "" {
			return
		}
		good := razorpay.Sign(secret, body)
		if err := razorpay.VerifySignature(body, good, []string{"", secret + "x", secret}); err != nil {
			t.Fatalf("a correct signature beside a rotated secret: %v", err)
		}
		changed := append([]byte(nil), body...)
		if len(changed) == 0 {
			changed = []byte{0}
		} else {
			changed[len(changed)/2] ^= 0x01
		}
		if err := razorpay.VerifySignature(changed, good, []string{secret}); !errors.Is(err, razorpay.ErrInvalidSignature) {
			t.Fatalf("a changed body verified: %v", err)
		}
	})
}

// expectedVerdict is VerifySignature's answer computed independently.
func expectedVerdict(body []byte, secret, signature string) error {
	switch {
	case secret == "":
		return razorpay.ErrNoSecret
	case signature == "":
		return razorpay.ErrMissingSignature
	}
	got, err := hex.DecodeString(signature)
	h := hmac.New(sha256.New, []byte(secret))
	h.Write(body)
	if err != nil || !bytes.Equal(got, h.Sum(nil)) {
		return razorpay.ErrInvalidSignature
	}
	return nil
}

// FuzzPeekEvent: PeekEvent agrees with ParseEvent on every input it is given (seeded in
// testdata/fuzz/FuzzPeekEvent with the sample payloads): when ParseEvent succeeds, PeekEvent
// does too with the same event, account, created_at, entity ids and business key; when PeekEvent
// fails, ParseEvent fails with the same text.
func FuzzPeekEvent(f *testing.F) {
	f.Add(paymentEvent(`"amount":"not checked by peek"`))
	f.Add([]byte(`{"event":"refund.processed","payload":{"refund":{"entity":{"id":"rfnd_X"}},"payment":{"entity":{"id":7}}}}`))
	f.Add([]byte(`{"event":5}`))
	// ParseEvent's first error was once another field's than PeekEvent's: the envelope's entity
	// before account_id, an earlier entity's amount before a later entity's id.
	f.Add([]byte(`{"entity":5,"account_id":5}`))
	f.Add([]byte(`{"payload":{"payment":{"entity":{"amount":"x"}},"order":{"entity":{"id":5}}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		h, herr := razorpay.PeekEvent(body)
		e, err := razorpay.ParseEvent(body)
		if herr != nil {
			if err == nil || err.Error() != herr.Error() || !utf8.ValidString(herr.Error()) {
				t.Fatalf("PeekEvent: %v\nParseEvent: %v", herr, err)
			}
			return
		}
		if err != nil {
			return // a field PeekEvent does not read
		}
		want := razorpay.EventHead{Event: e.Event, AccountID: e.AccountID, CreatedAt: e.CreatedAt}
		if e.Payment != nil {
			want.PaymentID = e.Payment.ID
		}
		if e.Order != nil {
			want.OrderID = e.Order.ID
		}
		if e.PaymentLink != nil {
			want.PaymentLinkID = e.PaymentLink.ID
		}
		if e.Refund != nil {
			want.RefundID = e.Refund.ID
		}
		if e.Dispute != nil {
			want.DisputeID = e.Dispute.ID
		}
		if e.Settlement != nil {
			want.SettlementID = e.Settlement.ID
		}
		if h != want || h.BusinessKey() != e.BusinessKey() {
			t.Fatalf("PeekEvent %+v, ParseEvent says %+v", h, want)
		}
	})
}
