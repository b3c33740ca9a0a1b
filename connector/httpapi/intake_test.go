package httpapi_test

import (
	"context"
	"fmt"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/wire"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/sharedtest"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/config"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/httpapi"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/intake"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

const (
	secretNew = "whsec-new-rotation"
	secretOld = "whsec-old-rotation"
)

func intakeConfig() connector.Config {
	cfg := config.Defaults()
	cfg.Razorpay.WebhookSecrets = []string{secretNew, secretOld}
	cfg.Razorpay.AccountID = "acc_T3stAcc0unt001"
	cfg.ERPNext.URL = "http://127.0.0.1:1"
	cfg.ERPNext.APIKey, cfg.ERPNext.APISecret = "k", "s"
	cfg.Mapping.Company = "Example Company"
	return cfg
}

func newIntake(t testing.TB, s connector.Store) http.Handler {
	t.Helper()
	c, err := wire.New(wire.Options{Config: intakeConfig(), Store: s, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	return httpapi.Public(c.Intake(), "/webhooks/razorpay")
}

func sqliteStore(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), "sqlite", filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func send(h http.Handler, method, eventID, sig string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "/webhooks/razorpay", strings.NewReader(string(body)))
	if eventID != "" {
		req.Header.Set("X-Razorpay-Event-Id", eventID)
	}
	if sig != "" {
		req.Header.Set("X-Razorpay-Signature", sig)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func readSample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedtest.Dir(t, "reference", "razorpay-payloads"), name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func total(t testing.TB, s connector.Store) int {
	t.Helper()
	c, err := s.CountByStatus(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

func TestIntake(t *testing.T) {
	body := readSample(t, "payment.captured.json")
	t.Run("AcceptedThenDuplicate", func(t *testing.T) {
		s := sqliteStore(t)
		h := newIntake(t, s)
		w := send(h, http.MethodPost, "T3stEvtCapNb01", razorpay.Sign(secretNew, body), body)
		if w.Code != 200 || strings.TrimSpace(w.Body.String()) != `{"status":"accepted"}` {
			t.Fatalf("first: %d %s", w.Code, w.Body)
		}
		w = send(h, http.MethodPost, "T3stEvtCapNb01", razorpay.Sign(secretNew, body), body)
		if w.Code != 200 || strings.TrimSpace(w.Body.String()) != `{"status":"duplicate"}` {
			t.Fatalf("second: %d %s", w.Code, w.Body)
		}
		rows, err := s.FindEvents(context.Background(), "pay_T3stPayNetb001")
		if err != nil || len(rows) != 1 {
			t.Fatalf("rows %v %v", rows, err)
		}
		r := rows[0]
		if r.AccountID != "acc_T3stAcc0unt001" || r.Event != "payment.captured" || r.Status != connector.StatusPending || string(r.RawBody) != string(body) {
			t.Errorf("stored row %+v", r)
		}
		if r.EventCreatedAt == nil || r.EventCreatedAt.Unix() != 1768454107 {
			t.Errorf("event created_at %v, want 1768454107", r.EventCreatedAt)
		}
	})
	t.Run("OldSecretStillVerifiesDuringRotation", func(t *testing.T) {
		s := sqliteStore(t)
		w := send(newIntake(t, s), http.MethodPost, "T3stEvtCapNb01", razorpay.Sign(secretOld, body), body)
		if w.Code != 200 {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
	})
	t.Run("BadSignatureIs401AndNotStored", func(t *testing.T) {
		s := sqliteStore(t)
		h := newIntake(t, s)
		altered := append([]byte{}, body...)
		altered[len(altered)/2] ^= 0x01
		cases := map[string]*httptest.ResponseRecorder{
			"missing":     send(h, http.MethodPost, "E1", "", body),
			"wrong key":   send(h, http.MethodPost, "E2", razorpay.Sign("someone-else", body), body),
			"one byte":    send(h, http.MethodPost, "E3", razorpay.Sign(secretNew, body), altered),
			"empty key":   send(h, http.MethodPost, "E4", razorpay.Sign("", body), body),
			"not hex sig": send(h, http.MethodPost, "E5", "zz", body),
		}
		for name, w := range cases {
			if w.Code != http.StatusUnauthorized {
				t.Errorf("%s: %d, want 401", name, w.Code)
			}
			if strings.Contains(w.Body.String(), secretNew) {
				t.Errorf("%s: response carries the secret", name)
			}
		}
		if n := total(t, s); n != 0 {
			t.Errorf("%d rows stored after refused webhooks, want 0", n)
		}
	})
	t.Run("MissingEventIDIs400", func(t *testing.T) {
		s := sqliteStore(t)
		w := send(newIntake(t, s), http.MethodPost, "", razorpay.Sign(secretNew, body), body)
		if w.Code != http.StatusBadRequest || total(t, s) != 0 {
			t.Fatalf("%d, rows %d; want 400 and nothing stored", w.Code, total(t, s))
		}
	})
	t.Run("OverOneMiBIs413", func(t *testing.T) {
		s := sqliteStore(t)
		big := make([]byte, intake.MaxWebhookBody+1)
		for i := range big {
			big[i] = ' '
		}
		w := send(newIntake(t, s), http.MethodPost, "E1", razorpay.Sign(secretNew, big), big)
		if w.Code != http.StatusRequestEntityTooLarge || total(t, s) != 0 {
			t.Fatalf("%d, want 413 and nothing stored", w.Code)
		}
	})
	t.Run("EscapedBytesVerifyWithoutReencoding", func(t *testing.T) {
		s := sqliteStore(t)
		raw := []byte(`{"entity":"event","account_id":"acc_T3stAcc0unt001","event":"payment.captured","contains":["payment"],"payload":{"payment":{"entity":{"id":"pay_T3stEscape0001","entity":"payment","amount":100,"currency":"INR","status":"captured","description":"https:\/\/shop.example.com\/a?b=1\u0026c=2","notes":{"invoice":"A\/B"},"created_at":1768453200}}},"created_at":1768453200}`)
		w := send(newIntake(t, s), http.MethodPost, "T3stEvtEsc0001", razorpay.Sign(secretNew, raw), raw)
		if w.Code != 200 {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		rows, _ := s.FindEvents(context.Background(), "pay_T3stEscape0001")
		if len(rows) != 1 || string(rows[0].RawBody) != string(raw) {
			t.Fatalf("raw bytes not stored as received: %v", rows)
		}
	})
	t.Run("VerifiedButUnparseableIsStoredDead", func(t *testing.T) {
		s := sqliteStore(t)
		raw := []byte(`["not","an","event"]`)
		w := send(newIntake(t, s), http.MethodPost, "T3stEvtBad0001", razorpay.Sign(secretNew, raw), raw)
		if w.Code != 200 {
			t.Fatalf("%d, want 200", w.Code)
		}
		rows, _ := s.FindEvents(context.Background(), "T3stEvtBad0001")
		if len(rows) != 1 || rows[0].Status != connector.StatusDead || !strings.Contains(rows[0].LastError, "does not parse") {
			t.Fatalf("rows %+v, want one dead row with the reason", rows)
		}
	})
	t.Run("GetIs405", func(t *testing.T) {
		w := send(newIntake(t, sqliteStore(t)), http.MethodGet, "", "", nil)
		if w.Code != http.StatusMethodNotAllowed {
			t.Fatalf("%d", w.Code)
		}
	})
	t.Run("StoreDownIs503", func(t *testing.T) {
		db, err := store.Open(context.Background(), "mysql", "root:pw-DO-NOT-LEAK@tcp(127.0.0.1:1)/razorpay_erpnext?parseTime=true&timeout=1s")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		w := send(newIntake(t, db), http.MethodPost, "T3stEvtCapNb01", razorpay.Sign(secretNew, body), body)
		if w.Code != http.StatusServiceUnavailable {
			t.Fatalf("%d %s, want 503", w.Code, w.Body)
		}
		if strings.Contains(w.Body.String(), "pw-DO-NOT-LEAK") {
			t.Error("response leaks the DSN password")
		}
	})
}

// readOnlyStore answers reads but refuses every write, as a full disk or a read-only file does.
type readOnlyStore struct{ connector.Store }

func (readOnlyStore) AcquireLock(context.Context, string, string, time.Time, time.Time) (bool, error) {
	return false, fmt.Errorf("%w: attempt to write a readonly database", connector.ErrStoreUnavailable)
}

// /readyz is 503 when the store answers but cannot be written: webhooks would all get 503.
func TestReadyzNeedsAWritableStore(t *testing.T) {
	db := sqliteStore(t)
	for _, tc := range []struct {
		name  string
		store connector.Store
		want  int
	}{{"Writable", db, http.StatusOK}, {"ReadOnly", readOnlyStore{db}, http.StatusServiceUnavailable}} {
		c, err := wire.New(wire.Options{Config: intakeConfig(), Store: tc.store, Log: zerolog.Nop()})
		if err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		httpapi.Admin(c, c.Metrics(), "").ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		if w.Code != tc.want {
			t.Errorf("%s: /readyz %d %s, want %d", tc.name, w.Code, w.Body, tc.want)
		}
	}
}
