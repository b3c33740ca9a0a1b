package console_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/console"
)

// Notes, ERPNext messages and bodies are escaped: a script in them is text, never markup.
func TestUserSuppliedTextIsEscaped(t *testing.T) {
	s := newSite(t, token)
	s.f.plan = console.Plan{Action: "park", Reason: "ERPNext said: " + hostileMsg}
	bearer := map[string]string{"Authorization": "Bearer " + token}
	for _, p := range []string{"/events/1", "/events"} {
		_, body := s.do(s.client(), "GET", p, nil, bearer)
		if strings.Contains(body, "<script>document") {
			t.Errorf("%s renders a raw script tag", p)
		}
		if !strings.Contains(body, "&lt;script&gt;document.title=") {
			t.Errorf("%s does not show the script as text", p)
		}
		if strings.Count(body, "<script") != 1 { // the console's own /static/console.js only
			t.Errorf("%s has %d script tags", p, strings.Count(body, "<script"))
		}
	}
}

func TestNoSecretOnAnyPage(t *testing.T) {
	s := newSite(t, token)
	s.f.checks = []console.CheckLine{{Item: "erpnext.api_secret", Status: "fail", Detail: "ERPNext echoed " + erpSecret}}
	s.f.plan = console.Plan{Action: "park", Reason: "refused " + erpSecret}
	bearer := map[string]string{"Authorization": "Bearer " + token}
	for _, p := range []string{"/", "/events", "/events/1", "/events/2", "/reconcile", "/check", "/nope"} {
		_, body := s.do(s.client(), "GET", p, nil, bearer)
		if strings.Contains(body, erpSecret) || strings.Contains(body, token) {
			t.Errorf("%s shows a secret", p)
		}
	}
	_, body := s.do(s.client(), "GET", "/check", nil, bearer)
	if !strings.Contains(body, "ERPNext echoed [redacted]") {
		t.Errorf("check page: secret not replaced by [redacted]")
	}
}

