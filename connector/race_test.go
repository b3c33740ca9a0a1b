package connector_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/intake"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/wire"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/sharedtest"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// A second store booking the same payment (two deployments by mistake), or a race lost on the
// client-supplied name: what ERPNext answers the loser — 417 "has already been
// fully paid.", 409, or 500 QueryDeadlockError (erpnext-recorded-connector/R03) — is looked up
// before anything else, and the entry the winner made is recorded: done, not parked, no
// attempt spent, never a second entry.

// otherStore is a second connector on the rig's site and clock with its own store, reaching the
// site through front.
type otherStore struct {
	conn *wire.Core
	db   *store.DB
}

func (r *rig) otherStore(cfg connector.Config, front func(http.Handler) http.Handler) *otherStore {
	r.t.Helper()
	url := r.cfg.ERPNext.URL
	if front != nil {
		url = serve(r.t, front(http.HandlerFunc(r.record)))
	}
	erp, err := frappe.New(frappe.Config{URL: url, APIKey: erpKey, APISecret: erpSecret})
	if err != nil {
		r.t.Fatal(err)
	}
	db := sqliteStore(r.t)
	cfg.ERPNext.URL = url
	c, err := wire.New(wire.Options{Config: cfg, Store: db, ERP: erp, Log: zerolog.Nop(), Now: r.clock.now})
	if err != nil {
		r.t.Fatal(err)
	}
	return &otherStore{conn: c, db: db}
}

// book delivers body as eventID to the other store and processes it; it returns the inbox row.
// It may run on another goroutine than the test's, so it reports with Errorf.
func (o *otherStore) book(t *testing.T, eventID string, body []byte) connector.InboxEvent {
	if _, err := o.conn.Intake().Receive(context.Background(), intake.Delivery{Body: body, Signature: razorpay.Sign(secretNew, body), EventID: headerID(eventID)}); err != nil {
		t.Errorf("receive %s: %v", eventID, err)
		return connector.InboxEvent{}
	}
	if _, err := o.conn.ProcessNext(context.Background(), 0); err != nil {
		t.Errorf("process %s: %v", eventID, err)
	}
	rows, err := o.db.FindEvents(context.Background(), headerID(eventID))
	if err != nil || len(rows) != 1 {
		t.Errorf("inbox rows of %s: %v %v", eventID, rows, err)
		return connector.InboxEvent{}
	}
	return rows[0]
}

