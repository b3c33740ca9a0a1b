package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/httpapi"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/wire"
)

// The admin listener: /metrics behind admin_token (compared whole, never echoed), the probes
// open; the public listener's /healthz.
func TestAdminTokenGuardsMetricsOnly(t *testing.T) {
	c, err := wire.New(wire.Options{Config: intakeConfig(), Store: sqliteStore(t), Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	const token = "admin-token-DO-NOT-LOG"
	admin := httpapi.Admin(c, c.Metrics(), token)
	for _, tc := range []struct {
		path, auth string
		want       int
	}{
		{"/metrics", "", http.StatusUnauthorized},
		{"/metrics", "Bearer wrong", http.StatusUnauthorized},
		{"/metrics", "Bearer " + token + "x", http.StatusUnauthorized},
		{"/metrics", "Bearer " + token, http.StatusOK},
		{"/readyz", "", http.StatusOK},
		{"/healthz", "", http.StatusOK},
	} {
		req := httptest.NewRequest(http.MethodGet, tc.path, nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		w := httptest.NewRecorder()
		admin.ServeHTTP(w, req)
		if w.Code != tc.want {
			t.Errorf("%s with %q: %d, want %d", tc.path, tc.auth, w.Code, tc.want)
		}
		if strings.Contains(w.Body.String(), token) {
			t.Errorf("%s repeats the token", tc.path)
		}
		if w.Code == http.StatusUnauthorized && w.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("%s: 401 without WWW-Authenticate", tc.path)
		}
	}
	w := httptest.NewRecorder()
	admin.ServeHTTP(w, withAuth(httptest.NewRequest(http.MethodGet, "/metrics", nil), token))
	if !strings.Contains(w.Body.String(), connector.MetricWebhooks) && !strings.Contains(w.Body.String(), connector.MetricStoreUp) {
		t.Errorf("/metrics lacks the connector's series:\n%.500s", w.Body.String())
	}
	w = httptest.NewRecorder()
	httpapi.Public(c.Intake(), "/webhooks/razorpay").ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if w.Code != http.StatusOK || strings.TrimSpace(w.Body.String()) != `{"status":"ok"}` {
		t.Errorf("/healthz %d %s", w.Code, w.Body)
	}
	w = httptest.NewRecorder()
	httpapi.Admin(c, c.Metrics(), "").ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if w.Code != http.StatusOK {
		t.Errorf("/metrics without a configured token: %d, want open", w.Code)
	}
}

func withAuth(r *http.Request, token string) *http.Request {
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}
