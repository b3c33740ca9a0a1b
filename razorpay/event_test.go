package razorpay_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

func parseSample(t *testing.T, name string) *razorpay.Event {
	t.Helper()
	e, err := razorpay.ParseEvent(readSample(t, name))
	if err != nil {
		t.Fatalf("ParseEvent(%s): %v", name, err)
	}
	return e
}

func TestParseSamples(t *testing.T) {
	t.Run("PaymentCapturedNetbanking", func(t *testing.T) {
		e := parseSample(t, "payment.captured.json")
		if e.Entity != "event" || e.AccountID != "acc_T3stAcc0unt001" || e.Event != "payment.captured" ||
			!reflect.DeepEqual(e.Contains, []string{"payment"}) || e.CreatedAt != 1768454107 {
			t.Errorf("envelope = %+v", e)
		}
		p := e.Payment
		if p == nil || p.ID != "pay_T3stPayNetb001" || p.Amount != 250000 || p.Currency != "INR" {
			t.Fatalf("payment = %+v", p)
		}
		if p.Notes == nil || len(p.Notes) != 0 {
			t.Errorf("notes = %#v, want empty non-nil", p.Notes)
		}
		if p.Fee == nil || *p.Fee != 5900 || p.Tax == nil || *p.Tax != 900 {
			t.Errorf("fee/tax = %v/%v", p.Fee, p.Tax)
		}
		if p.BaseAmount == nil || *p.BaseAmount != 250000 || !bool(p.Captured) || p.Method != "netbanking" ||
			p.Bank != "HDFC" || p.AcquirerData["bank_transaction_id"] != "0152026115" || p.OrderID != "order_T3stOrdNetb001" {
			t.Errorf("payment = %+v", p)
		}
		if p.InvoiceID != "" || p.RefundStatus != "" || p.ErrorCode != "" {
			t.Errorf("nulls should read as empty: %+v", p)
		}
		if e.Order != nil || e.Refund != nil || e.Dispute != nil || e.PaymentLink != nil {
			t.Errorf("unexpected entities: %+v", e)
		}
		if e.BusinessKey() != "pay_T3stPayNetb001" {
			t.Errorf("BusinessKey = %q", e.BusinessKey())
		}
	})
	t.Run("PaymentAuthorizedHasNoFee", func(t *testing.T) {
		p := parseSample(t, "payment.authorized.json").Payment
		if p.ID != "pay_T3stPayCard001" || p.Status != "authorized" || bool(p.Captured) || p.Fee != nil || p.Tax != nil || p.BaseAmount != nil {
			t.Errorf("payment = %+v", p)
		}
		if p.Notes["invoice"] != "ACC-SINV-2026-00001" || p.Notes["customer"] != "CUST-00042" || p.CardID != "card_T3stCardVisa01" {
			t.Errorf("payment = %+v", p)
		}
	})
	t.Run("NotesInvoice", func(t *testing.T) {
		p := parseSample(t, "payment.captured--notes-invoice.json").Payment
		if p.Amount != 118000 || *p.Fee != 2360 || *p.Tax != 360 || p.Notes["invoice"] != "ACC-SINV-2026-00001" ||
			p.AcquirerData["rrn"] != "601500123456" || p.AcquirerData["auth_code"] != "123456" {
			t.Errorf("payment = %+v", p)
		}
	})
	t.Run("InternationalUSD", func(t *testing.T) {
		p := parseSample(t, "payment.captured--international-usd.json").Payment
		if p.ID != "pay_T3stPayUsd0001" || p.Amount != 2500 || p.Currency != "USD" || *p.BaseAmount != 213125 ||
			p.BaseCurrency != "INR" || !bool(p.International) || *p.Fee != 7544 || *p.Tax != 1151 {
			t.Errorf("payment = %+v", p)
		}
	})
	t.Run("UPI", func(t *testing.T) {
		p := parseSample(t, "payment.captured--upi.json").Payment
		if p.ID != "pay_T3stPayUpi0001" || p.Amount != 50000 || p.Method != "upi" || p.VPA == "" ||
			p.AcquirerData["upi_transaction_id"] != "A1B2C3D4E5F60718293A4B5C6D7E8F90" || len(p.Notes) != 0 {
			t.Errorf("payment = %+v", p)
		}
	})
	t.Run("Failed", func(t *testing.T) {
		p := parseSample(t, "payment.failed.json").Payment
		if p.ID != "pay_T3stPayFail001" || p.Status != "failed" || p.ErrorCode != "BAD_REQUEST_ERROR" ||
			p.ErrorSource != "customer" || p.ErrorStep != "payment_debit_request" || p.ErrorReason != "insufficient_funds" ||
			!strings.Contains(p.ErrorDescription, "insufficient balance") {
			t.Errorf("payment = %+v", p)
		}
		if _, ok := p.AcquirerData["rrn"]; ok || p.AcquirerData == nil {
			t.Errorf("null acquirer_data values must be dropped: %#v", p.AcquirerData)
		}
	})
	t.Run("OrderPaid", func(t *testing.T) {
		e := parseSample(t, "order.paid.json")
		o := e.Order
		if o == nil || o.ID != "order_T3stOrdCard001" || o.Amount != 118000 || o.AmountPaid != 118000 || o.AmountDue != 0 ||
			o.Receipt != "ACC-SINV-2026-00001" || o.Status != "paid" || o.Attempts != 1 || o.Notes["customer"] != "CUST-00042" ||
			o.CreatedAt != 1768453230 {
			t.Errorf("order = %+v", o)
		}
		if e.Payment.ID != "pay_T3stPayCard001" || e.BusinessKey() != "pay_T3stPayCard001" {
			t.Errorf("payment = %+v", e.Payment)
		}
	})
	t.Run("RefundCreated", func(t *testing.T) {
		e := parseSample(t, "refund.created.json")
		r := e.Refund
		if r == nil || r.ID != "rfnd_T3stRfndPart01" || r.Amount != 20000 || r.Currency != "INR" || r.PaymentID != "pay_T3stPayCard001" ||
			r.Status != "processed" || r.Receipt != "ACC-SINV-2026-00001-RET-1" || r.SpeedRequested != "normal" ||
			r.Notes["credit_note"] != "ACC-SINV-2026-00001-RET-1" || len(r.AcquirerData) != 0 || r.BatchID != "" {
			t.Errorf("refund = %+v", r)
		}
		if e.Payment.AmountRefunded != 20000 || e.Payment.RefundStatus != "partial" || e.BusinessKey() != "rfnd_T3stRfndPart01" {
			t.Errorf("payment = %+v, key %q", e.Payment, e.BusinessKey())
		}
	})
	t.Run("RefundProcessed", func(t *testing.T) {
		e := parseSample(t, "refund.processed.json")
		if e.Refund.AcquirerData["arn"] != "74332016018202600000017" || e.BusinessKey() != "rfnd_T3stRfndPart01" {
			t.Errorf("refund = %+v", e.Refund)
		}
	})
	t.Run("RefundFailed", func(t *testing.T) {
		e := parseSample(t, "refund.failed.json")
		if e.Refund.ID != "rfnd_T3stRfndFail01" || e.Refund.Status != "failed" || e.Refund.SpeedProcessed != "instant" ||
			len(e.Refund.Notes) != 0 || e.BusinessKey() != "rfnd_T3stRfndFail01" {
			t.Errorf("refund = %+v", e.Refund)
		}
	})
	t.Run("PaymentLinkPaid", func(t *testing.T) {
		e := parseSample(t, "payment_link.paid.json")
		l := e.PaymentLink
		if l == nil || l.ID != "plink_T3stPlinkUpi01" || l.Amount != 354000 || l.AmountPaid != 354000 || l.Status != "paid" ||
			l.ReferenceID != "ACC-PRQ-2026-00001" || l.OrderID != "order_T3stOrdPlnk001" || bool(l.AcceptPartial) ||
			l.Customer.Contact != "9000000004" || l.Customer.Name != "Test Customer" || l.Customer.Email != "test.customer5@example.com" ||
			l.ShortURL != "https://rzp.io/rzp/T3stLnk1" || l.CreatedAt != 1768460400 || l.UpdatedAt != 1768461900 ||
			l.Notes["payment_request"] != "ACC-PRQ-2026-00001" {
			t.Errorf("link = %+v", l)
		}
		if e.Order.Receipt != "ACC-PRQ-2026-00001" || e.Payment.ID != "pay_T3stPayPlnk001" || e.Payment.FeeBearer != "platform" ||
			*e.Payment.Fee != 8354 || e.CreatedAt != 1768460400 || e.BusinessKey() != "pay_T3stPayPlnk001" {
			t.Errorf("event = %+v", e)
		}
	})
	t.Run("Settlement", func(t *testing.T) {
		e := parseSample(t, "settlement.processed.json")
		st := e.Settlement
		if e.Event != "settlement.processed" || e.Payment != nil || st == nil || e.BusinessKey() != "setl_T3stSetl000001" {
			t.Fatalf("event = %+v", e)
		}
		if *st != (razorpay.Settlement{ID: "setl_T3stSetl000001", Entity: "settlement", Amount: 754206,
			Status: "processed", UTR: "HDFCN52026011712345", CreatedAt: 1768627800}) {
			t.Errorf("settlement = %+v", st)
		}
	})
	t.Run("Dispute", func(t *testing.T) {
		e := parseSample(t, "payment.dispute.created.json")
		d := e.Dispute
		if d == nil || d.ID != "disp_T3stDispChbk01" || d.PaymentID != "pay_T3stPayCard001" || d.Amount != 98000 ||
			d.AmountDeducted != 0 || d.Currency != "INR" || d.Status != "open" || d.Phase != "chargeback" ||
			d.ReasonCode != "goods_or_services_not_received_or_partially_received" || d.CreatedAt != 1770181200 || d.Entity != "dispute" ||
			d.RespondBy != 1771045200 || d.ReasonDescription != "" {
			t.Errorf("dispute = %+v", d)
		}
		if e.BusinessKey() != "disp_T3stDispChbk01" {
			t.Errorf("BusinessKey = %q", e.BusinessKey())
		}
	})
}

