package razorpaysim_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// clock is a settable simulator clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

const t0 = 1768453200 // 2026-01-15 05:00:00 UTC

func newClock() *clock { return &clock{t: time.Unix(t0, 0)} }

func num(t *testing.T, v any) int64 {
	t.Helper()
	n, err := v.(json.Number).Int64()
	if err != nil {
		t.Fatalf("%v is not an integer", v)
	}
	return n
}

func TestItem15And16APIShapes(t *testing.T) {
	s := newSim(t, nil, razorpaysim.Options{KeyID: "rzp_test_k", KeySecret: "sekret", Now: newClock().Now})
	auth := basic("rzp_test_k", "sekret")
	p := mustPay(t, s, razorpay.Payment{Amount: 50000}, razorpaysim.PaymentOptions{Link: true, LinkReferenceID: "REF-1"})

	code, m, _ := apiCall(t, s, "GET", "/v1/payments/"+p.ID, auth, nil)
	if code != 200 || m["id"] != p.ID || m["entity"] != "payment" {
		t.Fatalf("GET payment: %d %v", code, m)
	}
	code, m, _ = apiCall(t, s, "GET", "/v1/payments", auth, nil)
	items, _ := m["items"].([]any)
	if code != 200 || m["entity"] != "collection" || num(t, m["count"]) != int64(len(items)) || len(items) != 1 {
		t.Fatalf("GET payments: %d %v", code, m)
	}
	code, m, _ = apiCall(t, s, "GET", "/v1/payment_links?reference_id=REF-1", auth, nil)
	links, _ := m["payment_links"].([]any)
	if code != 200 || len(links) != 1 {
		t.Fatalf("GET payment_links: %d %v", code, m)
	}
	code, m, _ = apiCall(t, s, "GET", "/v1/orders/"+p.OrderID+"/payments", auth, nil)
	if code != 200 || num(t, m["count"]) != 1 {
		t.Fatalf("GET order payments: %d %v", code, m)
	}
	t.Run("WrongCredentialsAre401", func(t *testing.T) {
		for _, a := range []string{"", basic("rzp_test_k", "wrong"), basic("other", "sekret"),
			strings.Replace(auth, "Basic", "basic", 1)} {
			code, m, raw := apiCall(t, s, "GET", "/v1/payments/"+p.ID, a, nil)
			if code != 401 || errOf(t, m)["code"] != "BAD_REQUEST_ERROR" || strings.Contains(string(raw), "sekret") {
				t.Errorf("auth %q: %d %s", a, code, raw)
			}
		}
	})
}

func TestItem17Pagination(t *testing.T) {
	clk := newClock()
	s := newSim(t, nil, razorpaysim.Options{Now: clk.Now})
	for i := range 25 {
		mustPay(t, s, razorpay.Payment{Amount: 1000 + int64(i), CreatedAt: t0 + int64(i)}, razorpaysim.PaymentOptions{Lose: true})
	}
	_, m, _ := apiCall(t, s, "GET", "/v1/payments", "", nil)
	items := m["items"].([]any)
	if len(items) != 10 || num(t, m["count"]) != 10 {
		t.Fatalf("default page has %d items, want 10", len(items))
	}
	var prev int64 = 1 << 62
	for _, it := range items {
		c := num(t, it.(map[string]any)["created_at"])
		if c > prev {
			t.Fatalf("not newest first")
		}
		prev = c
	}
	if num(t, items[0].(map[string]any)["created_at"]) != t0+24 {
		t.Errorf("first item is not the newest")
	}
	_, m, _ = apiCall(t, s, "GET", "/v1/payments?count=10&skip=20", "", nil)
	if num(t, m["count"]) != 5 {
		t.Errorf("last page count %v, want 5", m["count"])
	}
	_, m, _ = apiCall(t, s, "GET", "/v1/payments?count=100&from=1768453205&to=1768453209", "", nil)
	if num(t, m["count"]) != 5 {
		t.Errorf("from/to window count %v, want 5 (inclusive bounds)", m["count"])
	}
	bad := map[string]string{
		"count=0":          "count",
		"count=101":        "count",
		"count=abc":        "count",
		"count=1.5":        "count",
		"skip=-1":          "skip",
		"from=5":           "from",
		"to=99999999999":   "to",
		"from=1768453200x": "from",
	}
	for q, fieldName := range bad {
		code, m, _ := apiCall(t, s, "GET", "/v1/payments?"+q, "", nil)
		if code != 400 || errOf(t, m)["field"] != fieldName || errOf(t, m)["code"] != "BAD_REQUEST_ERROR" {
			t.Errorf("%s: %d %v", q, code, m)
		}
	}
	if code, m, _ := apiCall(t, s, "GET", "/v1/settlements/recon/combined?year=2026&month=1&count=1000", "", nil); code != 200 {
		t.Errorf("recon count 1000: %d %v", code, m)
	}
	if code, _, _ := apiCall(t, s, "GET", "/v1/settlements/recon/combined?year=2026&month=1&count=1001", "", nil); code != 400 {
		t.Errorf("recon count 1001: %d", code)
	}
}

