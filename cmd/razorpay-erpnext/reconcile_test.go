package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/reconcile"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

const (
	testRzpKey    = "rzp_test_T3stKey00000001"
	testRzpSecret = "rzp-key-secret-DO-NOT-LOG"
)

// rzpEnv is an env plus a Razorpay simulator whose webhooks go to one running daemon.
type rzpEnv struct {
	*env
	sim    *razorpaysim.Sim
	api    *httptest.Server
	d      *daemon
	cfg    connector.Config
	lost   map[string]bool // payment ids whose webhooks were lost
	all    []string        // every payment id
	secret map[string]string
}

// newRzpEnv starts a daemon (no reconcile schedule unless schedule is set) and a Razorpay
// simulator that sends it signed webhooks.
func newRzpEnv(t *testing.T, driver, schedule string, tune func(*connector.Config), prep ...func(*env)) *rzpEnv {
	t.Helper()
	e := &rzpEnv{env: newEnv(t, driver), lost: map[string]bool{}}
	for _, p := range prep {
		p(e.env)
	}
	var cur atomic.Pointer[razorpaysim.Sim]
	e.api = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s := cur.Load(); s != nil {
			s.ServeHTTP(w, r)
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(e.api.Close)
	e.cfg = e.config()
	e.cfg.Workers = 4
	e.cfg.Log.Level = "info"
	e.cfg.Razorpay.KeyID, e.cfg.Razorpay.KeySecret, e.cfg.Razorpay.APIURL = testRzpKey, testRzpSecret, e.api.URL
	e.cfg.Reconcile.Schedule = schedule
	if tune != nil {
		tune(&e.cfg)
	}
	e.d = e.start(e.cfg)
	e.sim = razorpaysim.New(razorpaysim.Options{KeyID: testRzpKey, KeySecret: testRzpSecret, AccountID: testAccount,
		WebhookURL: "http://" + e.d.pub.Addr().String() + e.cfg.WebhookPath, WebhookSecret: testWebhook, TimeScale: 0.0001,
		// A busy machine may take longer than Razorpay's 5 s to acknowledge; here that must
		// not count as a failed delivery (at this time scale 24 h of failures, 8.6 s, would
		// disable the endpoint). Intake under pressure is tested in connector/httpapi.
		DeliveryTimeout: testtime.Bound})
	t.Cleanup(e.sim.Close)
	cur.Store(e.sim)
	e.secret = map[string]string{"WEBHOOK_SECRET": testWebhook, "RZP_SECRET": testRzpSecret, "ERP_KEY": testKey, "ERP_SECRET": testSecret}
	return e
}

// addPayment creates an invoice of amount paise and a captured payment for it, created at
// created; lose loses all its webhooks.
func (e *rzpEnv) addPayment(i int, amount int64, created time.Time, lose bool) string {
	e.t.Helper()
	rate := razorpay.FormatMinor(amount, 2)
	inv, err := e.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true,
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: rate}}})
	if err != nil {
		e.t.Fatal(err)
	}
	id := fmt.Sprintf("pay_T3stRecon%05d", i)
	_, err = e.sim.CreatePayment(razorpay.Payment{ID: id, Amount: amount, Currency: "INR", Method: "upi", CreatedAt: created.Unix(),
		Notes: razorpay.Notes{"invoice": inv}}, razorpaysim.PaymentOptions{Lose: lose, Receipt: inv})
	if err != nil {
		e.t.Fatal(err)
	}
	e.all = append(e.all, id)
	if lose {
		e.lost[id] = true
	}
	return id
}

// settle waits (each up to testtime.Bound) until the simulator has delivered everything and
// the daemon is idle.
func (e *rzpEnv) settle() {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testtime.Bound)
	defer cancel()
	if err := e.sim.Wait(ctx); err != nil {
		e.t.Fatalf("simulator deliveries: %v", err)
	}
	e.waitIdle(e.d)
}

