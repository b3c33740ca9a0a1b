package reconcile_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/config"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/reconcile"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/wire"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

const (
	rzpKey    = "rzp_test_T3stKey00000001"
	rzpSecret = "rzp-secret-DO-NOT-LOG"
	erpKey    = "erp-key"
	erpSecret = "erp-secret-DO-NOT-LOG"
)

// reconcileEnv is a Razorpay simulator, an ERPNext simulator (optionally behind a handler that
// answers some paths itself), an SQLite store and a connector wired to all three.
type reconcileEnv struct {
	t    *testing.T
	sim  *razorpaysim.Sim
	site *erpnextsim.Site
	db   *store.DB
	cfg  connector.Config
	now  time.Time
	live bool // connectors run on the wall clock instead of now

	mu   sync.Mutex
	rzpH http.Handler // what the Razorpay server runs: the simulator, or a front of it
}

// rzpFront puts front before the Razorpay simulator for the requests that follow.
func (e *reconcileEnv) rzpFront(front func(next http.Handler) http.Handler) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.rzpH = front(e.sim)
}

func newReconcileEnv(t *testing.T, front func(next http.Handler) http.Handler) *reconcileEnv {
	t.Helper()
	e := &reconcileEnv{t: t, now: time.Now().UTC().Truncate(time.Second)}
	e.sim = razorpaysim.New(razorpaysim.Options{KeyID: rzpKey, KeySecret: rzpSecret, AccountID: "acc_T3stAcc0unt001"})
	t.Cleanup(e.sim.Close)
	e.rzpH = e.sim
	rs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		h := e.rzpH
		e.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(rs.Close)
	e.site = erpnextsim.New(erpnextsim.Options{APIKey: erpKey, APISecret: erpSecret})
	var h http.Handler = e.site
	if front != nil {
		h = front(h)
	}
	es := httptest.NewServer(h)
	t.Cleanup(es.Close)
	e.db = sqliteStore(t)
	e.cfg = intakeConfig()
	e.cfg.ERPNext.URL, e.cfg.ERPNext.APIKey, e.cfg.ERPNext.APISecret = es.URL, erpKey, erpSecret
	e.cfg.Razorpay.KeyID, e.cfg.Razorpay.KeySecret, e.cfg.Razorpay.APIURL = rzpKey, rzpSecret, rs.URL
	e.cfg.Reconcile.IntegrationRequests = false
	e.cfg.Worker.BackoffBase = connector.Duration(10 * time.Millisecond)
	return e
}

func (e *reconcileEnv) connector() *wire.Core { return e.connectorWith(e.db) }

