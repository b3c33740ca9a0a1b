package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

func amountMinor(t *testing.T, v any) int64 {
	t.Helper()
	n, err := razorpay.ParseDecimal(fmt.Sprint(v), 2)
	if err != nil {
		t.Fatalf("amount %v: %v", v, err)
	}
	return n
}

func sum(counts map[connector.Status]int) int {
	n := 0
	for _, v := range counts {
		n += v
	}
	return n
}

func istDate(t time.Time) string {
	loc, _ := time.LoadLocation("Asia/Kolkata")
	return t.In(loc).Format("2006-01-02")
}

func TestThreeDeliveriesBookOneEntry(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, driver string) {
		e := newEnv(t, driver)
		d := e.start(e.config())
		body := e.payment("payment.captured", "pay_T3stE2E0000001", 1200000, nil)
		var answers []string
		for i := 0; i < 3; i++ {
			code, resp := e.deliver(d, "T3stEvtE2E0001", body)
			if code != http.StatusOK {
				t.Fatalf("delivery %d: %d %s", i+1, code, resp)
			}
			answers = append(answers, strings.TrimSpace(resp))
		}
		want := []string{`{"status":"accepted"}`, `{"status":"duplicate"}`, `{"status":"duplicate"}`}
		for i := range want {
			if answers[i] != want[i] {
				t.Errorf("delivery %d answered %s, want %s", i+1, answers[i], want[i])
			}
		}
		counts := e.waitIdle(d)
		if counts[connector.StatusDone] != 1 || sum(counts) != 1 {
			t.Errorf("inbox %v, want exactly one done row", counts)
		}
		sub, other := e.entries("pay_T3stE2E0000001")
		if len(sub) != 1 || len(other) != 0 {
			t.Fatalf("Payment Entries for the payment: %d submitted, %d other; want 1, 0", len(sub), len(other))
		}
		pe := sub[0]
		if got := amountMinor(t, pe["paid_amount"]); got != 1200000 {
			t.Errorf("paid_amount %v, want 12000.00", pe["paid_amount"])
		}
		if got := amountMinor(t, pe["received_amount"]); got != 1200000 {
			t.Errorf("received_amount %v, want 12000.00", pe["received_amount"])
		}
		checks := map[string]string{
			"party": "Test Customer", "company": erpnextsim.DefaultCompany, "mode_of_payment": "Razorpay",
			"paid_to": erpnextsim.RazorpayClearing, "posting_date": istDate(paymentTime), "reference_date": istDate(paymentTime),
			"payment_type": "Receive", "status": "Submitted",
		}
		for k, v := range checks {
			if fmt.Sprint(pe[k]) != v {
				t.Errorf("Payment Entry %s = %v, want %s", k, pe[k], v)
			}
		}
		if r := fmt.Sprint(pe["remarks"]); !strings.Contains(r, "pay_T3stE2E0000001") || !strings.Contains(r, "rrn 612345678901") {
			t.Errorf("remarks %q lack the payment id or RRN", r)
		}
		if got := amountMinor(t, e.invoiceField("outstanding_amount")); got != 0 {
			t.Errorf("invoice outstanding %d, want 0", got)
		}
		if s := e.invoiceField("status"); s != "Paid" {
			t.Errorf("invoice status %q, want Paid", s)
		}
		for _, secret := range []string{testSecret, testWebhook} {
			if strings.Contains(e.logs.String(), secret) {
				t.Errorf("logs contain a secret")
			}
		}
	})
}

// Twenty different event ids for one payment (payment.captured and order.paid mixed), spread
// over two daemons sharing one database, with ERPNext slower than the event lease: once with
// lease heartbeats (a live worker keeps its event) and once without (every booking outlives
// its lease, as in a stalled process, so other workers take events over mid-booking).
func TestTwentyEventsTwoProcessesOneEntry(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, driver string) {
		t.Run("Heartbeat", func(t *testing.T) { twentyEvents(t, driver, false, 150*time.Millisecond) })
		t.Run("StalledLeases", func(t *testing.T) { twentyEvents(t, driver, true, 300*time.Millisecond) })
	})
}

