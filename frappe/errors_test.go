package frappe_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
)

func TestRecordedErrorsDecode(t *testing.T) {
	ctx := context.Background()
	insertPE := func(c *frappe.Client) error {
		return c.Insert(ctx, frappe.DoctypePaymentEntry, map[string]any{"payment_type": "Receive"}, nil)
	}
	listSI := func(c *frappe.Client) error {
		var out []frappe.SalesInvoice
		return c.List(ctx, frappe.DoctypeSalesInvoice, frappe.ListOptions{}, &out)
	}
	cases := []struct {
		name, file string
		call       func(*frappe.Client) error
		want       frappe.Error // Method and Path filled in from the file
		message    string
		errText    string
		notFound   bool
	}{
		{
			name: "ValidationErrorWithServerMessages", file: "12-bank-no-reference.json", call: insertPE,
			want: frappe.Error{Status: 417, ExcType: "ValidationError",
				Messages:  []string{"Reference No and Reference Date is mandatory for Bank transaction"},
				Exception: "frappe.exceptions.ValidationError: Reference No and Reference Date is mandatory for Bank transaction"},
			errText: "frappe: POST /api/resource/Payment Entry: 417 ValidationError: Reference No and Reference Date is mandatory for Bank transaction",
		},
		{
			name: "DuplicateEntryIs409", file: "07-insert-duplicate-client-name.json", call: insertPE,
			want: frappe.Error{Status: 409, ExcType: "DuplicateEntryError",
				Messages:  []string{"Payment Entry MY-OWN-NAME already exists"},
				Exception: `frappe.exceptions.DuplicateEntryError: ('Payment Entry', 'MY-OWN-NAME', IntegrityError(1062, "Duplicate entry 'MY-OWN-NAME' for key 'PRIMARY'"))`},
			errText: "frappe: POST /api/resource/Payment Entry: 409 DuplicateEntryError: Payment Entry MY-OWN-NAME already exists",
		},
		{
			name: "MandatoryErrorKeepsBothMessages", file: "10-missing-paid-to-with-rates.json", call: insertPE,
			want: frappe.Error{Status: 417, ExcType: "MandatoryError",
				Messages: []string{"Error: Value missing for Payment Entry: Account Paid To",
					"Error: Value missing for Payment Entry: Account Currency (To)"},
				Exception: "frappe.exceptions.MandatoryError: [Payment Entry, ACC-PAY-2026-00002]: paid_to, paid_to_account_currency"},
			message: "Error: Value missing for Payment Entry: Account Paid To",
		},
		{
			name: "PermissionErrorWithErrorMessage", file: "01-no-auth-list.json", call: listSI,
			want: frappe.Error{Status: 403, ExcType: "PermissionError", ErrorMessage: "No permission for Sales Invoice",
				Messages:  []string{"User Guest does not have doctype access via role permission for document Sales Invoice"},
				Exception: "frappe.exceptions.PermissionError"},
		},
		{
			name: "CreateDeniedWithoutException", file: "29-limited-user-create-pe.json", call: insertPE,
			want: frappe.Error{Status: 403, ExcType: "PermissionError", ErrorMessage: "No permission for Payment Entry",
				Messages: []string{"User limited@example.com does not have doctype access via role permission for document Payment Entry"}},
		},
		{
			name: "AuthenticationErrorWithoutMessages", file: "02-token-wrong-secret.json", call: listSI,
			want:    frappe.Error{Status: 401, ExcType: "AuthenticationError", Exception: "frappe.exceptions.AuthenticationError"},
			message: "Unauthorized",
			errText: "frappe: GET /api/resource/Sales Invoice: 401 AuthenticationError: Unauthorized",
		},
		{
			name: "NotFound", file: "05-get-unknown.json",
			call: func(c *frappe.Client) error {
				var si frappe.SalesInvoice
				return c.Get(ctx, frappe.DoctypeSalesInvoice, "ACC-SINV-2026-99999", &si)
			},
			want: frappe.Error{Status: 404, ExcType: "DoesNotExistError",
				Messages: []string{"Sales Invoice ACC-SINV-2026-99999 not found"}},
			notFound: true,
		},
		{
			name: "ServerErrorJSONDecodeError", file: "04-invalid-json-filters.json", call: listSI,
			want: frappe.Error{Status: 500, ExcType: "JSONDecodeError",
				Exception: "json.decoder.JSONDecodeError: Expecting value: line 1 column 14 (char 13)"},
			message: "Expecting value: line 1 column 14 (char 13)",
		},
		{
			name: "LockWaitTimeout", file: "32-lock-wait-timeout-on-submit.json", call: insertPE,
			want: frappe.Error{Status: 500, ExcType: "QueryTimeoutError",
				Exception: "frappe.exceptions.QueryTimeoutError: (1205, 'Lock wait timeout exceeded; try restarting transaction')"},
			message: "(1205, 'Lock wait timeout exceeded; try restarting transaction')",
		},
		{
			name: "RateLimitedWithRetryAfter", file: "31-rate-limit-429.json", call: listSI,
			want: frappe.Error{Status: 429, ExcType: "TooManyRequestsError", RetryAfter: 54 * time.Second,
				Exception: "frappe.exceptions.TooManyRequestsError"},
			message: "Too Many Requests",
		},
		{
			name: "WriteToCancelledTextOnlyInException", file: "22-write-to-cancelled.json",
			call: func(c *frappe.Client) error {
				return c.Update(ctx, frappe.DoctypePaymentEntry, "ACC-PAY-2026-00007", map[string]any{"remarks": "x"}, nil)
			},
			want: frappe.Error{Status: 417, ExcType: "ValidationError",
				Exception: "frappe.exceptions.ValidationError: Cannot edit cancelled document"},
			message: "Cannot edit cancelled document",
			errText: "frappe: PUT /api/resource/Payment Entry/ACC-PAY-2026-00007: 417 ValidationError: Cannot edit cancelled document",
		},
		{
			name: "NotWhitelistedTagsStripped", file: "28-not-whitelisted.json",
			call: func(c *frappe.Client) error {
				return c.CallGET(ctx, "frappe.utils.data.flt", map[string]string{"s": "1"}, nil)
			},
			want: frappe.Error{Status: 403, ExcType: "PermissionError",
				Messages:  []string{"You are not permitted to access this resource. Login to access Function frappe.utils.data.flt is not whitelisted."},
				Exception: "frappe.exceptions.PermissionError: <details><summary>You are not permitted to access this resource. Login to access</summary>Function <strong>frappe.utils.data.flt</strong> is not whitelisted.</details>"},
		},
		{
			name: "UnknownSiteHTML404IsNotANotFound", file: "34-unknown-host.json", call: listSI,
			want:    frappe.Error{Status: 404, NonJSON: true},
			message: "Not Found",
			errText: "frappe: GET /api/resource/Sales Invoice: 404: Not Found",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, rec := recordedServer(t, tc.file)
			err := tc.call(c)
			var fe *frappe.Error
			if !errors.As(err, &fe) {
				t.Fatalf("err = %T %v, want *frappe.Error", err, err)
			}
			want := tc.want
			want.Method, want.Path = rec.Request.Method, rec.Request.Path
			if !reflect.DeepEqual(*fe, want) {
				t.Errorf("decoded\n%#v\nwant\n%#v", *fe, want)
			}
			if tc.message == "" && len(want.Messages) > 0 {
				tc.message = want.Messages[0]
			}
			if tc.message == "" {
				tc.message = want.ErrorMessage
			}
			if got := fe.Message(); got != tc.message {
				t.Errorf("Message() = %q, want %q", got, tc.message)
			}
			if tc.errText != "" && err.Error() != tc.errText {
				t.Errorf("Error() = %q, want %q", err.Error(), tc.errText)
			}
			if got := frappe.IsNotFound(err); got != tc.notFound {
				t.Errorf("IsNotFound = %v, want %v", got, tc.notFound)
			}
		})
	}
}