func paymentEvent(fields string) []byte {
	return []byte(`{"entity":"event","event":"payment.captured","payload":{"payment":{"entity":{"id":"pay_X",` + fields + `}}}}`)
}

func TestLenientDecoding(t *testing.T) {
	notes := []struct {
		name, json string
		want       razorpay.Notes
	}{
		{"Object", `{"a":"x","b":""}`, razorpay.Notes{"a": "x", "b": ""}},
		{"EmptyObject", `{}`, razorpay.Notes{}},
		{"EmptyArray", `[]`, razorpay.Notes{}},
		{"Null", `null`, razorpay.Notes{}},
		{"EmptyString", `""`, razorpay.Notes{}},
		{"NumberAndBoolValues", `{"qty":5,"price":10.50,"big":1e3,"gift":true,"gone":null}`,
			razorpay.Notes{"qty": "5", "price": "10.50", "big": "1e3", "gift": "true"}},
		{"NestedValue", `{"x":{"a": [1, 2]}}`, razorpay.Notes{"x": `{"a":[1,2]}`}},
		{"NonEmptyArray", `["first","second"]`, razorpay.Notes{"0": "first", "1": "second"}},
		{"StringHoldingObject", `"{\"invoice\":\"ACC-1\"}"`, razorpay.Notes{"invoice": "ACC-1"}},
	}
	for _, tc := range notes {
		t.Run("Notes"+tc.name, func(t *testing.T) {
			var n razorpay.Notes
			if err := json.Unmarshal([]byte(tc.json), &n); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if !reflect.DeepEqual(n, tc.want) || n == nil {
				t.Errorf("got %#v, want %#v", n, tc.want)
			}
			e, err := razorpay.ParseEvent(paymentEvent(`"notes":` + tc.json))
			if err != nil {
				t.Fatalf("ParseEvent: %v", err)
			}
			if !reflect.DeepEqual(e.Payment.Notes, tc.want) {
				t.Errorf("in payment: got %#v, want %#v", e.Payment.Notes, tc.want)
			}
		})
	}
	for _, bad := range []string{`5`, `"free text"`, `true`} {
		var n razorpay.Notes
		if err := json.Unmarshal([]byte(bad), &n); err == nil {
			t.Errorf("notes %s: want error", bad)
		}
	}

	bools := map[string]bool{`true`: true, `false`: false, `"1"`: true, `"0"`: false, `1`: true, `0`: false,
		`"true"`: true, `"false"`: false, `"TRUE"`: true, `null`: false, `""`: false}
	for in, want := range bools {
		var b razorpay.Bool
		if err := json.Unmarshal([]byte(in), &b); err != nil || bool(b) != want {
			t.Errorf("Bool %s = %v, %v; want %v", in, b, err, want)
		}
		e, err := razorpay.ParseEvent(paymentEvent(`"captured":` + in))
		if err != nil || bool(e.Payment.Captured) != want {
			t.Errorf("captured %s: %v, %v; want %v", in, e, err, want)
		}
	}
	for _, bad := range []string{`"yes"`, `2`, `{}`} {
		var b razorpay.Bool
		if err := json.Unmarshal([]byte(bad), &b); err == nil {
			t.Errorf("Bool %s: want error", bad)
		}
	}

	t.Run("EmptyStringIsAbsent", func(t *testing.T) {
		e, err := razorpay.ParseEvent(paymentEvent(`"error_code":"","fee":"","tax":null,"base_amount":"","order_id":"","acquirer_data":[],"notes":""`))
		if err != nil {
			t.Fatal(err)
		}
		p := e.Payment
		if p.ErrorCode != "" || p.Fee != nil || p.Tax != nil || p.BaseAmount != nil || p.OrderID != "" || p.AcquirerData == nil {
			t.Errorf("payment = %+v", p)
		}
	})
	t.Run("ObjectFieldsAcceptArrayAndNull", func(t *testing.T) {
		body := []byte(`{"event":"payment_link.paid","payload":{"payment_link":{"entity":{"id":"plink_X","customer":[],"notes":null}},` +
			`"payment":{"entity":{"id":"pay_X","acquirer_data":{"rrn":"1","arn":null,"n":12}}},"order":[],"refund":null,"dispute":{"entity":{}}}}`)
		e, err := razorpay.ParseEvent(body)
		if err != nil {
			t.Fatal(err)
		}
		if e.PaymentLink.ID != "plink_X" || e.PaymentLink.Customer.Name != "" || len(e.PaymentLink.Notes) != 0 {
			t.Errorf("link = %+v", e.PaymentLink)
		}
		if !reflect.DeepEqual(e.Payment.AcquirerData, map[string]string{"rrn": "1", "n": "12"}) {
			t.Errorf("acquirer_data = %#v", e.Payment.AcquirerData)
		}
		if e.Order != nil || e.Refund != nil || e.Dispute != nil {
			t.Errorf("empty entities must be nil: %+v", e)
		}
	})
	t.Run("UnknownFieldsIgnored", func(t *testing.T) {
		e, err := razorpay.ParseEvent(paymentEvent(`"amount":100,"reward":{"x":[1]},"emi_plan":null,"provider":7`))
		if err != nil || e.Payment.Amount != 100 {
			t.Fatalf("%+v, %v", e, err)
		}
	})
	t.Run("FreeTextFieldsTolerateOtherTypes", func(t *testing.T) {
		e, err := razorpay.ParseEvent(paymentEvent(`"contact":9000000000,"description":{"x":1},"wallet":false`))
		if err != nil || e.Payment.Contact != "9000000000" || e.Payment.Description != "" || e.Payment.Wallet != "false" {
			t.Fatalf("%+v, %v", e.Payment, err)
		}
	})
}

