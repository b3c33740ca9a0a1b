package razorpaysim_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

var eventID = regexp.MustCompile(`^[A-Za-z0-9]{14}$`)

func TestItem01Signing(t *testing.T) {
	const secret = "test_webhook_secret"
	t.Run("SignatureIsHMACOfExactBytes", func(t *testing.T) {
		rc := newReceiver(t, nil)
		s := newSim(t, rc, razorpaysim.Options{WebhookSecret: secret})
		mustPay(t, s, razorpay.Payment{Amount: 118000, Notes: razorpay.Notes{"invoice": "ACC-SINV-2026-00001"}}, razorpaysim.PaymentOptions{})
		wait(t, s)
		hits := rc.Hits()
		if len(hits) != 3 {
			t.Fatalf("got %d deliveries, want 3", len(hits))
		}
		for _, h := range hits {
			sig := h.Header.Get("X-Razorpay-Signature")
			if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(sig) || sig != razorpay.Sign(secret, h.Body) {
				t.Errorf("signature %q is not the lowercase hex HMAC of the body", sig)
			}
			if err := razorpay.VerifySignature(h.Body, sig, []string{secret}); err != nil {
				t.Errorf("VerifySignature: %v", err)
			}
			var compact bytes.Buffer
			_ = json.Compact(&compact, h.Body)
			if !bytes.Equal(compact.Bytes(), h.Body) {
				t.Errorf("body is not compact JSON: %s", h.Body)
			}
		}
	})
	t.Run("NoSecretNoHeader", func(t *testing.T) {
		rc := newReceiver(t, nil)
		s := newSim(t, rc, razorpaysim.Options{})
		mustPay(t, s, razorpay.Payment{Amount: 5000, Status: "authorized"}, razorpaysim.PaymentOptions{})
		wait(t, s)
		for _, h := range rc.Hits() {
			if _, ok := h.Header["X-Razorpay-Signature"]; ok {
				t.Errorf("signature header sent without a secret")
			}
		}
	})
	faults := map[string]struct {
		f      razorpaysim.Faults
		rotate bool
		want   error
	}{
		"WrongSecretFailsVerification":   {f: razorpaysim.Faults{WrongSecret: true}, want: razorpay.ErrInvalidSignature},
		"CorruptedByteFailsVerification": {f: razorpaysim.Faults{CorruptBody: true}, want: razorpay.ErrInvalidSignature},
		"PreviousSecretVerifiesOnlyWithOld": {f: razorpaysim.Faults{PreviousSecret: true}, rotate: true,
			want: razorpay.ErrInvalidSignature},
	}
	for name, tc := range faults {
		t.Run(name, func(t *testing.T) {
			rc := newReceiver(t, nil)
			s := newSim(t, rc, razorpaysim.Options{WebhookSecret: secret, Faults: tc.f})
			if tc.rotate {
				s.RotateWebhookSecret("new_secret")
			}
			mustPay(t, s, razorpay.Payment{Amount: 5000, Status: "authorized"}, razorpaysim.PaymentOptions{})
			wait(t, s)
			h := rc.Hits()[0]
			current := secret
			if tc.rotate {
				current = "new_secret"
			}
			err := razorpay.VerifySignature(h.Body, h.Header.Get("X-Razorpay-Signature"), []string{current})
			if !errors.Is(err, tc.want) {
				t.Fatalf("VerifySignature with the current secret = %v, want %v", err, tc.want)
			}
			if tc.rotate {
				if err := razorpay.VerifySignature(h.Body, h.Header.Get("X-Razorpay-Signature"), []string{secret}); err != nil {
					t.Fatalf("not signed with the previous secret: %v", err)
				}
			}
		})
	}
}