func TestItem19Errors(t *testing.T) {
	s := newSim(t, nil, razorpaysim.Options{})
	code, m, _ := apiCall(t, s, "GET", "/v1/payments/pay_DoesNotExist01", "", nil)
	e := errOf(t, m)
	if code != 400 || e["code"] != "BAD_REQUEST_ERROR" || e["description"] != "The id provided does not exist" {
		t.Fatalf("unknown id: %d %v", code, m)
	}
	for _, k := range []string{"source", "step", "reason", "metadata"} {
		if _, ok := e[k]; !ok {
			t.Errorf("envelope lacks %s", k)
		}
	}
	for _, path := range []string{"/v1/nothing", "/v2/payments", "/v1/payments/x/y/z/w"} {
		code, m, _ := apiCall(t, s, "GET", path, "", nil)
		if code != 400 || errOf(t, m)["description"] != "The requested URL was not found on the server." {
			t.Errorf("bad path %s: %d %v", path, code, m)
		}
	}
	if code, _, _ := apiCall(t, s, "DELETE", "/v1/payments", "", nil); code != 400 {
		t.Errorf("wrong method: %d", code)
	}
	s.SetFaults(razorpaysim.Faults{FailNext: []int{500, 502, 504, 503}})
	for _, want := range []string{"SERVER_ERROR", "GATEWAY_ERROR", "GATEWAY_ERROR", "SERVER_ERROR"} {
		code, m, _ := apiCall(t, s, "GET", "/v1/payments", "", nil)
		if code < 500 || errOf(t, m)["code"] != want {
			t.Errorf("injected: %d %v, want %s", code, m, want)
		}
	}
	if code, _, _ := apiCall(t, s, "GET", "/v1/payments", "", nil); code != 200 {
		t.Errorf("after FailNext: %d", code)
	}
}

func TestItem20ThrottlingFlakinessAndListLag(t *testing.T) {
	t.Run("TokenBucket429", func(t *testing.T) {
		clk := newClock()
		s := newSim(t, nil, razorpaysim.Options{Now: clk.Now, Faults: razorpaysim.Faults{RateLimit: 1, Burst: 2, RetryAfter: 3}})
		codes := []int{}
		for range 3 {
			c, _, _ := apiCall(t, s, "GET", "/v1/payments", "", nil)
			codes = append(codes, c)
		}
		if codes[0] != 200 || codes[1] != 200 || codes[2] != 429 {
			t.Fatalf("codes %v, want 200 200 429", codes)
		}
		clk.Add(time.Second)
		if c, _, _ := apiCall(t, s, "GET", "/v1/payments", "", nil); c != 200 {
			t.Errorf("after refill: %d", c)
		}
	})
	t.Run("Random5xx", func(t *testing.T) {
		s := newSim(t, nil, razorpaysim.Options{Seed: 7, Faults: razorpaysim.Faults{ErrorRate: 0.5}})
		seen := map[int]int{}
		for range 200 {
			c, _, _ := apiCall(t, s, "GET", "/v1/payments", "", nil)
			seen[c]++
		}
		if seen[200] == 0 || seen[500]+seen[502]+seen[504] == 0 || len(seen) < 3 {
			t.Errorf("status spread %v", seen)
		}
	})
	t.Run("ListLagHidesNewPayments", func(t *testing.T) {
		clk := newClock()
		s := newSim(t, nil, razorpaysim.Options{Now: clk.Now, Faults: razorpaysim.Faults{ListLag: 2 * time.Minute}})
		p := mustPay(t, s, razorpay.Payment{Amount: 5000}, razorpaysim.PaymentOptions{Lose: true})
		if _, m, _ := apiCall(t, s, "GET", "/v1/payments", "", nil); num(t, m["count"]) != 0 {
			t.Errorf("new payment listed during lag")
		}
		if c, _, _ := apiCall(t, s, "GET", "/v1/payments/"+p.ID, "", nil); c != 200 {
			t.Errorf("fetch by id during lag: %d", c)
		}
		clk.Add(3 * time.Minute)
		if _, m, _ := apiCall(t, s, "GET", "/v1/payments", "", nil); num(t, m["count"]) != 1 {
			t.Errorf("payment not listed after the lag")
		}
	})
}

