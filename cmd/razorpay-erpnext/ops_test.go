package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
)

// writeConfig writes cfg as a YAML file whose secrets are ${VAR} references, and returns its
// path and the environment that expands them.
func (e *env) writeConfig(cfg connector.Config, extra string) (string, map[string]string) {
	e.t.Helper()
	envs := map[string]string{"WH": testWebhook, "K": cfg.ERPNext.APIKey, "S": cfg.ERPNext.APISecret,
		"ADMIN": "admin-token-DO-NOT-LOG", "RZK": "rzp_test_key", "RZS": "rzp-key-secret-DO-NOT-LOG"}
	y := fmt.Sprintf(`listen: 127.0.0.1:0
admin_listen: 127.0.0.1:0
admin_token: ${ADMIN}
database: {driver: %s, dsn: %q}
razorpay: {webhook_secrets: ["${WH}"], account_id: %s}
erpnext: {url: %q, api_key: "${K}", api_secret: "${S}", timeout: 5s, server_timeout: 5s}
%s
`, cfg.Database.Driver, cfg.Database.DSN, cfg.Razorpay.AccountID, cfg.ERPNext.URL, extra)
	if !strings.Contains(extra, "mapping:") {
		y += "mapping: {company: " + erpnextsim.DefaultCompany + "}\n"
	}
	path := filepath.Join(e.t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(y), 0o600); err != nil {
		e.t.Fatal(err)
	}
	return path, envs
}

// nextInvoiceName predicts the simulator's next Sales Invoice name from the last one.
func nextInvoiceName(t *testing.T, last string) string {
	t.Helper()
	i := strings.LastIndexByte(last, '-')
	n, err := strconv.Atoi(last[i+1:])
	if err != nil {
		t.Fatalf("invoice name %q", last)
	}
	return fmt.Sprintf("%s%05d", last[:i+1], n+1)
}

// A payment naming an invoice that does not exist parks; once the invoice exists, `events
// replay` sends it back and it is booked exactly once.
func TestEventsReplayBooksParkedPayment(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, driver string) {
		e := newEnv(t, driver)
		cfg := e.config()
		d := e.start(cfg)
		path, envs := e.writeConfig(cfg, "")
		missing := nextInvoiceName(t, e.invoice)
		body := e.payment("payment.captured", "pay_T3stReplay0001", 1200000, map[string]string{"invoice": missing})
		if code, resp := e.deliver(d, "T3stEvReplay01", body); code != http.StatusOK {
			t.Fatalf("deliver: %d %s", code, resp)
		}
		e.waitIdle(d)

		code, out, errs := run(t, envs, "events", "list", "--status", "parked", "--json", "--config", path)
		if code != exitOK {
			t.Fatalf("events list: exit %d %s", code, errs)
		}
		var list struct {
			Count  int         `json:"count"`
			Events []eventView `json:"events"`
		}
		if err := json.Unmarshal([]byte(out), &list); err != nil || list.Count != 1 || list.Events[0].EventID != "T3stEvReplay01" {
			t.Fatalf("parked list %s (%v)", out, err)
		}
		if !strings.Contains(list.Events[0].LastError, "no invoice matched") {
			t.Errorf("reason %q does not say no invoice matched", list.Events[0].LastError)
		}
		code, out, _ = run(t, envs, "events", "show", "pay_T3stReplay0001", "--config", path)
		if code != exitOK || !strings.Contains(out, "status:          parked") || !strings.Contains(out, `"id": "pay_T3stReplay0001"`) {
			t.Errorf("events show: exit %d\n%s", code, out)
		}

		inv, err := e.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true,
			Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "12000.00"}}})
		if err != nil || inv != missing {
			t.Fatalf("created invoice %q (%v), the payment names %q", inv, err, missing)
		}
		if code, out, errs := run(t, envs, "events", "replay", "pay_T3stReplay0001", "--config", path); code != exitOK || !strings.Contains(out, "parked → pending") {
			t.Fatalf("replay: exit %d\n%s%s", code, out, errs)
		}
		var rows []connector.InboxEvent
		if !testtime.Poll(testtime.Bound, func() bool {
			rows, _ = d.db.FindEvents(context.Background(), "T3stEvReplay01")
			return len(rows) == 1 && rows[0].Status == connector.StatusDone
		}) {
			t.Fatalf("replayed event not booked: %+v\n%s", rows, e.logs.String())
		}
		sub, other := e.entries("pay_T3stReplay0001")
		if len(sub) != 1 || len(other) != 0 || fmt.Sprint(sub[0]["references"]) == "" {
			t.Fatalf("entries %d submitted, %d other; want 1, 0", len(sub), len(other))
		}
		code, out, _ = run(t, envs, "events", "show", "T3stEvReplay01", "--config", path)
		if code != exitOK || !strings.Contains(out, "result:          Payment Entry "+fmt.Sprint(sub[0]["name"])) {
			t.Errorf("show after replay: exit %d\n%s", code, out)
		}
		// Replaying a booked event is refused: there is nothing to do.
		if code, _, _ := run(t, envs, "events", "replay", "T3stEvReplay01", "--config", path); code != exitFailure {
			t.Errorf("replay of a done event: exit %d, want 1", code)
		}
	})
}