func TestItem02Headers(t *testing.T) {
	rc := newReceiver(t, nil)
	s := newSim(t, rc, razorpaysim.Options{WebhookSecret: "whsec"})
	mustPay(t, s, razorpay.Payment{Amount: 5000, Status: "authorized"}, razorpaysim.PaymentOptions{})
	wait(t, s)
	h := rc.Hits()[0].Header
	want := map[string]string{
		"Content-Type":    "application/json",
		"User-Agent":      "Razorpay-Webhook/v1",
		"Accept-Encoding": "gzip",
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	id := h.Get("X-Razorpay-Event-Id")
	if !eventID.MatchString(id) {
		t.Errorf("X-Razorpay-Event-Id %q is not 14 alphanumerics", id)
	}
	if h.Get("Request-Id") != id {
		t.Errorf("Request-Id %q differs from the event id %q", h.Get("Request-Id"), id)
	}
	for k := range h {
		lk := strings.ToLower(k)
		if strings.Contains(lk, "razorpay") && lk != "x-razorpay-event-id" && lk != "x-razorpay-signature" {
			t.Errorf("unexpected Razorpay-specific header %s", k)
		}
		if strings.Contains(lk, "attempt") || strings.Contains(lk, "timestamp") || strings.Contains(lk, "mode") {
			t.Errorf("unexpected header %s", k)
		}
	}
}

func TestItem03Envelope(t *testing.T) {
	rc := newReceiver(t, nil)
	s := newSim(t, rc, razorpaysim.Options{AccountID: "acc_T3stAcc0unt001"})
	mustPay(t, s, razorpay.Payment{Amount: 354000, Method: "upi", Notes: razorpay.Notes{"invoice": "X"}},
		razorpaysim.PaymentOptions{Link: true, LinkReferenceID: "ACC-PRQ-2026-00001"})
	wait(t, s)
	s.EmitDowntime()
	wait(t, s)
	hits := rc.Hits()
	if len(hits) != 5 {
		t.Fatalf("got %d deliveries, want 5", len(hits))
	}
	for _, h := range hits {
		var env map[string]json.RawMessage
		if err := json.Unmarshal(h.Body, &env); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"entity", "account_id", "event", "contains", "payload", "created_at"} {
			if _, ok := env[k]; !ok {
				t.Errorf("envelope lacks %q", k)
			}
		}
		if _, ok := env["id"]; ok {
			t.Errorf("envelope carries an id")
		}
		if string(env["entity"]) != `"event"` || string(env["account_id"]) != `"acc_T3stAcc0unt001"` {
			t.Errorf("entity/account_id = %s/%s", env["entity"], env["account_id"])
		}
		var contains []string
		var payload map[string]map[string]json.RawMessage
		_ = json.Unmarshal(env["contains"], &contains)
		_ = json.Unmarshal(env["payload"], &payload)
		for _, c := range contains {
			if _, ok := payload[c]["entity"]; !ok {
				t.Errorf("payload.%s.entity missing", c)
			}
		}
		name := eventName(t, h.Body)
		switch {
		case strings.HasPrefix(name, "payment_link."):
			if !keysSorted(t, h.Body) {
				t.Errorf("payment_link body keys are not sorted: %s", h.Body)
			}
			ev, _ := razorpay.ParseEvent(h.Body)
			if ev.CreatedAt != ev.PaymentLink.CreatedAt || ev.CreatedAt >= ev.Payment.CreatedAt {
				t.Errorf("payment_link envelope created_at %d, link %d, payment %d", ev.CreatedAt, ev.PaymentLink.CreatedAt, ev.Payment.CreatedAt)
			}
		case name == "payment.downtime.started":
			if contains[0] != "payment.downtime" {
				t.Errorf("downtime contains = %v", contains)
			}
		default:
			if keysSorted(t, h.Body) {
				t.Errorf("%s keys unexpectedly sorted", name)
			}
		}
	}
}

