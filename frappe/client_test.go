package frappe_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
)

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// captured is what a test server saw of one request.
type captured struct {
	method, requestURI, host string
	header                   http.Header
	query                    url.Values
	body                     []byte
}

// captureServer records each request and answers with the given status and body.
func captureServer(t *testing.T, status int, body string) (*httptest.Server, *captured) {
	t.Helper()
	got := &captured{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		*got = captured{method: r.Method, requestURI: r.RequestURI, host: r.Host, header: r.Header.Clone(), query: r.URL.Query(), body: b}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

func TestNewValidatesConfig(t *testing.T) {
	bad := []frappe.Config{
		{URL: "", APIKey: "k", APISecret: testSecret},
		{URL: "erp.example.com", APIKey: "k", APISecret: testSecret},
		{URL: "ftp://erp.example.com", APIKey: "k", APISecret: testSecret},
		{URL: "https://user:" + testSecret + "@erp.example.com", APIKey: "k", APISecret: testSecret},
		{URL: "https://erp.example.com?x=1", APIKey: "k", APISecret: testSecret},
		{URL: "https://erp.example.com", APIKey: "", APISecret: testSecret},
		{URL: "https://erp.example.com", APIKey: "k", APISecret: ""},
		{URL: "http://[::1", APIKey: "k", APISecret: testSecret},
	}
	for _, cfg := range bad {
		c, err := frappe.New(cfg)
		if err == nil || c != nil {
			t.Errorf("New(%+v) succeeded", cfg)
			continue
		}
		if strings.Contains(err.Error(), testSecret) {
			t.Errorf("error leaks the secret: %v", err)
		}
	}
	if _, err := frappe.New(frappe.Config{URL: "https://erp.example.com/", APIKey: "k", APISecret: "s"}); err != nil {
		t.Errorf("valid config: %v", err)
	}
}

func TestListRequestShape(t *testing.T) {
	rec := loadRecorded(t, "03-list-child-4elem-filter.json")
	srv, got := captureServer(t, rec.Response.Status, rec.Response.Body)
	c := newClient(t, frappe.Config{URL: srv.URL + "/", Host: "erp.localhost"})
	var rows []map[string]any
	err := c.List(context.Background(), frappe.DoctypeSalesInvoice, frappe.ListOptions{
		Fields:    []string{"name", "outstanding_amount"},
		Filters:   []frappe.Filter{{"Sales Invoice Item", "item_code", "=", "RZP-ITEM"}, {"docstatus", "=", 0}},
		OrFilters: []frappe.Filter{{"status", "in", []string{"Unpaid", "Overdue"}}},
		OrderBy:   "modified desc",
		Start:     40,
		Limit:     20,
		All:       true,
		Parent:    "Mode of Payment",
	}, &rows)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if got.method != http.MethodGet || !strings.HasPrefix(got.requestURI, "/api/resource/Sales%20Invoice?") {
		t.Errorf("request = %s %s", got.method, got.requestURI)
	}
	want := url.Values{
		"fields":            {`["name","outstanding_amount"]`},
		"filters":           {`[["Sales Invoice Item","item_code","=","RZP-ITEM"],["docstatus","=",0]]`},
		"or_filters":        {`[["status","in",["Unpaid","Overdue"]]]`},
		"order_by":          {"`tabSales Invoice`.`modified` desc"},
		"limit_start":       {"40"},
		"limit_page_length": {"0"},
		"parent":            {"Mode of Payment"},
	}
	if !reflect.DeepEqual(got.query, want) {
		t.Errorf("query =\n%v\nwant\n%v", got.query, want)
	}
	if got.header.Get("Authorization") != "token "+testKey+":"+testSecret || got.header.Get("Accept") != "application/json" {
		t.Errorf("headers = %v", got.header)
	}
	if got.host != "erp.localhost" {
		t.Errorf("Host = %q, want the site name", got.host)
	}
	if got.header.Get("Cookie") != "" {
		t.Errorf("cookies sent: %q", got.header.Get("Cookie"))
	}
	if len(rows) != 1 || rows[0]["name"] != "ACC-SINV-2026-00015" {
		t.Errorf("rows = %v", rows)
	}

	// A page size without All, and nothing optional.
	if err := c.List(context.Background(), frappe.DoctypeAccount, frappe.ListOptions{Limit: 2}, &rows); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.query, url.Values{"limit_page_length": {"2"}}) || !strings.HasPrefix(got.requestURI, "/api/resource/Account?") {
		t.Errorf("request = %s, query %v", got.requestURI, got.query)
	}
	if err := c.List(context.Background(), frappe.DoctypeAccount, frappe.ListOptions{}, &rows); err != nil {
		t.Fatal(err)
	}
	if got.requestURI != "/api/resource/Account" {
		t.Errorf("request = %s", got.requestURI)
	}
}

func TestPathEscaping(t *testing.T) {
	srv, got := captureServer(t, 200, `{"data":{"name":"x"}}`)
	c := newClient(t, frappe.Config{URL: srv.URL})
	cases := []struct {
		doctype, name, want string
	}{
		{"Sales Invoice", "ACC-SINV-2026-00010", "/api/resource/Sales%20Invoice/ACC-SINV-2026-00010"},
		{"Customer", "ACME/2026 Ltd", "/api/resource/Customer/ACME/2026%20Ltd"},
		{"Customer", "A?B#C%D", "/api/resource/Customer/A%3FB%23C%25D"},
		{"Mode of Payment", "Razorpay", "/api/resource/Mode%20of%20Payment/Razorpay"},
	}
	for _, tc := range cases {
		var out map[string]any
		if err := c.Get(context.Background(), tc.doctype, tc.name, &out); err != nil {
			t.Fatalf("Get: %v", err)
		}
		if got.requestURI != tc.want {
			t.Errorf("Get(%q, %q) → %s, want %s", tc.doctype, tc.name, got.requestURI, tc.want)
		}
	}
	if err := c.Get(context.Background(), "Customer", "", &struct{}{}); err == nil {
		t.Error("empty name must be refused (it would hit the list route)")
	}
}

func TestGetDecodesTypedDoctypesWithoutFloat(t *testing.T) {
	t.Run("SalesInvoice", func(t *testing.T) {
		c, _ := recordedServer(t, "06-get-doc-resource.json")
		var si frappe.SalesInvoice
		if err := c.Get(context.Background(), frappe.DoctypeSalesInvoice, "ACC-SINV-2026-00010", &si); err != nil {
			t.Fatal(err)
		}
		want := frappe.SalesInvoice{Name: "ACC-SINV-2026-00010", Customer: "Test Customer", Company: "Example Company",
			Currency: "INR", PartyAccountCurrency: "INR", DebitTo: "Debtors - EC", Status: "Unpaid", DueDate: "2026-12-30",
			PostingDate: "2026-11-30", Modified: "2026-11-30 11:56:04.313422", Docstatus: 1, GrandTotal: "1000.0",
			RoundedTotal: "1000.0", BaseGrandTotal: "1000.0", OutstandingAmount: "1000.0", ConversionRate: "1.0", UpdateOutstandingForSelf: 1,
			RoundingAdjustment: "0.0", Items: []frappe.SalesInvoiceItem{{}},
			PaymentSchedule: []frappe.PaymentSchedule{{DueDate: "2026-12-30", PaymentAmount: "1000.0", PaidAmount: "0.0", Outstanding: "1000.0",
				Discount: "0.0", DiscountedAmount: "0.0"}}}
		if !reflect.DeepEqual(si, want) {
			t.Errorf("got  %+v\nwant %+v", si, want)
		}
	})
	t.Run("MapKeepsNumberText", func(t *testing.T) {
		c, _ := recordedServer(t, "06-get-doc-resource.json")
		var doc map[string]any
		if err := c.Get(context.Background(), frappe.DoctypeSalesInvoice, "ACC-SINV-2026-00010", &doc); err != nil {
			t.Fatal(err)
		}
		if n, ok := doc["outstanding_amount"].(json.Number); !ok || n.String() != "1000.0" {
			t.Errorf("outstanding_amount = %T %v, want json.Number 1000.0", doc["outstanding_amount"], doc["outstanding_amount"])
		}
		items, _ := doc["items"].([]any)
		if len(items) == 0 {
			t.Fatal("no items")
		}
		if _, ok := items[0].(map[string]any)["qty"].(json.Number); !ok {
			t.Errorf("child numbers must be json.Number too: %T", items[0].(map[string]any)["qty"])
		}
	})
	t.Run("ModeOfPayment", func(t *testing.T) {
		c, _ := recordedServer(t, "30-mode-of-payment-doc.json")
		var mop frappe.ModeOfPayment
		if err := c.Get(context.Background(), frappe.DoctypeModeOfPayment, "Razorpay", &mop); err != nil {
			t.Fatal(err)
		}
		want := frappe.ModeOfPayment{Name: "Razorpay", ModeOfPayment: "Razorpay", Type: "Bank", Enabled: 1,
			Accounts: []frappe.ModeOfPaymentAccount{{Company: "Example Company", DefaultAccount: "Razorpay Clearing - EC"}}}
		if !reflect.DeepEqual(mop, want) {
			t.Errorf("got %+v", mop)
		}
	})
}

func TestCallGetPaymentEntry(t *testing.T) {
	rec := loadRecorded(t, "26-get-payment-entry-post.json")
	srv, got := captureServer(t, rec.Response.Status, rec.Response.Body)
	c := newClient(t, frappe.Config{URL: srv.URL})
	var pe frappe.PaymentEntry
	args := map[string]any{"dt": frappe.DoctypeSalesInvoice, "dn": "ACC-SINV-2026-00010"}
	if err := c.Call(context.Background(), frappe.MethodGetPaymentEntry, args, &pe); err != nil {
		t.Fatal(err)
	}
	if got.method != http.MethodPost || got.requestURI != "/api/method/"+frappe.MethodGetPaymentEntry ||
		got.header.Get("Content-Type") != "application/json" {
		t.Errorf("request = %s %s %v", got.method, got.requestURI, got.header)
	}
	var sent map[string]any
	if err := json.Unmarshal(got.body, &sent); err != nil || !reflect.DeepEqual(sent, args) {
		t.Errorf("body = %s", got.body)
	}
	if pe.PaymentType != "Receive" || pe.Party != "Test Customer" || pe.PaidAmount != "1000.0" || pe.PaidTo != "Bank Account - EC" ||
		pe.Docstatus != 0 || len(pe.References) != 1 || pe.References[0].ReferenceName != "ACC-SINV-2026-00010" ||
		pe.References[0].AllocatedAmount != "1000.0" || pe.References[0].Idx != 1 || pe.References[0].DueDate != "2026-12-30" {
		t.Errorf("payment entry = %+v", pe)
	}
}

func TestWritesAndMethods(t *testing.T) {
	ctx := context.Background()
	t.Run("InsertPostsJSON", func(t *testing.T) {
		srv, got := captureServer(t, 200, `{"data":{"name":"ACC-PAY-2026-00001","paid_amount":12000.5,"docstatus":1}}`)
		c := newClient(t, frappe.Config{URL: srv.URL})
		doc := map[string]any{"payment_type": "Receive", "paid_amount": json.Number("12000.50"), "docstatus": 1}
		var out frappe.PaymentEntry
		if err := c.Insert(ctx, frappe.DoctypePaymentEntry, doc, &out); err != nil {
			t.Fatal(err)
		}
		if got.method != http.MethodPost || got.requestURI != "/api/resource/Payment%20Entry" || got.header.Get("Content-Type") != "application/json" {
			t.Errorf("request = %s %s", got.method, got.requestURI)
		}
		if string(got.body) != `{"docstatus":1,"paid_amount":12000.50,"payment_type":"Receive"}` {
			t.Errorf("body = %s", got.body)
		}
		if out.Name != "ACC-PAY-2026-00001" || out.PaidAmount != "12000.5" || out.Docstatus != 1 {
			t.Errorf("out = %+v", out)
		}
		if err := c.Insert(ctx, frappe.DoctypePaymentEntry, doc, nil); err != nil {
			t.Errorf("nil out: %v", err)
		}
	})
	t.Run("UpdatePuts", func(t *testing.T) {
		srv, got := captureServer(t, 200, `{"data":{"name":"ACC-PAY-2026-00001","docstatus":1}}`)
		c := newClient(t, frappe.Config{URL: srv.URL})
		if err := c.Update(ctx, frappe.DoctypePaymentEntry, "ACC-PAY-2026-00001", map[string]int{"docstatus": 1}, nil); err != nil {
			t.Fatal(err)
		}
		if got.method != http.MethodPut || got.requestURI != "/api/resource/Payment%20Entry/ACC-PAY-2026-00001" || string(got.body) != `{"docstatus":1}` {
			t.Errorf("request = %s %s %s", got.method, got.requestURI, got.body)
		}
	})
	t.Run("CallWithoutArgsSendsEmptyObject", func(t *testing.T) {
		srv, got := captureServer(t, 200, `{}`)
		c := newClient(t, frappe.Config{URL: srv.URL})
		out := "untouched"
		if err := c.Call(ctx, "frappe.client.delete", nil, &out); err != nil || out != "untouched" {
			t.Fatalf("Call: %v, out %q", err, out)
		}
		if string(got.body) != `{}` {
			t.Errorf("body = %s", got.body)
		}
	})
	t.Run("CallGETSendsQuery", func(t *testing.T) {
		rec := loadRecorded(t, "27-get-count.json")
		srv, got := captureServer(t, rec.Response.Status, rec.Response.Body)
		c := newClient(t, frappe.Config{URL: srv.URL})
		var n int
		args := map[string]string{"doctype": "Sales Invoice", "filters": `[["docstatus","=",1]]`}
		if err := c.CallGET(ctx, "frappe.client.get_count", args, &n); err != nil {
			t.Fatal(err)
		}
		if got.method != http.MethodGet || !strings.HasPrefix(got.requestURI, "/api/method/frappe.client.get_count?") ||
			got.query.Get("doctype") != "Sales Invoice" || got.query.Get("filters") != `[["docstatus","=",1]]` || n <= 0 {
			t.Errorf("request = %s, n = %d", got.requestURI, n)
		}
	})
	t.Run("PingOK", func(t *testing.T) {
		srv, got := captureServer(t, 200, `{"message":"api@example.com"}`)
		c := newClient(t, frappe.Config{URL: srv.URL})
		if err := c.Ping(ctx); err != nil {
			t.Fatal(err)
		}
		if got.requestURI != "/api/method/frappe.auth.get_logged_user" || got.method != http.MethodGet {
			t.Errorf("request = %s %s", got.method, got.requestURI)
		}
	})
	t.Run("PingBadCredentials", func(t *testing.T) {
		rec := loadRecorded(t, "02-token-wrong-secret.json")
		srv, _ := captureServer(t, rec.Response.Status, rec.Response.Body)
		c := newClient(t, frappe.Config{URL: srv.URL})
		var fe *frappe.Error
		if err := c.Ping(ctx); !errors.As(err, &fe) || fe.Status != 401 || fe.ExcType != "AuthenticationError" {
			t.Fatalf("Ping = %v", err)
		}
	})
	t.Run("UndecodableSuccessBody", func(t *testing.T) {
		srv, _ := captureServer(t, 200, `<html>login</html>`)
		c := newClient(t, frappe.Config{URL: srv.URL})
		var out map[string]any
		err := c.Get(ctx, "Customer", "X", &out)
		var fe *frappe.Error
		if err == nil || errors.As(err, &fe) {
			t.Fatalf("err = %v, want a plain decode error", err)
		}
	})
}

func TestNoRetries(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	c := newClient(t, frappe.Config{URL: srv.URL})
	_ = c.Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{"x": 1}, nil)
	if hits.Load() != 1 {
		t.Fatalf("server saw %d requests, want 1", hits.Load())
	}
}

