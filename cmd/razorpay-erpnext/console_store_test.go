package main

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/console"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// storeFigures are the Today figures the console reads from the store: everything but this
// process's webhook answers, the fault state and Razorpay's captured amounts.
type storeFigures struct {
	StoredWebhooks, ReconcileRows int
	BookedToday, RefundedToday    []console.Money
	Statuses                      map[string]int
	OldestPending, LastWebhook    time.Time
	Booked                        map[string][]console.MoneyDay // by currency, captured fields zeroed
	Settlements                   *console.Settlements
}

func figuresOf(t *testing.T, b *consoleBackend) storeFigures {
	t.Helper()
	today, err := b.Today(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f := storeFigures{StoredWebhooks: today.StoredWebhooks, ReconcileRows: today.ReconcileRows, BookedToday: today.BookedToday,
		RefundedToday: today.RefundedToday, Statuses: today.Statuses, OldestPending: today.OldestPending, LastWebhook: today.LastWebhook,
		Booked: map[string][]console.MoneyDay{}, Settlements: today.Settlements}
	for _, s := range today.Series {
		for _, d := range s.Days {
			f.Booked[s.Currency] = append(f.Booked[s.Currency], console.MoneyDay{Day: d.Day, BookedMinor: d.BookedMinor, BookedCount: d.BookedCount})
		}
	}
	return f
}

// startStoppable runs a daemon like env.start, and returns a stop that ends it (as a process
// exits) and waits for it.
func startStoppable(e *env, cfg connector.Config) (*daemon, func()) {
	e.t.Helper()
	d, err := openDaemon(context.Background(), cfg, zerolog.New(e.logs).With().Timestamp().Logger())
	if err != nil {
		e.t.Fatalf("open daemon: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.run(ctx) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			e.t.Errorf("daemon run: %v", err)
		}
	}
	e.t.Cleanup(stop)
	return d, stop
}

// Two replicas over one store show the same figures on Today and the same last reconcile
// report, and so does a replica started after the other stopped: they are the store's, not
// the process's (only "This replica" is its own, and starts from zero).
func TestConsoleFiguresAreTheStoresOnEveryReplica(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, driver string) {
		e := newRzpEnv(t, driver, "", func(c *connector.Config) { c.AdminToken = testAdminToken })
		now := time.Now()
		e.addPayment(1, 1200000, now.Add(-time.Hour), false)
		lost := e.addPayment(2, 350050, now.Add(-2*time.Hour), true)
		const parked = "pay_T3stReplParked"
		if _, err := e.sim.CreatePayment(razorpay.Payment{ID: parked, Amount: 49900, Currency: "INR", Method: "upi",
			CreatedAt: now.Add(-90 * time.Minute).Unix(), Notes: razorpay.Notes{"invoice": "NO-SUCH-INVOICE"}}, razorpaysim.PaymentOptions{Lose: true}); err != nil {
			t.Fatal(err)
		}
		e.settle()
		rep := e.reconcile(e.configFile(), exitParked) // by hand: queues both lost payments, books one, parks one
		if rep.RunID == 0 || rep.Payments.Queued != 2 || len(rep.Parked) != 1 || rep.Parked[0].ID != parked {
			t.Fatalf("reconcile: run %d, payments %+v, parked %+v", rep.RunID, rep.Payments, rep.Parked)
		}
		ist, err := time.LoadLocation(e.cfg.Mapping.Timezone)
		if err != nil {
			t.Fatal(err)
		}
		other, stopOther := startStoppable(e.env, e.cfg)
		backends := []*consoleBackend{newConsoleBackend(context.Background(), e.d, ist), newConsoleBackend(context.Background(), other, ist)}
		for _, b := range backends {
			b.now = func() time.Time { return now }
		}
		first := figuresOf(t, backends[0])
		var total int64
		var n int
		for _, d := range first.Booked["INR"] {
			total, n = total+d.BookedMinor, n+d.BookedCount
		}
		if total != 1200000+350050 || n != 2 || len(first.Booked) != 1 {
			t.Errorf("booked over 14 days: %d paise in %d receipts (%v); want 1550050 in 2, INR only", total, n, first.Booked)
		}
		// The booked payment's three webhooks (payment.authorized skipped, payment.captured
		// done, order.paid a duplicate of it) and reconcile's two rows (one done, one parked).
		if want := map[string]int{"done": 2, "duplicate": 1, "skipped": 1, "parked": 1}; !reflect.DeepEqual(nonZero(first.Statuses), want) ||
			first.StoredWebhooks != 3 || first.ReconcileRows != 2 {
			t.Errorf("statuses %v, %d webhooks, %d reconcile rows; want %v, 3, 2", first.Statuses, first.StoredWebhooks, first.ReconcileRows, want)
		}
		lastReport := func(b *consoleBackend) *console.RunReport {
			t.Helper()
			r, err := b.LastReconcileReport(context.Background())
			if err != nil || r == nil {
				t.Fatalf("last reconcile report: %+v, %v", r, err)
			}
			return r
		}
		report := lastReport(backends[0])
		queued := map[string]int64{}
		for _, it := range report.Report.WouldQueue {
			queued[it.ID] = it.AmountMinor
		}
		if report.Run.ID != rep.RunID || report.Report.DryRun || !reflect.DeepEqual(queued, map[string]int64{lost: 350050, parked: 49900}) ||
			len(report.Report.NeedsPerson) != 1 || report.Report.NeedsPerson[0].ID != parked || report.Report.NeedsPerson[0].AmountMinor != 49900 ||
			!strings.HasPrefix(report.Report.NeedsPerson[0].Note, "parked: no invoice matched") {
			t.Errorf("last report %+v", report)
		}
		if got := figuresOf(t, backends[1]); !reflect.DeepEqual(got, first) {
			t.Errorf("the other replica's figures\n%+v\nwant\n%+v", got, first)
		}
		if got := lastReport(backends[1]); !reflect.DeepEqual(got, report) {
			t.Errorf("the other replica's last report %+v; want %+v", got, report)
		}
		// The other replica's console page shows the report too.
		code, _, body := adminGet(t, other, "GET", "/reconcile", map[string]string{"Authorization": "Bearer " + testAdminToken}, nil)
		if code != http.StatusOK || !strings.Contains(body, `id="last-report"`) || !strings.Contains(body, parked) || !strings.Contains(body, "₹3,500.50") {
			t.Errorf("GET /reconcile on the other replica: %d\n%s", code, body)
		}
		stopOther()
		restarted, _ := startStoppable(e.env, e.cfg)
		b := newConsoleBackend(context.Background(), restarted, ist)
		b.now = backends[0].now
		if got := figuresOf(t, b); !reflect.DeepEqual(got, first) {
			t.Errorf("after a restart the figures\n%+v\nwant\n%+v", got, first)
		}
		if got := lastReport(b); !reflect.DeepEqual(got, report) {
			t.Errorf("after a restart the last report %+v; want %+v", got, report)
		}
		if r := b.replicaCounts(); r.Received != 0 {
			t.Errorf("a restarted replica's own webhook answers: %+v; want none yet", r)
		}
	})
}