func twentyEvents(t *testing.T, driver string, noHeartbeat bool, lease time.Duration) {
	{
		e := newEnv(t, driver)
		cfg := e.config()
		cfg.Worker.Lease = connector.Duration(lease)
		cfg.Worker.NoHeartbeat = noHeartbeat
		cfg.Workers = 4
		e.site.SetLatency(200 * time.Millisecond)
		d1 := e.start(cfg)
		d2 := e.start(cfg)
		var wg sync.WaitGroup
		for i := 0; i < 20; i++ {
			event := "payment.captured"
			if i%2 == 1 {
				event = "order.paid"
			}
			d := d1
			if i%3 == 0 {
				d = d2
			}
			wg.Add(1)
			go func(i int, event string, d *daemon) {
				defer wg.Done()
				code, resp := e.deliver(d, fmt.Sprintf("T3stEvtMany%03d", i), e.payment(event, "pay_T3stE2E0000020", 1200000, nil))
				if code != http.StatusOK || !strings.Contains(resp, "accepted") {
					t.Errorf("event %d: %d %s", i, code, resp)
				}
			}(i, event, d)
		}
		wg.Wait()
		counts := e.waitIdle(d1)
		e.waitIdle(d2)
		sub, other := e.entries("pay_T3stE2E0000020")
		if len(sub) != 1 || len(other) != 0 {
			t.Fatalf("Payment Entries: %d submitted, %d other; want exactly 1 submitted\n%s", len(sub), len(other), e.logs.String())
		}
		if counts[connector.StatusDone]+counts[connector.StatusDuplicate] != 20 {
			t.Errorf("inbox %v: want 20 rows done or duplicate", counts)
		}
		e.rowsAgreeOn(d1, "pay_T3stE2E0000020", fmt.Sprint(sub[0]["name"]))
		if got := amountMinor(t, e.invoiceField("outstanding_amount")); got != 0 {
			t.Errorf("invoice outstanding %d paise, want 0", got)
		}
		posts := countInserts(e)
		if posts != 1 {
			t.Errorf("%d Payment Entry inserts reached ERPNext, want 1", posts)
		}
	}
}

func TestCommitThenDropResponseBooksOnce(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, driver string) {
		e := newEnv(t, driver)
		cfg := e.config()
		cfg.ERPNext.Timeout = connector.Duration(time.Second)
		cfg.ERPNext.ServerTimeout = connector.Duration(time.Second)
		d := e.start(cfg)
		e.site.DropResponseAfterCommit(1)
		code, _ := e.deliver(d, "T3stEvtDrop001", e.payment("payment.captured", "pay_T3stE2EDrop001", 1200000, nil))
		if code != http.StatusOK {
			t.Fatalf("intake %d", code)
		}
		counts := e.waitIdle(d)
		if counts[connector.StatusDone] != 1 {
			t.Errorf("inbox %v, want one done", counts)
		}
		sub, other := e.entries("pay_T3stE2EDrop001")
		if len(sub) != 1 || len(other) != 0 {
			t.Fatalf("Payment Entries %d submitted %d other, want 1 and 0", len(sub), len(other))
		}
		rows, _ := d.db.FindEvents(context.Background(), "T3stEvtDrop001")
		if len(rows) != 1 || rows[0].Attempts != 1 || rows[0].ResultName != fmt.Sprint(sub[0]["name"]) {
			t.Errorf("inbox row %+v: want one failed attempt (the lost answer) and the entry as result", rows)
		}
		if rows[0].LastError != "found in ERPNext by reference_no" {
			t.Errorf("last_error %q: the retry should have found the committed entry", rows[0].LastError)
		}
	})
}

func TestCommitLateBooksOnce(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, driver string) {
		e := newEnv(t, driver)
		cfg := e.config()
		cfg.ERPNext.Timeout = connector.Duration(time.Second)
		cfg.ERPNext.ServerTimeout = connector.Duration(5 * time.Second)
		d := e.start(cfg)
		e.site.CommitLate(1, 3*time.Second)
		e.deliver(d, "T3stEvtLate001", e.payment("payment.captured", "pay_T3stE2ELate001", 1200000, nil))
		counts := e.waitIdle(d)
		if counts[connector.StatusDone] != 1 {
			t.Errorf("inbox %v, want one done", counts)
		}
		sub, other := e.entries("pay_T3stE2ELate001")
		if len(sub) != 1 || len(other) != 0 {
			t.Fatalf("Payment Entries %d submitted %d other, want 1 and 0", len(sub), len(other))
		}
		posts := countInserts(e)
		if posts != 1 {
			t.Errorf("%d inserts reached ERPNext: the fence must hold every other write until the late commit is visible", posts)
		}
	})
}

