package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// benchBody is a compact payment.captured as Razorpay sends it.
var benchBody = []byte(`{"entity":"event","account_id":"acc_T3stAcc0unt001","event":"payment.captured","contains":["payment"],"payload":{"payment":{"entity":{"id":"pay_T3stBench00001","entity":"payment","amount":118000,"currency":"INR","status":"captured","notes":{"invoice":"ACC-SINV-2026-00001"},"fee":2360,"tax":360,"created_at":1768453200}}},"created_at":1768453205}`)

// BenchmarkIntake measures one accepted webhook end to end inside the process: read, verify the
// signature (two secrets), parse, insert into the SQLite inbox, answer 200. Razorpay's 5 s
// deadline is the budget; a merchant's peak is a few events a second.
func BenchmarkIntake(b *testing.B) {
	db, err := store.Open(context.Background(), "sqlite", filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(context.Background()); err != nil {
		b.Fatal(err)
	}
	h := newIntake(b, db)
	body := benchBody
	sig := razorpay.Sign(secretOld, body) // the second configured secret: both are tried
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest(http.MethodPost, "/webhooks/razorpay", strings.NewReader(string(body)))
		req.Header.Set("X-Razorpay-Signature", sig)
		req.Header.Set("X-Razorpay-Event-Id", fmt.Sprintf("E%013d", i))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}

// BenchmarkIntakeCost is BenchmarkIntake with the store in memory: what intake itself costs
// per webhook (headers, read, two HMACs, parse, metrics, answer), without the database's
// commit, which the floor server pays as well.
func BenchmarkIntakeCost(b *testing.B) {
	h := newIntake(b, &memStore{rows: map[[2]string]connector.InboxEvent{}})
	body := benchBody
	sig := razorpay.Sign(secretOld, body)
	ids := make([]string, b.N)
	for i := range ids {
		ids[i] = fmt.Sprintf("E%013d", i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest(http.MethodPost, "/webhooks/razorpay", bytes.NewReader(body))
		req.Header.Set("X-Razorpay-Signature", sig)
		req.Header.Set("X-Razorpay-Event-Id", ids[i])
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}
