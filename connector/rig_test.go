package connector_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/intake"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/internal/sitetest"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/wire"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// t0 is when the rig's clock starts: a day after the sample payloads' payments (1768453200 =
// 2026-01-15 05:00 UTC), inside the simulated site's fiscal year 2025-2026.
var t0 = sitetest.T0

const (
	erpKey    = sitetest.ERPKey
	erpSecret = sitetest.ERPSecret
	rzpKey    = sitetest.RzpKey
	rzpSecret = sitetest.RzpSecret
	account   = sitetest.Account
)

// clock is the rig's time: the connector, the store rows and the simulated site read it; it
// moves only when a test advances it, or also with the wall clock when it is live (tests that
// run the workers on their own, withLiveClock).
type clock struct {
	mu    sync.Mutex
	t     time.Time
	start time.Time // wall time t was read at, when live; zero otherwise
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.start.IsZero() {
		return c.t.Add(time.Since(c.start))
	}
	return c.t
}

// withLiveClock makes the rig's clock move with the wall clock from t0 on.
func withLiveClock(r *rig) { r.clock.start = time.Now() }

// withLog sends the connector's log lines to w.
func withLog(w io.Writer) rigOption { return func(r *rig) { r.logw = w } }

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// rig is a connector on an SQLite store, the ERPNext simulator (a customer "Test Customer"
// and whatever the test adds) and, when asked, the Razorpay simulator, on one clock. Workers
// do not run on their own: work() processes what is due now.
type rig struct {
	t     *testing.T
	clock *clock
	site  *erpnextsim.Site
	rzp   *razorpaysim.Sim // nil unless withRazorpay
	db    *store.DB
	cfg   connector.Config
	conn  *wire.Core
	erp   *frappe.Client // a client of the site for the test's own reads and writes
	front func(http.Handler) http.Handler
	logw  io.Writer                  // the connector's log, when set (withLog)
	open  func(testing.TB) *store.DB // the store's engine (withStore); SQLite when nil

	mu   sync.Mutex
	sent []map[string]any // the Payment Entries inserted through the site, as sent
}

type rigOption func(*rig)

// withRazorpay adds the Razorpay simulator and configures its API keys.
func withRazorpay(r *rig) {
	r.rzp = razorpaysim.New(razorpaysim.Options{KeyID: rzpKey, KeySecret: rzpSecret, AccountID: account, Now: r.clock.now})
	r.t.Cleanup(r.rzp.Close)
	srv := httptest.NewServer(r.rzp)
	r.t.Cleanup(srv.Close)
	r.cfg.Razorpay.KeyID, r.cfg.Razorpay.KeySecret, r.cfg.Razorpay.APIURL = rzpKey, rzpSecret, srv.URL
}

// withConfig changes the configuration before the connector is built.
func withConfig(f func(*connector.Config)) rigOption { return func(r *rig) { f(&r.cfg) } }

// withStore puts the rig's store on the engine open returns (sqliteStore, mariadbStore).
func withStore(open func(testing.TB) *store.DB) rigOption { return func(r *rig) { r.open = open } }

// withFront puts a handler before the ERPNext simulator.
func withFront(f func(http.Handler) http.Handler) rigOption { return func(r *rig) { r.front = f } }