// configFile writes the daemon's configuration as YAML for the reconcile command.
func (e *rzpEnv) configFile() string {
	e.t.Helper()
	c := e.cfg
	y := fmt.Sprintf(`workers: %d
database: {driver: %s, dsn: %q}
razorpay:
  webhook_secrets: ["${WEBHOOK_SECRET}"]
  account_id: %s
  key_id: %s
  key_secret: ${RZP_SECRET}
  api_url: %s
erpnext: {url: %q, api_key: "${ERP_KEY}", api_secret: "${ERP_SECRET}", timeout: %s, server_timeout: %s}
mapping: {company: %q}
reconcile: {schedule: "", window: 48h, integration_requests: %v, capture_authorized: %v, authorized_age: %s}
worker: {poll: 50ms, backoff_base: 50ms, backoff_max: 500ms, fence_margin: 200ms}
log: {level: warn}
`, c.Workers, c.Database.Driver, c.Database.DSN, c.Razorpay.AccountID, c.Razorpay.KeyID, c.Razorpay.APIURL, c.ERPNext.URL,
		c.ERPNext.Timeout.D(), c.ERPNext.ServerTimeout.D(), c.Mapping.Company, c.Reconcile.IntegrationRequests,
		c.Reconcile.CaptureAuthorized, c.Reconcile.AuthorizedAge.D())
	path := filepath.Join(e.t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(y), 0o600); err != nil {
		e.t.Fatal(err)
	}
	return path
}

// reconcile runs the command with --json and decodes its report.
func (e *rzpEnv) reconcile(path string, wantCode int, extra ...string) *reconcile.Report {
	e.t.Helper()
	code, out, errs := run(e.t, e.secret, append([]string{"reconcile", "--config", path, "--json"}, extra...)...)
	if code != wantCode {
		e.t.Fatalf("reconcile %v: exit %d, want %d\nstdout %s\nstderr %s", extra, code, wantCode, out, errs)
	}
	var rep reconcile.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		e.t.Fatalf("stdout is not one JSON report: %v\n%s", err, out)
	}
	for _, s := range []string{testRzpSecret, testSecret, testWebhook} {
		if strings.Contains(out+errs, s) {
			e.t.Errorf("reconcile output contains a secret")
		}
	}
	return &rep
}

// bookedOnce checks that every payment has exactly one submitted Payment Entry and nothing
// else, and that there are no other entries. It reads the simulator's entries once (each read
// renders every document).
func (e *rzpEnv) bookedOnce(ids []string) {
	e.t.Helper()
	all := e.site.Docs("Payment Entry")
	byRef := map[any][]map[string]any{}
	for _, pe := range all {
		byRef[pe["reference_no"]] = append(byRef[pe["reference_no"]], pe)
	}
	for _, id := range ids {
		if pes := byRef[id]; len(pes) != 1 || fmt.Sprint(pes[0]["docstatus"]) != "1" {
			e.t.Errorf("payment %s: Payment Entries %v; want exactly 1, submitted", id, names(pes))
		}
	}
	if len(all) != len(ids) {
		e.t.Errorf("%d Payment Entries in ERPNext, want %d", len(all), len(ids))
	}
}

// replayLost posts every lost webhook of the simulator, as Razorpay's manual resend would.
func (e *rzpEnv) replayLost() int {
	e.t.Helper()
	n := 0
	for _, ev := range e.sim.State().Events {
		if !ev.Lost {
			continue
		}
		code, resp := e.deliver(e.d, ev.ID, []byte(ev.Body))
		if code != http.StatusOK {
			e.t.Errorf("replay %s: %d %s", ev.ID, code, resp)
		}
		n++
	}
	return n
}

// inboxSnapshot is every inbox row's id, status, attempts and update time.
func (e *rzpEnv) inboxSnapshot() []string {
	e.t.Helper()
	rows, err := e.d.db.ListEvents(context.Background(), connector.EventFilter{})
	if err != nil {
		e.t.Fatal(err)
	}
	var s []string
	for _, r := range rows {
		s = append(s, fmt.Sprintf("%d %s %s %d %s", r.ID, r.EventID, r.Status, r.Attempts, r.UpdatedAt))
	}
	return s
}

func queuedIDs(rep *reconcile.Report) []string {
	var ids []string
	for _, it := range rep.Queued {
		ids = append(ids, it.ID)
	}
	sort.Strings(ids)
	return ids
}