func TestItem04QuirkyValues(t *testing.T) {
	t.Run("DefaultQuirks", func(t *testing.T) {
		rc := newReceiver(t, nil)
		s := newSim(t, rc, razorpaysim.Options{Seed: 3})
		for range 8 {
			mustPay(t, s, razorpay.Payment{Amount: 10000, Status: "authorized"}, razorpaysim.PaymentOptions{})
		}
		mustPay(t, s, razorpay.Payment{Amount: 10000, Method: "upi"}, razorpaysim.PaymentOptions{Link: true})
		wait(t, s)
		contacts := map[string]bool{}
		for _, h := range rc.Hits() {
			body := string(h.Body)
			if !strings.Contains(body, `"notes":[]`) {
				t.Errorf("empty notes not rendered as []: %s", body)
			}
			ev, err := razorpay.ParseEvent(h.Body)
			if err != nil {
				t.Fatal(err)
			}
			if ev.PaymentLink != nil {
				if !strings.Contains(body, `"notes":null`) || !strings.Contains(body, `"user_id":""`) ||
					!strings.Contains(body, `"expired_at":0`) {
					t.Errorf("link quirks (notes null, user_id \"\", expired_at 0) missing: %s", body)
				}
			}
			if ev.Payment.Method == "card" && !strings.Contains(body, `"error_code":""`) {
				t.Errorf("card payment error_code not \"\": %s", body)
			}
			contacts[ev.Payment.Contact] = true
		}
		if len(contacts) < 2 {
			t.Errorf("contacts not in mixed formats: %v", contacts)
		}
	})
	t.Run("OptionalQuirks", func(t *testing.T) {
		rc := newReceiver(t, nil)
		s := newSim(t, rc, razorpaysim.Options{WebhookSecret: "whsec", Quirks: razorpaysim.Quirks{
			CapturedAsString: true, EscapeSlashes: true, ExtraFields: true}})
		mustPay(t, s, razorpay.Payment{Amount: 10000, Notes: razorpay.Notes{"url": "https://erp.example.com/app"}},
			razorpaysim.PaymentOptions{})
		wait(t, s)
		h := rc.Hits()[1]
		body := string(h.Body)
		for _, want := range []string{`"captured":"1"`, `https:\/\/erp.example.com\/app`, `"gateway_provider"`} {
			if !strings.Contains(body, want) {
				t.Errorf("body lacks %s: %s", want, body)
			}
		}
		if err := razorpay.VerifySignature(h.Body, h.Header.Get("X-Razorpay-Signature"), []string{"whsec"}); err != nil {
			t.Errorf("escaped body does not verify over raw bytes: %v", err)
		}
		ev, err := razorpay.ParseEvent(h.Body)
		if err != nil || !bool(ev.Payment.Captured) || ev.Payment.Notes["url"] != "https://erp.example.com/app" {
			t.Errorf("quirky body does not parse back: %v %+v", err, ev)
		}
	})
}

func TestItem05SuccessRule(t *testing.T) {
	// One payment.failed event (no immediate retry): 500, 302, 404, slow 200, then 200.
	answers := []struct {
		status int
		delay  time.Duration
	}{{500, 0}, {302, 0}, {404, 0}, {200, 400 * time.Millisecond}, {200, 0}}
	rc := newReceiver(t, func(n int, _ hit) (int, time.Duration) {
		if n < len(answers) {
			return answers[n].status, answers[n].delay
		}
		return 200, 0
	})
	s := newSim(t, rc, razorpaysim.Options{DeliveryTimeout: 150 * time.Millisecond})
	mustPay(t, s, razorpay.Payment{Amount: 5000, Status: "failed", Method: "upi"}, razorpaysim.PaymentOptions{})
	wait(t, s)
	ev := s.State().Events[0]
	if !ev.Delivered || len(ev.Attempts) != 5 {
		t.Fatalf("delivered=%v after %d attempts, want delivered after 5: %+v", ev.Delivered, len(ev.Attempts), ev.Attempts)
	}
	for i, a := range ev.Attempts {
		if a.Success != (i == 4) {
			t.Errorf("attempt %d (status %d, %v) success = %v", i+1, a.Status, a.Elapsed, a.Success)
		}
	}
	if ev.Attempts[3].Status != 0 || ev.Attempts[3].Error == "" {
		t.Errorf("slow 200 not recorded as a timeout: %+v", ev.Attempts[3])
	}
	// Stop the simulator (its delivery goroutines end) and the receiver (requests it took are
	// finished): whatever the simulator sent after the success has arrived by now.
	s.Close()
	rc.srv.Close()
	if n := len(rc.Hits()); n != 5 {
		t.Errorf("receiver saw %d requests after success, want 5", n)
	}
}