// recordedAnswer answers the first POST of a Payment Entry with a recorded response instead of
// passing it on (the race the loser lost), then passes everything through.
func recordedAnswer(t *testing.T, file string) func(http.Handler) http.Handler {
	raw, err := os.ReadFile(filepath.Join(sharedtest.Dir(t, "reference", "erpnext-recorded-connector"), file))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Response struct {
			Status int    `json:"status"`
			Body   string `json:"body"`
		} `json:"response"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			answered := false
			if req.Method == http.MethodPost && req.URL.Path == "/api/resource/"+frappe.DoctypePaymentEntry {
				once.Do(func() {
					answered = true
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(rec.Response.Status)
					_, _ = w.Write([]byte(rec.Response.Body))
				})
			}
			if !answered {
				next.ServeHTTP(w, req)
			}
		})
	}
}

// gate holds the first Payment Entry insert that passes through it until release is closed,
// after closing ready: the other store has looked up and read the invoice, and is about to
// write, when the test lets this store book first.
type gate struct{ ready, release chan struct{} }

func newGate() *gate { return &gate{ready: make(chan struct{}), release: make(chan struct{})} }

func (g *gate) front(next http.Handler) http.Handler {
	var once sync.Once
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost && req.URL.Path == "/api/resource/"+frappe.DoctypePaymentEntry {
			once.Do(func() {
				close(g.ready)
				select {
				case <-g.release:
				case <-time.After(time.Minute):
				}
			})
		}
		next.ServeHTTP(w, req)
	})
}

// race lets the other store decide the receipt of body up to its insert, books it in the rig's
// store meanwhile, then lets the other store's insert go, and returns the other store's row.
func (r *rig) race(t *testing.T, other *otherStore, g *gate, body []byte) connector.InboxEvent {
	t.Helper()
	done := make(chan connector.InboxEvent, 1)
	go func() { done <- other.book(t, "E1", body) }()
	select {
	case <-g.ready:
	case <-time.After(time.Minute):
		t.Fatal("the other store never came to its insert")
	}
	r.deliver("E1", body)
	r.work()
	close(g.release)
	select {
	case row := <-done:
		return row
	case <-time.After(time.Minute):
		t.Fatal("the other store's booking did not end")
	}
	return connector.InboxEvent{}
}

// TestSecondStoreRefusedAsFullyPaidRecordsTheWinnersEntry: the other store read the invoice
// before this store's entry was committed; its insert is refused 417 "has already been fully
// paid." and the entry found by reference_no is recorded.
func TestSecondStoreRefusedAsFullyPaidRecordsTheWinnersEntry(t *testing.T) {
	r := newRig(t)
	inv := r.invoice("Test Customer", "1000.00")
	body := captured(t, "pay_T3stTwoStore01", 100000, inv, nil)
	g := newGate()
	row := r.race(t, r.otherStore(r.cfg, g.front), g, body)
	winner := r.one("pay_T3stTwoStore01")
	if row.Status != connector.StatusDone || row.ResultName != winner["name"] || row.Attempts != 0 {
		t.Fatalf("other store: %s %q %s (attempts %d), want done with %v", row.Status, row.LastError, row.ResultName, row.Attempts, winner["name"])
	}
	if !strings.Contains(row.LastError, "417") || !strings.Contains(row.LastError, "has already been fully paid") {
		t.Errorf("note %q does not say what ERPNext answered", row.LastError)
	}
	if n := len(r.entries("pay_T3stTwoStore01")); n != 1 {
		t.Errorf("%d entries, want 1", n)
	}
}

// TestDeadlockOnTheSameNameIsRetriedThenLookedUp: under erpnext.name_entries_by_payment_id two
// stores insert the same name at once and the loser gets 500 QueryDeadlockError (R03, its
// recorded answer): it sends the insert again, which meets the winner's name (409), and records
// the winner's entry without spending an attempt.
func TestDeadlockOnTheSameNameIsRetriedThenLookedUp(t *testing.T) {
	r := newRig(t, withConfig(func(c *connector.Config) { c.ERPNext.NameEntriesByPaymentID = true }))
	inv := r.invoice("Test Customer", "1000.00")
	body := captured(t, "pay_T3stDeadlock01", 100000, inv, nil)
	g, lost := newGate(), recordedAnswer(t, "R03-concurrent-insert-same-client-name-deadlock-500.json")
	other := r.otherStore(r.cfg, func(h http.Handler) http.Handler { return g.front(lost(h)) })
	row := r.race(t, other, g, body)
	if pe := r.one("pay_T3stDeadlock01"); pe["name"] != "pay_T3stDeadlock01" {
		t.Fatalf("winner named %v", pe["name"])
	}
	if row.Status != connector.StatusDone || row.ResultName != "pay_T3stDeadlock01" || row.Attempts != 0 {
		t.Fatalf("loser: %s %q %s (attempts %d), want done with the winner's entry and no attempt spent", row.Status, row.LastError, row.ResultName, row.Attempts)
	}
	posts := 0
	for _, q := range r.site.Requests() {
		if q.Method == http.MethodPost && q.Path == "/api/resource/"+frappe.DoctypePaymentEntry {
			posts++
		}
	}
	if posts != 2 { // the winner's, and the loser's second send (409); its first never reached the site
		t.Errorf("%d inserts reached the site, want 2", posts)
	}
	if n := len(r.entries("pay_T3stDeadlock01")); n != 1 {
		t.Errorf("%d entries, want 1", n)
	}
}

// serve serves h on a loopback test server and returns its URL.
func serve(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestSecondStoreFindingTheInvoiceSettledLooksAgain: the other store's lookup ran just before
// this store's entry was committed, its invoice read just after: the invoice is settled, and
// the lookup made again before parking finds this payment's entry.
func TestSecondStoreFindingTheInvoiceSettledLooksAgain(t *testing.T) {
	r := newRig(t)
	inv := r.invoice("Test Customer", "1000.00")
	body := captured(t, "pay_T3stTwoStore02", 100000, inv, nil)
	r.deliver("E1", body)
	r.work()
	winner := r.one("pay_T3stTwoStore02")
	row := r.otherStore(r.cfg, hideFirstLookups(1)).book(t, "E1", body)
	if row.Status != connector.StatusDone || row.ResultName != winner["name"] || !strings.Contains(row.LastError, "after "+inv+" was settled") {
		t.Fatalf("other store: %s %q %s, want done with %v", row.Status, row.LastError, row.ResultName, winner["name"])
	}
	if n := len(r.entries("pay_T3stTwoStore02")); n != 1 {
		t.Errorf("%d entries, want 1", n)
	}
}