func (e *rzpEnv) lostIDs() []string {
	var ids []string
	for id := range e.lost {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// 120 captured payments in the window, 40 of whose webhooks were lost — 12 of those created up
// to 36 h before the window (captured inside it), so only the list's lookback finds them, and
// they are the oldest, so only the second page of the list (razorpay.PageSize a page) holds
// them. A dry run reports the 40 and writes nothing; one reconcile books exactly the 40; a
// second books 0; replaying the lost webhooks afterwards books 0.
func TestReconcileBooksLostWebhooksOnce(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, driver string) {
		e := newRzpEnv(t, driver, "", nil)
		now := time.Now()
		windowStart := now.Add(-48 * time.Hour)
		for i := 0; i < 12; i++ { // created 3 h … 36 h before the window
			e.addPayment(i, int64(10000+i*100), windowStart.Add(-time.Duration(i+1)*3*time.Hour), true)
		}
		for i := 12; i < 120; i++ { // inside the window; every third of the first 84 lost (28)
			created := windowStart.Add(time.Duration(i-11) * 18 * time.Minute)
			e.addPayment(i, int64(10000+i*100), created, (i-12)%3 == 0 && len(e.lost) < 40)
		}
		if len(e.lost) != 40 || len(e.all) != 120 || len(e.all)-12 < razorpay.PageSize {
			t.Fatalf("setup: %d lost of %d; the 12 oldest must be past the first page of %d", len(e.lost), len(e.all), razorpay.PageSize)
		}
		e.settle()
		if n := len(e.site.Docs("Payment Entry")); n != 80 {
			t.Fatalf("webhooks booked %d Payment Entries, want 80\n%s", n, e.logs.String())
		}
		path := e.configFile()

		// Dry run: reports the 40, touches nothing.
		before := e.inboxSnapshot()
		dryStart := time.Now()
		rep := e.reconcile(path, exitOK, "--dry-run")
		if !rep.DryRun || rep.Payments.Scanned != 120 || rep.Payments.Queued != 40 || rep.Payments.AlreadyBooked != 80 {
			t.Errorf("dry run payments %+v: want 120 scanned, 40 to queue, 80 already booked", rep.Payments)
		}
		if got, want := queuedIDs(rep), e.lostIDs(); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("dry run would queue %v, want the lost %v", got, want)
		}
		if after := e.inboxSnapshot(); strings.Join(after, "\n") != strings.Join(before, "\n") {
			t.Errorf("dry run changed the inbox")
		}
		if runs, err := e.d.db.ListReconcileRuns(context.Background(), 0); err != nil || len(runs) != 0 {
			t.Errorf("dry run recorded runs %+v (%v)", runs, err)
		}
		var locks int
		if err := e.d.db.SQL().Get(&locks, `SELECT COUNT(*) FROM locks WHERE name = 'reconcile'`); err != nil || locks != 0 {
			t.Errorf("dry run left %d reconcile lock rows (%v)", locks, err)
		}
		for _, r := range e.site.Requests() {
			if r.At.After(dryStart) && r.Method != http.MethodGet {
				t.Errorf("dry run sent %s %s to ERPNext", r.Method, r.Path)
			}
		}
		if n := len(e.site.Docs("Payment Entry")); n != 80 {
			t.Errorf("dry run: %d Payment Entries, want 80", n)
		}

		// The run: exactly the 40.
		rep = e.reconcile(path, exitOK)
		if rep.Payments.Queued != 40 || rep.Payments.Booked != 40 || rep.Payments.AlreadyBooked != 80 || rep.Payments.Parked != 0 || rep.RunID == 0 {
			t.Errorf("first run payments %+v (run %d): want 40 queued and booked, 80 already booked", rep.Payments, rep.RunID)
		}
		e.bookedOnce(e.all)
		for _, id := range e.lostIDs() {
			rows, _ := e.d.db.FindEvents(context.Background(), id)
			if len(rows) != 1 || rows[0].EventID != "reconcile:"+id || rows[0].Status != connector.StatusDone {
				t.Errorf("lost payment %s: rows %+v, want one done reconcile row", id, rows)
				break
			}
		}

		// A second run books nothing.
		rep = e.reconcile(path, exitOK)
		if rep.Payments.Queued != 0 || rep.Payments.Booked != 0 || rep.Payments.AlreadyBooked != 120 {
			t.Errorf("second run payments %+v: want 0 queued, 120 already booked", rep.Payments)
		}
		runs, err := e.d.db.ListReconcileRuns(context.Background(), 0)
		if err != nil || len(runs) != 2 || runs[1].Queued != 40 || runs[1].Booked != 40 || runs[0].Queued != 0 || runs[0].Booked != 0 || runs[0].Scanned != 120 || runs[0].FinishedAt == nil {
			t.Errorf("runs %+v (%v): want the first with 40 booked, the second with 0", runs, err)
		}

		// The lost webhooks arrive after all: duplicates by business key.
		if n := e.replayLost(); n != 120 {
			t.Errorf("replayed %d lost events, want 120 (authorized, captured, order.paid for each)", n)
		}
		e.waitIdle(e.d)
		e.bookedOnce(e.all)
		counts, _ := e.d.db.CountByStatus(context.Background())
		if counts[connector.StatusParked]+counts[connector.StatusDead] != 0 {
			t.Errorf("inbox %v: nothing should be parked or dead", counts)
		}
	})
}

