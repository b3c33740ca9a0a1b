package frappe_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
)

// A 2xx answer that cannot be read is a DecodeError: ambiguous for a write (the site said
// success, the entry may exist), a retry for a read — never a refusal to park on.
func TestUndecodableSuccessIsAmbiguousForWrites(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"unexpected": true}`))
	}))
	defer srv.Close()
	c, err := frappe.New(frappe.Config{URL: srv.URL, APIKey: "k", APISecret: "s"})
	if err != nil {
		t.Fatal(err)
	}
	var out frappe.PaymentEntry
	err = c.Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{"x": 1}, &out)
	var de *frappe.DecodeError
	if !errors.As(err, &de) || de.Status != 200 {
		t.Fatalf("err %v, want *frappe.DecodeError for a 200", err)
	}
	if got := frappe.Classify(err, true); got != frappe.ClassAmbiguous {
		t.Errorf("write: %v, want ClassAmbiguous", got)
	}
	err = c.Get(context.Background(), frappe.DoctypePaymentEntry, "ACC-PAY-2026-00001", &out)
	if got := frappe.Classify(err, false); got != frappe.ClassRetry {
		t.Errorf("read: %v, want ClassRetry", got)
	}
}