func TestItem06RetryLadder(t *testing.T) {
	rc := newReceiver(t, func(int, hit) (int, time.Duration) { return http.StatusInternalServerError, 0 })
	s := newSim(t, rc, razorpaysim.Options{})
	mustPay(t, s, razorpay.Payment{Amount: 5000, Status: "authorized"}, razorpaysim.PaymentOptions{NoOrder: true})
	mustPay(t, s, razorpay.Payment{Amount: 5000, Status: "failed"}, razorpaysim.PaymentOptions{NoOrder: true})
	wait(t, s)
	for _, ev := range s.State().Events {
		want := 15
		if ev.Event == "payment.authorized" {
			want = 16
		}
		if len(ev.Attempts) != want || ev.Delivered {
			t.Errorf("%s: %d attempts (delivered %v), want %d", ev.Event, len(ev.Attempts), ev.Delivered, want)
		}
	}
	if l := razorpaysim.RetryLadder(); len(l) != 15 || l[len(l)-1] > 24*time.Hour {
		t.Errorf("ladder %v", l)
	}
}

func TestItem07IdenticalRetries(t *testing.T) {
	var s *razorpaysim.Sim
	rc := newReceiver(t, func(n int, _ hit) (int, time.Duration) {
		if n == 0 {
			s.RotateWebhookSecret("rotated_secret")
		}
		if n < 3 {
			return 503, 0
		}
		return 200, 0
	})
	s = newSim(t, rc, razorpaysim.Options{WebhookSecret: "old_secret"})
	mustPay(t, s, razorpay.Payment{Amount: 5000, Status: "failed"}, razorpaysim.PaymentOptions{})
	wait(t, s)
	hits := rc.Hits()
	if len(hits) != 4 {
		t.Fatalf("got %d deliveries, want 4", len(hits))
	}
	for _, h := range hits[1:] {
		if !bytes.Equal(h.Body, hits[0].Body) ||
			h.Header.Get("X-Razorpay-Signature") != hits[0].Header.Get("X-Razorpay-Signature") ||
			h.Header.Get("X-Razorpay-Event-Id") != hits[0].Header.Get("X-Razorpay-Event-Id") {
			t.Fatalf("retry differs from the first attempt")
		}
	}
	if err := razorpay.VerifySignature(hits[3].Body, hits[3].Header.Get("X-Razorpay-Signature"), []string{"old_secret"}); err != nil {
		t.Errorf("retry after rotation not signed with the old secret: %v", err)
	}
}

func TestItem10Duplicates(t *testing.T) {
	t.Run("DuplicateAfterSuccess", func(t *testing.T) {
		rc := newReceiver(t, nil)
		s := newSim(t, rc, razorpaysim.Options{})
		mustPay(t, s, razorpay.Payment{Amount: 5000}, razorpaysim.PaymentOptions{Duplicate: true})
		wait(t, s)
		ids := map[string]int{}
		for _, h := range rc.Hits() {
			ids[h.Header.Get("X-Razorpay-Event-Id")]++
		}
		if len(ids) != 3 {
			t.Fatalf("%d distinct events, want 3", len(ids))
		}
		for id, n := range ids {
			if n != 2 {
				t.Errorf("event %s delivered %d times, want 2", id, n)
			}
		}
	})
	t.Run("SlowSuccessIsDeliveredAgain", func(t *testing.T) {
		rc := newReceiver(t, func(n int, _ hit) (int, time.Duration) {
			if n == 0 {
				return 200, 300 * time.Millisecond
			}
			return 200, 0
		})
		s := newSim(t, rc, razorpaysim.Options{DeliveryTimeout: 100 * time.Millisecond})
		mustPay(t, s, razorpay.Payment{Amount: 5000, Status: "failed"}, razorpaysim.PaymentOptions{})
		wait(t, s)
		hits := rc.Hits()
		if len(hits) != 2 || hits[0].Header.Get("X-Razorpay-Event-Id") != hits[1].Header.Get("X-Razorpay-Event-Id") {
			t.Fatalf("slow success not retried with the same id: %d hits", len(hits))
		}
	})
}