func (e *env) client() *frappe.Client {
	c, err := frappe.New(frappe.Config{URL: e.erp.URL, APIKey: testKey, APISecret: testSecret})
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

func (e *env) draft(ref, paid string) string {
	e.t.Helper()
	var pe frappe.PaymentEntry
	err := e.client().Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{
		"payment_type": "Receive", "company": erpnextsim.DefaultCompany, "posting_date": istDate(time.Now()),
		"party_type": "Customer", "party": "Test Customer", "mode_of_payment": "Razorpay",
		"paid_to": erpnextsim.RazorpayClearing, "paid_amount": json.Number(paid), "received_amount": json.Number(paid),
		"reference_no": ref, "reference_date": istDate(time.Now()),
		"references": []map[string]any{{"reference_doctype": "Sales Invoice", "reference_name": e.invoice, "allocated_amount": json.Number(paid)}},
	}, &pe)
	if err != nil {
		e.t.Fatalf("create draft: %v", err)
	}
	return pe.Name
}

func TestDraftWithSameReference(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, driver string) {
		t.Run("MatchingDraftIsSubmitted", func(t *testing.T) {
			e := newEnv(t, driver)
			name := e.draft("pay_T3stE2EDraft01", "12000.00")
			d := e.start(e.config())
			e.deliver(d, "T3stEvtDraft01", e.payment("payment.captured", "pay_T3stE2EDraft01", 1200000, nil))
			e.waitIdle(d)
			sub, other := e.entries("pay_T3stE2EDraft01")
			if len(sub) != 1 || len(other) != 0 || sub[0]["name"] != name {
				t.Fatalf("entries %v / %v: want the draft %s submitted and nothing else", names(sub), names(other), name)
			}
			if s := e.invoiceField("status"); s != "Paid" {
				t.Errorf("invoice status %q, want Paid", s)
			}
		})
		t.Run("DifferentAmountIsParked", func(t *testing.T) {
			e := newEnv(t, driver)
			name := e.draft("pay_T3stE2EDraft02", "11000.00")
			d := e.start(e.config())
			e.deliver(d, "T3stEvtDraft02", e.payment("payment.captured", "pay_T3stE2EDraft02", 1200000, nil))
			counts := e.waitIdle(d)
			if counts[connector.StatusParked] != 1 {
				t.Fatalf("inbox %v, want parked", counts)
			}
			rows, _ := d.db.FindEvents(context.Background(), "pay_T3stE2EDraft02")
			if !strings.Contains(rows[0].LastError, "draft differs") || !strings.Contains(rows[0].LastError, name) || !strings.Contains(rows[0].LastError, "paid_amount 11000") {
				t.Errorf("reason %q should name the draft and the differing amount", rows[0].LastError)
			}
			sub, _ := e.entries("pay_T3stE2EDraft02")
			if len(sub) != 0 {
				t.Errorf("%d submitted entries, want none", len(sub))
			}
			if got := amountMinor(t, e.invoiceField("outstanding_amount")); got != 1200000 {
				t.Errorf("invoice outstanding %d, want untouched 1200000", got)
			}
		})
	})
}

func names(docs []map[string]any) []string {
	var n []string
	for _, d := range docs {
		n = append(n, fmt.Sprint(d["name"]))
	}
	return n
}

func TestReferenceDifferingInCaseIsNotOurs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	other, err := e.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true,
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "500.00"}}})
	if err != nil {
		t.Fatal(err)
	}
	var pe frappe.PaymentEntry
	err = e.client().Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{
		"payment_type": "Receive", "company": erpnextsim.DefaultCompany, "posting_date": istDate(time.Now()),
		"party_type": "Customer", "party": "Test Customer", "paid_to": erpnextsim.RazorpayClearing,
		"paid_amount": 500, "received_amount": 500, "reference_no": "PAY_t3ste2ecase001", "reference_date": istDate(time.Now()),
		"references": []map[string]any{{"reference_doctype": "Sales Invoice", "reference_name": other, "allocated_amount": 500}},
		"docstatus":  1,
	}, &pe)
	if err != nil {
		t.Fatal(err)
	}
	d := e.start(e.config())
	e.deliver(d, "T3stEvtCase001", e.payment("payment.captured", "pay_T3stE2ECase001", 1200000, nil))
	counts := e.waitIdle(d)
	if counts[connector.StatusDone] != 1 {
		t.Fatalf("inbox %v, want done", counts)
	}
	sub, _ := e.entries("pay_T3stE2ECase001")
	if len(sub) != 1 || sub[0]["name"] == pe.Name {
		t.Fatalf("want a new entry for pay_T3stE2ECase001, not %s: got %v", pe.Name, names(sub))
	}
	if s := e.invoiceField("status"); s != "Paid" {
		t.Errorf("invoice status %q, want Paid", s)
	}
}

