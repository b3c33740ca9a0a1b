package httpapi_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/sharedtest"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// FuzzWebhook: any body and X-Razorpay-Event-Id header, signed with the test secret or not, is
// answered 200, 400, 401 or 413 (never a 5xx, never a panic), and a row with that event id is
// in the inbox exactly when the answer is 200 (accepted, or a duplicate of one stored before).
func FuzzWebhook(f *testing.F) {
	dir := sharedtest.Dir(f, "reference", "razorpay-payloads")
	samples, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(samples) == 0 {
		f.Fatalf("sample payloads: %v", err)
	}
	for _, p := range samples {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "T3stEvtFuzz001", true)
	}
	for _, tc := range edgeCases() {
		if len(tc.body) <= 64<<10 {
			f.Add(tc.body, tc.eventID, tc.sig == "")
		}
	}
	f.Add([]byte("{}"), " T3stEvtFuzz002 ", true)
	f.Add([]byte("{}"), "reconcile:pay_T3stFuzz000001", true)
	s := &memStore{rows: map[[2]string]connector.InboxEvent{}}
	h := newIntake(f, s)
	f.Fuzz(func(t *testing.T, body []byte, eventID string, signed bool) {
		sig := ""
		if signed {
			sig = razorpay.Sign(secretNew, body)
		}
		before := total(t, s)
		w := send(h, http.MethodPost, eventID, sig, body)
		after := total(t, s)
		switch w.Code {
		case http.StatusOK:
			rows, err := s.FindEvents(context.Background(), strings.TrimSpace(eventID))
			if err != nil || len(rows) == 0 || after-before > 1 {
				t.Fatalf("200 %s but %d rows of %q (%d new), %v", w.Body, len(rows), eventID, after-before, err)
			}
		case http.StatusBadRequest, http.StatusUnauthorized, http.StatusRequestEntityTooLarge:
			if after != before {
				t.Fatalf("%d %s but %d rows stored", w.Code, w.Body, after-before)
			}
		default:
			t.Fatalf("status %d %s for a client's request", w.Code, w.Body)
		}
	})
}

// memStore is the part of connector.Store intake uses, in memory, so the fuzzer spends its time
// on intake rather than on disk flushes (the edge table runs the same cases on both real
// stores). Rows are keyed by (account id, event id) as the inbox is.
type memStore struct {
	connector.Store
	mu   sync.Mutex
	rows map[[2]string]connector.InboxEvent
}

func (m *memStore) InsertEvent(_ context.Context, e *connector.InboxEvent) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{e.AccountID, e.EventID}
	if _, ok := m.rows[k]; ok {
		return false, nil
	}
	m.rows[k] = *e
	return true, nil
}

func (m *memStore) CountByStatus(context.Context) (map[connector.Status]int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[connector.Status]int{}
	for _, r := range m.rows {
		out[r.Status]++
	}
	return out, nil
}

func (m *memStore) FindEvents(_ context.Context, key string) ([]connector.InboxEvent, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []connector.InboxEvent
	for _, r := range m.rows {
		if r.EventID == key || r.BusinessKey == key {
			out = append(out, r)
		}
	}
	return out, nil
}