func newRig(t *testing.T, opts ...rigOption) *rig {
	t.Helper()
	r := &rig{t: t, clock: &clock{t: t0}, cfg: intakeConfig()}
	r.site = erpnextsim.New(erpnextsim.Options{APIKey: erpKey, APISecret: erpSecret, Now: r.clock.now})
	if err := r.site.AddCustomer("Test Customer"); err != nil {
		t.Fatal(err)
	}
	r.cfg.Razorpay.AccountID = account
	r.cfg.Reconcile.IntegrationRequests = false
	r.cfg.ERPNext.APIKey, r.cfg.ERPNext.APISecret = erpKey, erpSecret
	r.cfg.ERPNext.Timeout = connector.Duration(10 * time.Second)
	r.cfg.ERPNext.ServerTimeout = connector.Duration(10 * time.Second)
	for _, o := range opts {
		o(r)
	}
	var h http.Handler = http.HandlerFunc(r.record)
	if r.front != nil {
		h = r.front(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	r.cfg.ERPNext.URL = srv.URL
	if r.open == nil {
		r.open = sqliteStore
	}
	r.db = r.open(t)
	var err error
	if r.erp, err = frappe.New(frappe.Config{URL: srv.URL, APIKey: erpKey, APISecret: erpSecret}); err != nil {
		t.Fatal(err)
	}
	r.conn = r.connector(r.cfg)
	return r
}

// record keeps the body of every Payment Entry insert, then passes the request to the site.
func (r *rig) record(w http.ResponseWriter, req *http.Request) {
	if req.Method == http.MethodPost && req.URL.Path == "/api/resource/"+frappe.DoctypePaymentEntry {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var doc map[string]any
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if dec.Decode(&doc) == nil {
			r.mu.Lock()
			r.sent = append(r.sent, doc)
			r.mu.Unlock()
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	r.site.ServeHTTP(w, req)
}

// lastSent is the last Payment Entry inserted through the site, as the client sent it.
func (r *rig) lastSent() map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.sent) == 0 {
		return nil
	}
	return r.sent[len(r.sent)-1]
}

// connector builds another connector on the rig's store, site and clock with cfg.
func (r *rig) connector(cfg connector.Config) *wire.Core {
	r.t.Helper()
	erp, err := frappe.New(frappe.Config{URL: cfg.ERPNext.URL, APIKey: cfg.ERPNext.APIKey, APISecret: cfg.ERPNext.APISecret,
		Timeout: cfg.ERPNext.Timeout.D(), MaxRetryAfter: cfg.ERPNext.MaxRetryAfter.D()})
	if err != nil {
		r.t.Fatal(err)
	}
	log := zerolog.Nop()
	if r.logw != nil {
		log = zerolog.New(r.logw)
	}
	o := wire.Options{Config: cfg, Store: r.db, ERP: erp, Log: log, Now: r.clock.now}
	if r.rzp != nil {
		rc, err := razorpay.NewClient(razorpay.ClientConfig{BaseURL: cfg.Razorpay.APIURL, KeyID: rzpKey, KeySecret: rzpSecret})
		if err != nil {
			r.t.Fatal(err)
		}
		o.Razorpay = rc
	}
	c, err := wire.New(o)
	if err != nil {
		r.t.Fatal(err)
	}
	return c
}

// invoice adds a submitted Sales Invoice of customer for rate (decimal text) and returns its name.
func (r *rig) invoice(customer, rate string) string {
	r.t.Helper()
	name, err := r.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: customer, Submit: true,
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: rate}}})
	if err != nil {
		r.t.Fatal(err)
	}
	return name
}

// headerID is the X-Razorpay-Event-Id a test's short name stands for: intake takes only
// Razorpay's shape, 14 letters and digits (spec/razorpay.md §1.2). A name of that shape is kept;
// a short alphanumeric one is padded ("E1" → "E1Z00000000000"); anything else is the first 14
// hex digits of its SHA-256. deliver sends it and event finds it under the same name.
func headerID(name string) string {
	if razorpay.ValidEventID(name) || strings.HasPrefix(name, razorpay.ReconcileEventIDPrefix) {
		return name // a Razorpay id, or a row the reconciler made
	}
	if len(name) < razorpay.EventIDLen && razorpay.ValidEventID(name+"Z"+strings.Repeat("0", razorpay.EventIDLen-1-len(name))) {
		return name + "Z" + strings.Repeat("0", razorpay.EventIDLen-1-len(name))
	}
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:])[:razorpay.EventIDLen]
}

// deliver stores a signed webhook as intake does and returns its inbox row; eventID is a
// test's name for it (headerID).
func (r *rig) deliver(eventID string, body []byte) connector.InboxEvent {
	r.t.Helper()
	dup, err := r.conn.Intake().Receive(context.Background(), intake.Delivery{Body: body, Signature: razorpay.Sign(secretNew, body), EventID: headerID(eventID)})
	if err != nil || dup {
		r.t.Fatalf("deliver %s: duplicate %v, %v", eventID, dup, err)
	}
	return r.event(eventID)
}

// work processes every event due now, as one worker would, and returns how many it processed.
func (r *rig) work() int {
	r.t.Helper()
	n := 0
	for ; n < 200; n++ {
		did, err := r.conn.ProcessNext(context.Background(), 0)
		if err != nil {
			r.t.Fatalf("ProcessNext: %v", err)
		}
		if !did {
			return n
		}
	}
	r.t.Fatalf("still processing after %d events", n)
	return n
}

