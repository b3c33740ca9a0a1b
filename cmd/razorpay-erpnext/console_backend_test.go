package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/console"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Today's figures come from the right places: stored webhooks from the inbox (every replica),
// duplicates and refusals from this replica's counters, booked money from the bookings.
func TestConsoleTodayFigures(t *testing.T) {
	t.Parallel()
	e, cfg, d := startWithConsole(t, "sqlite")
	booked := e.payment("payment.captured", "pay_T3stToday0001", 1200000, nil)
	e.deliver(d, "T3stEvtToday01", booked)
	e.deliver(d, "T3stEvtToday01", booked) // Razorpay retried: a duplicate, not stored again
	e.deliver(d, "T3stEvtToday02", e.payment("payment.captured", "pay_T3stToday0002", 50000, map[string]string{"invoice": "NO-SUCH-INVOICE"}))
	if code, _ := post(t, "http://"+d.pub.Addr().String()+cfg.WebhookPath, "T3stEvtToday03", "wrong-secret", booked); code != http.StatusUnauthorized {
		t.Fatalf("bad signature: %d", code)
	}
	e.waitIdle(d)
	ist, _ := time.LoadLocation(cfg.Mapping.Timezone)
	b := newConsoleBackend(context.Background(), d, ist)
	today, err := b.Today(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if today.StoredWebhooks != 2 || today.ReconcileRows != 0 {
		t.Errorf("stored %d webhooks, %d reconcile rows; want 2, 0", today.StoredWebhooks, today.ReconcileRows)
	}
	wantReplica := console.ReplicaCounts{Since: b.started, Received: 4, Accepted: 2, Duplicate: 1, Rejected: 1,
		RejectedBy: map[string]int{"bad signature": 1}}
	if !reflect.DeepEqual(today.Replica, wantReplica) {
		t.Errorf("replica counts %+v; want %+v", today.Replica, wantReplica)
	}
	if want := []console.Money{{Currency: "INR", AmountMinor: 1200000, Count: 1}}; !reflect.DeepEqual(today.BookedToday, want) {
		t.Errorf("booked today %+v; want %+v", today.BookedToday, want)
	}
	if today.Statuses[string(connector.StatusParked)] != 1 || today.Statuses[string(connector.StatusDone)] != 1 || !today.OldestPending.IsZero() {
		t.Errorf("statuses %v, oldest pending %v", today.Statuses, today.OldestPending)
	}
	rows, _ := d.db.FindEvents(context.Background(), "T3stEvtToday02")
	if len(rows) != 1 || !today.LastWebhook.Equal(rows[0].ReceivedAt) {
		t.Errorf("last webhook %v; want the last stored row's %v", today.LastWebhook, rows)
	}
	if len(today.Series) != 1 || len(today.Series[0].Days) != seriesDays || today.Series[0].CapturedKnown ||
		!strings.Contains(today.SeriesNote, "key_id") {
		t.Fatalf("series %+v, note %q", today.Series, today.SeriesNote)
	}
	last := today.Series[0].Days[seriesDays-1]
	y, m, dd := time.Now().In(ist).Date()
	if !last.Day.Equal(time.Date(y, m, dd, 0, 0, 0, 0, ist)) || last.BookedMinor != 1200000 || last.BookedCount != 1 {
		t.Errorf("today in the series: %+v", last)
	}
	var sum int64
	for _, day := range today.Series[0].Days {
		sum += day.BookedMinor
	}
	if sum != 1200000 {
		t.Errorf("series books %d paise in 14 days; want 1200000", sum)
	}
	if f := today.Faults; len(f) != 3 || f[0].State != console.FaultOK || f[1].State != console.FaultOff {
		t.Errorf("faults %+v", f)
	}
}

// Rebook is offered only once the entry is cancelled in ERPNext, is refused while it is
// live, and books the payment again.
func TestConsoleRebookAfterEntryCancelled(t *testing.T) {
	t.Parallel()
	e, cfg, d := startWithConsole(t, "sqlite")
	e.deliver(d, "T3stEvRebookC1", e.payment("payment.captured", "pay_T3stRebookC001", 1200000, nil))
	e.waitIdle(d)
	rows, _ := d.db.FindEvents(context.Background(), "T3stEvRebookC1")
	if len(rows) != 1 || rows[0].Status != connector.StatusDone {
		t.Fatalf("rows %+v", rows)
	}
	id, first := rows[0].ID, rows[0].ResultName
	bearer := map[string]string{"Authorization": "Bearer " + testAdminToken}
	page := fmt.Sprintf("/events/%d", id)
	if _, _, body := adminGet(t, d, "GET", page, bearer, nil); strings.Contains(body, `id="rebook"`) || strings.Contains(body, `id="replay"`) {
		t.Fatal("Rebook or Replay offered while the entry is live")
	}
	code, _, body := adminGet(t, d, "POST", page+"/rebook", bearer, url.Values{})
	if code != http.StatusConflict || !strings.Contains(body, "still live") {
		t.Fatalf("rebook of a live entry: %d", code)
	}
	erp, err := frappe.New(frappe.Config{URL: cfg.ERPNext.URL, APIKey: testKey, APISecret: testSecret, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := erp.Update(context.Background(), frappe.DoctypePaymentEntry, first, map[string]any{"docstatus": 2}, nil); err != nil {
		t.Fatalf("cancel %s: %v", first, err)
	}
	_, _, body = adminGet(t, d, "GET", page, bearer, nil)
	if !strings.Contains(body, `id="rebook"`) || !strings.Contains(body, "doc-cancelled") {
		t.Fatalf("Rebook not offered for a cancelled entry:\n%s", body)
	}
	if code, _, body := adminGet(t, d, "POST", page+"/rebook", bearer, url.Values{}); code != http.StatusSeeOther {
		t.Fatalf("rebook: %d\n%s", code, body)
	}
	row := waitStatus(t, d, id, connector.StatusDone)
	sub, other := e.entries("pay_T3stRebookC001")
	if len(sub) != 1 || len(other) != 1 || row.ResultName == first || row.ResultName != fmt.Sprint(sub[0]["name"]) {
		t.Fatalf("after rebook: %d submitted, %d other; row result %s (first %s)", len(sub), len(other), row.ResultName, first)
	}
	if got := amountMinor(t, sub[0]["paid_amount"]); got != 1200000 {
		t.Errorf("rebooked paid_amount %d; want 1200000", got)
	}
}

// The per-event history: a replay and a dismissal through the console are recorded with who
// and when, shown on the event's page and by events show; after the replay the attempt that
// parked the event still counts.
func TestConsoleEventHistory(t *testing.T) {
	t.Parallel()
	e, cfg, d := startWithConsole(t, "sqlite")
	const later = "ACC-SINV-2026-00002" // the next invoice the simulator names: not there yet
	e.deliver(d, "T3stEvtHist001", e.payment("payment.captured", "pay_T3stHistory001", 1200000, map[string]string{"invoice": later}))
	e.deliver(d, "T3stEvtHist002", e.payment("payment.captured", "pay_T3stHistory002", 50000, map[string]string{"invoice": "NO-SUCH-INVOICE"}))
	e.waitIdle(d)
	ids := map[string]int64{}
	for _, ev := range []string{"T3stEvtHist001", "T3stEvtHist002"} {
		rows, _ := d.db.FindEvents(context.Background(), ev)
		if len(rows) != 1 || rows[0].Status != connector.StatusParked {
			t.Fatalf("%s: %+v, want parked", ev, rows)
		}
		ids[ev] = rows[0].ID
	}
	if inv := e.newInvoice("Test Customer", "12000.00"); inv != later {
		t.Fatalf("invoice %s, want %s", inv, later)
	}
	jar := consoleLogin(t, d, "Priya")
	before := time.Now().UTC().Truncate(time.Second)
	page := fmt.Sprintf("/events/%d", ids["T3stEvtHist001"])
	if code := jar.post(t, page+"/replay", nil); code != http.StatusSeeOther {
		t.Fatalf("replay: %d", code)
	}
	waitStatus(t, d, ids["T3stEvtHist001"], connector.StatusDone)
	other := fmt.Sprintf("/events/%d", ids["T3stEvtHist002"])
	if code := jar.post(t, other+"/dismiss", url.Values{"reason": {"duplicate test payment"}}); code != http.StatusSeeOther {
		t.Fatalf("dismiss: %d", code)
	}
	hist, err := d.ops.History(context.Background(), ids["T3stEvtHist001"])
	if err != nil || len(hist) != 1 || hist[0].Actor != "Priya (console)" || hist[0].Action != connector.HistoryReplayed ||
		hist[0].From != connector.StatusParked || hist[0].Attempts != 1 || hist[0].At.Before(before) ||
		!strings.HasPrefix(hist[0].Detail, "was parked: no invoice matched") {
		t.Fatalf("history %+v, %v", hist, err)
	}
	_, body := jar.get(t, page)
	for _, want := range []string{"<strong>Priya (console)</strong> replayed: was parked: no invoice matched",
		`<dd id="attempts">1 since the last replay (2 in all)</dd>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the event page lacks %q", want)
		}
	}
	if strings.Contains(body, "keeps no per-event history") {
		t.Error("the event page says no history is kept")
	}
	if _, body := jar.get(t, other); !strings.Contains(body, "<strong>Priya (console)</strong> dismissed: duplicate test payment") {
		t.Error("the dismissed event's page does not show who dismissed it")
	}
	path, envs := e.writeConfig(cfg, "")
	_, out, _ := run(t, envs, "events", "show", "T3stEvtHist001", "--config", path)
	for _, want := range []string{"\nattempts:        1 since the last replay (2 in all)\n", " replayed by Priya (console): was parked: no invoice matched"} {
		if !strings.Contains(out, want) {
			t.Errorf("events show lacks %q:\n%s", want, out)
		}
	}
}

// consoleSession is a browser's cookie session on the daemon's console.
type consoleSession struct {
	d      *daemon
	client *http.Client
}

// consoleLogin logs in as name with the admin token, as the login form does.
func consoleLogin(t *testing.T, d *daemon, name string) *consoleSession {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	s := &consoleSession{d: d, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	resp, err := s.client.PostForm("http://"+d.adm.Addr().String()+"/login", url.Values{"token": {testAdminToken}, "name": {name}})
	if err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login: %v %v", resp, err)
	}
	resp.Body.Close()
	return s
}

func (s *consoleSession) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := s.client.Get("http://" + s.d.adm.Addr().String() + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// post sends form to path with the CSRF token of the event page it belongs to.
func (s *consoleSession) post(t *testing.T, path string, form url.Values) int {
	t.Helper()
	_, page := s.get(t, path[:strings.LastIndex(path, "/")])
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token on the page of %s", path)
	}
	if form == nil {
		form = url.Values{}
	}
	form.Set("csrf", m[1])
	resp, err := s.client.PostForm("http://"+s.d.adm.Addr().String()+path, form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// fakeLister lists canned payments and counts its calls; block holds each call until released.
type fakeLister struct {
	mu       sync.Mutex
	payments []razorpay.Payment
	err      error
	calls    int
	block    chan struct{}
}

func (f *fakeLister) ListPayments(ctx context.Context, from, to time.Time, each func(*razorpay.Payment) error) error {
	f.mu.Lock()
	f.calls++
	ps, err, block := f.payments, f.err, f.block
	f.mu.Unlock()
	if block != nil {
		<-block
	}
	for i := range ps {
		if t := time.Unix(ps[i].CreatedAt, 0); t.Before(from) || t.After(to) {
			continue
		}
		if e := each(&ps[i]); e != nil {
			return e
		}
	}
	return err
}

func (f *fakeLister) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// The captured series sums captured payments per local day and currency, reads Razorpay in the
// background once per TTL (never twice at once) and reports a failed read.
func TestCapturedCache(t *testing.T) {
	t.Parallel()
	ist, _ := time.LoadLocation("Asia/Kolkata")
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, ist)
	clock := now
	var mu sync.Mutex
	nowFn := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	day := func(d int) int64 { return time.Date(2026, 3, d, 0, 0, 0, 0, ist).Unix() }
	f := &fakeLister{block: make(chan struct{}), payments: []razorpay.Payment{
		{ID: "pay_a", Amount: 1200000, Currency: "INR", Status: "captured", Captured: true, CreatedAt: time.Date(2026, 3, 13, 23, 59, 59, 0, ist).Unix()},
		{ID: "pay_b", Amount: 50001, Currency: "INR", Status: "refunded", Captured: true, CreatedAt: time.Date(2026, 3, 14, 0, 0, 0, 0, ist).Unix()},
		{ID: "pay_c", Amount: 700, Currency: "INR", Status: "captured", Captured: true, CreatedAt: time.Date(2026, 3, 14, 9, 0, 0, 0, ist).Unix()},
		{ID: "pay_d", Amount: 1999, Currency: "USD", Status: "captured", Captured: true, CreatedAt: time.Date(2026, 3, 14, 10, 0, 0, 0, ist).Unix()},
		{ID: "pay_e", Amount: 99999, Currency: "INR", Status: "authorized", CreatedAt: time.Date(2026, 3, 14, 10, 0, 0, 0, ist).Unix()},
		{ID: "pay_f", Amount: 88888, Currency: "INR", Status: "failed", CreatedAt: time.Date(2026, 3, 14, 10, 0, 0, 0, ist).Unix()},
	}}
	c := newCapturedCache(context.Background(), f, ist, nowFn)
	from := localMidnights(now, ist, seriesDays)[0]
	if s := c.get(from); s.known || !strings.Contains(s.note, "reading Razorpay") {
		t.Fatalf("first get: %+v", s)
	}
	c.get(from) // a refresh is running: no second read
	close(f.block)
	waitUntil(t, "first read", func() bool { return c.get(from).known })
	if n := f.callCount(); n != 1 {
		t.Fatalf("%d reads; want 1", n)
	}
	s := c.get(from)
	want := map[string]map[int64]dayAmount{
		"INR": {day(13): {1200000, 1}, day(14): {50701, 2}},
		"USD": {day(14): {1999, 1}},
	}
	if !reflect.DeepEqual(s.sums, want) || !s.asOf.Equal(now) {
		t.Fatalf("sums %v as of %v; want %v", s.sums, s.asOf, want)
	}
	if st, _ := c.state(); st != console.FaultOK {
		t.Errorf("state %s", st)
	}
	// Within the TTL nothing is read again; after it, one more read, which fails.
	mu.Lock()
	clock = now.Add(capturedTTL + time.Second)
	mu.Unlock()
	f.mu.Lock()
	f.block, f.err = nil, errors.New("Razorpay answered 401: the api key provided is invalid")
	f.mu.Unlock()
	c.get(from)
	waitUntil(t, "failed read", func() bool { st, _ := c.state(); return st == console.FaultDown })
	if n := f.callCount(); n != 2 {
		t.Fatalf("%d reads; want 2", n)
	}
	if s := c.get(from); !s.known || !strings.Contains(s.note, "401") {
		t.Errorf("after a failed read: known %v, note %q (want the read before, and why)", s.known, s.note)
	}
	if n := f.callCount(); n != 2 {
		t.Errorf("a failed read is retried at once: %d reads", n)
	}
}

// waitUntil polls cond until it holds, failing after testtime.Bound.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testtime.Until(t, what, cond)
}

func TestLocalMidnightsSpanDays(t *testing.T) {
	t.Parallel()
	ist, _ := time.LoadLocation("Asia/Kolkata")
	got := localMidnights(time.Date(2026, 3, 1, 0, 30, 0, 0, ist), ist, 3)
	want := []time.Time{time.Date(2026, 2, 27, 0, 0, 0, 0, ist), time.Date(2026, 2, 28, 0, 0, 0, 0, ist),
		time.Date(2026, 3, 1, 0, 0, 0, 0, ist), time.Date(2026, 3, 2, 0, 0, 0, 0, ist)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("localMidnights = %v; want %v", got, want)
	}
}