func TestTransportErrors(t *testing.T) {
	t.Run("TimeoutAfterSend", func(t *testing.T) {
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-time.After(5 * time.Second):
			}
		}))
		defer srv.Close()
		defer close(release)
		c := newClient(t, frappe.Config{URL: srv.URL, Timeout: 100 * time.Millisecond})
		start := time.Now()
		err := c.Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{"x": 1}, nil)
		var te *frappe.TransportError
		if !errors.As(err, &te) || !te.Timeout || te.BeforeSend {
			t.Fatalf("err = %#v", err)
		}
		if time.Since(start) > 3*time.Second {
			t.Errorf("took %v", time.Since(start))
		}
		if !errors.Is(err, context.DeadlineExceeded) || te.Method != "POST" || te.Path != "/api/resource/Payment Entry" {
			t.Errorf("err = %v", err)
		}
		if !strings.Contains(err.Error(), "frappe: POST /api/resource/Payment Entry: timeout") || strings.Contains(err.Error(), testSecret) {
			t.Errorf("Error() = %q", err.Error())
		}
	})
	t.Run("ClosedPortIsBeforeSend", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		c := newClient(t, frappe.Config{URL: "http://" + addr})
		err = c.Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{"x": 1}, nil)
		var te *frappe.TransportError
		if !errors.As(err, &te) || !te.BeforeSend || te.Timeout {
			t.Fatalf("err = %#v", err)
		}
		if !strings.Contains(err.Error(), "connection failed") {
			t.Errorf("Error() = %q", err.Error())
		}
	})
	t.Run("ResetAfterSendIsNotBeforeSend", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}))
		defer srv.Close()
		c := newClient(t, frappe.Config{URL: srv.URL})
		err := c.Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{"x": 1}, nil)
		var te *frappe.TransportError
		if !errors.As(err, &te) || te.BeforeSend || te.Timeout {
			t.Fatalf("err = %#v", err)
		}
	})
	t.Run("CanceledContext", func(t *testing.T) {
		srv, _ := captureServer(t, 200, `{"data":[]}`)
		c := newClient(t, frappe.Config{URL: srv.URL})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var out []any
		err := c.List(ctx, "Customer", frappe.ListOptions{}, &out)
		var te *frappe.TransportError
		if !errors.As(err, &te) || !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %#v", err)
		}
	})
	t.Run("CallerDeadlineCounts", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		}))
		defer srv.Close()
		c := newClient(t, frappe.Config{URL: srv.URL})
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		err := c.Ping(ctx)
		var te *frappe.TransportError
		if !errors.As(err, &te) || !te.Timeout {
			t.Fatalf("err = %#v", err)
		}
	})
}