func TestItem11OutOfOrder(t *testing.T) {
	cases := map[string]struct {
		run  func(s *razorpaysim.Sim)
		want []string
	}{
		"CapturedBeforeAuthorized": {
			run: func(s *razorpaysim.Sim) {
				mustPay(t, s, razorpay.Payment{Amount: 5000}, razorpaysim.PaymentOptions{Ordering: razorpaysim.Reversed})
			},
			want: []string{"order.paid", "payment.captured", "payment.authorized"},
		},
		"RefundProcessedBeforeCreated": {
			run: func(s *razorpaysim.Sim) {
				p := mustPay(t, s, razorpay.Payment{Amount: 5000}, razorpaysim.PaymentOptions{Lose: true})
				if _, err := s.CreateRefund(razorpay.Refund{PaymentID: p.ID}, razorpaysim.RefundOptions{Ordering: razorpaysim.Reversed}); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"refund.processed", "refund.created"},
		},
		"FailedThenCaptured": {
			run: func(s *razorpaysim.Sim) {
				mustPay(t, s, razorpay.Payment{Amount: 5000, Method: "upi"}, razorpaysim.PaymentOptions{LateAuthorisation: true})
			},
			want: []string{"payment.failed", "payment.authorized", "payment.captured", "order.paid"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rc := newReceiver(t, nil)
			s := newSim(t, rc, razorpaysim.Options{})
			tc.run(s)
			wait(t, s)
			if got := rc.events(t); strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("arrival order %v, want %v", got, tc.want)
			}
			var ids []string
			for _, h := range rc.Hits() {
				ev, _ := razorpay.ParseEvent(h.Body)
				ids = append(ids, ev.Payment.ID)
			}
			for _, id := range ids {
				if id != ids[0] {
					t.Errorf("events are about different payments: %v", ids)
				}
			}
		})
	}
}

func TestItem12SeveralEventsPerPayment(t *testing.T) {
	rc := newReceiver(t, nil)
	s := newSim(t, rc, razorpaysim.Options{})
	p := mustPay(t, s, razorpay.Payment{Amount: 354000}, razorpaysim.PaymentOptions{Link: true, LinkReferenceID: "ACC-PRQ-1"})
	wait(t, s)
	hits := rc.Hits()
	want := []string{"payment.authorized", "payment.captured", "order.paid", "payment_link.paid"}
	if got := rc.events(t); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("events %v, want %v", got, want)
	}
	ids := map[string]bool{}
	for _, h := range hits {
		id := h.Header.Get("X-Razorpay-Event-Id")
		if !eventID.MatchString(id) || ids[id] {
			t.Errorf("event id %q not a fresh 14-char id", id)
		}
		ids[id] = true
		ev, _ := razorpay.ParseEvent(h.Body)
		if ev.Payment.ID != p.ID {
			t.Errorf("event about %s, want %s", ev.Payment.ID, p.ID)
		}
	}
	if spread := hits[len(hits)-1].At.Sub(hits[0].At); spread > time.Second {
		t.Errorf("events spread over %v, want within ~1 s", spread)
	}
}

