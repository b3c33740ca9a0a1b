package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/config"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

const (
	testKey     = "test-api-key"
	testSecret  = "test-api-secret-DO-NOT-LOG"
	testWebhook = "whsec-test-DO-NOT-LOG"
	testAccount = "acc_T3stAcc0unt001"
)

// defaultParallel is how many tests of this package run at once unless -parallel is given: each
// test has its own simulators, store and daemon, and most of their time is waiting (fences,
// leases, simulated latency), so on 2 cores 6 at a time finish far sooner than GOMAXPROCS.
const defaultParallel = "6"

// TestMain runs the command itself in a process started by the process tests (runAsCommand),
// else the tests, defaultParallel at a time when -parallel is not given.
func TestMain(m *testing.M) {
	if os.Getenv(runAsCommand) == "1" {
		main() // exits
	}
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		if err := flag.Set("test.parallel", defaultParallel); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}

// env is one ERPNext simulator with a customer and a submitted ₹12,000.00 invoice, and a store
// database (SQLite file or a fresh MariaDB database) that daemons started from it share.
type env struct {
	t       *testing.T
	site    *erpnextsim.Site
	erp     *httptest.Server
	driver  string
	dsn     string
	invoice string
	logs    *syncBuffer
	// lastDaemon is the daemon started last, for helpers that read its store.
	lastDaemon *daemon
}

// forEachDriver runs f on SQLite and on MariaDB, side by side (each has its own simulator and
// store). MariaDB needs TEST_MARIADB_DSN; without it the subtest skips, except under CI where
// that is a failure.
func forEachDriver(t *testing.T, f func(t *testing.T, driver string)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		f(t, "sqlite")
	})
	t.Run("mariadb", func(t *testing.T) {
		t.Parallel()
		requireMariaDB(t)
		f(t, "mysql")
	})
}

func requireMariaDB(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("TEST_MARIADB_DSN")
	if dsn == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TEST_MARIADB_DSN is not set under CI: the MariaDB tests must run")
		}
		t.Skip("TEST_MARIADB_DSN not set")
	}
	return dsn
}

// freshMariaDB creates an empty database for one test and drops it afterwards.
func freshMariaDB(t *testing.T) string {
	t.Helper()
	base := requireMariaDB(t)
	cfg, err := mysql.ParseDSN(base)
	if err != nil {
		t.Fatalf("TEST_MARIADB_DSN: %v", err)
	}
	name := fmt.Sprintf("rzp_e2e_%d_%s", time.Now().UnixNano()%1e9, strings.ToLower(randAlnum(6)))
	cfg.DBName = ""
	admin, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() { admin.Exec("DROP DATABASE IF EXISTS " + name) })
	cfg.DBName = name
	cfg.ParseTime = true
	return cfg.FormatDSN()
}

func newEnv(t *testing.T, driver string) *env {
	t.Helper()
	e := &env{t: t, driver: driver, logs: &syncBuffer{}}
	e.site = erpnextsim.New(erpnextsim.Options{APIKey: testKey, APISecret: testSecret})
	if err := e.site.AddCustomer("Test Customer"); err != nil {
		t.Fatal(err)
	}
	inv, err := e.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true,
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "12000.00"}}})
	if err != nil {
		t.Fatal(err)
	}
	e.invoice = inv
	e.erp = httptest.NewServer(e.site)
	t.Cleanup(e.erp.Close)
	switch driver {
	case "sqlite":
		e.dsn = filepath.Join(t.TempDir(), "store.db")
	case "mysql":
		e.dsn = freshMariaDB(t)
	}
	return e
}

// config is a test configuration: loopback listeners, fast polling and retries.
func (e *env) config() connector.Config {
	cfg := config.Defaults()
	cfg.Listen = "127.0.0.1:0"
	cfg.AdminListen = "127.0.0.1:0"
	cfg.Workers = 2
	cfg.Database = config.Database{Driver: e.driver, DSN: e.dsn}
	cfg.Razorpay.WebhookSecrets = []string{testWebhook}
	cfg.Razorpay.AccountID = testAccount
	cfg.ERPNext.URL = e.erp.URL
	cfg.ERPNext.APIKey, cfg.ERPNext.APISecret = testKey, testSecret
	cfg.ERPNext.Timeout = connector.Duration(5 * time.Second)
	cfg.ERPNext.ServerTimeout = connector.Duration(5 * time.Second)
	cfg.Mapping.Company = erpnextsim.DefaultCompany
	cfg.Worker.Poll = connector.Duration(50 * time.Millisecond)
	cfg.Worker.BackoffBase = connector.Duration(50 * time.Millisecond)
	cfg.Worker.BackoffMax = connector.Duration(500 * time.Millisecond)
	cfg.Worker.FenceMargin = connector.Duration(200 * time.Millisecond)
	cfg.Worker.PauseRecheck = connector.Duration(300 * time.Millisecond)
	cfg.Log.Level = "debug"
	return cfg
}

// start runs a daemon until the test ends; tune (optional) adjusts it before it runs.
func (e *env) start(cfg connector.Config, tune ...func(*daemon)) *daemon {
	e.t.Helper()
	if p := cfg.Validate(); len(p) > 0 {
		e.t.Fatalf("config: %v", p)
	}
	log := zerolog.New(e.logs).With().Timestamp().Logger()
	d, err := openDaemon(context.Background(), cfg, log)
	if err != nil {
		e.t.Fatalf("open daemon: %v", err)
	}
	for _, f := range tune {
		f(d)
	}
	e.lastDaemon = d
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.run(ctx) }()
	e.t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			e.t.Errorf("daemon run: %v", err)
		}
	})
	return d
}

// paymentTime is when test payments were made: an hour ago, inside the simulator's fiscal year.
var paymentTime = time.Now().Add(-time.Hour).Truncate(time.Second)

