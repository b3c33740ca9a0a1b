package razorpaysim_test

import (
	"bytes"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// webhookState returns the endpoint id of s's State, failing when absent.
func webhookState(t *testing.T, s *razorpaysim.Sim, id string) razorpaysim.WebhookState {
	t.Helper()
	for _, w := range s.State().Webhooks {
		if w.ID == id {
			return w
		}
	}
	t.Fatalf("no webhook %q in State", id)
	return razorpaysim.WebhookState{}
}

// waitFor polls cond for up to testtime.Bound.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testtime.Until(t, what, cond)
}

func TestItem08AutoDisable(t *testing.T) {
	// 2e-6: the 24 h window is ~173 ms of real time, one event's ladder ~164 ms.
	const scale = 2e-6
	window := time.Duration(float64(24*time.Hour) * scale)
	var healthy atomic.Bool
	failing := newReceiver(t, func(int, hit) (int, time.Duration) {
		if healthy.Load() {
			return 200, 0
		}
		return 500, 0
	})
	control := newReceiver(t, nil)
	s := newSim(t, control, razorpaysim.Options{
		TimeScale: scale, WebhookSecret: "wh",
		Webhooks: []razorpaysim.Webhook{{ID: "erp", URL: failing.srv.URL, Secret: "wh_erp", AlertEmail: "ops@example.com"}},
	})
	failed := razorpay.Payment{Amount: 5000, Status: "failed"}

	mustPay(t, s, failed, razorpaysim.PaymentOptions{NoOrder: true})
	waitFor(t, "the first failed delivery", func() bool { return len(failing.Hits()) > 0 })
	if w := webhookState(t, s, "erp"); w.Disabled || len(s.State().Alerts) != 0 {
		t.Fatalf("endpoint disabled after its first failure: %+v", w)
	}
	wait(t, s)

	// Deliveries keep failing past 24 h (scaled) since the first failure: disabled, alert mailed.
	// The sleep is not synchronisation but the 24 h passing: the simulator measures the
	// window in real (scaled) time, and a loaded machine can only make it longer.
	time.Sleep(window + 20*time.Millisecond)
	mustPay(t, s, failed, razorpaysim.PaymentOptions{NoOrder: true})
	wait(t, s)
	st := s.State()
	w := webhookState(t, s, "erp")
	if !w.Disabled || w.DisabledAt.IsZero() {
		t.Fatalf("endpoint not disabled after 24 h of failures: %+v", w)
	}
	if len(st.Alerts) != 1 {
		t.Fatalf("alerts %+v, want one", st.Alerts)
	}
	if a := st.Alerts[0]; a.Webhook != "erp" || a.To != "ops@example.com" || a.URL != failing.srv.URL ||
		!strings.Contains(a.Body, "24 hours") || a.At.IsZero() {
		t.Errorf("alert email %+v", a)
	}
	if webhookState(t, s, "default").Disabled {
		t.Error("the always-200 endpoint was disabled too")
	}

	// Nothing further for any event: new events, and nothing left over from old retries.
	n := len(failing.Hits())
	healthy.Store(true)
	p := mustPay(t, s, razorpay.Payment{Amount: 7000, Status: "authorized"}, razorpaysim.PaymentOptions{})
	if _, err := s.Capture(p.ID, 7000, "INR"); err != nil {
		t.Fatal(err)
	}
	wait(t, s)
	// An absence over time is the behaviour under test: a retry left over from an old ladder
	// would arrive within a window (longer than any ladder).
	time.Sleep(window)
	if got := len(failing.Hits()); got != n {
		t.Fatalf("disabled endpoint received %d more deliveries", got-n)
	}
	if len(control.Hits()) != 5 { // failed, failed, authorized, captured, order.paid
		t.Errorf("control endpoint got %d deliveries, want 5", len(control.Hits()))
	}

	// Re-enabled through the control endpoint: later events are delivered again.
	code, m, raw := apiCall(t, s, "POST", "/__sim/webhooks/erp/enable", "", nil)
	if code != 200 || m["disabled"] != false {
		t.Fatalf("enable: %d %s", code, raw)
	}
	if code, m, _ := apiCall(t, s, "POST", "/__sim/webhooks/nope/enable", "", nil); code != 400 || errOf(t, m)["code"] != "BAD_REQUEST_ERROR" {
		t.Errorf("enable of an unknown webhook: %d", code)
	}
	mustPay(t, s, failed, razorpaysim.PaymentOptions{NoOrder: true})
	wait(t, s)
	hits := failing.Hits()[n:]
	if len(hits) != 1 || eventName(t, hits[0].Body) != "payment.failed" {
		t.Fatalf("after re-enabling got %d deliveries, want the one new payment.failed", len(hits))
	}
	if ev := s.State().Events; !ev[len(ev)-1].Delivered {
		t.Errorf("new event not delivered after re-enabling: %+v", ev[len(ev)-1])
	}
}

