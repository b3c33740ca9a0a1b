package razorpay_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

const (
	keyID     = "rzp_test_T3stKey0000001"
	keySecret = "T3stSecretNeverPrinted"
)

// setup starts an httptest server with handler and a client for it.
func setup(t *testing.T, handler http.HandlerFunc, timeout time.Duration) *razorpay.Client {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	c, err := razorpay.NewClient(razorpay.ClientConfig{BaseURL: srv.URL, KeyID: keyID, KeySecret: keySecret, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNewClientValidates(t *testing.T) {
	for name, cfg := range map[string]razorpay.ClientConfig{
		"NoKeyID":      {KeySecret: "s"},
		"NoSecret":     {KeyID: "k"},
		"RelativeURL":  {BaseURL: "api.razorpay.com", KeyID: "k", KeySecret: "s"},
		"URLWithCreds": {BaseURL: "https://u:p@api.razorpay.com", KeyID: "k", KeySecret: "s"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := razorpay.NewClient(cfg); err == nil {
				t.Fatal("accepted")
			}
		})
	}
	if _, err := razorpay.NewClient(razorpay.ClientConfig{KeyID: "k", KeySecret: "s"}); err != nil {
		t.Fatalf("defaults: %v", err)
	}
}

func TestClientErrors(t *testing.T) {
	cases := map[string]struct {
		status    int
		header    map[string]string
		body      string
		notFound  bool
		retryable bool
		auth      bool
		check     func(t *testing.T, e *razorpay.APIError)
	}{
		"UnknownIDIs400NotFound": {
			status: 400, notFound: true,
			body: `{"error":{"code":"BAD_REQUEST_ERROR","description":"The id provided does not exist","source":"business","step":"payment_initiation","reason":"input_validation_failed","metadata":{}}}`,
			check: func(t *testing.T, e *razorpay.APIError) {
				if e.Source != "business" || e.Step != "payment_initiation" || e.Reason != "input_validation_failed" {
					t.Errorf("envelope fields: %+v", e)
				}
			},
		},
		"ValidationCarriesField": {
			status: 400,
			body:   `{"error":{"code":"BAD_REQUEST_ERROR","description":"The count must be at least 1.","source":"NA","step":"NA","reason":"NA","metadata":[],"field":"count"}}`,
			check: func(t *testing.T, e *razorpay.APIError) {
				if e.Field != "count" || !strings.Contains(e.Error(), "(field: count)") {
					t.Errorf("field: %+v %s", e, e)
				}
			},
		},
		"BadPathIsNotNotFound": {
			status: 400,
			body:   `{"error":{"code":"BAD_REQUEST_ERROR","description":"The requested URL was not found on the server."}}`,
		},
		"Unauthorized": {
			status: 401, auth: true,
			body: `{"error":{"code":"BAD_REQUEST_ERROR","description":"The api secret provided is invalid: ` + keySecret + `"}}`,
		},
		"Throttled": {
			status: 429, retryable: true, header: map[string]string{"Retry-After": "7"},
			body: `{"error":{"code":"BAD_REQUEST_ERROR","description":"Too many requests"}}`,
			check: func(t *testing.T, e *razorpay.APIError) {
				if e.RetryAfter != 7*time.Second {
					t.Errorf("RetryAfter %v", e.RetryAfter)
				}
			},
		},
		"ServerError": {
			status: 500, retryable: true,
			body: `{"error":{"code":"SERVER_ERROR","description":"We are facing some trouble completing your request at the moment. Please try again shortly.","source":"NA","step":"NA","reason":"NA","metadata":{}}}`,
		},
		"ProxyPageInvalidUTF8": {
			status: 502, retryable: true, body: "<html>Passerelle d\xe9faillante " + strings.Repeat("é", 100) + "</html>",
			check: func(t *testing.T, e *razorpay.APIError) {
				if !utf8.ValidString(e.Description) || !strings.HasPrefix(e.Description, "<html>Passerelle d\uFFFDfaillante éé") {
					t.Errorf("description %q: want valid UTF-8", e.Description)
				}
			},
		},
		"ProxyPage": {
			status: 502, retryable: true, body: "<html>502 Bad Gateway</html>",
			check: func(t *testing.T, e *razorpay.APIError) {
				if e.Code != "" || !strings.Contains(e.Description, "Bad Gateway") {
					t.Errorf("non-JSON body: %+v", e)
				}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var calls atomic.Int32
			c := setup(t, func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}, 0)
			_, err := c.GetPayment(context.Background(), "pay_T3stPayCard001")
			var e *razorpay.APIError
			if !errors.As(err, &e) || e.Status != tc.status {
				t.Fatalf("err = %v, want *APIError %d", err, tc.status)
			}
			if razorpay.IsNotFound(err) != tc.notFound || razorpay.Retryable(err) != tc.retryable || razorpay.IsAuthFault(err) != tc.auth {
				t.Errorf("IsNotFound %v Retryable %v IsAuthFault %v", razorpay.IsNotFound(err), razorpay.Retryable(err), razorpay.IsAuthFault(err))
			}
			if strings.Contains(fmt.Sprintf("%v %+v", err, e), keySecret) {
				t.Errorf("error shows the key secret: %v", err)
			}
			if !strings.Contains(err.Error(), "GET /v1/payments/pay_T3stPayCard001") {
				t.Errorf("error lacks the call: %v", err)
			}
			if calls.Load() != 1 {
				t.Errorf("%d calls: the client retried by itself", calls.Load())
			}
			if tc.check != nil {
				tc.check(t, e)
			}
		})
	}
}

func TestClientSendsBasicAuth(t *testing.T) {
	c := setup(t, func(w http.ResponseWriter, r *http.Request) {
		id, secret, ok := r.BasicAuth()
		if !ok || id != keyID || secret != keySecret || !strings.HasPrefix(r.Header.Get("Authorization"), "Basic ") {
			w.WriteHeader(401)
			return
		}
		_, _ = w.Write([]byte(`{"id":"order_X","entity":"order","amount":100,"notes":[]}`))
	}, 0)
	o, err := c.GetOrder(context.Background(), "order_X")
	if err != nil || o.ID != "order_X" || o.Amount != 100 {
		t.Fatalf("GetOrder: %v %+v", err, o)
	}
}

func TestClientTimeouts(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	c := setup(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}, 50*time.Millisecond)
	t.Run("ClientDeadlineIsRetryableTransportError", func(t *testing.T) {
		start := time.Now()
		_, err := c.GetRefund(context.Background(), "rfnd_X")
		var te *razorpay.TransportError
		if !errors.As(err, &te) || !te.Timeout || !razorpay.Retryable(err) {
			t.Fatalf("err = %v, want a retryable timeout", err)
		}
		if time.Since(start) > 2*time.Second {
			t.Errorf("took %v", time.Since(start))
		}
	})
	t.Run("CallerCancelIsNotRetryable", func(t *testing.T) {
		// The caller cancels once the request has reached the server, with a client deadline
		// that cannot come first.
		arrived := make(chan struct{})
		arrive := sync.OnceFunc(func() { close(arrived) })
		patient := setup(t, func(w http.ResponseWriter, r *http.Request) {
			arrive()
			<-r.Context().Done()
		}, time.Hour)
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-arrived; cancel() }()
		_, err := patient.GetRefund(ctx, "rfnd_X")
		if !errors.Is(err, context.Canceled) || razorpay.Retryable(err) {
			t.Fatalf("err = %v, want context.Canceled, not retryable", err)
		}
	})
	t.Run("ConnectionRefused", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		c, _ := razorpay.NewClient(razorpay.ClientConfig{BaseURL: url, KeyID: keyID, KeySecret: keySecret})
		_, err := c.GetPayment(context.Background(), "pay_X")
		if !razorpay.Retryable(err) || strings.Contains(err.Error(), keySecret) {
			t.Fatalf("err = %v, want retryable", err)
		}
	})
}