func nonZero(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, n := range m {
		if n != 0 {
			out[k] = n
		}
	}
	return out
}

// The Today page's days are mapping.timezone's: a receipt booked at 23:59:59.999999 IST is
// yesterday's and one at 00:00 IST today's, though both fall on the same UTC date; sums are
// exact per day and currency, in minor units.
func TestConsoleDaysFollowMappingTimezone(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, driver string) {
		_, cfg, d := startWithConsole(t, driver)
		loc, err := time.LoadLocation(cfg.Mapping.Timezone)
		if err != nil || cfg.Mapping.Timezone != "Asia/Kolkata" {
			t.Fatalf("mapping.timezone %q: %v", cfg.Mapping.Timezone, err)
		}
		today := time.Date(2026, 12, 7, 0, 0, 0, 0, loc) // 2026-12-06 18:30 UTC
		book := func(key, kind, currency string, amount int64, at time.Time) {
			t.Helper()
			b := connector.Booking{BusinessKey: key, Kind: kind, Owner: "seed", FenceUntil: at.Add(time.Hour), AmountMinor: amount, Currency: currency, CreatedAt: at}
			if _, ok, err := d.db.ClaimBooking(context.Background(), b, at); err != nil || !ok {
				t.Fatalf("claim %s: %v %v", key, ok, err)
			}
			b.Doctype, b.Name = "Payment Entry", "ACC-PAY-TZ-"+key
			if err := d.db.FinishBooking(context.Background(), b, at); err != nil {
				t.Fatal(err)
			}
		}
		book("pay_T3stTzLastUs", connector.KindReceipt, "INR", 100001, today.Add(-time.Microsecond)) // 18:29:59.999999 UTC
		book("pay_T3stTzMidnite", connector.KindReceipt, "INR", 250000, today)                       // 18:30:00 UTC, same UTC date
		book("pay_T3stTzUSD", connector.KindReceipt, "USD", 1999, today.Add(time.Microsecond))
		book("pay_T3stTzUTCEnd", connector.KindReceipt, "INR", 7, today.Add(5*time.Hour+29*time.Minute+59*time.Second)) // 23:59:59 UTC
		book("pay_T3stTzUTCNew", connector.KindReceipt, "INR", 3, today.Add(5*time.Hour+30*time.Minute))                // 00:00 UTC
		book("rfnd_T3stTzRefund", connector.KindRefund, "INR", 500, today.Add(10*time.Minute))
		book("pay_T3stTzFirst", connector.KindReceipt, "INR", 42, today.AddDate(0, 0, -13))                         // the chart's first day
		book("pay_T3stTzBefore", connector.KindReceipt, "INR", 43, today.AddDate(0, 0, -13).Add(-time.Microsecond)) // before it
		b := newConsoleBackend(context.Background(), d, loc)
		b.now = func() time.Time { return today.Add(12 * time.Hour) }
		got := figuresOf(t, b)
		if want := []console.Money{{Currency: "INR", AmountMinor: 250010, Count: 3}, {Currency: "USD", AmountMinor: 1999, Count: 1}}; !reflect.DeepEqual(got.BookedToday, want) {
			t.Errorf("booked today %+v; want %+v", got.BookedToday, want)
		}
		if want := []console.Money{{Currency: "INR", AmountMinor: 500, Count: 1}}; !reflect.DeepEqual(got.RefundedToday, want) {
			t.Errorf("refunded today %+v; want %+v", got.RefundedToday, want)
		}
		inr, usd := got.Booked["INR"], got.Booked["USD"]
		if len(inr) != seriesDays || len(usd) != seriesDays || len(got.Booked) != 2 {
			t.Fatalf("series %+v", got.Booked)
		}
		wantINR := map[int]console.MoneyDay{0: {BookedMinor: 42, BookedCount: 1}, 12: {BookedMinor: 100001, BookedCount: 1}, 13: {BookedMinor: 250010, BookedCount: 3}}
		for i := range inr {
			day := today.AddDate(0, 0, i-(seriesDays-1))
			w := wantINR[i]
			if !inr[i].Day.Equal(day) || inr[i].BookedMinor != w.BookedMinor || inr[i].BookedCount != w.BookedCount {
				t.Errorf("INR day %d (%s): %+v; want %d paise in %d", i, day, inr[i], w.BookedMinor, w.BookedCount)
			}
			if wantUSD := map[bool]int64{true: 1999}[i == seriesDays-1]; usd[i].BookedMinor != wantUSD || !usd[i].Day.Equal(day) {
				t.Errorf("USD day %d: %+v; want %d cents", i, usd[i], wantUSD)
			}
		}
		// The same store read by UTC days: the two receipts either side of IST midnight are one day.
		utc := newConsoleBackend(context.Background(), d, time.UTC)
		utc.now = b.now
		byUTC := figuresOf(t, utc)
		if want := []console.Money{{Currency: "INR", AmountMinor: 3, Count: 1}}; !reflect.DeepEqual(byUTC.BookedToday, want) {
			t.Errorf("booked today by UTC days %+v; want %+v", byUTC.BookedToday, want)
		}
		if day := byUTC.Booked["INR"][seriesDays-2]; day.BookedMinor != 100001+250000+7 || day.BookedCount != 3 {
			t.Errorf("yesterday by UTC days %+v; want 350008 paise in 3", day)
		}
	})
}