// The reconcile command and the daemon's webhook workers book the same payments at the same
// moment: each ends with one entry, and every inbox row of it agrees on that entry.
func TestReconcileRacingWebhookWorkerBooksOnce(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, driver string) {
		e := newRzpEnv(t, driver, "", func(c *connector.Config) {
			c.ERPNext.Timeout = connector.Duration(time.Second)
			c.ERPNext.ServerTimeout = connector.Duration(time.Second)
		})
		e.site.SetLatency(5 * time.Millisecond)
		for i := 0; i < 10; i++ {
			e.addPayment(i, int64(20000+i*100), time.Now().Add(-time.Duration(i+1)*time.Hour), true)
		}
		e.settle()
		path := e.configFile()
		var wg sync.WaitGroup
		wg.Add(2)
		var code int
		var out, errs string
		go func() {
			defer wg.Done()
			code, out, errs = run(t, e.secret, "reconcile", "--config", path, "--json")
		}()
		go func() {
			defer wg.Done()
			e.replayLost()
		}()
		wg.Wait()
		if code != exitOK {
			t.Fatalf("reconcile exit %d\n%s\n%s", code, out, errs)
		}
		e.waitIdle(e.d)
		e.bookedOnce(e.all)
		for _, id := range e.all {
			if sub, _ := e.entries(id); len(sub) == 1 {
				e.rowsAgreeOn(e.d, id, fmt.Sprint(sub[0]["name"]))
			}
		}
	})
}

// serve runs the reconcile on reconcile.schedule: lost payments get booked without anyone
// running the command, and each run is recorded.
func TestServeReconcilesOnSchedule(t *testing.T) {
	t.Parallel()
	e := newRzpEnv(t, "sqlite", "@every 1s", nil)
	for i := 0; i < 5; i++ {
		e.addPayment(i, int64(30000+i*100), time.Now().Add(-time.Duration(i+1)*time.Hour), true)
	}
	testtime.Until(t, "5 Payment Entries booked by the schedule", func() bool { return len(e.site.Docs("Payment Entry")) >= 5 })
	e.waitIdle(e.d)
	e.bookedOnce(e.all)
	runs, err := e.d.db.ListReconcileRuns(context.Background(), 0)
	if err != nil || len(runs) == 0 || runs[len(runs)-1].Queued != 5 || runs[len(runs)-1].Booked != 0 || runs[len(runs)-1].FinishedAt == nil {
		t.Errorf("runs %+v (%v): want a finished scheduled run that queued the 5", runs, err)
	}
	// The scheduled runs are counted in this process's metrics (ObserveReconcile), not only
	// in the store: the run that queued the 5 counts them, later runs count none.
	text := getMetrics(t, e.d)
	if regexp.MustCompile(`(?m)^razorpay_erpnext_reconcile_runs_total\{result="success"\} [1-9]`).FindString(text) == "" {
		t.Errorf("/metrics counts no successful scheduled reconcile run:\n%s", grepLines(text, "reconcile"))
	}
	if !strings.Contains(text, `razorpay_erpnext_reconcile_payments_total{outcome="booked"} 5`+"\n") {
		t.Errorf("/metrics does not count the 5 payments the scheduled run queued:\n%s", grepLines(text, "reconcile"))
	}
}

// grepLines returns the lines of text that contain s.
func grepLines(text, s string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// sysManager is an API user with System Manager besides the usual accounting roles: the
// Integration Request sweep needs System Manager read (spec/erpnext.md §5.1).
var sysManager = erpnextsim.User{Email: "sysmgr@example.com", Key: "sysmgr-api-key-01", Secret: "sysmgr-secret-DO-NOT-LOG",
	Roles: []string{erpnextsim.RoleSystemManager, erpnextsim.RoleAccountsUser, erpnextsim.RoleAccountsManager, erpnextsim.RoleSalesUser, erpnextsim.RoleSalesManager}}

// withSystemManager replaces the env's site with one that also has sysManager, and makes the
// daemon and the reconcile command use that user.
func withSystemManager(e *env) {
	e.t.Helper()
	e.site = erpnextsim.New(erpnextsim.Options{APIKey: testKey, APISecret: testSecret, Users: []erpnextsim.User{sysManager}})
	if err := e.site.AddCustomer("Test Customer"); err != nil {
		e.t.Fatal(err)
	}
	inv, err := e.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true,
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "12000.00"}}})
	if err != nil {
		e.t.Fatal(err)
	}
	e.invoice = inv
	e.erp = httptest.NewServer(e.site)
	e.t.Cleanup(e.erp.Close)
}