func TestNotesEmptyArrayWithoutMatchIsParked(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, driver string) {
		e := newEnv(t, driver)
		d := e.start(e.config())
		body := e.payment("payment.captured", "pay_T3stE2ENoInv01", 250000, []any{})
		if !strings.Contains(string(body), `"notes":[]`) {
			t.Fatalf("body does not carry notes []: %s", body)
		}
		code, resp := e.deliver(d, "T3stEvtNoInv01", body)
		if code != http.StatusOK || !strings.Contains(resp, "accepted") {
			t.Fatalf("intake %d %s, want 200 accepted", code, resp)
		}
		counts := e.waitIdle(d)
		if counts[connector.StatusParked] != 1 {
			t.Fatalf("inbox %v, want parked", counts)
		}
		rows, _ := d.db.FindEvents(context.Background(), "pay_T3stE2ENoInv01")
		if !strings.HasPrefix(rows[0].LastError, "no invoice matched") {
			t.Errorf("reason %q, want it to start with 'no invoice matched'", rows[0].LastError)
		}
		if n := len(e.site.Docs("Payment Entry")); n != 0 {
			t.Errorf("%d Payment Entries created, want 0", n)
		}
	})
}

// ERPNext refuses the API secret (401): all work pauses, and every recheck of the credentials
// finds them still refused without spending an attempt of the event; meanwhile /readyz is 503.
func TestERPNextAuthFailurePausesWithoutSpendingAttempts(t *testing.T) {
	t.Parallel()
	t.Run("RechecksSpendNoAttempt", func(t *testing.T) {
		e, d := startWithWrongSecret(t, 100*time.Millisecond)
		// The first call and at least three rechecks, each refused.
		testtime.Until(t, "four 401 answers from ERPNext", func() bool { return e.refusals() >= 4 })
		rows, _ := d.db.FindEvents(context.Background(), "T3stEvtAuth001")
		if len(rows) != 1 || (rows[0].Status != connector.StatusPending && rows[0].Status != connector.StatusProcessing) || rows[0].Attempts != 0 {
			t.Fatalf("row %+v after %d refusals: want pending with 0 attempts while paused", rows, e.refusals())
		}
		if !strings.Contains(rows[0].LastError, "401") {
			t.Errorf("last_error %q should carry ERPNext's 401", rows[0].LastError)
		}
		if strings.Contains(e.logs.String(), "wrong-secret") {
			t.Error("the API secret appears in the logs")
		}
	})
	// The pause outlasts the test here, so /readyz is read inside it, never in the moment
	// between a pause running out and the recheck's 401 renewing it.
	t.Run("NotReadyWhilePaused", func(t *testing.T) {
		// A paused worker's sleep ends on Drain, so shutdown inside the hour does not wait for it.
		e, d := startWithWrongSecret(t, time.Hour)
		testtime.Until(t, "the event paused", func() bool {
			rows, _ := d.db.FindEvents(context.Background(), "T3stEvtAuth001")
			return len(rows) == 1 && strings.Contains(rows[0].LastError, "paused")
		})
		resp, err := http.Get("http://" + d.adm.Addr().String() + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("/readyz %d while paused, want 503", resp.StatusCode)
		}
		if n := e.refusals(); n != 1 {
			t.Errorf("%d calls reached ERPNext inside a one-hour pause, want the 1 refused", n)
		}
	})
}