// Twelve wrong tokens in a minute: 401 ten times, then 429; the right token still logs in
// (the limit counts failures only, and never refuses the token); another address has its own
// budget; a minute later a wrong token is 401 again.
func TestTooManyWrongTokensIs429(t *testing.T) {
	s := newSite(t, token)
	wantStatuses(t, "wrong logins", s.wrongLogins(12), 10)
	if resp, _ := s.do(s.client(), "POST", "/login", url.Values{"token": {token}}, nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the right token after 12 wrong ones: %d, want 303", resp.StatusCode)
	}
	if resp, _ := s.do(s.client(), "POST", "/login", url.Values{"token": {"guess"}}, nil); resp.StatusCode != http.StatusTooManyRequests ||
		resp.Header.Get("Retry-After") != "60" {
		t.Fatalf("a wrong token after the right one: %d (Retry-After %q), want 429 (60)", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if code := s.from("192.0.2.7:40001", "POST", "/login", url.Values{"token": {"guess"}}, nil); code != http.StatusUnauthorized {
		t.Fatalf("a wrong token from another address: %d, want 401", code)
	}
	s.now = s.now.Add(time.Minute)
	wantStatuses(t, "wrong logins a minute later", s.wrongLogins(1), 1)
}

// Wrong Bearer tokens are limited like wrong logins, in the same budget of the address: ten
// 401s, then 429 on pages and actions alike; the right Bearer token is always served.
func TestWrongBearerTokensAreLimited(t *testing.T) {
	s := newSite(t, token)
	var got []int
	for i := 0; i < 11; i++ {
		resp, _ := s.do(s.client(), "GET", "/events", nil, map[string]string{"Authorization": "Bearer wrong" + strconv.Itoa(i)})
		got = append(got, resp.StatusCode)
	}
	resp, _ := s.do(s.client(), "POST", "/events/1/replay", url.Values{}, map[string]string{"Authorization": "Bearer wrong11"})
	got = append(got, resp.StatusCode)
	wantStatuses(t, "wrong Bearer tokens", got, 10)
	if resp, _ := s.do(s.client(), "GET", "/events", nil, map[string]string{"Authorization": "Bearer " + token}); resp.StatusCode != http.StatusOK {
		t.Fatalf("the right Bearer token after 12 wrong ones: %d, want 200", resp.StatusCode)
	}
	wantStatuses(t, "a wrong login after the wrong Bearer tokens", s.wrongLogins(1), 0)
	if resp, _ := s.do(s.client(), "POST", "/login", url.Values{"token": {token}}, nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the right login token: %d, want 303", resp.StatusCode)
	}
}

// wrongLogins posts n wrong tokens to /login and returns the statuses.
func (s *site) wrongLogins(n int) []int {
	var got []int
	for i := 0; i < n; i++ {
		resp, _ := s.do(s.client(), "POST", "/login", url.Values{"token": {"guess" + strconv.Itoa(i)}}, nil)
		got = append(got, resp.StatusCode)
	}
	return got
}

// wantStatuses checks that got is 401 for the first unauthorized answers and 429 after.
func wantStatuses(t *testing.T, what string, got []int, unauthorized int) {
	t.Helper()
	for i, code := range got {
		want := http.StatusTooManyRequests
		if i < unauthorized {
			want = http.StatusUnauthorized
		}
		if code != want {
			t.Errorf("%s: statuses %v; want %d × 401, then 429", what, got, unauthorized)
			return
		}
	}
}

// from serves one request from client address addr (host:port) straight through the console's
// handler and returns the status.
func (s *site) from(addr, method, path string, form url.Values, hdr map[string]string) int {
	req := httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
	req.RemoteAddr = addr
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	s.srv.Config.Handler.ServeHTTP(rec, req)
	return rec.Code
}

func TestLoginRedirectStaysOnSite(t *testing.T) {
	s := newSite(t, token)
	for _, next := range []string{"//evil.example/x", "https://evil.example", "/\\evil.example"} {
		resp, _ := s.do(s.client(), "POST", "/login", url.Values{"token": {token}, "next": {next}}, nil)
		if loc := resp.Header.Get("Location"); loc != "/" {
			t.Errorf("next %q → Location %q, want /", next, loc)
		}
	}
}

// The Events filter: dates are local days (to inclusive), paging by 50, a bad filter is 400.
func TestEventsFilterQuery(t *testing.T) {
	s := newSite(t, token)
	bearer := map[string]string{"Authorization": "Bearer " + token}
	resp, _ := s.do(s.client(), "GET", "/events?status=parked&event=order.paid&key=pay_X&invoice=ACC-SINV-2026-00001&from=2026-03-01&to=2026-03-14&page=3", nil, bearer)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d", resp.StatusCode)
	}
	ist, _ := time.LoadLocation("Asia/Kolkata")
	want := console.EventQuery{Status: "parked", Event: "order.paid", Key: "pay_X", Invoice: "ACC-SINV-2026-00001",
		From: time.Date(2026, 3, 1, 0, 0, 0, 0, ist), To: time.Date(2026, 3, 15, 0, 0, 0, 0, ist), Limit: 51, Offset: 100}
	got := s.f.queries[len(s.f.queries)-1]
	if got.Status != want.Status || got.Event != want.Event || got.Key != want.Key || got.Invoice != want.Invoice ||
		!got.From.Equal(want.From) || !got.To.Equal(want.To) || got.Limit != want.Limit || got.Offset != want.Offset {
		t.Fatalf("query %+v; want %+v", got, want)
	}
	for _, q := range []string{"status=bogus", "from=yesterday", "from=2026-03-14&to=2026-03-01", "page=0"} {
		n := len(s.f.queries)
		resp, body := s.do(s.client(), "GET", "/events?"+q, nil, bearer)
		if resp.StatusCode != http.StatusBadRequest || len(s.f.queries) != n || !strings.Contains(body, `class="flash error"`) {
			t.Errorf("%s: %d, want 400 and no query", q, resp.StatusCode)
		}
	}
}

// A backend error that Options.Conceal recognises (a database's message) is shown as the words
// Conceal gives, with 503; its own text stays off the page.
func TestConcealedBackendError(t *testing.T) {
	f := newFake()
	dbErr := errors.New("store unavailable: read counts: Error 1366 (22007): Incorrect string value: '\\xFF' for column `inbox`.`last_error`")
	f.todayErr = dbErr
	c := console.New(console.Options{Backend: f, Token: "T3stConcealToken0001", Conceal: func(err error) string {
		if errors.Is(err, dbErr) {
			return "the database did not answer"
		}
		return ""
	}})
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	req, _ := http.NewRequest("GET", srv.URL+"/", nil)
	req.Header.Set("Authorization", "Bearer T3stConcealToken0001")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if page := string(b); resp.StatusCode != http.StatusServiceUnavailable || strings.Contains(page, "1366") ||
		strings.Contains(page, "last_error") || !strings.Contains(page, "the database did not answer") {
		t.Errorf("GET /: %d\n%s", resp.StatusCode, page)
	}
}

// Without captured amounts the Today page says why once, not once per chart and once more.
func TestTodaySaysWhyCapturedIsMissingOnce(t *testing.T) {
	bearer := map[string]string{"Authorization": "Bearer " + token}
	day := time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC)
	for _, note := range []string{"razorpay.key_id and key_secret are not configured.",
		"reading Razorpay's payments of the last 14 days; reload in a moment."} {
		s := newSite(t, token)
		s.f.today = console.Today{SeriesNote: note, LastWebhook: fixedNow,
			Series: []console.MoneySeries{{Currency: "INR", Days: []console.MoneyDay{{Day: day, BookedMinor: 83500, BookedCount: 1}}}}}
		_, body := s.do(s.client(), "GET", "/", nil, bearer)
		if n := strings.Count(body, strings.ReplaceAll(note, "'", "&#39;")); n != 1 {
			t.Errorf("%q appears %d times; want once", note, n)
		}
		if !strings.Contains(body, "Captured amounts are not shown: "+strings.ReplaceAll(note, "'", "&#39;")) {
			t.Errorf("no \"Captured amounts are not shown: %s\"", note)
		}
	}
	s := newSite(t, token) // known, with a note about the read: said once, as is
	note := "the last read of Razorpay failed (timeout); shown as of the read before."
	s.f.today = console.Today{SeriesNote: note, LastWebhook: fixedNow, Series: []console.MoneySeries{{Currency: "INR",
		CapturedKnown: true, Days: []console.MoneyDay{{Day: day, BookedMinor: 83500, CapturedMinor: 83500}}}}}
	if _, body := s.do(s.client(), "GET", "/", nil, bearer); strings.Count(body, note) != 1 || strings.Contains(body, "Captured amounts are not shown") {
		t.Errorf("known captured amounts with a note: %d times, body says not shown: %v", strings.Count(body, note), strings.Contains(body, "Captured amounts are not shown"))
	}
}

