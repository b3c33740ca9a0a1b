package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
)

// echoServer answers every request with an error whose text repeats the request's headers and
// body, the worst a misconfigured ERPNext (417 with _server_messages) or Razorpay can do.
func echoServer(t *testing.T, frappeShape bool) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		echo := fmt.Sprintf("you sent %s %s headers %v body %s", r.Method, r.URL, r.Header, b)
		w.Header().Set("Content-Type", "application/json")
		if frappeShape {
			inner, _ := json.Marshal(map[string]any{"message": echo, "indicator": "red", "raise_exception": 1})
			outer, _ := json.Marshal([]string{string(inner)})
			w.WriteHeader(http.StatusExpectationFailed)
			_ = json.NewEncoder(w).Encode(map[string]any{"exc_type": "ValidationError", "exception": "frappe.exceptions.ValidationError: " + echo,
				"_server_messages": string(outer), "_error_message": echo})
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": "BAD_REQUEST_ERROR", "description": echo}})
	}))
	t.Cleanup(s.Close)
	return s
}

// No configured secret or token appears in logs, HTTP responses, the store's reasons or CLI
// output, even when ERPNext and Razorpay echo the request (DESIGN.md §2 invariant 5).
func TestSecretsNeverLeave(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	erp, rzp := echoServer(t, true), echoServer(t, false)
	cfg := e.config()
	cfg.ERPNext.URL = erp.URL
	cfg.Razorpay.APIURL = rzp.URL
	cfg.Razorpay.KeyID, cfg.Razorpay.KeySecret = "rzp_test_key", "rzp-key-secret-DO-NOT-LOG"
	cfg.AdminToken = "admin-token-DO-NOT-LOG"
	cfg.Mapping.CommentOnPark = true
	d := e.start(cfg)

	var seen strings.Builder
	for i, ev := range []string{"payment.captured", "order.paid"} {
		code, resp := e.deliver(d, fmt.Sprintf("T3stEvSecret0%d", i), e.payment(ev, "pay_T3stSecret0001", 1200000, nil))
		fmt.Fprintf(&seen, "%d %s\n", code, resp)
	}
	// A refund is re-fetched from Razorpay before it is acted on: the echoing Razorpay server
	// then puts the request (with its Basic credentials) into the error the connector keeps.
	refund := envelope(t, "refund.processed", "refund", refundEntity("rfnd_T3stSecret001", "pay_T3stSecret0001", 100, "processed"),
		"payment", capture("pay_T3stSecret0001", 1200000, nil))
	code, resp := e.deliver(d, "T3stEvSecret02", refund)
	fmt.Fprintf(&seen, "%d %s\n", code, resp)
	_, resp = post(t, "http://"+d.pub.Addr().String()+cfg.WebhookPath, "T3stEvtSecretX", "wrong", []byte(`{}`))
	seen.WriteString(resp)
	// Every event has been through the worker (its reason is set) before anything is read.
	for _, key := range []string{"T3stEvSecret00", "T3stEvSecret01", "T3stEvSecret02"} {
		testtime.Until(t, "event "+key+" processed", func() bool {
			rows, _ := d.db.FindEvents(context.Background(), key)
			return len(rows) == 1 && rows[0].LastError != "" && rows[0].Status != connector.StatusProcessing
		})
	}
	if rows, _ := d.db.FindEvents(context.Background(), "rfnd_T3stSecret001"); len(rows) != 1 || !strings.Contains(rows[0].LastError, "you sent") {
		t.Fatalf("the Razorpay echo never reached the refund's reason, so this test proves nothing about it: %+v", rows)
	}
	seen.WriteString(getMetrics(t, d))
	for _, p := range []string{"/readyz", "/healthz"} {
		r, err := http.Get("http://" + d.adm.Addr().String() + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		seen.Write(b)
	}
	path, envs := e.writeConfig(cfg, "")
	envs["RZK"], envs["RZS"] = cfg.Razorpay.KeyID, cfg.Razorpay.KeySecret
	for _, args := range [][]string{{"events", "show", "pay_T3stSecret0001", "--json"}, {"events", "list"}, {"check"}} {
		_, out, errs := run(t, envs, append(args, "--config", path)...)
		seen.WriteString(out + errs)
	}
	for _, key := range []string{"pay_T3stSecret0001", "rfnd_T3stSecret001"} {
		rows, _ := d.db.FindEvents(context.Background(), key)
		for _, r := range rows {
			seen.WriteString(r.LastError)
		}
	}
	if !strings.Contains(seen.String(), "you sent") && !strings.Contains(e.logs.String(), "you sent") {
		t.Fatalf("the echo never reached a reason or a log line; the test proves nothing\n%s", seen.String())
	}
	secrets := map[string]string{"ERPNext API secret": testSecret, "ERPNext API key": testKey, "webhook secret": testWebhook,
		"admin token": cfg.AdminToken, "Razorpay key secret": cfg.Razorpay.KeySecret,
		"Razorpay basic auth": base64.StdEncoding.EncodeToString([]byte(cfg.Razorpay.KeyID + ":" + cfg.Razorpay.KeySecret)),
		"ERPNext token":       testKey + ":" + testSecret}
	for what, s := range secrets {
		if strings.Contains(e.logs.String(), s) {
			t.Errorf("the logs contain the %s", what)
		}
		if strings.Contains(seen.String(), s) {
			t.Errorf("a response, reason or command output contains the %s", what)
		}
	}
}