func TestItem22RefundLifecycle(t *testing.T) {
	rc := newReceiver(t, nil)
	s := newSim(t, rc, razorpaysim.Options{})
	p := mustPay(t, s, razorpay.Payment{Amount: 50000, Method: "upi"}, razorpaysim.PaymentOptions{Lose: true})
	type step struct {
		opt    razorpaysim.RefundOptions
		amount int64
		events string // event/refund status/arn set/payment amount_refunded
	}
	steps := []step{
		{razorpaysim.RefundOptions{CreatedPending: true}, 10000,
			"refund.created/pending/false/10000 refund.processed/processed/true/10000"},
		{razorpaysim.RefundOptions{Final: "failed"}, 40000,
			"refund.created/processed/false/50000 refund.failed/failed/false/10000"},
		{razorpaysim.RefundOptions{Final: "pending"}, 5000, "refund.created/pending/false/15000"},
	}
	for _, st := range steps {
		before := len(rc.Hits())
		r, err := s.CreateRefund(razorpay.Refund{PaymentID: p.ID, Amount: st.amount}, st.opt)
		if err != nil {
			t.Fatal(err)
		}
		wait(t, s)
		var got []string
		for _, h := range rc.Hits()[before:] {
			ev, _ := razorpay.ParseEvent(h.Body)
			if ev.Refund.ID != r.ID {
				t.Errorf("refund id %s, want %s", ev.Refund.ID, r.ID)
			}
			got = append(got, strings.Join([]string{ev.Event, ev.Refund.Status,
				map[bool]string{true: "true", false: "false"}[ev.Refund.AcquirerData["arn"] != ""],
				itoa(ev.Payment.AmountRefunded)}, "/"))
		}
		if strings.Join(got, " ") != st.events {
			t.Errorf("refund %d:\n got %s\nwant %s", st.amount, strings.Join(got, " "), st.events)
		}
	}
	if _, err := s.CreateRefund(razorpay.Refund{PaymentID: p.ID, Amount: 40000}, razorpaysim.RefundOptions{}); err == nil {
		t.Error("refund above what is left accepted")
	}
	if _, err := s.CreateRefund(razorpay.Refund{PaymentID: "pay_Unknown0000001"}, razorpaysim.RefundOptions{}); !razorpay.IsNotFound(err) {
		t.Errorf("refund of unknown payment: %v", err)
	}
	r, err := s.CreateRefund(razorpay.Refund{PaymentID: p.ID}, razorpaysim.RefundOptions{Lose: true})
	if err != nil || r.Amount != 35000 {
		t.Fatalf("refund of the rest: %v %+v", err, r)
	}
	_, m, _ := apiCall(t, s, "GET", "/v1/payments/"+p.ID, "", nil)
	if m["status"] != "refunded" || m["refund_status"] != "full" || num(t, m["amount_refunded"]) != 50000 {
		t.Errorf("fully refunded payment: %v", m)
	}
	if _, m, _ := apiCall(t, s, "GET", "/v1/payments/"+p.ID+"/refunds", "", nil); num(t, m["count"]) != 4 {
		t.Errorf("payment refunds count %v, want 4", m["count"])
	}
	code, m, _ := apiCall(t, s, "POST", "/__sim/refunds", "", map[string]any{"payment_id": p.ID, "amount": 1})
	if code != 400 {
		t.Errorf("control refund beyond full: %d %v", code, m)
	}
}

