package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/console"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
)

const testAdminToken = "admin-token-T3st-0123456789-DO-NOT-LOG"

// adminGet sends one request to the daemon's admin listener and returns status and body.
func adminGet(t *testing.T, d *daemon, method, path string, hdr map[string]string, form url.Values) (int, http.Header, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, "http://"+d.adm.Addr().String()+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// startWithConsole starts a daemon on driver with admin_token set, so the console is on.
func startWithConsole(t *testing.T, driver string) (*env, connector.Config, *daemon) {
	t.Helper()
	e := newEnv(t, driver)
	cfg := e.config()
	cfg.AdminToken = testAdminToken
	return e, cfg, e.start(cfg)
}

// The console on a running daemon: parked payments listed with their payment ids over
// Bearer, a replay through the console books the payment once, /metrics and /readyz keep
// their own rules, and no page shows a secret.
func TestConsoleOnDaemon(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, driver string) {
		e, cfg, d := startWithConsole(t, driver)
		missing := nextInvoiceName(t, e.invoice)
		e.deliver(d, "T3stEvConsole1", e.payment("payment.captured", "pay_T3stConsole001", 1200000, map[string]string{"invoice": missing}))
		e.deliver(d, "T3stEvConsole2", e.payment("payment.captured", "pay_T3stConsole002", 1200000, nil))
		e.waitIdle(d)
		bearer := map[string]string{"Authorization": "Bearer " + testAdminToken}

		code, _, body := adminGet(t, d, "GET", "/events?status=parked", bearer, nil)
		if code != http.StatusOK || !strings.Contains(body, "pay_T3stConsole001") || strings.Contains(body, "pay_T3stConsole002") {
			t.Fatalf("GET /events?status=parked: %d\n%s", code, body)
		}
		if code, _, body := adminGet(t, d, "GET", "/", nil, nil); code != http.StatusOK || !strings.Contains(body, `name="token"`) {
			t.Errorf("GET / without a session: %d, want the login form", code)
		}
		if code, _, _ := adminGet(t, d, "GET", "/metrics", nil, nil); code != http.StatusUnauthorized {
			t.Errorf("/metrics without the token: %d, want 401", code)
		}
		if code, _, body := adminGet(t, d, "GET", "/metrics", bearer, nil); code != http.StatusOK || !strings.Contains(body, connector.MetricWebhooks) {
			t.Errorf("/metrics with the token: %d", code)
		}
		if code, _, _ := adminGet(t, d, "GET", "/readyz", nil, nil); code != http.StatusOK {
			t.Errorf("/readyz: %d, want 200 (open for probes)", code)
		}

		rows, err := d.db.FindEvents(context.Background(), "T3stEvConsole1")
		if err != nil || len(rows) != 1 {
			t.Fatalf("FindEvents: %v %v", rows, err)
		}
		id := rows[0].ID
		if _, err := e.site.AddSalesInvoice(invoiceSpec()); err != nil {
			t.Fatal(err)
		}
		code, hdr, body := adminGet(t, d, "POST", fmt.Sprintf("/events/%d/replay", id), bearer, url.Values{})
		if code != http.StatusSeeOther {
			t.Fatalf("replay: %d %v\n%s", code, hdr, body)
		}
		row := waitStatus(t, d, id, connector.StatusDone)
		sub, other := e.entries("pay_T3stConsole001")
		if len(sub) != 1 || len(other) != 0 || row.ResultName != fmt.Sprint(sub[0]["name"]) {
			t.Fatalf("after replay: %d submitted, %d other entries; row %+v", len(sub), len(other), row)
		}
		if inv, _ := e.site.Doc("Sales Invoice", missing); fmt.Sprint(inv["status"]) != "Paid" || amountMinor(t, inv["outstanding_amount"]) != 0 ||
			amountMinor(t, sub[0]["paid_amount"]) != 1200000 {
			t.Errorf("after replay: invoice %s %v outstanding %v; entry paid_amount %v", missing, inv["status"], inv["outstanding_amount"], sub[0]["paid_amount"])
		}
		// Replaying a done event is refused with the CLI's words (409).
		code, _, body = adminGet(t, d, "POST", fmt.Sprintf("/events/%d/replay", id), bearer, url.Values{})
		if code != http.StatusConflict || !strings.Contains(body, "not replayed: it is done") {
			t.Errorf("second replay: %d", code)
		}
		_, _, body = adminGet(t, d, "GET", fmt.Sprintf("/events/%d", id), bearer, nil)
		desk := cfg.ERPNext.URL + "/app/payment-entry/" + fmt.Sprint(sub[0]["name"])
		if !strings.Contains(body, `href="`+desk+`"`) || !strings.Contains(body, "submitted") {
			t.Errorf("event page lacks the Desk link %s", desk)
		}
		for _, p := range []string{"/", "/events", fmt.Sprintf("/events/%d", id), "/reconcile", "/check"} {
			code, _, body := adminGet(t, d, "GET", p, bearer, nil)
			if code != http.StatusOK {
				t.Errorf("GET %s: %d", p, code)
			}
			for _, secret := range []string{testAdminToken, testSecret, testWebhook} {
				if strings.Contains(body, secret) {
					t.Errorf("GET %s shows a secret", p)
				}
			}
		}
	})
}

// invoiceSpec is a submitted ₹12,000.00 invoice for Test Customer.
func invoiceSpec() erpnextsim.InvoiceSpec {
	return erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true,
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "12000.00"}}}
}

// waitStatus polls the inbox row id until it has status, failing after testtime.Bound.
func waitStatus(t *testing.T, d *daemon, id int64, status connector.Status) *connector.InboxEvent {
	t.Helper()
	var row *connector.InboxEvent
	var err error
	if !testtime.Poll(testtime.Bound, func() bool {
		row, err = d.db.GetEvent(context.Background(), id)
		return err == nil && row.Status == status
	}) {
		t.Fatalf("event %d not %s within %s: %+v %v", id, status, testtime.Bound, row, err)
	}
	return row
}

// Without admin_token the console is off: 403 and how to turn it on, on every path; the probes
// and /metrics stay as they were.
func TestConsoleOffWithoutAdminToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	d := e.start(e.config())
	for _, p := range []string{"/", "/events?status=parked", "/events/1", "/check"} {
		code, hdr, body := adminGet(t, d, "GET", p, nil, nil)
		if code != http.StatusForbidden || !strings.Contains(body, "RAZORPAY_ERPNEXT_ADMIN_TOKEN") ||
			hdr.Get("Content-Security-Policy") != console.ContentSecurityPolicy || hdr.Get("X-Frame-Options") != "DENY" {
			t.Errorf("GET %s: %d", p, code)
		}
	}
	if code, _, _ := adminGet(t, d, "GET", "/metrics", nil, nil); code != http.StatusOK {
		t.Errorf("/metrics without admin_token: %d, want 200 (open, as before)", code)
	}
	if code, _, _ := adminGet(t, d, "GET", "/readyz", nil, nil); code != http.StatusOK {
		t.Errorf("/readyz: %d", code)
	}
}
