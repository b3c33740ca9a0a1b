package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/browsertest"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// -console.screenshots rewrites docs/console-*.png from the browser test (README shows them).
var screenshots = flag.Bool("console.screenshots", false, "write the console screenshots under docs/")

// browserStep bounds every browser step: generous, for a loaded machine.
const browserStep = 60 * time.Second

// do runs browser steps within browserStep and fails the test on error.
func do(t *testing.T, br *browsertest.Browser, what string, steps ...browsertest.Step) {
	t.Helper()
	if err := br.Do(browserStep, steps...); err != nil {
		t.Fatalf("browser: %s: %v\n%s", what, err, pageState(br))
	}
}

// pageState is the page's address and text, for a failure message.
func pageState(br *browsertest.Browser) string {
	loc, _ := br.Location(10 * time.Second)
	body, _ := browsertest.Eval[string](br, 10*time.Second, "document.body ? document.body.innerText : ''")
	return "page " + loc + ":\n" + body
}

// text returns the text of the first element matching sel.
func text(t *testing.T, br *browsertest.Browser, sel string) string {
	t.Helper()
	s, err := br.Text(browserStep, sel)
	if err != nil {
		t.Fatalf("browser: text of %s: %v", sel, err)
	}
	return s
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, br *browsertest.Browser, expr string) T {
	t.Helper()
	v, err := browsertest.Eval[T](br, browserStep, expr)
	if err != nil {
		t.Fatalf("browser: eval %s: %v", expr, err)
	}
	return v
}

// waitFor polls a JavaScript predicate in the page until it is true (a reload by the page's
// own script is fine: the poll survives it through the driver's poll retry).
func waitFor(t *testing.T, br *browsertest.Browser, what, predicate string) {
	t.Helper()
	deadline := time.Now().Add(browserStep)
	for {
		err := br.Poll(10*time.Second, predicate, 200*time.Millisecond, 8*time.Second)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("browser: %s: not within %s: %v", what, browserStep, err)
		}
	}
}