func TestItem09FanOut(t *testing.T) {
	all := newReceiver(t, nil)
	filtered := newReceiver(t, nil)
	flaky := newReceiver(t, func(n int, _ hit) (int, time.Duration) {
		if n == 0 {
			return 500, 0
		}
		return 200, 0
	})
	s := newSim(t, all, razorpaysim.Options{
		WebhookSecret: "s_default",
		Webhooks: []razorpaysim.Webhook{
			{ID: "erp", URL: filtered.srv.URL, Secret: "s_erp", Events: []string{"payment.captured", "refund.processed"}},
			{URL: flaky.srv.URL}, // no secret, every event; ID defaults to webhook_2
		},
	})
	p := mustPay(t, s, razorpay.Payment{Amount: 5000}, razorpaysim.PaymentOptions{})
	wait(t, s)
	if _, err := s.CreateRefund(razorpay.Refund{PaymentID: p.ID}, razorpaysim.RefundOptions{}); err != nil {
		t.Fatal(err)
	}
	wait(t, s)

	want := []string{"payment.authorized", "payment.captured", "order.paid", "refund.created", "refund.processed"}
	if got := all.events(t); !slices.Equal(got, want) {
		t.Fatalf("default endpoint got %v, want %v", got, want)
	}
	if got := filtered.events(t); !slices.Equal(got, []string{"payment.captured", "refund.processed"}) {
		t.Fatalf("filtered endpoint got %v", got)
	}
	if n := len(flaky.Hits()); n != 6 { // 5 events + 1 retry of the failed first attempt
		t.Fatalf("flaky endpoint got %d deliveries, want 6", n)
	}
	byID := map[string]hit{}
	for _, h := range all.Hits() {
		byID[h.Header.Get("X-Razorpay-Event-Id")] = h
		if razorpay.VerifySignature(h.Body, h.Header.Get("X-Razorpay-Signature"), []string{"s_default"}) != nil {
			t.Error("default endpoint: bad signature")
		}
	}
	for name, rc := range map[string]*receiver{"erp": filtered, "webhook_2": flaky} {
		for _, h := range rc.Hits() {
			orig, ok := byID[h.Header.Get("X-Razorpay-Event-Id")]
			if !ok || !bytes.Equal(orig.Body, h.Body) {
				t.Errorf("%s: event id %s not the same event as at the default endpoint", name, h.Header.Get("X-Razorpay-Event-Id"))
			}
			sig := h.Header.Get("X-Razorpay-Signature")
			switch name {
			case "erp":
				if razorpay.VerifySignature(h.Body, sig, []string{"s_erp"}) != nil || sig == orig.Header.Get("X-Razorpay-Signature") {
					t.Errorf("erp: not signed with its own secret")
				}
			default:
				if _, has := h.Header["X-Razorpay-Signature"]; has {
					t.Errorf("%s: signature sent without a secret", name)
				}
			}
		}
	}
	st := s.State()
	if len(st.Webhooks) != 3 || st.Webhooks[0].ID != "default" || st.Webhooks[1].ID != "erp" || st.Webhooks[2].ID != "webhook_2" {
		t.Fatalf("webhooks %+v", st.Webhooks)
	}
	for _, ev := range st.Events {
		var ids []string
		for _, d := range ev.Deliveries {
			ids = append(ids, d.Webhook)
			if !d.Delivered || !d.Finished {
				t.Errorf("%s to %s not delivered", ev.Event, d.Webhook)
			}
		}
		wantIDs := []string{"default", "webhook_2"}
		if ev.Event == "payment.captured" || ev.Event == "refund.processed" {
			wantIDs = []string{"default", "erp", "webhook_2"}
		}
		if !slices.Equal(ids, wantIDs) || !ev.Delivered {
			t.Errorf("%s went to %v (delivered %v), want %v", ev.Event, ids, ev.Delivered, wantIDs)
		}
	}
	if code, _, raw := apiCall(t, s, "GET", "/__sim/webhooks", "", nil); code != 200 || !strings.Contains(string(raw), `"erp"`) {
		t.Errorf("GET /__sim/webhooks: %d %s", code, raw)
	}
}