// An event's reason is headed by what it is: ERPNext's message only when ERPNext gave it.
func TestEventReasonIsLabelledByWhatItIs(t *testing.T) {
	s := newSite(t, token)
	bearer := map[string]string{"Authorization": "Bearer " + token}
	received := fixedNow.Add(-time.Hour)
	s.f.add(console.EventDetail{EventRow: console.EventRow{ID: 4, EventID: "EvtRefused0001", Event: "payment.captured",
		BusinessKey: "pay_Refused00001", Status: "parked", ReceivedAt: received, UpdatedAt: received,
		Reason: "insert Payment Entry for pay_Refused00001: ERPNext 417 ValidationError: Posting Date is in a closed period"},
		ReasonFromERPNext: true, Body: []byte(`{}`)})
	for id, want := range map[int]string{
		1: `<h3 id="reason-label">Why it is parked</h3>`,
		2: "", // done without a reason: no heading
		4: `<h3 id="reason-label">Why it is parked — with ERPNext's own message</h3>`,
	} {
		_, body := s.do(s.client(), "GET", "/events/"+strconv.Itoa(id), nil, bearer)
		if want != "" && !strings.Contains(body, want) {
			t.Errorf("event %d: no %s", id, want)
		}
		if id != 4 && strings.Contains(body, "ERPNext's own message") {
			t.Errorf("event %d: its reason is the connector's own, but the page calls it ERPNext's message", id)
		}
	}
}

// A run row counts as `reconcile` reports: queued and booked apart, settlements apart.
func TestReconcileRunRowCountsAsTheCLI(t *testing.T) {
	s := newSite(t, token)
	fin := fixedNow
	s.f.runs = []console.ReconcileRun{{ID: 1, WindowFrom: fixedNow.Add(-48 * time.Hour), WindowTo: fixedNow, Scanned: 2, Queued: 2,
		Booked: 1, Parked: 1, SettlementsQueued: 1, StartedAt: fixedNow, FinishedAt: &fin}}
	_, body := s.do(s.client(), "GET", "/reconcile", nil, map[string]string{"Authorization": "Bearer " + token})
	for _, want := range []string{`<td class="num run-queued">2</td>`, `<td class="num run-booked">1</td>`, `<td class="num run-settlements">1</td>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the run row lacks %s", want)
		}
	}
}
