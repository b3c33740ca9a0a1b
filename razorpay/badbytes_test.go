package razorpay_test

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// TestParseErrorsAreValidUTF8: invalid bytes in a body never reach the error text raw (a
// MariaDB utf8mb4 column refuses them); they appear escaped.
func TestParseErrorsAreValidUTF8(t *testing.T) {
	cases := map[string]struct{ body, want string }{
		"BOMLikeBytes":       {"\xff\xfe{}", `"\xff\xfe{}"`},
		"AmountBytes":        {`{"payload":{"payment":{"entity":{"id":"pay_X","amount":` + "\xff\xfe" + `}}}}`, ``},
		"AmountStringBytes":  {`{"payload":{"payment":{"entity":{"id":"pay_X","amount":"` + "\xff\xfe" + `"}}}}`, `"\"\xff\xfe\""`},
		"CapturedBytes":      {`{"payload":{"payment":{"entity":{"id":"pay_X","captured":"` + "\xc3" + `"}}}}`, `\xc3`},
		"EntityStringBytes":  {`{"payload":{"refund":{"entity":"` + "\xff" + `"}}}`, `\xff`},
		"CutInsideARune":     {`{"payload":{"payment":{"entity":{"id":"pay_X","amount":"ééééééééééééééééé"}}}}`, `…`},
		"PayloadNumberBytes": {`{"payload":7` + "\x80" + `}`, ``},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := razorpay.ParseEvent([]byte(tc.body))
			if err == nil {
				t.Fatalf("ParseEvent(%q) succeeded", tc.body)
			}
			if !utf8.ValidString(err.Error()) {
				t.Fatalf("error text is not valid UTF-8: %q", err.Error())
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not quote the input as %s", err.Error(), tc.want)
			}
		})
	}
}

// TestParsedTextIsValidUTF8: invalid bytes inside a nested notes value (kept as compact JSON
// text) come out as U+FFFD, like those inside plain strings. Found by reading, not by the fuzzer:
// FuzzParseEvent now carries this body as a seed.
func TestParsedTextIsValidUTF8(t *testing.T) {
	e, err := razorpay.ParseEvent([]byte(nestedInvalidUTF8))
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Payment.Notes["x"]; got != "{\"a\":\"\uFFFD\"}" || e.Payment.Notes["y"] != "\uFFFD" {
		t.Errorf("notes = %q", e.Payment.Notes)
	}
}

const nestedInvalidUTF8 = "{\"payload\":{\"payment\":{\"entity\":{\"id\":\"pay_X\",\"notes\":{\"x\":{\"a\":\"\xff\"},\"y\":\"\xfe\"}}}}}"