func TestEventsDismissAndUsage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	cfg := e.config()
	d := e.start(cfg)
	path, envs := e.writeConfig(cfg, "")
	e.deliver(d, "T3stEvDismiss1", e.payment("payment.captured", "pay_T3stDismiss001", 500000, map[string]string{"invoice": "NO-SUCH-INVOICE"}))
	e.waitIdle(d)
	for _, c := range [][]string{
		{"events", "dismiss", "T3stEvDismiss1", "--config", path},                           // no reason
		{"events", "replay", "--config", path},                                              // neither ID nor status
		{"events", "replay", "x", "--status", "parked", "--config", path},                   // both
		{"events", "list", "--status", "bogus", "--config", path},                           // unknown status
		{"events", "list", "--since", "yesterday-ish", "--config", path},                    // bad time
		{"events", "replay", "--status", "done", "--config", path},                          // not replayable
		{"events", "show", "--config", path},                                                // no ID
		{"events", "dismiss", "T3stEvDismiss1", "--reason", "x", "--config", path, "extra"}, // two IDs
	} {
		if code, _, errs := run(t, envs, c...); code != exitUsage {
			t.Errorf("%v: exit %d (%s), want 2", c, code, errs)
		}
	}
	if code, _, _ := run(t, envs, "events", "show", "pay_NoSuchPayment1", "--config", path); code != exitFailure {
		t.Errorf("show of an unknown id: exit %d, want 1", code)
	}
	// A signed body that does not parse is stored dead; replaying it cannot book it: say so, exit 1.
	if code, resp := e.deliver(d, "T3stEvBadBody1", []byte(`{"event":"payment.captured","payload":{"payment":{"entity":{"id":5}}}}`)); code != http.StatusOK {
		t.Fatalf("deliver the unparseable body: %d %s", code, resp)
	}
	code, out, errs := run(t, envs, "events", "replay", "T3stEvBadBody1", "--config", path)
	if code != exitFailure || !strings.Contains(out, "T3stEvBadBody1: not replayed: its body cannot be parsed, so no replay can book it (razorpay: parse event: payment.id:") ||
		!strings.Contains(out, "0 event(s) replayed") {
		t.Errorf("replay of an unparseable event: exit %d, want 1\n%s%s", code, out, errs)
	}
	code, out, errs = run(t, envs, "events", "dismiss", "pay_T3stDismiss001", "--reason", "test payment, refunded by hand", "--config", path)
	if code != exitOK || !strings.Contains(out, "parked → dismissed") {
		t.Fatalf("dismiss: exit %d %s %s", code, out, errs)
	}
	_, out, _ = run(t, envs, "events", "list", "--since", "1h", "--config", path)
	if !strings.Contains(out, "dismissed") || !strings.Contains(out, "refunded by hand") {
		t.Errorf("list after dismiss:\n%s", out)
	}
	// A later event for another payment is booked: the workers did poll after the dismissal,
	// and the dismissed one was still not booked.
	e.deliver(d, "T3stEvDismissZ", e.payment("payment.captured", "pay_T3stDismissLater", 1200000, nil))
	e.waitReason("pay_T3stDismissLater", "")
	e.waitIdle(d)
	if sub, other := e.entries("pay_T3stDismiss001"); len(sub)+len(other) != 0 {
		t.Error("a dismissed event was booked")
	}
}