// connectorWith is connector on another store (a wrapper of e.db).
func (e *reconcileEnv) connectorWith(s connector.Store) *wire.Core {
	e.t.Helper()
	rzp, err := razorpay.NewClient(razorpay.ClientConfig{BaseURL: e.cfg.Razorpay.APIURL, KeyID: rzpKey, KeySecret: rzpSecret})
	if err != nil {
		e.t.Fatal(err)
	}
	erp, err := frappe.New(frappe.Config{URL: e.cfg.ERPNext.URL, APIKey: erpKey, APISecret: erpSecret})
	if err != nil {
		e.t.Fatal(err)
	}
	now := func() time.Time { return e.now }
	if e.live {
		now = time.Now
	}
	c, err := wire.New(wire.Options{Config: e.cfg, Store: s, ERP: erp, Razorpay: rzp, Log: zerolog.Nop(), Now: now})
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// payment adds a payment (captured unless status says otherwise) whose webhooks are lost.
func (e *reconcileEnv) payment(id, status string, created time.Time, notes razorpay.Notes) {
	e.t.Helper()
	_, err := e.sim.CreatePayment(razorpay.Payment{ID: id, Amount: 50000, Currency: "INR", Status: status, Method: "upi",
		CreatedAt: created.Unix(), Notes: notes}, razorpaysim.PaymentOptions{Lose: true, Receipt: "ACC-SINV-2026-00001"})
	if err != nil {
		e.t.Fatalf("create payment %s: %v", id, err)
	}
}

func (e *reconcileEnv) reconcile(c *wire.Core, req reconcile.Request) *reconcile.Report {
	e.t.Helper()
	rep, err := reconcile.Run(context.Background(), c.Reconcile(), req)
	if err != nil {
		e.t.Fatalf("reconcile: %v", err)
	}
	return rep
}

func payID(i int) string { return fmt.Sprintf("pay_T3stRecon%05d", i) }

// Razorpay lists at most 100 payments a page, newest first: a sweep that reads one page misses
// the 30 oldest of 130.
func TestReconcileReadsEveryPage(t *testing.T) {
	e := newReconcileEnv(t, nil)
	for i := 0; i < 130; i++ {
		e.payment(payID(i), "", e.now.Add(-time.Duration(130-i)*10*time.Minute), nil)
	}
	c := e.connector()
	rep := e.reconcile(c, reconcile.Request{DryRun: true})
	if rep.Payments.Scanned != 130 || rep.Payments.Queued != 130 || len(rep.Queued) != 130 {
		t.Fatalf("dry run scanned %d, would queue %d (%d listed); want 130 of 130", rep.Payments.Scanned, rep.Payments.Queued, len(rep.Queued))
	}
	if n := total(t, e.db); n != 0 {
		t.Fatalf("dry run wrote %d inbox rows", n)
	}
	rep = e.reconcile(c, reconcile.Request{})
	if rep.Payments.Queued != 130 {
		t.Fatalf("queued %d, want 130", rep.Payments.Queued)
	}
	rows, err := e.db.FindEvents(context.Background(), payID(0))
	if err != nil || len(rows) != 1 || rows[0].EventID != "reconcile:"+payID(0) || rows[0].AccountID != "acc_T3stAcc0unt001" ||
		rows[0].Event != "payment.captured" || rows[0].Status != connector.StatusPending {
		t.Fatalf("oldest payment's row %+v (%v): want one pending reconcile:%s of the configured account", rows, err, payID(0))
	}
	again := e.reconcile(c, reconcile.Request{})
	if again.Payments.Queued != 0 || again.Payments.InInbox != 130 {
		t.Errorf("second run queued %d, in inbox %d; want 0 and 130", again.Payments.Queued, again.Payments.InInbox)
	}
	runs, err := e.db.ListReconcileRuns(context.Background(), 0)
	if err != nil || len(runs) != 2 || runs[0].FinishedAt == nil || runs[0].Error != "" || runs[1].Queued != 130 || runs[1].Booked != 0 || runs[1].Scanned != 130 {
		t.Errorf("runs %+v (%v): want two finished runs, the first with 130 scanned and queued", runs, err)
	}
}

func TestSyntheticEventReadsBackAsWebhook(t *testing.T) {
	fee, base := int64(1180), int64(50000)
	p := &razorpay.Payment{ID: "pay_T3stSynth00001", Entity: "payment", Amount: 50000, Currency: "INR", Status: "captured",
		Captured: true, OrderID: "order_T3stSynth0001", Notes: razorpay.Notes{"invoice": "ACC-SINV-2026-00007"}, Fee: &fee,
		BaseAmount: &base, AcquirerData: map[string]string{"rrn": "123"}, CreatedAt: 1764000000}
	o := &razorpay.Order{ID: "order_T3stSynth0001", Entity: "order", Amount: 50000, Currency: "INR", Receipt: "ACC-SINV-2026-00007", Status: "paid"}
	body, err := connector.SyntheticEvent("acc_T3stAcc0unt001", "payment.captured", time.Unix(1764000100, 0), p, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := razorpay.ParseEvent(body)
	if err != nil {
		t.Fatalf("ParseEvent: %v\n%s", err, body)
	}
	if ev.Entity != "event" || ev.Event != "payment.captured" || ev.AccountID != "acc_T3stAcc0unt001" || ev.CreatedAt != 1764000100 ||
		ev.BusinessKey() != p.ID || strings.Join(ev.Contains, ",") != "payment,order" {
		t.Errorf("envelope %+v", ev)
	}
	if ev.Payment == nil || *ev.Payment.Fee != 1180 || ev.Payment.Notes["invoice"] != "ACC-SINV-2026-00007" || !bool(ev.Payment.Captured) ||
		ev.Order == nil || ev.Order.Receipt != "ACC-SINV-2026-00007" {
		t.Errorf("entities %+v %+v", ev.Payment, ev.Order)
	}
	rf := &razorpay.Refund{ID: "rfnd_T3stSynth0001", Amount: 100, Currency: "INR", PaymentID: p.ID, Status: "processed"}
	body, _ = connector.SyntheticEvent("acc_T3stAcc0unt001", "refund.processed", time.Now(), p, nil, rf)
	if ev, err = razorpay.ParseEvent(body); err != nil || ev.BusinessKey() != rf.ID || strings.Join(ev.Contains, ",") != "refund,payment" {
		t.Errorf("refund envelope %+v %v", ev, err)
	}
}

func TestReconcileRespectsSinceAndExistingRows(t *testing.T) {
	e := newReconcileEnv(t, nil)
	loc, _ := time.LoadLocation("Asia/Kolkata")
	since := e.now.In(loc).Add(-24 * time.Hour)
	e.cfg.Reconcile.Since = since.Format("2006-01-02")
	midnight, _ := time.ParseInLocation("2006-01-02", e.cfg.Reconcile.Since, loc)
	e.payment("pay_T3stBeforeGoLv", "", midnight.Add(-time.Minute), nil)
	e.payment("pay_T3stAuthOnly01", "", e.now.Add(-time.Hour), nil)
	e.payment("pay_T3stParked0001", "", e.now.Add(-time.Hour), nil)
	e.payment("pay_T3stStillAuth1", "authorized", e.now.Add(-time.Hour), nil)
	ctx := context.Background()
	// Only payment.authorized arrived for one payment; another's capture is parked.
	for _, r := range []connector.InboxEvent{
		{EventID: "evt_T3stAuthOnly01", Event: "payment.authorized", BusinessKey: "pay_T3stAuthOnly01", Status: connector.StatusSkipped},
		{EventID: "evt_T3stParked0001", Event: "payment.captured", BusinessKey: "pay_T3stParked0001", Status: connector.StatusParked, LastError: "no invoice matched: test"},
	} {
		r.AccountID, r.RawBody = "acc_T3stAcc0unt001", []byte("{}")
		if _, err := e.db.InsertEvent(ctx, &r); err != nil {
			t.Fatal(err)
		}
	}
	rep := e.reconcile(e.connector(), reconcile.Request{})
	if rep.Payments.BeforeSince != 1 || rep.Payments.Queued != 1 || rep.Payments.Parked != 1 || rep.Payments.Scanned != 3 {
		t.Fatalf("counts %+v: want 3 captured scanned, 1 before go-live, 1 queued, 1 parked", rep.Payments)
	}
	if rep.Queued[0].ID != "pay_T3stAuthOnly01" {
		t.Errorf("queued %s, want the payment whose capture never arrived", rep.Queued[0].ID)
	}
	if len(rep.Parked) != 1 || !strings.Contains(rep.Parked[0].Reason, "no invoice matched") || !rep.NeedsAttention {
		t.Errorf("parked %+v, needs attention %v: want the parked row with its reason", rep.Parked, rep.NeedsAttention)
	}
	if rows, err := e.db.FindEvents(ctx, "pay_T3stBeforeGoLv"); err != nil || len(rows) != 0 {
		t.Errorf("rows of the payment created before reconcile.since: %+v, %v; want none", rows, err)
	}
}

func TestReconcileTakesTheLockRow(t *testing.T) {
	e := newReconcileEnv(t, nil)
	e.payment(payID(1), "", e.now.Add(-time.Hour), nil)
	ctx := context.Background()
	if ok, err := e.db.AcquireLock(ctx, "reconcile", "other-replica", e.now, e.now.Add(time.Minute)); !ok || err != nil {
		t.Fatal(ok, err)
	}
	c := e.connector()
	if _, err := reconcile.Run(ctx, c.Reconcile(), reconcile.Request{}); !errors.Is(err, reconcile.ErrBusy) {
		t.Fatalf("err %v, want ErrReconcileBusy while another replica holds the lock", err)
	}
	if rep := e.reconcile(c, reconcile.Request{DryRun: true}); rep.Payments.Queued != 1 {
		t.Errorf("a dry run takes no lock and should still report: %+v", rep.Payments)
	}
	if err := e.db.ReleaseLock(ctx, "reconcile", "other-replica"); err != nil {
		t.Fatal(err)
	}
	if rep := e.reconcile(c, reconcile.Request{}); rep.Payments.Queued != 1 {
		t.Errorf("after release: %+v", rep.Payments)
	}
}

// lockWatch is the store of a connector that sees every attempt on the lock row "reconcile":
// refused tells it how many were refused; after the first refusal the other holder lets go.
type lockWatch struct {
	*store.DB
	mu      sync.Mutex
	refused int
	release func()
}

func (w *lockWatch) AcquireLock(ctx context.Context, name, owner string, now, until time.Time) (bool, error) {
	ok, err := w.DB.AcquireLock(ctx, name, owner, now, until)
	if name == "reconcile" && err == nil && !ok {
		w.mu.Lock()
		w.refused++
		first := w.refused == 1
		w.mu.Unlock()
		if first {
			w.release() // the scheduled run finishes right after this attempt
		}
	}
	return ok, err
}

// A reconcile run by hand waits (WaitForLock) for a scheduled run elsewhere to finish instead
// of failing at once.
func TestReconcileWaitsForTheLock(t *testing.T) {
	e := newReconcileEnv(t, nil)
	e.payment(payID(1), "", e.now.Add(-time.Hour), nil)
	ctx := context.Background()
	if ok, err := e.db.AcquireLock(ctx, "reconcile", "scheduled-run", e.now, e.now.Add(time.Minute)); !ok || err != nil {
		t.Fatal(ok, err)
	}
	w := &lockWatch{DB: e.db, release: func() {
		if err := e.db.ReleaseLock(ctx, "reconcile", "scheduled-run"); err != nil {
			t.Error(err)
		}
	}}
	c := e.connectorWith(w)
	rep, err := reconcile.Run(ctx, c.Reconcile(), reconcile.Request{WaitForLock: 30 * time.Second})
	if err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	if rep.Payments.Queued != 1 {
		t.Errorf("report %+v", rep.Payments)
	}
	if w.refused != 1 {
		t.Errorf("the lock was refused %d times, want once: the run must wait for it, then take it", w.refused)
	}
	// Without waiting, a held lock is ErrBusy at once.
	if ok, err := e.db.AcquireLock(ctx, "reconcile", "scheduled-run", e.now, e.now.Add(time.Minute)); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if _, err := reconcile.Run(ctx, e.connector().Reconcile(), reconcile.Request{}); !errors.Is(err, reconcile.ErrBusy) {
		t.Errorf("err %v, want ErrBusy", err)
	}
}

// integrationRequests serves GET /api/resource/Integration Request from irs (as a System
// Manager would see them) and passes everything else to the ERPNext simulator.
func integrationRequests(irs []map[string]any) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || r.URL.Path != "/api/resource/Integration Request" {
				next.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"data": irs})
		})
	}
}