// TestOptionalFieldsOfWrongTypeAreWarnings: an optional field of an unusable type (notes as free
// text, …) no longer kills the event: it keeps its name and business key, the field reads as
// absent, and Warnings names it.
func TestOptionalFieldsOfWrongTypeAreWarnings(t *testing.T) {
	cases := []struct {
		name, body, key, warn string
		check                 func(*razorpay.Event) bool
	}{
		{"NotesFreeText", string(paymentEvent(`"amount":118000,"notes":"please deliver by friday"`)), "pay_X", "payment.notes",
			func(e *razorpay.Event) bool {
				return e.Payment.Amount == 118000 && e.Payment.Notes != nil && len(e.Payment.Notes) == 0
			}},
		{"NotesNumber", string(paymentEvent(`"notes":5`)), "pay_X", "payment.notes", nil},
		{"NotesBrokenJSONText", string(paymentEvent(`"notes":"{\"invoice\":"`)), "pay_X", "payment.notes", nil},
		{"NotesTrue", string(paymentEvent(`"notes":true`)), "pay_X", "payment.notes", nil},
		{"AcquirerDataText", string(paymentEvent(`"acquirer_data":"rrn 1234"`)), "pay_X", "payment.acquirer_data",
			func(e *razorpay.Event) bool { return e.Payment.AcquirerData != nil && len(e.Payment.AcquirerData) == 0 }},
		{"InternationalNonsense", string(paymentEvent(`"international":"maybe"`)), "pay_X", "payment.international",
			func(e *razorpay.Event) bool { return !bool(e.Payment.International) }},
		{"ContainsString", `{"event":"payment.captured","contains":"payment","payload":{"payment":{"entity":{"id":"pay_X"}}}}`, "pay_X", "event.contains",
			func(e *razorpay.Event) bool { return e.Contains == nil }},
		{"OrderAttemptsText", `{"event":"order.paid","payload":{"payment":{"entity":{"id":"pay_X"}},"order":{"entity":{"id":"order_X","receipt":"INV-1","attempts":"two","notes":"x"}}}}`, "pay_X", "order.attempts",
			func(e *razorpay.Event) bool {
				return e.Order.Receipt == "INV-1" && e.Order.Attempts == 0 && len(e.Warnings) == 2
			}},
		{"LinkCustomerText", `{"event":"payment_link.paid","payload":{"payment":{"entity":{"id":"pay_X"}},"payment_link":{"entity":{"id":"plink_X","customer":"Test Customer","accept_partial":"sometimes","updated_at":"now"}}}}`, "pay_X", "payment_link.customer",
			func(e *razorpay.Event) bool {
				return e.PaymentLink.ID == "plink_X" && e.PaymentLink.Customer.Name == "" && len(e.Warnings) == 3
			}},
		{"RefundNotesNumber", `{"event":"refund.processed","payload":{"refund":{"entity":{"id":"rfnd_X","amount":100,"notes":12,"acquirer_data":7}}}}`, "rfnd_X", "refund.notes",
			func(e *razorpay.Event) bool { return e.Refund.Amount == 100 && len(e.Warnings) == 2 }},
		{"DisputeRespondByText", `{"event":"payment.dispute.created","payload":{"dispute":{"entity":{"id":"disp_X","amount":100,"respond_by":"soon"}}}}`, "disp_X", "dispute.respond_by", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, err := razorpay.ParseEvent([]byte(tc.body))
			if err != nil {
				t.Fatalf("ParseEvent: %v", err)
			}
			if e.BusinessKey() != tc.key || e.Event == "" {
				t.Errorf("event %q, business key %q, want %q", e.Event, e.BusinessKey(), tc.key)
			}
			named := false
			for _, w := range e.Warnings {
				named = named || strings.HasPrefix(w, tc.warn+": ") && strings.HasSuffix(w, "; treated as absent")
			}
			if !named {
				t.Errorf("warnings %q, want one naming %s", e.Warnings, tc.warn)
			}
			if tc.check != nil && !tc.check(e) {
				t.Errorf("event %+v, payment %+v", e, e.Payment)
			}
		})
	}
	t.Run("SamplesHaveNoWarnings", func(t *testing.T) {
		for name := range sampleSignatures {
			if e := parseSample(t, name); e.Warnings != nil {
				t.Errorf("%s: %q", name, e.Warnings)
			}
		}
	})
	t.Run("RequiredFieldsStillFail", func(t *testing.T) {
		for _, f := range []string{`"id":5`, `"amount":"100"`, `"currency":1`, `"fee":"x"`, `"created_at":"today"`, `"captured":"maybe"`, `"order_id":7`} {
			body := `{"event":"payment.captured","payload":{"payment":{"entity":{` + f + `}}}}`
			if _, err := razorpay.ParseEvent([]byte(body)); err == nil {
				t.Errorf("%s: want an error", f)
			}
		}
	})
	t.Run("APIEntityDecodingIsAsLenient", func(t *testing.T) {
		var p razorpay.Payment
		if err := p.UnmarshalJSON([]byte(`{"id":"pay_X","amount":100,"notes":"free text"}`)); err != nil ||
			!reflect.DeepEqual(p.Notes, razorpay.Notes{}) || p.Amount != 100 {
			t.Errorf("%+v, %v", p, err)
		}
	})
}

func TestValidEventID(t *testing.T) {
	valid := []string{"T3stEvtCapNb01", "Rp71ZiqdEWusLa", "00000000000000", "reconcile:pay_T3stPayCard001",
		"reconcile:rfnd_T3stRfndPart01", "reconcile:disp_T3stDispChbk01"}
	for _, id := range valid {
		if !razorpay.ValidEventID(id) {
			t.Errorf("ValidEventID(%q) = false", id)
		}
	}
	invalid := []string{"", "T3stEvtCapNb0", "T3stEvtCapNb012", "T3stEvt CapNb0", "T3stEvt-CapNb0", "T3stEvtCapNb0\xff",
		"\xff\xfe\xff\xfe\xff\xfe\xff", "T3stEvtCapNbé", "evt_T3stEvtCapNb01", "reconcile:", "reconcile:T3stEvtCapNb01",
		"reconcile:pay_T3stPay", "reconcile:PAY_T3stPayCard001", "reconcile:_T3stPayCard001", "reconcile:pay_T3stPayCard001\n",
		"reconcile:reconcile:pay_X", "reconcile:verylongprefix_T3stPayCard001", "T3stEvtCapNb01 "}
	for _, id := range invalid {
		if razorpay.ValidEventID(id) {
			t.Errorf("ValidEventID(%q) = true", id)
		}
	}
	if !razorpay.IsReconcileEventID("reconcile:pay_T3stPayCard001") || razorpay.IsReconcileEventID("T3stEvtCapNb01") ||
		razorpay.IsReconcileEventID("reconcile:pay_X") {
		t.Error("IsReconcileEventID")
	}
	// Every X-Razorpay-Event-Id of the sample payloads' README table.
	row := regexp.MustCompile("(?m)^\\| `[^`]+\\.json` \\| `([^`]+)` \\|")
	ids := row.FindAllStringSubmatch(string(readSample(t, "README.md")), -1)
	if len(ids) != len(sampleSignatures) {
		t.Fatalf("README table has %d event ids", len(ids))
	}
	for _, m := range ids {
		if !razorpay.ValidEventID(m[1]) {
			t.Errorf("sample event id %q refused", m[1])
		}
	}
}