func TestItem14ManualReplay(t *testing.T) {
	// 2e-6: the 15-day replay window is ~2.6 s of real time, room for a loaded CI machine to do
	// the replays that must still be allowed.
	const scale = 2e-6
	rc := newReceiver(t, nil)
	s := newSim(t, rc, razorpaysim.Options{TimeScale: scale, WebhookSecret: "old_secret"})
	mustPay(t, s, razorpay.Payment{Amount: 5000, Status: "failed"}, razorpaysim.PaymentOptions{NoOrder: true})
	mustPay(t, s, razorpay.Payment{Amount: 6000, Status: "authorized"}, razorpaysim.PaymentOptions{Lose: true})
	wait(t, s)
	s.RotateWebhookSecret("new_secret")
	st := s.State()
	delivered, lost := st.Events[0], st.Events[1]
	if len(rc.Hits()) != 1 || !lost.Lost {
		t.Fatalf("setup: %d hits, lost=%v", len(rc.Hits()), lost.Lost)
	}

	// Method: same id, same bytes, same signature (the old secret's) as the original.
	attempts, err := s.ReplayEvent(delivered.ID, "")
	if err != nil || len(attempts) != 1 || !attempts[0].Success || !attempts[0].Replay {
		t.Fatalf("ReplayEvent: %v %+v", err, attempts)
	}
	orig, again := rc.Hits()[0], rc.Hits()[1]
	if again.Header.Get("X-Razorpay-Event-Id") != delivered.ID || !bytes.Equal(again.Body, orig.Body) ||
		again.Header.Get("X-Razorpay-Signature") != orig.Header.Get("X-Razorpay-Signature") {
		t.Fatal("replay differs from the original delivery")
	}
	if razorpay.VerifySignature(again.Body, again.Header.Get("X-Razorpay-Signature"), []string{"old_secret"}) != nil {
		t.Error("replay not signed with the secret valid when the event happened")
	}

	// Control endpoint: a lost event is replayed with its stored bytes and signature.
	code, m, raw := apiCall(t, s, "POST", "/__sim/events/"+lost.ID+"/replay", "", nil)
	if code != 200 || m["event_id"] != lost.ID {
		t.Fatalf("control replay: %d %s", code, raw)
	}
	h := rc.Hits()[2]
	if h.Header.Get("X-Razorpay-Event-Id") != lost.ID || string(h.Body) != lost.Body || h.Header.Get("X-Razorpay-Signature") != lost.Signature {
		t.Fatal("replayed lost event differs from the stored one")
	}
	if code, m, _ := apiCall(t, s, "POST", "/__sim/events/NoSuchEvent123/replay", "", nil); code != 400 ||
		errOf(t, m)["description"] != "The id provided does not exist" {
		t.Errorf("unknown event: %d %v", code, m)
	}
	if n := len(s.State().Events[0].Attempts); n != 2 {
		t.Errorf("replay not recorded in State: %d attempts", n)
	}

	// Beyond 15 days (scaled): refused, nothing sent. The sleep is the 15 days passing (real,
	// scaled time since the event's creation), not synchronisation.
	time.Sleep(time.Duration(float64(15*24*time.Hour)*scale) + 20*time.Millisecond)
	if _, err := s.ReplayEvent(delivered.ID, ""); !errors.Is(err, razorpaysim.ErrReplayTooOld) {
		t.Errorf("replay of an old event: %v", err)
	}
	code, m, _ = apiCall(t, s, "POST", "/__sim/events/"+lost.ID+"/replay", "", nil)
	if code != 400 || !strings.Contains(errOf(t, m)["description"].(string), "15 days") {
		t.Errorf("control replay of an old event: %d %v", code, m)
	}
	if n := len(rc.Hits()); n != 3 {
		t.Errorf("receiver saw %d requests, want 3", n)
	}
}