func irData(paymentID, pr string) string {
	b, _ := json.MarshalIndent(map[string]any{"amount": 50000, "reference_doctype": "Payment Request", "reference_docname": pr,
		"order_id": pr, "currency": "INR", "razorpay_payment_id": paymentID}, "", " ")
	return string(b)
}

func TestIntegrationRequestSweep(t *testing.T) {
	irs := []map[string]any{
		{"name": "a1b2c3d4e5", "status": "Authorized", "data": irData("pay_T3stIRCaptur01", "ACC-PRQ-2026-00001"),
			"reference_doctype": "Payment Request", "reference_docname": "ACC-PRQ-2026-00001"},
		{"name": "f6g7h8i9j0", "status": "Completed", "data": irData("pay_T3stIRBooked01", "ACC-PRQ-2026-00002"),
			"reference_doctype": "Payment Request", "reference_docname": "ACC-PRQ-2026-00002"},
		{"name": "k1l2m3n4o5", "status": "Authorized", "data": irData("pay_T3stIRAuthor01", "ACC-PRQ-2026-00003"),
			"reference_doctype": "Payment Request", "reference_docname": "ACC-PRQ-2026-00003"},
		{"name": "p6q7r8s9t0", "status": "Queued", "data": `{"amount": 500.0, "reference_docname": "ACC-PRQ-2026-00004"}`},
	}
	e := newReconcileEnv(t, integrationRequests(irs))
	e.cfg.Reconcile.IntegrationRequests = true
	e.payment("pay_T3stIRCaptur01", "", e.now.Add(-time.Hour), nil)
	e.payment("pay_T3stIRBooked01", "", e.now.Add(-time.Hour), nil)
	e.payment("pay_T3stIRAuthor01", "authorized", e.now.Add(-3*time.Hour), nil)
	ctx := context.Background()
	if _, _, err := e.db.ClaimBooking(ctx, connector.Booking{BusinessKey: "pay_T3stIRBooked01", Kind: connector.KindReceipt, Owner: "t",
		FenceUntil: e.now.Add(time.Minute)}, e.now); err != nil {
		t.Fatal(err)
	}
	if err := e.db.FinishBooking(ctx, connector.Booking{BusinessKey: "pay_T3stIRBooked01", Doctype: "Payment Entry", Name: "ACC-PAY-2026-00009"}, e.now); err != nil {
		t.Fatal(err)
	}
	rep := e.reconcile(e.connector(), reconcile.Request{})
	ir := rep.IntegrationRequests
	if ir.Queued != 1 || ir.AlreadyBooked != 1 || len(rep.Authorized) != 1 {
		t.Fatalf("integration requests %+v, authorized %+v: want 1 queued, 1 already booked, 1 authorized", ir, rep.Authorized)
	}
	if rep.Payments.Queued != 0 {
		t.Errorf("the list sweep queued %d payments the Integration Request sweep had already handled", rep.Payments.Queued)
	}
	rows, _ := e.db.FindEvents(ctx, "pay_T3stIRCaptur01")
	if len(rows) != 1 {
		t.Fatalf("rows %+v", rows)
	}
	ev, err := razorpay.ParseEvent(rows[0].RawBody)
	if err != nil || ev.Payment.Notes["payment_request"] != "ACC-PRQ-2026-00001" {
		t.Errorf("queued payment's notes %v (%v): want payment_request = the Integration Request's Payment Request", ev.Payment.Notes, err)
	}
	a := rep.Authorized[0]
	if a.ID != "pay_T3stIRAuthor01" || a.PaymentRequest != "ACC-PRQ-2026-00003" || !strings.Contains(a.Reason, "not captured") || !rep.NeedsAttention {
		t.Errorf("authorized %+v: want the payment named with its Payment Request and a reason", a)
	}
	for _, p := range e.sim.State().Payments {
		if p.ID == "pay_T3stIRAuthor01" && p.Status != "authorized" {
			t.Errorf("the authorized payment is %s: captured without reconcile.capture_authorized", p.Status)
		}
	}
}