func TestProxyPagesAreNonJSON(t *testing.T) {
	pages := map[int]string{
		http.StatusBadGateway:         "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>\r\n",
		http.StatusGatewayTimeout:     "<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n<center><h1>504 Gateway Time-out</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
		http.StatusServiceUnavailable: `{"detail":"upstream maintenance"}`, // JSON, but not Frappe's
	}
	for status, page := range pages {
		t.Run(http.StatusText(status), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.Header().Set("Retry-After", "7")
				w.WriteHeader(status)
				_, _ = w.Write([]byte(page))
			}))
			defer srv.Close()
			c := newClient(t, frappe.Config{URL: srv.URL})
			err := c.Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{"x": 1}, nil)
			var fe *frappe.Error
			if !errors.As(err, &fe) || !fe.NonJSON || fe.Status != status || fe.ExcType != "" || len(fe.Messages) != 0 {
				t.Fatalf("err = %#v", err)
			}
			if fe.Message() != http.StatusText(status) {
				t.Errorf("Message() = %q", fe.Message())
			}
			wantRetry := time.Duration(0)
			if status == http.StatusServiceUnavailable {
				wantRetry = 7 * time.Second
			}
			if fe.RetryAfter != wantRetry {
				t.Errorf("RetryAfter = %v, want %v", fe.RetryAfter, wantRetry)
			}
		})
	}
}