func TestListPaymentsReadsEveryPage(t *testing.T) {
	const total = 250
	var pages atomic.Int32
	c := setup(t, func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.URL.Path != "/v1/payments" || q.Get("count") != "100" || q.Get("from") != "1768453200" || q.Get("to") != "1768539600" {
			w.WriteHeader(400)
			_, _ = fmt.Fprintf(w, `{"error":{"code":"BAD_REQUEST_ERROR","description":"unexpected query %s"}}`, r.URL.RawQuery)
			return
		}
		pages.Add(1)
		skip, _ := strconv.Atoi(q.Get("skip"))
		var items []string
		for i := skip; i < min(skip+100, total); i++ {
			items = append(items, fmt.Sprintf(`{"id":"pay_%014d","entity":"payment","amount":%d,"currency":"INR","notes":[],"created_at":%d}`, total-i, 1000+i, 1768539600-i))
		}
		_, _ = fmt.Fprintf(w, `{"entity":"collection","count":%d,"items":[%s]}`, len(items), strings.Join(items, ","))
	}, 0)
	seen := map[string]bool{}
	err := c.ListPayments(context.Background(), time.Unix(1768453200, 0), time.Unix(1768539600, 0), func(p *razorpay.Payment) error {
		seen[p.ID] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != total || pages.Load() != 3 {
		t.Fatalf("saw %d payments over %d pages, want %d over 3", len(seen), pages.Load(), total)
	}
}

func TestListStopsOnCallbackError(t *testing.T) {
	c := setup(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"entity":"collection","count":2,"items":[{"id":"rfnd_1"},{"id":"rfnd_2"}]}`))
	}, 0)
	stop := errors.New("stop")
	n := 0
	err := c.ListRefunds(context.Background(), time.Time{}, time.Time{}, func(*razorpay.Refund) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("err %v after %d calls", err, n)
	}
}

// TestClientAgainstSimulator runs every call against razorpaysim.
func TestClientAgainstSimulator(t *testing.T) {
	clk := time.Unix(1768453200, 0)
	sim := razorpaysim.New(razorpaysim.Options{KeyID: keyID, KeySecret: keySecret, Now: func() time.Time { return clk }})
	t.Cleanup(sim.Close)
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	c, err := razorpay.NewClient(razorpay.ClientConfig{BaseURL: srv.URL, KeyID: keyID, KeySecret: keySecret, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const n = 230
	for i := range n {
		if _, err := sim.CreatePayment(razorpay.Payment{Amount: 10000 + int64(i), CreatedAt: 1768453200 + int64(i%50)},
			razorpaysim.PaymentOptions{Lose: true}); err != nil {
			t.Fatal(err)
		}
	}
	linked, _ := sim.CreatePayment(razorpay.Payment{Amount: 354000, Notes: razorpay.Notes{"invoice": "INV-9"}, CreatedAt: 1768453100},
		razorpaysim.PaymentOptions{Lose: true, Link: true, LinkReferenceID: "ACC-PRQ-9", Receipt: "INV-9"})
	auth, _ := sim.CreatePayment(razorpay.Payment{Amount: 7000, Status: "authorized", CreatedAt: 1768453000}, razorpaysim.PaymentOptions{Lose: true})

	t.Run("ListPaymentsPagesPastOneHundred", func(t *testing.T) {
		seen := map[string]bool{}
		err := c.ListPayments(ctx, time.Unix(1768453200, 0), time.Unix(1768453300, 0), func(p *razorpay.Payment) error {
			if seen[p.ID] {
				t.Errorf("%s passed twice", p.ID)
			}
			seen[p.ID] = true
			return nil
		})
		if err != nil || len(seen) != n {
			t.Fatalf("listed %d of %d: %v", len(seen), n, err)
		}
	})
	t.Run("GetAndOrder", func(t *testing.T) {
		p, err := c.GetPayment(ctx, linked.ID)
		if err != nil || p.Amount != 354000 || p.Notes["invoice"] != "INV-9" || p.Fee == nil {
			t.Fatalf("GetPayment: %v %+v", err, p)
		}
		o, err := c.GetOrder(ctx, p.OrderID)
		if err != nil || o.Receipt != "INV-9" || o.Status != "paid" {
			t.Fatalf("GetOrder: %v %+v", err, o)
		}
		ps, err := c.ListOrderPayments(ctx, p.OrderID)
		if err != nil || len(ps) != 1 || ps[0].ID != p.ID {
			t.Fatalf("ListOrderPayments: %v %+v", err, ps)
		}
		state := sim.State()
		l, err := c.GetPaymentLink(ctx, state.PaymentLinks[0].ID)
		if err != nil || l.ReferenceID != "ACC-PRQ-9" || l.Status != "paid" {
			t.Fatalf("GetPaymentLink: %v %+v", err, l)
		}
	})
	t.Run("Refunds", func(t *testing.T) {
		r1, err := sim.CreateRefund(razorpay.Refund{PaymentID: linked.ID, Amount: 1000}, razorpaysim.RefundOptions{Lose: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sim.CreateRefund(razorpay.Refund{PaymentID: linked.ID, Amount: 2000}, razorpaysim.RefundOptions{Lose: true, Final: "failed"}); err != nil {
			t.Fatal(err)
		}
		got, err := c.GetRefund(ctx, r1.ID)
		if err != nil || got.Status != "processed" || got.AcquirerData["arn"] == "" {
			t.Fatalf("GetRefund: %v %+v", err, got)
		}
		rs, err := c.ListPaymentRefunds(ctx, linked.ID)
		if err != nil || len(rs) != 2 {
			t.Fatalf("ListPaymentRefunds: %v %d", err, len(rs))
		}
		count := 0
		if err := c.ListRefunds(ctx, time.Time{}, time.Time{}, func(*razorpay.Refund) error { count++; return nil }); err != nil || count != 2 {
			t.Fatalf("ListRefunds: %v %d", err, count)
		}
	})
	t.Run("Capture", func(t *testing.T) {
		if _, err := c.Capture(ctx, auth.ID, 6999, "INR"); err == nil || razorpay.Retryable(err) {
			t.Fatalf("capture with a wrong amount: %v", err)
		}
		p, err := c.Capture(ctx, auth.ID, 7000, "INR")
		if err != nil || p.Status != "captured" || !bool(p.Captured) {
			t.Fatalf("Capture: %v %+v", err, p)
		}
	})
	t.Run("UnknownIDIsNotFound", func(t *testing.T) {
		_, err := c.GetPayment(ctx, "pay_DoesNotExist01")
		if !razorpay.IsNotFound(err) || razorpay.Retryable(err) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("WrongSecretIsAuthFault", func(t *testing.T) {
		bad, _ := razorpay.NewClient(razorpay.ClientConfig{BaseURL: srv.URL, KeyID: keyID, KeySecret: "wrong-secret"})
		_, err := bad.GetPayment(ctx, linked.ID)
		if !razorpay.IsAuthFault(err) || strings.Contains(err.Error(), "wrong-secret") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("InjectedFaultsAreRetryable", func(t *testing.T) {
		sim.SetFaults(razorpaysim.Faults{FailNext: []int{429, 500, 502, 504}, RetryAfter: 2})
		for range 4 {
			_, err := c.GetPayment(ctx, linked.ID)
			if !razorpay.Retryable(err) {
				t.Errorf("err = %v, want retryable", err)
			}
		}
		if _, err := c.GetPayment(ctx, linked.ID); err != nil {
			t.Errorf("after faults: %v", err)
		}
	})
	t.Run("FailureMidListingIsReturned", func(t *testing.T) {
		// One good page, then a 503 for the second.
		calls := 0
		err := c.ListPayments(ctx, time.Time{}, time.Time{}, func(*razorpay.Payment) error {
			calls++
			if calls == 100 {
				sim.SetFaults(razorpaysim.Faults{FailNext: []int{503}})
			}
			return nil
		})
		if !razorpay.Retryable(err) || calls != 100 {
			t.Fatalf("err = %v after %d items", err, calls)
		}
	})
}

func TestGetDispute(t *testing.T) {
	t.Run("DecodesTheAPIAnswer", func(t *testing.T) {
		c := setup(t, func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || r.URL.Path != "/v1/disputes/disp_T3stDispChbk01" {
				t.Errorf("request %s %s", r.Method, r.URL.Path)
			}
			if id, secret, ok := r.BasicAuth(); !ok || id != keyID || secret != keySecret {
				t.Error("no basic auth")
			}
			_, _ = w.Write([]byte(`{"id":"disp_T3stDispChbk01","entity":"dispute","payment_id":"pay_T3stPayCard001",` +
				`"amount":98000,"currency":"INR","amount_deducted":98000,"reason_code":"fraud",` +
				`"reason_description":"The cardholder does not recognise the payment.","respond_by":1771045200,` +
				`"status":"lost","phase":"chargeback","evidence":{"amount":98000,"summary":null,"others":[]},"created_at":1770181200}`))
		}, time.Second)
		d, err := c.GetDispute(context.Background(), "disp_T3stDispChbk01")
		if err != nil {
			t.Fatal(err)
		}
		want := razorpay.Dispute{ID: "disp_T3stDispChbk01", Entity: "dispute", PaymentID: "pay_T3stPayCard001",
			Amount: 98000, AmountDeducted: 98000, Currency: "INR", Status: "lost", Phase: "chargeback",
			ReasonCode: "fraud", ReasonDescription: "The cardholder does not recognise the payment.",
			RespondBy: 1771045200, CreatedAt: 1770181200}
		if *d != want {
			t.Errorf("dispute = %+v", d)
		}
	})
	t.Run("UnknownIDIsNotFound", func(t *testing.T) {
		c := setup(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"code":"BAD_REQUEST_ERROR","description":"The id provided does not exist","source":"business","step":"payment_initiation","reason":"input_validation_failed","metadata":{}}}`))
		}, time.Second)
		_, err := c.GetDispute(context.Background(), "disp_DoesNotExist1")
		if !razorpay.IsNotFound(err) || razorpay.Retryable(err) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("EmptyIDIsRefusedLocally", func(t *testing.T) {
		c := setup(t, func(http.ResponseWriter, *http.Request) { t.Error("request sent") }, time.Second)
		if _, err := c.GetDispute(context.Background(), " "); err == nil {
			t.Fatal("accepted")
		}
	})
	t.Run("ServerErrorIsRetryable", func(t *testing.T) {
		c := setup(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
		}, time.Second)
		if _, err := c.GetDispute(context.Background(), "disp_T3stDispChbk01"); !razorpay.Retryable(err) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestGetDisputeAgainstSimulator(t *testing.T) {
	sim := razorpaysim.New(razorpaysim.Options{KeyID: keyID, KeySecret: keySecret, Now: func() time.Time { return time.Unix(1770181200, 0) }})
	t.Cleanup(sim.Close)
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	c, err := razorpay.NewClient(razorpay.ClientConfig{BaseURL: srv.URL, KeyID: keyID, KeySecret: keySecret, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := sim.CreatePayment(razorpay.Payment{Amount: 118000}, razorpaysim.PaymentOptions{Lose: true})
	if err != nil {
		t.Fatal(err)
	}
	d, err := sim.CreateDispute(razorpay.Dispute{PaymentID: p.ID, Amount: 98000}, razorpaysim.DisputeOptions{Lose: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.GetDispute(ctx, d.ID)
	if err != nil || got.Status != "open" || got.PaymentID != p.ID || got.Amount != 98000 || got.AmountDeducted != 0 ||
		got.RespondBy != d.RespondBy || got.ReasonDescription == "" {
		t.Fatalf("GetDispute: %v %+v", err, got)
	}
	if _, err := sim.ResolveDispute(d.ID, "lost"); err != nil {
		t.Fatal(err)
	}
	if got, err = c.GetDispute(ctx, d.ID); err != nil || got.Status != "lost" || got.AmountDeducted != 98000 {
		t.Fatalf("after lost: %v %+v", err, got)
	}
	if _, err := c.GetDispute(ctx, "disp_DoesNotExist1"); !razorpay.IsNotFound(err) || razorpay.Retryable(err) {
		t.Fatalf("unknown id: %v", err)
	}
}

// TestShortSecretDoesNotMangleMessages: with the key secret "s" removed inside words, an
// unknown id would read "The id provided doe[redacted] not exi[redacted]t", and a transport
// error "http[redacted]://…". The client removes a secret only as a whole word, and still
// removes it when the server echoes it as one.
func TestShortSecretDoesNotMangleMessages(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"code":"BAD_REQUEST_ERROR","description":"The id provided does not exist; you sent s"}}`))
	}))
	t.Cleanup(srv.Close)
	c, err := razorpay.NewClient(razorpay.ClientConfig{BaseURL: srv.URL, KeyID: "rzp_test_x", KeySecret: "s"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.GetOrder(context.Background(), "order_T3stOrdNetb001")
	if want := "400 BAD_REQUEST_ERROR: The id provided does not exist; you sent [redacted]"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want it to contain %q", err, want)
	}
	srv.Close() // now a transport error, whose URL holds an "s" in every word
	_, err = c.GetOrder(context.Background(), "order_T3stOrdNetb001")
	if want := srv.URL + "/v1/orders/order_T3stOrdNetb001"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want it to contain %q", err, want)
	}
}

// TestLongRetryAfterIsCapped: a 429 with `Retry-After: 86400` pauses the client for
// ClientConfig.MaxRetryAfter (5 min by default), not a day.
func TestLongRetryAfterIsCapped(t *testing.T) {
	c := setup(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "86400")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"error":{"code":"BAD_REQUEST_ERROR","description":"Too many requests"}}`))
	}, time.Second)
	_, err := c.GetPayment(context.Background(), "pay_CAP0000000001")
	var e *razorpay.APIError
	if !errors.As(err, &e) || !razorpay.IsThrottled(err) || razorpay.RetryAfter(err) != 5*time.Minute || e.RetryAfterAsked != 24*time.Hour {
		t.Fatalf("err %v (%+v): want throttled, RetryAfter 5m, asked 24h", err, e)
	}
	if st := c.Throttle(); time.Until(st.Until) > 5*time.Minute+time.Second || st.Capped != 1 {
		t.Fatalf("state %+v: want a pause of at most 5 min, capped 1", st)
	}
}