// ERPNext's checkout left two Integration Requests: one Authorized for a payment Razorpay
// reports captured and nobody booked (a guest payer, spec/erpnext.md §5.4) → one Payment Entry
// linked to its Payment Request, which becomes Paid; one whose payment ERPNext booked itself
// under the Payment Request name → no second entry.
func TestIntegrationRequestSweepBooksThroughPaymentRequest(t *testing.T) {
	t.Parallel()
	e := newRzpEnv(t, "sqlite", "", func(c *connector.Config) {
		c.ERPNext.APIKey, c.ERPNext.APISecret = sysManager.Key, sysManager.Secret
		c.Reconcile.IntegrationRequests = true
	}, withSystemManager)
	e.secret["ERP_KEY"], e.secret["ERP_SECRET"] = sysManager.Key, sysManager.Secret
	prA, err := e.site.AddPaymentRequest(e.invoice, erpnextsim.PaymentRequestSpec{})
	if err != nil {
		t.Fatal(err)
	}
	invB, err := e.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true,
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "500.00"}}})
	if err != nil {
		t.Fatal(err)
	}
	prB, err := e.site.AddPaymentRequest(invB, erpnextsim.PaymentRequestSpec{})
	if err != nil {
		t.Fatal(err)
	}
	created := time.Now().Add(-time.Hour)
	for _, p := range []struct {
		id     string
		amount int64
		pr     string
		status string
	}{{"pay_T3stIRGuest001", 1200000, prA, "Authorized"}, {"pay_T3stIRBookd001", 50000, prB, "Completed"}} {
		if _, err := e.sim.CreatePayment(razorpay.Payment{ID: p.id, Amount: p.amount, Currency: "INR", Method: "card", CreatedAt: created.Unix()},
			razorpaysim.PaymentOptions{Lose: true, NoOrder: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.site.AddIntegrationRequest(erpnextsim.IntegrationRequestSpec{Service: "Razorpay", Status: p.status,
			ReferenceDoctype: "Payment Request", ReferenceDocname: p.pr,
			Data: map[string]any{"razorpay_payment_id": p.id, "reference_doctype": "Payment Request", "reference_docname": p.pr, "amount": p.amount}}); err != nil {
			t.Fatal(err)
		}
	}
	// ERPNext's own checkout booked B: reference_no = the Payment Request name (§3.9).
	var own frappe.PaymentEntry
	err = e.client().Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{
		"payment_type": "Receive", "company": erpnextsim.DefaultCompany, "posting_date": istDate(time.Now()),
		"party_type": "Customer", "party": "Test Customer", "mode_of_payment": "Razorpay", "paid_to": erpnextsim.RazorpayClearing,
		"paid_amount": 500, "received_amount": 500, "reference_no": prB, "reference_date": istDate(time.Now()), "docstatus": 1,
		"references": []map[string]any{{"reference_doctype": "Sales Invoice", "reference_name": invB, "allocated_amount": 500, "payment_request": prB}},
	}, &own)
	if err != nil {
		t.Fatalf("ERPNext's own entry: %v", err)
	}
	e.settle()
	rep := e.reconcile(e.configFile(), exitOK)
	if rep.IntegrationRequests.Scanned != 2 || rep.IntegrationRequests.Queued != 2 || len(rep.Warnings) != 0 {
		t.Errorf("integration requests %+v, warnings %q: want both payments queued through their Payment Requests", rep.IntegrationRequests, rep.Warnings)
	}
	sub, other := e.entries("pay_T3stIRGuest001")
	if len(sub) != 1 || len(other) != 0 {
		t.Fatalf("guest payment: %d submitted, %d other entries, want 1\n%s", len(sub), len(other), e.logs.String())
	}
	linked := false
	for _, r := range sub[0]["references"].([]any) {
		if row, _ := r.(map[string]any); row["payment_request"] == prA {
			linked = true
		}
	}
	if !linked {
		t.Errorf("entry %v does not link Payment Request %s", sub[0]["references"], prA)
	}
	if pr, _ := e.site.Doc("Payment Request", prA); pr["status"] != "Paid" {
		t.Errorf("Payment Request %s status %v, want Paid", prA, pr["status"])
	}
	if n := len(e.site.Docs("Payment Entry")); n != 2 {
		t.Errorf("%d Payment Entries, want 2 (ERPNext's own for %s and the one for the guest)", n, prB)
	}
	rows, _ := e.d.db.FindEvents(context.Background(), "pay_T3stIRBookd001")
	if len(rows) != 1 || rows[0].Status != connector.StatusDone || rows[0].ResultName != own.Name {
		t.Errorf("rows of the payment ERPNext booked %+v: want one done row naming %s", rows, own.Name)
	}
}