func TestParseEventErrors(t *testing.T) {
	cases := map[string]string{
		"NotJSON":            `not json`,
		"Array":              `[]`,
		"String":             `"x"`,
		"Null":               `null`,
		"Empty":              ``,
		"Truncated":          `{"entity":"event"`,
		"AmountFraction":     string(paymentEvent(`"amount":10.5`)),
		"AmountString":       string(paymentEvent(`"amount":"100"`)),
		"AmountExponent":     string(paymentEvent(`"amount":1e3`)),
		"AmountOverflow":     string(paymentEvent(`"amount":99999999999999999999`)),
		"FeeObject":          string(paymentEvent(`"fee":{}`)),
		"IDNumber":           `{"payload":{"payment":{"entity":{"id":12}}}}`,
		"CapturedNonsense":   string(paymentEvent(`"captured":"maybe"`)),
		"EventNumber":        `{"event":5}`,
		"CreatedAtString":    `{"created_at":"yesterday"}`,
		"PayloadString":      `{"payload":"x"}`,
		"EntityNotObject":    `{"payload":{"refund":{"entity":"rfnd_X"}}}`,
		"RefundAmountString": `{"payload":{"refund":{"entity":{"id":"rfnd_X","amount":"2.00"}}}}`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			if e, err := razorpay.ParseEvent([]byte(body)); err == nil {
				t.Errorf("ParseEvent(%s) = %+v, want error", body, e)
			}
		})
	}
	_, err := razorpay.ParseEvent(paymentEvent(`"amount":10.5`))
	if err == nil || !strings.Contains(err.Error(), "payment.amount") {
		t.Errorf("error should name the field: %v", err)
	}
}

