package frappe_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

var simNow = time.Date(2026, 11, 30, 6, 26, 0, 0, time.UTC)

// simSite is an erpnextsim site with Test Customer and n submitted invoices of 1000.00.
func simSite(t *testing.T, n int, opt erpnextsim.Options) (*erpnextsim.Site, string) {
	t.Helper()
	opt.APIKey, opt.APISecret = testKey, testSecret
	opt.Now = func() time.Time { return simNow }
	site := erpnextsim.New(opt)
	if err := site.AddCustomer("Test Customer"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if _, err := site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", DueDate: "2026-12-30", Submit: true,
			Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "1000.00"}}}); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(site)
	t.Cleanup(srv.Close)
	return site, srv.URL
}

func receipt(invoice, ref string) map[string]any {
	return map[string]any{"payment_type": "Receive", "party_type": "Customer", "party": "Test Customer",
		"paid_to": erpnextsim.RazorpayClearing, "paid_amount": 1000, "received_amount": 1000, "reference_no": ref, "reference_date": "2026-11-30",
		"references": []any{map[string]any{"reference_doctype": "Sales Invoice", "reference_name": invoice, "allocated_amount": 1000}}}
}

// TestClassifyAgainstSimulator drives every error class through the real client and simulator.
func TestClassifyAgainstSimulator(t *testing.T) {
	ctx := context.Background()
	site, url := simSite(t, 3, erpnextsim.Options{Users: []erpnextsim.User{{Email: "limited@example.com", Key: "LIMKEY", Secret: "LIMSECRET", Roles: []string{erpnextsim.RoleSalesUser}}}})
	c := newClient(t, frappe.Config{URL: url})
	insert := func(doc map[string]any) error { return c.Insert(ctx, frappe.DoctypePaymentEntry, doc, nil) }
	list := func() error {
		var rows []map[string]any
		return c.List(ctx, frappe.DoctypeSalesInvoice, frappe.ListOptions{}, &rows)
	}
	cases := []struct {
		name  string
		setup func()
		call  func() error
		write bool
		want  frappe.Class
		check func(t *testing.T, err error)
	}{
		{name: "Success", call: list, want: frappe.ClassNone},
		{name: "RateLimitedIsThrottled", setup: func() { site.FailNext(1, 429) }, call: list, want: frappe.ClassThrottled,
			check: func(t *testing.T, err error) {
				if frappe.RetryAfter(err) != time.Second {
					t.Errorf("RetryAfter = %v", frappe.RetryAfter(err))
				}
			}},
		{name: "DeadlockIsRetry", setup: func() { site.FailNext(1, 500) }, call: func() error { return insert(receipt("ACC-SINV-2026-00001", "pay_d")) }, write: true, want: frappe.ClassRetry},
		{name: "LockTimeoutIsRetry", setup: func() { site.FailNextWith(1, erpnextsim.FaultQueryTimeout) }, call: func() error { return insert(receipt("ACC-SINV-2026-00001", "pay_t")) }, write: true, want: frappe.ClassRetry},
		{name: "GatewayPageOnWriteIsAmbiguous", setup: func() { site.FailNext(1, 502) }, call: func() error { return insert(receipt("ACC-SINV-2026-00001", "pay_g")) }, write: true, want: frappe.ClassAmbiguous},
		{name: "MaintenanceOnReadIsRetry", setup: func() { site.FailNext(1, 503) }, call: list, want: frappe.ClassRetry},
		{name: "CommittedThenDroppedIsAmbiguous", setup: func() { site.DropResponseAfterCommit(1) }, call: func() error { return insert(receipt("ACC-SINV-2026-00002", "pay_x")) }, write: true, want: frappe.ClassAmbiguous,
			check: func(t *testing.T, err error) {
				var rows []map[string]any
				if err := c.List(ctx, frappe.DoctypePaymentEntry, frappe.ListOptions{Filters: []frappe.Filter{{"reference_no", "=", "pay_x"}}}, &rows); err != nil || len(rows) != 1 {
					t.Errorf("the dropped write was not committed: %v %v", rows, err)
				}
			}},
		{name: "TimeoutOnWriteIsAmbiguous", setup: func() { site.CommitLate(1, 400*time.Millisecond) },
			call: func() error {
				short := newClient(t, frappe.Config{URL: url, Timeout: 100 * time.Millisecond})
				return short.Insert(ctx, frappe.DoctypePaymentEntry, receipt("ACC-SINV-2026-00003", "pay_late"), nil)
			}, write: true, want: frappe.ClassAmbiguous},
		{name: "WrongSecretIsAuth", call: func() error {
			var rows []map[string]any
			return newClient(t, frappe.Config{URL: url, APISecret: "wrong-secret"}).List(ctx, frappe.DoctypeSalesInvoice, frappe.ListOptions{}, &rows)
		}, want: frappe.ClassAuth},
		{name: "RoleMissingIsAuth", call: func() error {
			var rows []map[string]any
			return newClient(t, frappe.Config{URL: url, APIKey: "LIMKEY", APISecret: "LIMSECRET"}).List(ctx, frappe.DoctypePaymentEntry, frappe.ListOptions{}, &rows)
		}, want: frappe.ClassAuth},
		{name: "UnknownDocumentIsNotFound", call: func() error {
			var si frappe.SalesInvoice
			return c.Get(ctx, frappe.DoctypeSalesInvoice, "ACC-SINV-2026-99999", &si)
		}, want: frappe.ClassNotFound},
		{name: "DuplicateNameIsConflict", call: func() error {
			doc := receipt("ACC-SINV-2026-00001", "pay_n")
			doc["name"] = "pay_N1"
			if err := insert(doc); err != nil {
				return fmt.Errorf("first insert: %w", err)
			}
			return insert(doc)
		}, write: true, want: frappe.ClassConflict},
		{name: "StaleModifiedIsRetry", call: func() error {
			var pe frappe.PaymentEntry
			doc := receipt("ACC-SINV-2026-00001", "pay_s")
			if err := c.Insert(ctx, frappe.DoctypePaymentEntry, doc, &pe); err != nil {
				return err
			}
			return c.Update(ctx, frappe.DoctypePaymentEntry, pe.Name, map[string]any{"remarks": "x", "modified": "2026-01-01 00:00:00.000000"}, nil)
		}, write: true, want: frappe.ClassRetry,
			check: func(t *testing.T, err error) {
				var fe *frappe.Error
				if !errors.As(err, &fe) || fe.ExcType != "TimestampMismatchError" {
					t.Errorf("err = %v", err)
				}
			}},
		{name: "ValidationIsRejected", call: func() error {
			doc := receipt("ACC-SINV-2026-00001", "pay_v")
			doc["references"].([]any)[0].(map[string]any)["allocated_amount"] = 5000
			return insert(doc)
		}, write: true, want: frappe.ClassRejected,
			check: func(t *testing.T, err error) {
				var fe *frappe.Error
				if !errors.As(err, &fe) || fe.Message() != "Row #1: Allocated Amount cannot be greater than outstanding amount." {
					t.Errorf("err = %v", err)
				}
			}},
		{name: "UnknownSiteIsAuth", call: func() error {
			var rows []map[string]any
			return newClient(t, frappe.Config{URL: url + "/not-api"}).List(ctx, frappe.DoctypeSalesInvoice, frappe.ListOptions{}, &rows)
		}, want: frappe.ClassAuth},
		{name: "ConnectionRefusedIsRetry", call: func() error {
			srv := httptest.NewServer(nil)
			dead := srv.URL
			srv.Close()
			return newClient(t, frappe.Config{URL: dead}).Insert(ctx, frappe.DoctypePaymentEntry, receipt("x", "y"), nil)
		}, write: true, want: frappe.ClassRetry},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup()
			}
			err := tc.call()
			if got := frappe.Classify(err, tc.write); got != tc.want {
				t.Fatalf("Classify(%v, %v) = %v, want %v", err, tc.write, got, tc.want)
			}
			if tc.check != nil {
				tc.check(t, err)
			}
		})
	}
}

