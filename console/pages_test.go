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

func TestTooManyWrongTokensIs429(t *testing.T) {
	s := newSite(t, token)
	for i := 0; i < 10; i++ {
		if resp, _ := s.do(s.client(), "POST", "/login", url.Values{"token": {"guess"}}, nil); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("try %d: %d", i, resp.StatusCode)
		}
	}
	resp, _ := s.do(s.client(), "POST", "/login", url.Values{"token": {token}}, nil)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("11th try in a minute: %d, want 429", resp.StatusCode)
	}
	s.now = s.now.Add(time.Minute)
	if resp, _ := s.do(s.client(), "POST", "/login", url.Values{"token": {token}}, nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("a minute later: %d, want 303", resp.StatusCode)
	}
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