// getMetrics returns the admin listener's /metrics text.
func getMetrics(t *testing.T, d *daemon) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://"+d.adm.Addr().String()+"/metrics", nil)
	if d.cfg.AdminToken != "" {
		req.Header.Set("Authorization", "Bearer "+d.cfg.AdminToken)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics %d", resp.StatusCode)
	}
	return string(b)
}

// The demo scenario (one event delivered three times) on /metrics: 1 accepted, 2 duplicates,
// 1 booking; and every metric deploy/alerts.yml names is exported.
func TestMetricsAfterDemoScenario(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	d := e.start(e.config())
	body := e.payment("payment.captured", "pay_T3stMetrics001", 1200000, nil)
	for i := 0; i < 3; i++ {
		e.deliver(d, "T3stEvMetrics1", body)
	}
	e.waitIdle(d)
	text := getMetrics(t, d)
	for _, want := range []string{
		`razorpay_erpnext_webhooks_received_total{event="payment.captured",outcome="accepted"} 1`,
		`razorpay_erpnext_webhooks_received_total{event="payment.captured",outcome="duplicate"} 2`,
		`razorpay_erpnext_bookings_total{kind="receipt",outcome="booked"} 1`,
		`razorpay_erpnext_inbox_events{status="done"} 1`,
		`razorpay_erpnext_inbox_events{status="parked"} 0`,
		`razorpay_erpnext_inbox_oldest_pending_age_seconds 0`,
		`razorpay_erpnext_event_booked_lag_seconds_count 1`,
		`razorpay_erpnext_erpnext_request_duration_seconds_count{doctype="Payment Entry",op="insert"} 1`,
		`razorpay_erpnext_configuration_fault_active 0`,
		`razorpay_erpnext_store_up 1`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if regexp.MustCompile(`razorpay_erpnext_last_accepted_webhook_timestamp_seconds [1-9]`).FindString(text) == "" {
		t.Error("last accepted webhook time not set")
	}
	checkAlertRules(t, text)
}

// checkAlertRules parses deploy/alerts.yml and checks each rule: a name, an expression naming
// only metrics /metrics exports, a severity, a summary and a runbook.
func checkAlertRules(t *testing.T, metricsText string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "deploy", "alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Expr        string            `yaml:"expr"`
				For         string            `yaml:"for"`
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("alerts.yml: %v", err)
	}
	exported := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^# TYPE (\S+) `).FindAllStringSubmatch(metricsText, -1) {
		exported[m[1]] = true
	}
	names := regexp.MustCompile(`razorpay_erpnext_[a-z_]+`)
	seen := map[string]bool{}
	for _, g := range doc.Groups {
		for _, r := range g.Rules {
			seen[r.Alert] = true
			if r.Alert == "" || r.Expr == "" || r.For == "" {
				t.Errorf("rule %+v: alert, expr and for are required", r)
			}
			if _, err := time.ParseDuration(r.For); err != nil {
				t.Errorf("%s: for %q: %v", r.Alert, r.For, err)
			}
			if r.Labels["severity"] == "" || r.Annotations["summary"] == "" || len(r.Annotations["runbook"]) < 40 {
				t.Errorf("%s: needs a severity, a summary and a runbook", r.Alert)
			}
			found := names.FindAllString(r.Expr, -1)
			if len(found) == 0 {
				t.Errorf("%s: expression names no razorpay_erpnext metric", r.Alert)
			}
			for _, n := range found {
				if !exported[n] {
					t.Errorf("%s: %s is not a metric the daemon exports", r.Alert, n)
				}
			}
			if strings.Count(r.Expr, "(") != strings.Count(r.Expr, ")") {
				t.Errorf("%s: unbalanced parentheses", r.Alert)
			}
		}
	}
	for _, want := range []string{"RazorpayWebhooksSilent", "RazorpayPaymentsParked", "RazorpayBookingBacklog",
		"RazorpayReconcileStale", "RazorpayERPNextConfigurationFault"} {
		if !seen[want] {
			t.Errorf("alerts.yml lacks %s", want)
		}
	}
}