// event returns the inbox row with eventID.
func (r *rig) event(eventID string) connector.InboxEvent {
	r.t.Helper()
	for _, id := range []string{headerID(eventID), eventID} { // delivered, or inserted as is
		rows, err := r.db.FindEvents(context.Background(), id)
		if err != nil {
			r.t.Fatalf("find %s: %v", id, err)
		}
		for _, e := range rows {
			if e.EventID == id {
				return e
			}
		}
	}
	rows, _ := r.db.FindEvents(context.Background(), headerID(eventID))
	r.t.Fatalf("no inbox row %s (rows %+v)", eventID, rows)
	return connector.InboxEvent{}
}

// want checks an inbox row's status and that its reason contains each of reasons.
func (r *rig) want(eventID string, status connector.Status, reasons ...string) connector.InboxEvent {
	r.t.Helper()
	e := r.event(eventID)
	if e.Status != status {
		r.t.Fatalf("%s is %s (%q), want %s", eventID, e.Status, e.LastError, status)
	}
	for _, s := range reasons {
		if !strings.Contains(e.LastError, s) {
			r.t.Errorf("%s reason %q lacks %q", eventID, e.LastError, s)
		}
	}
	return e
}

// entries returns the Payment Entries of the site with reference_no ref, any docstatus.
func (r *rig) entries(ref string) []map[string]any {
	var out []map[string]any
	for _, d := range r.site.Docs(frappe.DoctypePaymentEntry) {
		if d["reference_no"] == ref {
			out = append(out, d)
		}
	}
	return out
}

// one returns the only Payment Entry with reference_no ref, which must be submitted.
func (r *rig) one(ref string) map[string]any {
	r.t.Helper()
	es := r.entries(ref)
	if len(es) != 1 || fmt.Sprint(es[0]["docstatus"]) != "1" {
		r.t.Fatalf("Payment Entries with reference_no %s: %v; want one submitted", ref, names(es))
	}
	return es[0]
}

func names(docs []map[string]any) []string {
	var out []string
	for _, d := range docs {
		out = append(out, fmt.Sprintf("%v (docstatus %v)", d["name"], d["docstatus"]))
	}
	return out
}

// minor reads a decimal amount of a document as minor units with exp digits.
func minor(t *testing.T, v any, exp int) int64 {
	t.Helper()
	m, err := razorpay.ParseDecimal(fmt.Sprint(v), exp)
	if err != nil {
		t.Fatalf("amount %v: %v", v, err)
	}
	return m
}

// rows returns a child table of a document.
func rows(d map[string]any, table string) []map[string]any {
	list, _ := d[table].([]any)
	var out []map[string]any
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// paymentAt is the created_at of the rig's test payments: the sample payloads' time.
const paymentAt = 1768453200

// payment is a captured INR payment entity with fields of over replacing the defaults (nil
// deletes one).
func payment(id string, amount int64, over map[string]any) map[string]any {
	p := map[string]any{"id": id, "entity": "payment", "amount": amount, "currency": "INR", "status": "captured",
		"captured": true, "method": "upi", "notes": []any{}, "created_at": paymentAt, "base_amount": amount}
	for k, v := range over {
		if v == nil {
			delete(p, k)
			continue
		}
		p[k] = v
	}
	return p
}

// envelope is a webhook body for event with entities given as name, entity pairs.
func envelope(t *testing.T, event string, entities ...any) []byte {
	t.Helper()
	payload := map[string]any{}
	var contains []string
	for i := 0; i+1 < len(entities); i += 2 {
		name := entities[i].(string)
		payload[name] = map[string]any{"entity": entities[i+1]}
		contains = append(contains, name)
	}
	b, err := json.Marshal(map[string]any{"entity": "event", "account_id": account, "event": event,
		"contains": contains, "payload": payload, "created_at": paymentAt + 5})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// captured is a payment.captured body for a payment naming invoice in notes.invoice.
func captured(t *testing.T, id string, amount int64, invoice string, over map[string]any) []byte {
	t.Helper()
	if over == nil {
		over = map[string]any{}
	}
	if _, ok := over["notes"]; !ok && invoice != "" {
		over["notes"] = map[string]any{"invoice": invoice}
	}
	return envelope(t, "payment.captured", "payment", payment(id, amount, over))
}