// payment is a captured payment body for the env's invoice (amount in paise).
func (e *env) payment(event, paymentID string, amount int64, notes any) []byte {
	if notes == nil {
		notes = map[string]string{"invoice": e.invoice}
	}
	p := map[string]any{
		"id": paymentID, "entity": "payment", "amount": amount, "currency": "INR", "status": "captured",
		"order_id": "order_T3stOrder00001", "method": "upi", "captured": true, "notes": notes,
		"fee": 2360, "tax": 360, "acquirer_data": map[string]any{"rrn": "612345678901"},
		"created_at": paymentTime.Unix(), "base_amount": amount, "email": "a@example.com", "contact": "+919000000001",
	}
	payload := map[string]any{"payment": map[string]any{"entity": p}}
	contains := []string{"payment"}
	if event == "order.paid" {
		contains = append(contains, "order")
		payload["order"] = map[string]any{"entity": map[string]any{"id": "order_T3stOrder00001", "entity": "order",
			"amount": amount, "amount_paid": amount, "amount_due": 0, "currency": "INR", "receipt": e.invoice, "status": "paid", "notes": []any{}}}
	}
	b, err := json.Marshal(map[string]any{"entity": "event", "account_id": testAccount, "event": event,
		"contains": contains, "payload": payload, "created_at": paymentTime.Unix() + 5})
	if err != nil {
		e.t.Fatal(err)
	}
	return b
}

// post delivers a webhook signed with secret and returns the status code and body.
func post(t *testing.T, url, eventID, secret string, body []byte) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if eventID != "" {
		req.Header.Set("X-Razorpay-Event-Id", eventID)
	}
	if secret != "" {
		req.Header.Set("X-Razorpay-Signature", razorpay.Sign(secret, body))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("post webhook: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (e *env) deliver(d *daemon, eventID string, body []byte) (int, string) {
	return post(e.t, "http://"+d.pub.Addr().String()+d.cfg.WebhookPath, eventID, testWebhook, body)
}

// entries returns the Payment Entries of the simulator whose reference_no is exactly ref.
func (e *env) entries(ref string) (submitted, other []map[string]any) {
	for _, pe := range e.site.Docs("Payment Entry") {
		if pe["reference_no"] != ref {
			continue
		}
		if fmt.Sprint(pe["docstatus"]) == "1" {
			submitted = append(submitted, pe)
		} else {
			other = append(other, pe)
		}
	}
	return submitted, other
}

// waitIdle waits (up to testtime.Bound) until no inbox row of d's store is pending or
// processing, and returns the rows counted by status.
func (e *env) waitIdle(d *daemon) map[connector.Status]int {
	e.t.Helper()
	if err := waitIdle(context.Background(), d.db, testtime.Bound); err != nil {
		e.t.Fatalf("%v\nlogs:\n%s", err, e.logs.String())
	}
	c, err := d.db.CountByStatus(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

func (e *env) invoiceField(field string) string {
	inv, ok := e.site.Doc("Sales Invoice", e.invoice)
	if !ok {
		e.t.Fatalf("invoice %s missing", e.invoice)
	}
	return fmt.Sprint(inv[field])
}

// syncBuffer is a goroutine-safe log sink whose text tests search for secrets.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitReason polls the inbox (up to testtime.Bound) until the newest row of key (event id or
// business key) carries a reason containing substr, and returns it.
func (e *env) waitReason(key, substr string) connector.InboxEvent {
	e.t.Helper()
	var rows []connector.InboxEvent
	if !testtime.Poll(testtime.Bound, func() bool {
		rows, _ = e.lastDaemon.db.FindEvents(context.Background(), key)
		return len(rows) > 0 && strings.Contains(rows[len(rows)-1].LastError, substr)
	}) {
		e.t.Fatalf("no reason containing %q for %s within %s: %+v", substr, key, testtime.Bound, rows)
	}
	return rows[len(rows)-1]
}

// rowsAgreeOn checks the inbox rows of one payment (key: its id) after racing deliveries: each
// ended done naming entry, duplicate naming entry in its reason, or skipped. Which rows end done
// depends on the race: a booking that outlives its claim's fence or its lease on a loaded
// machine is finished by whichever worker then finds its entry, and the row that made the entry
// may end a duplicate of it; the books are the same.
func (e *env) rowsAgreeOn(d *daemon, key, entry string) {
	e.t.Helper()
	rows, err := d.db.FindEvents(context.Background(), key)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, r := range rows {
		switch {
		case r.Status == connector.StatusDone && r.ResultName == entry:
		case r.Status == connector.StatusDuplicate && strings.Contains(r.LastError, entry):
		case r.Status == connector.StatusSkipped:
		default:
			e.t.Errorf("%s row %s: %s %q (result %q); want done or duplicate naming %s, or skipped", key, r.EventID, r.Status, r.LastError, r.ResultName, entry)
		}
	}
}

// allocations lists the allocation of every reference row of every submitted Payment Entry and
// their unallocated amounts summed, in paise.
func (e *env) allocations() (allocs []int64, unallocated int64) {
	e.t.Helper()
	for _, pe := range e.site.Docs("Payment Entry") {
		if fmt.Sprint(pe["docstatus"]) != "1" {
			continue
		}
		for _, r := range rows(pe, "references") {
			allocs = append(allocs, amountMinor(e.t, r["allocated_amount"]))
		}
		unallocated += amountMinor(e.t, pe["unallocated_amount"])
	}
	return allocs, unallocated
}

// eventIDFor is an X-Razorpay-Event-Id in Razorpay's shape (14 letters and digits) made from
// s: the first 14 hex digits of its SHA-256.
func eventIDFor(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:razorpay.EventIDLen]
}