func TestSimulateRazorpayServesTheAPI(t *testing.T) {
	t.Parallel()
	addr, stop := startRazorpaySim(t, "--account-id", testAccount)
	resp, err := http.Post(addr+"/__sim/payments", "application/json", strings.NewReader(`{"amount": 50000, "deliver": false}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	client, _ := razorpay.NewClient(razorpay.ClientConfig{BaseURL: addr, KeyID: "k", KeySecret: "s"})
	n := 0
	if err := client.ListPayments(context.Background(), time.Time{}, time.Time{}, func(*razorpay.Payment) error { n++; return nil }); err != nil || n != 1 {
		t.Errorf("listed %d payments (%v), want 1", n, err)
	}
	if code := stop(); code != exitOK {
		t.Errorf("exit %d", code)
	}
	if code, _, _ := run(t, nil, "simulate", "razorpay", "--listen", "127.0.0.1:0"); code != exitUsage {
		t.Errorf("missing keys: exit %d, want 2", code)
	}
}

// The audit reports two submitted entries sharing one reference_no and a booking whose entry
// was cancelled, re-books neither, and the command exits 3.
func TestReconcileAuditReportsWithoutRebooking(t *testing.T) {
	t.Parallel()
	e := newRzpEnv(t, "sqlite", "", nil)
	a := e.addPayment(1, 10000, time.Now().Add(-2*time.Hour), false)
	b := e.addPayment(2, 20000, time.Now().Add(-time.Hour), false)
	e.settle()
	subA, _ := e.entries(a)
	subB, _ := e.entries(b)
	if len(subA) != 1 || len(subB) != 1 {
		t.Fatalf("setup: entries %d, %d", len(subA), len(subB))
	}
	ctx := context.Background()
	c := e.client()
	if err := c.Update(ctx, frappe.DoctypePaymentEntry, fmt.Sprint(subB[0]["name"]), map[string]any{"docstatus": 2}, nil); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	var dup frappe.PaymentEntry
	err := c.Insert(ctx, frappe.DoctypePaymentEntry, map[string]any{
		"payment_type": "Receive", "company": erpnextsim.DefaultCompany, "posting_date": istDate(time.Now()),
		"party_type": "Customer", "party": "Test Customer", "mode_of_payment": "Razorpay", "paid_to": erpnextsim.RazorpayClearing,
		"paid_amount": 100, "received_amount": 100, "reference_no": a, "reference_date": istDate(time.Now()), "docstatus": 1,
		"references": []map[string]any{{"reference_doctype": "Sales Invoice", "reference_name": e.invoice, "allocated_amount": 100}},
	}, &dup)
	if err != nil {
		t.Fatal(err)
	}
	before := len(e.site.Docs("Payment Entry"))
	rep := e.reconcile(e.configFile(), exitParked)
	kinds := map[string]int{}
	for _, an := range rep.Anomalies {
		kinds[an.Kind]++
	}
	if kinds[reconcile.AnomalyDuplicateReference] != 1 || kinds[reconcile.AnomalyBookingCancelled] != 1 || len(rep.Anomalies) != 2 {
		t.Errorf("anomalies %+v: want one duplicate reference_no (%s) and one cancelled booking (%s)", rep.Anomalies, a, b)
	}
	if after := len(e.site.Docs("Payment Entry")); after != before || rep.Payments.Queued != 0 {
		t.Errorf("the audit changed ERPNext (%d → %d entries) or queued %d payments", before, after, rep.Payments.Queued)
	}
}