func TestItem13Snapshots(t *testing.T) {
	rc := newReceiver(t, nil)
	s := newSim(t, rc, razorpaysim.Options{})
	p := mustPay(t, s, razorpay.Payment{Amount: 100000}, razorpaysim.PaymentOptions{Ordering: razorpaysim.Reversed})
	wait(t, s)
	last, _ := razorpay.ParseEvent(rc.Hits()[2].Body)
	if last.Event != "payment.authorized" || last.Payment.Status != "authorized" || last.Payment.Fee != nil || bool(last.Payment.Captured) {
		t.Errorf("late authorized snapshot: %s status %s fee %v", last.Event, last.Payment.Status, last.Payment.Fee)
	}
	first, _ := razorpay.ParseEvent(rc.Hits()[0].Body)
	if first.Payment.Status != "captured" || first.Payment.Fee == nil || first.Order.Status != "paid" {
		t.Errorf("order.paid snapshot: payment %s fee %v order %s", first.Payment.Status, first.Payment.Fee, first.Order.Status)
	}
	for _, amt := range []int64{30000, 70000} {
		if _, err := s.CreateRefund(razorpay.Refund{PaymentID: p.ID, Amount: amt}, razorpaysim.RefundOptions{}); err != nil {
			t.Fatal(err)
		}
		wait(t, s)
	}
	var refunded []string
	for _, h := range rc.Hits()[3:] {
		ev, _ := razorpay.ParseEvent(h.Body)
		refunded = append(refunded, strings.Join([]string{ev.Event, ev.Payment.Status, ev.Payment.RefundStatus,
			itoa(ev.Payment.AmountRefunded)}, "/"))
	}
	want := []string{
		"refund.created/captured/partial/30000", "refund.processed/captured/partial/30000",
		"refund.created/refunded/full/100000", "refund.processed/refunded/full/100000",
	}
	if strings.Join(refunded, " ") != strings.Join(want, " ") {
		t.Errorf("refund snapshots\n got %v\nwant %v", refunded, want)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// Close in the middle of the retry ladders ends them: no delivery attempt after it. At scale
// 0.01 the ladder's rungs come 70 ms, 190 ms, 400 ms, … after the first attempt. The simulator's
// own record of attempts is counted, not the receiver's: a request sent just before Close can
// reach the receiver's handler after Close has returned.
func TestCloseStopsDelivery(t *testing.T) {
	rc := newReceiver(t, func(int, hit) (int, time.Duration) { return 500, 0 })
	s := razorpaysim.New(razorpaysim.Options{WebhookURL: rc.srv.URL, TimeScale: 0.01})
	mustPay(t, s, razorpay.Payment{Amount: 5000}, razorpaysim.PaymentOptions{})
	waitFor(t, "a first failed delivery", func() bool { return len(rc.Hits()) > 0 })
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not stop the delivery goroutines")
	}
	attempts := func() int {
		n := 0
		for _, ev := range s.State().Events {
			n += len(ev.Attempts)
		}
		return n
	}
	n := attempts()
	if n >= 3*16 {
		t.Fatalf("%d attempts: the ladders had ended before Close, so this proves nothing", n)
	}
	// The behaviour under test is an absence over time: a ladder that survived Close would
	// attempt its next rungs within this half second.
	time.Sleep(500 * time.Millisecond)
	if got := attempts(); got != n {
		t.Errorf("deliveries continued after Close: %d attempts, then %d", n, got)
	}
}

func TestOnlyLoopbackTargets(t *testing.T) {
	s := newSim(t, nil, razorpaysim.Options{WebhookURL: "http://192.0.2.1:9/webhooks", DeliveryTimeout: 200 * time.Millisecond})
	mustPay(t, s, razorpay.Payment{Amount: 5000, Status: "failed"}, razorpaysim.PaymentOptions{})
	wait(t, s)
	for _, a := range s.State().Events[0].Attempts {
		if !strings.Contains(a.Error, "loopback") {
			t.Fatalf("attempt to a non-loopback address: %+v", a)
		}
	}
}

func TestLostWebhooks(t *testing.T) {
	rc := newReceiver(t, nil)
	s := newSim(t, rc, razorpaysim.Options{})
	code, _, _ := apiCall(t, s, "POST", "/__sim/payments", "", map[string]any{"amount": 5000, "deliver": false})
	if code != 200 {
		t.Fatalf("control create: %d", code)
	}
	wait(t, s)
	if len(rc.Hits()) != 0 {
		t.Fatal("lost payment delivered webhooks")
	}
	st := s.State()
	if len(st.Payments) != 1 || len(st.Events) != 3 || !st.Events[0].Lost {
		t.Fatalf("state: %d payments, %d events", len(st.Payments), len(st.Events))
	}
}