// TestListAllPagesInOrder: ListAll always sends order_by (a list without one has no ORDER BY,
// and rows added while paging shift the pages) and returns each invoice once, in order.
func TestListAllPagesInOrder(t *testing.T) {
	_, url := simSite(t, 45, erpnextsim.Options{})
	c := newClient(t, frappe.Config{URL: url})
	ctx := context.Background()
	var all []frappe.SalesInvoice
	if err := c.ListAll(ctx, frappe.DoctypeSalesInvoice, frappe.ListOptions{Fields: []string{"name", "outstanding_amount"}, Limit: 10}, &all); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, si := range all {
		if want := fmt.Sprintf("ACC-SINV-2026-%05d", i+1); si.Name != want || si.OutstandingAmount != "1000.0" {
			t.Fatalf("row %d = %+v, want %s", i, si, want)
		}
		seen[si.Name] = true
	}
	if len(all) != 45 || len(seen) != 45 {
		t.Fatalf("%d rows, %d distinct, want 45", len(all), len(seen))
	}
	var empty []map[string]any
	if err := c.ListAll(ctx, frappe.DoctypeSalesInvoice, frappe.ListOptions{Filters: []frappe.Filter{{"customer", "=", "Nobody"}}}, &empty); err != nil || empty == nil || len(empty) != 0 {
		t.Fatalf("empty ListAll = %v, %v", empty, err)
	}
	if err := c.ListAll(ctx, frappe.DoctypeSalesInvoice, frappe.ListOptions{}, empty); err == nil {
		t.Fatal("non-pointer out accepted")
	}
}
