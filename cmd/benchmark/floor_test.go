package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// The floor server does what intake must do at the least: refuse a bad signature, store a
// new event, answer a repeated one as a duplicate.
func TestFloorStoresOnceAndRefusesBadSignatures(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, store.DriverSQLite, filepath.Join(t.TempDir(), "floor.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	stmt, err := s.SQL().PrepareContext(ctx, inboxInsert+` ON CONFLICT (account_id, event_id) DO NOTHING`)
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	srv := httptest.NewServer(&floor{secret: []byte("whsec"), stmt: stmt, driver: store.DriverSQLite})
	defer srv.Close()
	co := newCorpus("Fl00r", "whsec", 1)
	id, body, sig := co.delivery(0)
	client := srv.Client()
	for _, c := range []struct {
		sig  string
		want outcome
	}{{sig, outAccepted}, {sig, outDuplicate}, {razorpay.Sign("other", body), outStatus}, {"", outStatus}} {
		if got := post(ctx, client, srv.URL, id, body, c.sig); got != c.want {
			t.Fatalf("signature %q: outcome %d; want %d", c.sig, got, c.want)
		}
	}
	if err := checkRows(ctx, s.SQL().DB, 1, 0); err != nil {
		t.Fatal(err)
	}
	var stored []byte
	if err := s.SQL().GetContext(ctx, &stored, `SELECT raw_body FROM inbox WHERE event_id = ?`, id); err != nil || string(stored) != string(body) {
		t.Fatalf("stored body %q, %v", stored, err)
	}
	resp, err := client.Post(srv.URL, "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no signature: %d; want 401", resp.StatusCode)
	}
}