func TestIntegrationRequestSweepWithoutPermissionWarns(t *testing.T) {
	e := newReconcileEnv(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/api/resource/Integration Request") {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusForbidden)
				_, _ = w.Write([]byte(`{"exc_type": "PermissionError", "_error_message": "No permission for Integration Request"}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	e.cfg.Reconcile.IntegrationRequests = true
	e.payment(payID(7), "", e.now.Add(-time.Hour), nil)
	rep := e.reconcile(e.connector(), reconcile.Request{})
	if rep.Payments.Queued != 1 {
		t.Errorf("the Razorpay sweep must run when the Integration Request sweep cannot: %+v", rep.Payments)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "403") || !strings.Contains(rep.Warnings[0], "System Manager") {
		t.Errorf("warnings %q: want one naming the 403 and the role needed", rep.Warnings)
	}
}

func TestReconcileConfigIsValidated(t *testing.T) {
	cfg := intakeConfig()
	for schedule, ok := range map[string]bool{"*/10 * * * *": true, "@every 1m": true, "": true, "every ten minutes": false, "* * *": false} {
		cfg.Reconcile.Schedule = schedule
		problems := strings.Join(cfg.Validate(), "\n")
		if got := !strings.Contains(problems, "reconcile.schedule"); got != ok {
			t.Errorf("schedule %q: valid %v, want %v (%s)", schedule, got, ok, problems)
		}
	}
	cfg = intakeConfig()
	cfg.Reconcile.Window = 0
	if p := strings.Join(cfg.Validate(), "\n"); !strings.Contains(p, "reconcile.window") {
		t.Errorf("a zero window is accepted: %s", p)
	}
	d := config.Defaults().Reconcile
	if d.Lookback.D() != 72*time.Hour || d.CaptureAuthorized || d.AuthorizedAge.D() <= 0 {
		t.Errorf("defaults %+v: want a 3-day lookback and no capture", d)
	}
}