// A person logs in with the token, sees a parked payment, fixes its invoice in ERPNext,
// presses Replay and watches it become done; dismisses another with a reason; and finds a
// script in a note and in ERPNext's message shown as text, never run.
func TestConsoleInBrowser(t *testing.T) {
	t.Parallel()
	br := browsertest.New(t)
	// As in the README's walkthrough: the simulated API user, like a real Accounts User, may not
	// read Integration Requests, so that sweep is off. Settlements are posted (fees as lines of
	// the settlement's entry), so Today shows its settlement card.
	e := newRzpEnv(t, "sqlite", "", func(c *connector.Config) {
		c.AdminToken, c.Reconcile.IntegrationRequests = testAdminToken, false
		c.Settlements.Enabled = true
		c.Settlements.BankAccount, c.Settlements.BankAccountDoc, c.Settlements.AdjustmentsAccount = setlBankGL, setlBankDoc, setlAdjust
		c.Settlements.FeeAccount, c.Settlements.TaxAccount = erpnextsim.FeeAccount, erpnextsim.GSTInputAccount
	}, settlementSite)
	ist, _ := time.LoadLocation(e.cfg.Mapping.Timezone)
	now := time.Now()
	seedHistory(t, e, now, ist)
	missing := nextInvoiceName(t, e.invoice)
	for _, p := range []struct {
		id     string
		amount int64
		notes  razorpay.Notes
	}{
		{"pay_T3stBrowser001", 1200000, razorpay.Notes{"invoice": e.invoice}},
		{"pay_T3stBrowser002", 1200000, razorpay.Notes{"invoice": missing}},
		{"pay_T3stBrowser003", 49900, razorpay.Notes{"invoice": hostile, "note": "customer wrote " + hostile}},
	} {
		if _, err := e.sim.CreatePayment(razorpay.Payment{ID: p.id, Amount: p.amount, Currency: "INR", Method: "upi",
			CreatedAt: now.Add(-10 * time.Minute).Unix(), Notes: p.notes}, razorpaysim.PaymentOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	e.settle()
	base := "http://" + e.d.adm.Addr().String()
	browserLogin(t, br, base)
	id2 := browserReplay(t, br, e, base, missing)
	browserDismiss(t, br, e, base)
	browserDryRun(t, br, e, base)
	browserPhone(t, br, base, id2)
}

// hostile is a script a customer typed into a note (and so into ERPNext's "not found" message).
const hostile = `<script>window.__pwned=1</script>`

// browserLogin logs in once with the token and checks the parked list.
func browserLogin(t *testing.T, br *browsertest.Browser, base string) {
	do(t, br, "log in", browsertest.Navigate(base+"/"), browsertest.WaitVisible(`input[name="token"]`),
		browsertest.SendKeys(`input[name="token"]`, testAdminToken),
		browsertest.SendKeys(`input[name="name"]`, "Priya Sharma"),
		browsertest.Submit(`input[name="token"]`), browsertest.WaitVisible(`.tiles`))
	if who := text(t, br, ".who"); who != "Priya Sharma (console)" {
		t.Errorf("logged in as %q", who)
	}
	if cookie := eval[string](t, br, "document.cookie"); strings.Contains(cookie, "rzp_console") {
		t.Errorf("the session cookie is readable from JavaScript: %q", cookie)
	}
	shot(t, br, base+"/", "console-today.png", `!document.body.innerText.includes("reading Razorpay")`)
	// The settlement card: booked vs settled, the clearing account holding today's ₹12,000.00
	// receipt, and no day called a difference (settlements pay out net, a day later).
	if card := text(t, br, "#settlements"); !strings.Contains(card, "clearing balance ("+erpnextsim.RazorpayClearing+"): ₹12,000.00") ||
		!strings.Contains(card, "settled ₹") || strings.Contains(card, "differ") {
		t.Errorf("settlement card:\n%s", card)
	}
	do(t, br, "parked list", browsertest.Navigate(base+"/events?status=parked"), browsertest.WaitVisible(`table.events`))
	list := text(t, br, "table.events")
	if !strings.Contains(list, "pay_T3stBrowser002") || !strings.Contains(list, "pay_T3stBrowser003") || strings.Contains(list, "pay_T3stBrowser001") {
		t.Fatalf("parked list:\n%s", list)
	}
	shot(t, br, base+"/events", "console-events.png", "true")
}

// browserReplay fixes the invoice in ERPNext, presses Replay and follows the page until the
// event is done with one Payment Entry; it returns the event's row id.
func browserReplay(t *testing.T, br *browsertest.Browser, e *rzpEnv, base, missing string) int64 {
	if inv, err := e.site.AddSalesInvoice(invoiceSpec()); err != nil || inv != missing {
		t.Fatalf("invoice %q (%v), the payment names %q", inv, err, missing)
	}
	id2 := eventRowID(t, e.d, "pay_T3stBrowser002")
	do(t, br, "open parked event", browsertest.Navigate(fmt.Sprintf("%s/events/%d", base, id2)), browsertest.WaitVisible("#replay"))
	if plan := text(t, br, "table.plan"); !strings.Contains(plan, missing) || !strings.Contains(plan, "12000.00") {
		t.Errorf("the plan now (invoice fixed) does not allocate to %s:\n%s", missing, plan)
	}
	shot(t, br, "", "console-event.png", "true")
	do(t, br, "replay", browsertest.Click("#replay"))
	waitFor(t, br, "event done", `document.getElementById("event-status") && document.getElementById("event-status").dataset.status === "done"`)
	link := eval[string](t, br, `document.getElementById("desk-link").href`)
	sub, _ := e.entries("pay_T3stBrowser002")
	if len(sub) != 1 || link != e.cfg.ERPNext.URL+"/app/payment-entry/"+fmt.Sprint(sub[0]["name"]) {
		t.Fatalf("after replay: %d entries, Desk link %q", len(sub), link)
	}
	if got := amountMinor(t, sub[0]["paid_amount"]); got != 1200000 {
		t.Errorf("paid_amount %d paise; want 1200000", got)
	}
	// The page records who replayed it, and counts the attempt that parked it.
	if h := text(t, br, "#history"); !strings.Contains(h, "Priya Sharma (console) replayed: was parked: no invoice matched") {
		t.Errorf("history after the replay: %q", h)
	}
	if a := text(t, br, "#attempts"); a != "1 since the last replay (2 in all)" {
		t.Errorf("attempts after the replay: %q", a)
	}
	return id2
}

// browserDismiss finds the script of a note and of ERPNext's message shown as text, never run,
// and dismisses that payment with a reason.
func browserDismiss(t *testing.T, br *browsertest.Browser, e *rzpEnv, base string) {
	id3 := eventRowID(t, e.d, "pay_T3stBrowser003")
	do(t, br, "hostile event", browsertest.Navigate(fmt.Sprintf("%s/events/%d", base, id3)), browsertest.WaitVisible("#dismiss"))
	if got := text(t, br, "#reason"); !strings.Contains(got, hostile) {
		t.Errorf("ERPNext's message is not shown as text: %q", got)
	}
	if got := text(t, br, "#body"); !strings.Contains(got, "customer wrote "+hostile) {
		t.Errorf("the note is not shown as text: %q", got)
	}
	if ran := eval[bool](t, br, `window.__pwned === 1`); ran {
		t.Fatal("a script from a note or ERPNext's message ran in the console")
	}
	do(t, br, "dismiss", browsertest.SendKeys("#dismiss-reason", "test payment, refunded by hand"),
		browsertest.Click("#dismiss"))
	waitFor(t, br, "event dismissed", `document.getElementById("event-status") && document.getElementById("event-status").dataset.status === "dismissed"`)
	// Every event of the payment is dismissed, with who and why.
	waitStatus(t, e.d, id3, connector.StatusDismissed)
	rows, _ := e.d.db.FindEvents(context.Background(), "pay_T3stBrowser003")
	for _, r := range rows {
		if r.Status != connector.StatusDismissed || r.LastError != "dismissed by Priya Sharma (console): test payment, refunded by hand" {
			t.Errorf("%s %s after dismiss: %s %q", r.EventID, r.Event, r.Status, r.LastError)
		}
	}
	if sub, _ := e.entries("pay_T3stBrowser003"); len(sub) != 0 {
		t.Errorf("a dismissed payment was booked: %d entries", len(sub))
	}
}

// browserDryRun presses "Run now (dry run)": the payment whose webhooks were lost is listed,
// nothing is queued.
func browserDryRun(t *testing.T, br *browsertest.Browser, e *rzpEnv, base string) {
	do(t, br, "dry run", browsertest.Navigate(base+"/reconcile"), browsertest.Click("#dry-run"),
		browsertest.WaitVisible("#report"))
	if rep := text(t, br, "#report"); !strings.Contains(rep, "pay_T3stLost000001") || strings.Contains(rep, "pay_T3stBrowser003") ||
		strings.Contains(rep, "booking_cancelled") {
		t.Errorf("dry run report: want the lost payment only:\n%s", rep)
	}
	shot(t, br, "", "console-reconcile.png", "true")
	if c, _ := e.d.db.CountByStatus(context.Background()); c[connector.StatusPending] != 0 {
		t.Errorf("the dry run queued rows: %v", c)
	}
}

// browserPhone checks that on a phone no page is wider than the screen (wide tables scroll
// inside their box).
func browserPhone(t *testing.T, br *browsertest.Browser, base string, id int64) {
	do(t, br, "phone viewport", browsertest.EmulateViewport(390, 844, 2))
	for _, p := range []string{"/", "/events", fmt.Sprintf("/events/%d", id), "/reconcile", "/check"} {
		do(t, br, "phone "+p, browsertest.Navigate(base+p), browsertest.WaitVisible("main"))
		if w := eval[int](t, br, "document.documentElement.scrollWidth - window.innerWidth"); w > 0 {
			t.Errorf("%s on a 390 px phone is %d px wider than the screen", p, w)
		}
	}
	// The Events list: every row's time, status, payment and reason are on the screen (not
	// scrolled off to the right inside the table's box), and rows stay compact.
	do(t, br, "phone events", browsertest.Navigate(base+"/events"), browsertest.WaitVisible("table.events"))
	if bad := eval[string](t, br, phoneEventsCheck); bad != "" {
		t.Errorf("/events on a 390 px phone: %s", bad)
	}
	shot(t, br, "", "console-phone-events.png", "true")
	shot(t, br, base+"/", "console-phone.png", `!document.body.innerText.includes("reading Razorpay")`)
}

// phoneEventsCheck lists, for each row of the Events table, the cells that are not wholly
// inside the viewport's width (or have no width) and rows taller than a few lines; "" when all are.
const phoneEventsCheck = `(() => {
  const w = window.innerWidth, bad = [];
  const rows = document.querySelectorAll("table.events tbody tr");
  if (rows.length < 3) return "only " + rows.length + " rows";
  rows.forEach((tr, i) => {
    for (const sel of [".c-received", ".c-event", ".c-key", ".c-status", ".c-reason"]) {
      const c = tr.querySelector(sel);
      if (!c) { bad.push("row " + i + " has no " + sel); continue; }
      const r = c.getBoundingClientRect();
      if (r.left < 0 || r.right > w + 0.5 || r.width <= 0) bad.push("row " + i + " " + sel + " at x " + Math.round(r.left) + "–" + Math.round(r.right));
    }
    const h = tr.getBoundingClientRect().height;
    if (h > 240) bad.push("row " + i + " is " + Math.round(h) + " px tall");
  });
  return bad.join("; ");
})()`

// seedHistory gives the chart 14 days: for each day of seedDays (from the first whose records
// all lie before Razorpay's listing to 13 back), a payment Razorpay captured at 11:30 (webhooks
// lost) and its booking, written straight to the store as the connector would have recorded it,
// and its settlement posted the next morning; being older than the listing, the audit does not
// look for their entries. And one lost payment yesterday that nobody booked yet.
func seedHistory(t *testing.T, e *rzpEnv, now time.Time, loc *time.Location) {
	t.Helper()
	y, m, d := now.In(loc).Date()
	for _, day := range seedDays(now, loc, e.cfg.Reconcile.Window.D()+e.cfg.Reconcile.Lookback.D()) {
		back, at, posted := day.back, day.paid, day.posted
		amount := int64(1500000 + back*137500)
		id := fmt.Sprintf("pay_T3stHist%06d", back)
		if _, err := e.sim.CreatePayment(razorpay.Payment{ID: id, Amount: amount, Currency: "INR", Method: "upi",
			CreatedAt: at.Unix(), Notes: razorpay.Notes{"invoice": "ACC-SINV-OLD"}}, razorpaysim.PaymentOptions{Lose: true}); err != nil {
			t.Fatal(err)
		}
		b := connector.Booking{BusinessKey: id, Kind: connector.KindReceipt, Owner: "seed", FenceUntil: at.Add(time.Hour),
			AmountMinor: amount, Currency: "INR"}
		if _, _, err := e.d.db.ClaimBooking(context.Background(), b, at.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		b.Doctype, b.Name = "Payment Entry", fmt.Sprintf("ACC-PAY-OLD-%05d", back)
		if err := e.d.db.FinishBooking(context.Background(), b, at.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		// Razorpay settled it the next morning, net of its 2 % fee and the GST on it, and the
		// connector posted the settlement's Journal Entry. The fee (GST included) is in the
		// body of the event that booked the receipt, as Razorpay sends it.
		fee := amount * 2 / 100
		body := fmt.Sprintf(`{"entity":"event","account_id":%q,"event":"payment.captured","contains":["payment"],"payload":{"payment":{"entity":`+
			`{"id":%q,"entity":"payment","amount":%d,"currency":"INR","status":"captured","fee":%d,"tax":%d,"created_at":%d}}},"created_at":%d}`,
			testAccount, id, amount, fee+fee*18/100, fee*18/100, at.Unix(), at.Unix())
		if _, err := e.d.db.InsertEvent(context.Background(), &connector.InboxEvent{AccountID: testAccount, EventID: fmt.Sprintf("T3stSeedEvt%03d", back),
			Event: "payment.captured", BusinessKey: id, RawBody: []byte(body), ReceivedAt: at, Status: connector.StatusDone,
			ResultDoctype: b.Doctype, ResultName: b.Name, UpdatedAt: at.Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
		setl := connector.Booking{BusinessKey: fmt.Sprintf("setl_T3stHist%06d", back), Kind: connector.KindSettlement, Owner: "seed",
			FenceUntil: at.Add(24 * time.Hour), AmountMinor: amount - fee - fee*18/100, Currency: "INR"}
		if _, _, err := e.d.db.ClaimBooking(context.Background(), setl, posted); err != nil {
			t.Fatal(err)
		}
		setl.Doctype, setl.Name = "Journal Entry", fmt.Sprintf("ACC-JV-OLD-%05d", back)
		if err := e.d.db.FinishBooking(context.Background(), setl, posted); err != nil {
			t.Fatal(err)
		}
	}
	// Two reconcile runs of the morning, as the schedule records them.
	for i, at := range []time.Time{now.Add(-50 * time.Minute), now.Add(-20 * time.Minute)} {
		r := &connector.ReconcileRun{WindowFrom: at.Add(-48 * time.Hour), WindowTo: at, StartedAt: at}
		if err := e.d.db.StartReconcileRun(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		fin := at.Add(time.Duration(2+i) * time.Second)
		r.Scanned, r.AlreadyBooked, r.FinishedAt = 4+i, 4+i, &fin
		if err := e.d.db.FinishReconcileRun(context.Background(), *r); err != nil {
			t.Fatal(err)
		}
	}
	lost := time.Date(y, m, d-1, 16, 5, 0, 0, loc)
	if _, err := e.sim.CreatePayment(razorpay.Payment{ID: "pay_T3stLost000001", Amount: 350000, Currency: "INR", Method: "card",
		CreatedAt: lost.Unix(), Notes: razorpay.Notes{"invoice": e.invoice}}, razorpaysim.PaymentOptions{Lose: true}); err != nil {
		t.Fatal(err)
	}
}

// seedDay is one day of seedHistory: back days before now's local date, the payment captured
// at 11:30 local time and its settlement posted at 10:15 the next day.
type seedDay struct {
	back         int
	paid, posted time.Time
}

// seedDays are the days seedHistory seeds, oldest last: from the first day back whose
// settlement (its latest record) is posted before the listing's start, now − listed, to 13
// back. The listing starts at now's time of day, so the first day depends on the hour: before
// 10:15 local time the settlement of 5 + 1 days back is posted inside the listing (the audit
// would look for its entry) and the seeding starts a day earlier. A later now (the reconcile
// runs after the seeding) only moves the listing's start later.
func seedDays(now time.Time, loc *time.Location, listed time.Duration) []seedDay {
	y, m, d := now.In(loc).Date()
	listedFrom := now.Add(-listed)
	var days []seedDay
	for back := 1; back <= 13; back++ {
		day := seedDay{back: back, paid: time.Date(y, m, d-back, 11, 30, 0, 0, loc),
			posted: time.Date(y, m, d-back+1, 10, 15, 0, 0, loc)}
		if day.posted.Before(listedFrom) {
			days = append(days, day)
		}
	}
	return days
}

// eventRowID is the inbox row id of the captured payment's first row.
func eventRowID(t *testing.T, d *daemon, paymentID string) int64 {
	t.Helper()
	rows, err := d.db.FindEvents(context.Background(), paymentID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Status == connector.StatusParked {
			return r.ID
		}
	}
	t.Fatalf("no parked row for %s: %+v", paymentID, rows)
	return 0
}

// shot saves a full-page PNG of url (the current page when url is "") under docs/ once ready
// is true, when -console.screenshots is set.
func shot(t *testing.T, br *browsertest.Browser, url, name, ready string) {
	t.Helper()
	if !*screenshots {
		return
	}
	if url != "" { // the page has no poller of its own: open it again until it is ready
		testtime.Poll(browserStep, func() bool {
			do(t, br, "open "+url, browsertest.Navigate(url))
			return eval[bool](t, br, ready)
		})
	}
	png, err := br.Screenshot(browserStep, 100)
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join("..", "..", "docs", name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", path)
}