func TestRedirectIsNotFollowed(t *testing.T) {
	var hits int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		http.Redirect(w, r, "/login", http.StatusFound)
	}))
	defer srv.Close()
	c := newClient(t, frappe.Config{URL: srv.URL})
	err := c.Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{"x": 1}, nil)
	var fe *frappe.Error
	if !errors.As(err, &fe) || fe.Status != http.StatusFound || !fe.NonJSON || hits != 1 {
		t.Fatalf("err = %v, hits %d", err, hits)
	}
}

func TestServerEchoingCredentialsDoesNotLeakThem(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusExpectationFailed)
		body := map[string]any{
			"exc_type":       "ValidationError " + auth,
			"exception":      "frappe.exceptions.ValidationError: bad header " + auth,
			"_error_message": "<b>" + auth + "</b>",
			"_server_messages": mustJSON(t, []string{
				mustJSON(t, map[string]any{"message": "You sent <code>" + auth + "</code>", "title": "Message"}),
			}),
		}
		_, _ = w.Write([]byte(mustJSON(t, body)))
	}))
	defer srv.Close()
	c := newClient(t, frappe.Config{URL: srv.URL})
	err := c.Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{"x": 1}, nil)
	var fe *frappe.Error
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v", err)
	}
	text := err.Error() + "|" + fe.Message() + "|" + fe.ErrorMessage + "|" + fe.Exception + "|" + fe.ExcType + "|" + strings.Join(fe.Messages, "|")
	for _, secret := range []string{testSecret, testKey} {
		if strings.Contains(text, secret) {
			t.Errorf("credential %q leaked: %s", secret, text)
		}
	}
	if !strings.Contains(fe.Messages[0], "You sent token [redacted]:[redacted]") {
		t.Errorf("message = %q", fe.Messages[0])
	}
}

func TestRetryAfterHTTPDate(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", time.Now().Add(90*time.Second).UTC().Format(http.TimeFormat))
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"exc_type":"TooManyRequestsError"}`))
	}))
	defer srv.Close()
	c := newClient(t, frappe.Config{URL: srv.URL})
	err := c.Ping(context.Background())
	var fe *frappe.Error
	if !errors.As(err, &fe) || fe.RetryAfter < 80*time.Second || fe.RetryAfter > 91*time.Second {
		t.Fatalf("err = %#v", err)
	}
}