func TestItem15TestAndLiveKeys(t *testing.T) {
	rcTest, rcLive := newReceiver(t, nil), newReceiver(t, nil)
	s := newSim(t, rcTest, razorpaysim.Options{
		KeyID: "rzp_test_k", KeySecret: "test_sekret", WebhookSecret: "wh_test",
		LiveKeyID: "rzp_live_k", LiveKeySecret: "live_sekret",
		LiveWebhookURL: rcLive.srv.URL, LiveWebhookSecret: "wh_live",
	})
	testAuth, liveAuth := basic("rzp_test_k", "test_sekret"), basic("rzp_live_k", "live_sekret")
	live := s.Live()
	if live == nil || live.Mode() != "live" || s.Mode() != "test" || live.Live() != live {
		t.Fatal("live mode not running")
	}
	tp := mustPay(t, s, razorpay.Payment{Amount: 5000}, razorpaysim.PaymentOptions{})
	lp := mustPay(t, live, razorpay.Payment{Amount: 9000}, razorpaysim.PaymentOptions{})
	code, m, raw := apiCall(t, s, "POST", "/__sim/live/payments", "", map[string]any{"amount": 12000})
	if code != 200 {
		t.Fatalf("live control payment: %d %s", code, raw)
	}
	lp2 := m["id"].(string)
	wait(t, s)

	ids := func(auth string) []string {
		code, m, raw := apiCall(t, s, "GET", "/v1/payments", auth, nil)
		if code != 200 {
			t.Fatalf("list: %d %s", code, raw)
		}
		var out []string
		for _, it := range m["items"].([]any) {
			out = append(out, it.(map[string]any)["id"].(string))
		}
		slices.Sort(out)
		return out
	}
	wantLive := []string{lp.ID, lp2}
	slices.Sort(wantLive)
	if got := ids(testAuth); !slices.Equal(got, []string{tp.ID}) {
		t.Errorf("test keys list %v, want only %s", got, tp.ID)
	}
	if got := ids(liveAuth); !slices.Equal(got, wantLive) {
		t.Errorf("live keys list %v, want %v", got, wantLive)
	}
	for _, c := range []struct{ auth, id string }{{testAuth, lp.ID}, {liveAuth, tp.ID}, {liveAuth, tp.OrderID}} {
		path := "/v1/payments/" + c.id
		if strings.HasPrefix(c.id, "order_") {
			path = "/v1/orders/" + c.id
		}
		code, m, _ := apiCall(t, s, "GET", path, c.auth, nil)
		if code != 400 || errOf(t, m)["description"] != "The id provided does not exist" {
			t.Errorf("%s seen from the other mode: %d %v", c.id, code, m)
		}
	}
	if code, m, _ := apiCall(t, s, "GET", "/v1/payments/"+lp.ID, liveAuth, nil); code != 200 || m["id"] != lp.ID {
		t.Errorf("live payment with live keys: %d", code)
	}

	t.Run("WrongCredentialsAre401", func(t *testing.T) {
		for _, a := range []string{"", basic("rzp_live_k", "test_sekret"), basic("rzp_test_k", "live_sekret"),
			basic("rzp_live_other", "live_sekret"), basic("rzp_live_k", "")} {
			code, m, raw := apiCall(t, s, "GET", "/v1/payments", a, nil)
			e := errOf(t, m)
			if code != 401 || e["code"] != "BAD_REQUEST_ERROR" || e["description"] == "" ||
				strings.Contains(string(raw), "sekret") {
				t.Errorf("auth %q: %d %s", a, code, raw)
			}
		}
	})

	t.Run("SeparateWebhooks", func(t *testing.T) {
		for _, c := range []struct {
			rc     *receiver
			secret string
			n      int
		}{{rcTest, "wh_test", 3}, {rcLive, "wh_live", 6}} {
			hits := c.rc.Hits()
			if len(hits) != c.n {
				t.Errorf("%d deliveries, want %d", len(hits), c.n)
			}
			for _, h := range hits {
				if razorpay.VerifySignature(h.Body, h.Header.Get("X-Razorpay-Signature"), []string{c.secret}) != nil {
					t.Errorf("delivery not signed with its mode's secret %s", c.secret)
				}
			}
		}
		for _, h := range rcTest.Hits() {
			if ev, _ := razorpay.ParseEvent(h.Body); ev.Payment.ID != tp.ID {
				t.Errorf("test endpoint got an event about %s", ev.Payment.ID)
			}
		}
	})

	t.Run("State", func(t *testing.T) {
		ts, ls := s.State(), live.State()
		if ts.Mode != "test" || len(ts.Payments) != 1 || len(ts.Events) != 3 {
			t.Errorf("test state: mode %s, %d payments, %d events", ts.Mode, len(ts.Payments), len(ts.Events))
		}
		if ls.Mode != "live" || len(ls.Payments) != 2 || len(ls.Events) != 6 || ls.AccountID != ts.AccountID {
			t.Errorf("live state: mode %s, %d payments, %d events", ls.Mode, len(ls.Payments), len(ls.Events))
		}
		code, m, _ := apiCall(t, s, "GET", "/__sim/live/state", "", nil)
		if code != 200 || m["mode"] != "live" {
			t.Errorf("GET /__sim/live/state: %d mode %v", code, m["mode"])
		}
	})

	t.Run("LiveNotConfigured", func(t *testing.T) {
		s := newSim(t, nil, razorpaysim.Options{KeyID: "rzp_test_k", KeySecret: "test_sekret"})
		if s.Live() != nil {
			t.Error("Live() without live keys")
		}
		if code, _, _ := apiCall(t, s, "GET", "/__sim/live/state", "", nil); code != http.StatusBadRequest {
			t.Errorf("live control without live mode: %d", code)
		}
		if code, _, _ := apiCall(t, s, "GET", "/v1/payments", basic("rzp_live_k", "live_sekret"), nil); code != 401 {
			t.Errorf("live keys without live mode: %d", code)
		}
	})
}