func TestBusinessKey(t *testing.T) {
	p := &razorpay.Payment{ID: "pay_A"}
	cases := []struct {
		e    *razorpay.Event
		want string
	}{
		{&razorpay.Event{Event: "payment.captured", Payment: p}, "pay_A"},
		{&razorpay.Event{Event: "order.paid", Payment: p, Order: &razorpay.Order{ID: "order_A"}}, "pay_A"},
		{&razorpay.Event{Event: "refund.processed", Payment: p, Refund: &razorpay.Refund{ID: "rfnd_A"}}, "rfnd_A"},
		{&razorpay.Event{Event: "refund.failed", Payment: p}, ""},
		{&razorpay.Event{Event: "payment.dispute.lost", Payment: p, Dispute: &razorpay.Dispute{ID: "disp_A"}}, "disp_A"},
		{&razorpay.Event{Event: "payment.dispute.won", Payment: p}, ""},
		{&razorpay.Event{Event: "settlement.processed"}, ""},
		{nil, ""},
	}
	for _, tc := range cases {
		if got := tc.e.BusinessKey(); got != tc.want {
			t.Errorf("%+v: BusinessKey = %q, want %q", tc.e, got, tc.want)
		}
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	for name := range sampleSignatures {
		t.Run(name, func(t *testing.T) {
			e := parseSample(t, name)
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			back, err := razorpay.ParseEvent(b)
			if err != nil {
				t.Fatalf("ParseEvent(Marshal): %v\n%s", err, b)
			}
			if !reflect.DeepEqual(e, back) {
				t.Errorf("round trip differs:\n%+v\n%+v", e, back)
			}
			var viaUnmarshal razorpay.Event
			if err := json.Unmarshal(readSample(t, name), &viaUnmarshal); err != nil || !reflect.DeepEqual(e, &viaUnmarshal) {
				t.Errorf("json.Unmarshal differs from ParseEvent: %v", err)
			}
		})
	}
}