// With mapping.comment_on_park, a payment that parks against an existing invoice (here an
// over-payment with excess: park) leaves a Comment on it through add_comment (a plain POST of a
// Comment is refused to an API user, recordings 51-*).
func TestCommentOnPark(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	cfg := e.config()
	cfg.Mapping.CommentOnPark = true
	cfg.Mapping.Excess = "park"
	d := e.start(cfg)
	e.deliver(d, "T3stEvComment1", e.payment("payment.captured", "pay_T3stComment001", 1300000, nil))
	e.waitIdle(d)
	rows, _ := d.db.FindEvents(context.Background(), "T3stEvComment1")
	if len(rows) != 1 || rows[0].Status != connector.StatusParked {
		t.Fatalf("rows %+v, want one parked", rows)
	}
	var comments []map[string]any
	testtime.Poll(testtime.Bound, func() bool {
		comments = e.site.Comments("Sales Invoice", e.invoice)
		return len(comments) > 0
	})
	if len(comments) != 1 {
		t.Fatalf("%d comments on %s, want 1", len(comments), e.invoice)
	}
	content := fmt.Sprint(comments[0]["content"])
	if !strings.Contains(content, "pay_T3stComment001") || !strings.Contains(content, "over-payment") ||
		!strings.Contains(content, "events replay T3stEvComment1") {
		t.Errorf("comment %q lacks the payment, the reason or the command", content)
	}
	for _, r := range e.site.Requests() {
		if r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/api/resource/Comment") {
			t.Error("the connector posted a Comment resource; an API user is refused that")
		}
	}
}

// An event a worker holds (a live lease) is neither dismissed nor reset under it: the worker's
// outcome, perhaps a booking, must not be overwritten. (The store refuses the same change when
// a worker claims the event between the CLI's read and its write: the contract test
// SetEventStatusLeavesALiveLeaseAlone.)
func TestEventsDoNotOverwriteAnEventInProgress(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	cfg := e.config()
	ctx := context.Background()
	db, err := store.Open(ctx, cfg.Database.Driver, cfg.Database.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	if _, err := db.InsertEvent(ctx, &connector.InboxEvent{AccountID: testAccount, EventID: "T3stEvBusy0001", Event: "payment.captured",
		BusinessKey: "pay_T3stBusy00001", RawBody: e.payment("payment.captured", "pay_T3stBusy00001", 1200000, nil), ReceivedAt: now}); err != nil {
		t.Fatal(err)
	}
	if ev, err := db.ClaimNextEvent(ctx, "a-live-worker", now, time.Hour); err != nil || ev == nil {
		t.Fatalf("claim: %v %v", ev, err)
	}
	path, envs := e.writeConfig(cfg, "")
	if code, out, errs := run(t, envs, "events", "dismiss", "T3stEvBusy0001", "--reason", "x", "--config", path); code != exitFailure || !strings.Contains(out, "not dismissed: it is processing") {
		t.Errorf("dismiss: exit %d %q %q, want 1 and 'not dismissed: it is processing'", code, out, errs)
	}
	if code, out, errs := run(t, envs, "events", "replay", "T3stEvBusy0001", "--config", path); code != exitOK || !strings.Contains(out, "already processing") {
		t.Errorf("replay: exit %d %q %q, want 0 and 'already processing' (it is being booked)", code, out, errs)
	}
	rows, _ := db.FindEvents(ctx, "T3stEvBusy0001")
	if len(rows) != 1 || rows[0].Status != connector.StatusProcessing || rows[0].LeaseOwner != "a-live-worker" {
		t.Errorf("row %+v: want it untouched, still the worker's", rows)
	}
}

// An entry cancelled in ERPNext on purpose is never re-booked on its own (the event parks
// saying how); `events replay ID --rebook` books it again, and refuses while the entry is live.
func TestRebookAfterTheEntryWasCancelled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	cfg := e.config()
	d := e.start(cfg)
	path, envs := e.writeConfig(cfg, "")
	e.deliver(d, "T3stEvRebook01", e.payment("payment.captured", "pay_T3stRebook0001", 1200000, nil))
	e.waitIdle(d)
	first := e.one("pay_T3stRebook0001")
	if code, _, errs := run(t, envs, "events", "replay", "pay_T3stRebook0001", "--rebook", "--config", path); code != exitFailure || !strings.Contains(errs, "still live") {
		t.Fatalf("rebook of a live entry: exit %d %q, want 1 and refused", code, errs)
	}
	if err := e.client().Call(context.Background(), "frappe.client.cancel", map[string]any{"doctype": "Payment Entry", "name": first["name"]}, nil); err != nil {
		t.Fatal(err)
	}
	e.deliver(d, "T3stEvRebook02", e.payment("order.paid", "pay_T3stRebook0001", 1200000, nil))
	ev := e.waitReason("T3stEvRebook02", "--rebook")
	if ev.Status != connector.StatusParked {
		t.Fatalf("%s %q, want parked", ev.Status, ev.LastError)
	}
	code, out, errs := run(t, envs, "events", "replay", "pay_T3stRebook0001", "--rebook", "--config", path)
	if code != exitOK || !strings.Contains(out, "forgot Payment Entry "+fmt.Sprint(first["name"])) {
		t.Fatalf("rebook: exit %d %q %q", code, out, errs)
	}
	d.conn.Wake()
	e.waitIdle(d)
	sub, other := e.entries("pay_T3stRebook0001")
	if len(sub) != 1 || len(other) != 1 || sub[0]["name"] == first["name"] || other[0]["name"] != first["name"] {
		t.Fatalf("entries: submitted %v, other %v; want one new submitted entry and the cancelled %v", names(sub), names(other), first["name"])
	}
	if s := e.invoiceField("status"); s != "Paid" {
		t.Errorf("invoice %s", s)
	}
}