// startWithWrongSecret starts a daemon whose ERPNext API secret is wrong, pausing for recheck
// after each 401, and delivers one captured payment to it.
func startWithWrongSecret(t *testing.T, recheck time.Duration, tune ...func(*daemon)) (*env, *daemon) {
	e := newEnv(t, "sqlite")
	cfg := e.config()
	cfg.ERPNext.APISecret = "wrong-secret"
	cfg.Worker.PauseRecheck = connector.Duration(recheck)
	d := e.start(cfg, tune...)
	if code, resp := e.deliver(d, "T3stEvtAuth001", e.payment("payment.captured", "pay_T3stE2EAuth001", 1200000, nil)); code != http.StatusOK {
		t.Fatalf("intake %d %s", code, resp)
	}
	return e, d
}

// refusals counts the requests the simulator answered 401.
func (e *env) refusals() int {
	n := 0
	for _, r := range e.site.Requests() {
		if r.Status == http.StatusUnauthorized {
			n++
		}
	}
	return n
}

// The pause holds until a recheck succeeds: /readyz stays 503 through every recheck, also in
// the moment between the recheck time and the recheck's 401 (when Connector.Paused read only
// the recheck time, it answered 200 there: 4 of ~900 reads without -race, 16 of ~450 with it).
func TestReadyStaysUnreadyAcrossPauseRechecks(t *testing.T) {
	t.Parallel()
	e, d := startWithWrongSecret(t, 100*time.Millisecond)
	testtime.Until(t, "the event paused", func() bool {
		rows, _ := d.db.FindEvents(context.Background(), "T3stEvtAuth001")
		return len(rows) == 1 && strings.Contains(rows[0].LastError, "paused")
	})
	before := e.refusals()
	ready := 0
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
		resp, err := http.Get("http://" + d.adm.Addr().String() + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			ready++
		}
	}
	rechecks := e.refusals() - before
	if ready > 0 {
		t.Errorf("/readyz answered 200 %d times in 2 s of wrong credentials (%d rechecks)", ready, rechecks)
	}
	if rechecks < 2 {
		t.Errorf("%d rechecks refused in 2 s at a 100 ms pause_recheck: the reads did not span rechecks", rechecks)
	}
}

// A worker that died holding an event's lease and the payment's booking claim (kill -9 between
// claim and write): another process books the payment once, after the lease and the fence pass.
func TestCrashedWorkersEventIsPickedUp(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, driver string) {
		e := newEnv(t, driver)
		cfg := e.config()
		ctx := context.Background()
		db, err := store.Open(ctx, cfg.Database.Driver, cfg.Database.DSN)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		body := e.payment("payment.captured", "pay_T3stE2ECrash01", 1200000, nil)
		if _, err := db.InsertEvent(ctx, &connector.InboxEvent{AccountID: testAccount, EventID: "T3stEvtCrash01",
			Event: "payment.captured", BusinessKey: "pay_T3stE2ECrash01", RawBody: body, ReceivedAt: now,
			Status: connector.StatusPending, NextAttemptAt: now}); err != nil {
			t.Fatal(err)
		}
		ev, err := db.ClaimNextEvent(ctx, "crashed-worker", now, 500*time.Millisecond)
		if err != nil || ev == nil {
			t.Fatalf("claim: %v %v", ev, err)
		}
		fence := now.Add(1500 * time.Millisecond)
		if _, claimed, err := db.ClaimBooking(ctx, connector.Booking{BusinessKey: "pay_T3stE2ECrash01", Kind: connector.KindReceipt,
			Owner: "crashed-worker", FenceUntil: fence}, now); err != nil || !claimed {
			t.Fatalf("claim booking: %v %v", claimed, err)
		}
		db.Close()

		d := e.start(cfg)
		e.waitIdle(d)
		rows, _ := d.db.FindEvents(ctx, "T3stEvtCrash01")
		if len(rows) != 1 || rows[0].Status != connector.StatusDone {
			t.Fatalf("row %+v, want done", rows)
		}
		sub, other := e.entries("pay_T3stE2ECrash01")
		if len(sub) != 1 || len(other) != 0 {
			t.Fatalf("entries %d/%d, want 1/0", len(sub), len(other))
		}
		if created := e.firstInsertAt(); created.Before(fence) {
			t.Errorf("the entry was posted at %s, before the dead worker's fence %s", created, fence)
		}
	})
}

// firstInsertAt is when the first Payment Entry insert reached the simulator.
func (e *env) firstInsertAt() time.Time {
	for _, r := range e.site.Requests() {
		if r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/Payment Entry") {
			return r.At
		}
	}
	return time.Time{}
}