func TestItem24Currencies(t *testing.T) {
	s := newSim(t, nil, razorpaysim.Options{FXRates: map[string]int64{"USD": 8525}})
	bad := []razorpay.Payment{
		{Amount: 5000, Currency: "XYZ"},
		{Amount: 99, Currency: "INR"},
		{Amount: 49, Currency: "USD"},
	}
	for _, p := range bad {
		_, err := s.CreatePayment(p, razorpaysim.PaymentOptions{})
		var ae *razorpay.APIError
		if !asAPIError(err, &ae) || ae.Status != http.StatusBadRequest || ae.Field == "" {
			t.Errorf("%d %s accepted or wrong error: %v", p.Amount, p.Currency, err)
		}
	}
	usd := mustPay(t, s, razorpay.Payment{Amount: 2500, Currency: "USD"}, razorpaysim.PaymentOptions{Lose: true})
	if usd.BaseAmount == nil || *usd.BaseAmount != 213125 || usd.BaseCurrency != "INR" || !bool(usd.International) {
		t.Fatalf("USD payment base: %+v", usd)
	}
	if *usd.Fee != (213125*3+50)/100 {
		t.Errorf("fee %d not in INR paise of base_amount", *usd.Fee)
	}
	for _, c := range []string{"JPY", "KWD", "BHD", "EUR"} {
		p := mustPay(t, s, razorpay.Payment{Amount: 1000, Currency: c}, razorpaysim.PaymentOptions{Lose: true})
		exp, _ := razorpay.Exponent(c)
		if *p.BaseAmount <= 0 || p.Currency != c {
			t.Errorf("%s (exponent %d): base %v", c, exp, *p.BaseAmount)
		}
	}
	jpy := mustPay(t, s, razorpay.Payment{Amount: 1000, Currency: "JPY"}, razorpaysim.PaymentOptions{Lose: true})
	if *jpy.BaseAmount != 57000 { // ¥1000 at 57 paise per yen, exponent 0
		t.Errorf("JPY base %d, want 57000", *jpy.BaseAmount)
	}
	kwd := mustPay(t, s, razorpay.Payment{Amount: 1000, Currency: "KWD"}, razorpaysim.PaymentOptions{Lose: true})
	if *kwd.BaseAmount != 27700 { // 1.000 KWD at ₹277, exponent 3
		t.Errorf("KWD base %d, want 27700", *kwd.BaseAmount)
	}
}

func asAPIError(err error, target **razorpay.APIError) bool {
	ae, ok := err.(*razorpay.APIError)
	if ok {
		*target = ae
	}
	return ok
}

func TestItem18Capture(t *testing.T) {
	rc := newReceiver(t, nil)
	s := newSim(t, rc, razorpaysim.Options{})
	p := mustPay(t, s, razorpay.Payment{Amount: 5000, Status: "authorized"}, razorpaysim.PaymentOptions{})
	wait(t, s)
	if c, m, _ := apiCall(t, s, "POST", "/v1/payments/"+p.ID+"/capture", "", map[string]any{"amount": 4000, "currency": "INR"}); c != 400 || errOf(t, m)["field"] != "amount" {
		t.Errorf("wrong amount: %d %v", c, m)
	}
	if c, m, _ := apiCall(t, s, "POST", "/v1/payments/"+p.ID+"/capture", "", map[string]any{"amount": 50.5, "currency": "INR"}); c != 400 || errOf(t, m)["field"] != "amount" {
		t.Errorf("non-integer amount: %d %v", c, m)
	}
	c, m, _ := apiCall(t, s, "POST", "/v1/payments/"+p.ID+"/capture", "", map[string]any{"amount": 5000, "currency": "INR"})
	if c != 200 || m["status"] != "captured" {
		t.Fatalf("capture: %d %v", c, m)
	}
	if c, _, _ := apiCall(t, s, "POST", "/v1/payments/"+p.ID+"/capture", "", map[string]any{"amount": 5000, "currency": "INR"}); c != 400 {
		t.Errorf("second capture: %d", c)
	}
	wait(t, s)
	if got := strings.Join(rc.events(t), ","); got != "payment.authorized,payment.captured,order.paid" {
		t.Errorf("events %s", got)
	}
}