// With admin_token set, /metrics needs "Authorization: Bearer <token>"; the probes stay open.
func TestAdminTokenGuardsMetrics(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	cfg := e.config()
	cfg.AdminToken = "admin-token-DO-NOT-LOG"
	d := e.start(cfg)
	base := "http://" + d.adm.Addr().String()
	for _, tc := range []struct {
		path, auth string
		want       int
	}{
		{"/metrics", "", http.StatusUnauthorized},
		{"/metrics", "Bearer wrong", http.StatusUnauthorized},
		{"/metrics", "Bearer admin-token-DO-NOT-LOG", http.StatusOK},
		{"/readyz", "", http.StatusOK},
		{"/healthz", "", http.StatusOK},
	} {
		req, _ := http.NewRequest(http.MethodGet, base+tc.path, nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s with %q: %d, want %d", tc.path, tc.auth, resp.StatusCode, tc.want)
		}
		if strings.Contains(string(b), cfg.AdminToken) {
			t.Errorf("%s answer repeats the token", tc.path)
		}
	}
}

// --rebook when no webhook came after the cancellation: the done event itself goes back to
// pending and books once (found by a third adversarial pass: the booking was forgotten and
// nothing requeued).
func TestRebookOfADoneEvent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	cfg := e.config()
	d := e.start(cfg)
	path, envs := e.writeConfig(cfg, "")
	e.deliver(d, "T3stEvRebook11", e.payment("payment.captured", "pay_T3stRebook0011", 1200000, nil))
	e.waitIdle(d)
	first := e.one("pay_T3stRebook0011")
	if err := e.client().Call(context.Background(), "frappe.client.cancel", map[string]any{"doctype": "Payment Entry", "name": first["name"]}, nil); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, envs, "events", "replay", "pay_T3stRebook0011", "--rebook", "--config", path)
	if code != exitOK || !strings.Contains(out, "done → pending") {
		t.Fatalf("rebook: exit %d %q %q", code, out, errs)
	}
	d.conn.Wake()
	e.waitIdle(d)
	if sub, _ := e.entries("pay_T3stRebook0011"); len(sub) != 1 || sub[0]["name"] == first["name"] {
		t.Fatalf("entries after rebook: %v", names(sub))
	}
}

// Commands other than migrate and serve never create or migrate a store.
func TestCommandsDoNotCreateAStore(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	cfg := e.config()
	cfg.Database.DSN = filepath.Join(t.TempDir(), "typo.db")
	path, envs := e.writeConfig(cfg, "")
	for _, args := range [][]string{{"events", "list"}, {"events", "show", "x"}, {"events", "replay", "x"}} {
		code, _, errs := run(t, envs, append(args, "--config", path)...)
		if code != exitFailure || !strings.Contains(errs, "run `razorpay-erpnext migrate` first") {
			t.Errorf("%v: exit %d %q", args, code, errs)
		}
	}
	if _, err := os.Stat(cfg.Database.DSN); err == nil {
		t.Error("a command created the store file")
	}
}
