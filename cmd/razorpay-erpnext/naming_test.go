package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// newEnvVersion is newEnv on a simulator of the given Frappe version.
func newEnvVersion(t *testing.T, version string) *env {
	e := newEnv(t, "sqlite")
	e.site = erpnextsim.New(erpnextsim.Options{APIKey: testKey, APISecret: testSecret, Version: version})
	e.erp.Config.Handler = e.site
	if err := e.site.AddCustomer("Test Customer"); err != nil {
		t.Fatal(err)
	}
	e.invoice = e.newInvoice("Test Customer", "12000.00")
	return e
}

func countInserts(e *env) int {
	n := 0
	for _, r := range e.site.Requests() {
		if r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/Payment Entry") {
			n++
		}
	}
	return n
}

// erpnext.name_entries_by_payment_id: on Frappe 15.72 the entry is named after the payment id
// and ERPNext's own key refuses a second one; on 15.44 the name is discarded and the
// connector's own claims still book once.
func TestNameEntriesByPaymentID(t *testing.T) {
	t.Parallel()
	for _, v := range []struct{ version, wantName string }{{"15.72", "pay_T3stName000001"}, {"15.44", "ACC-PAY-"}} {
		t.Run(v.version, func(t *testing.T) {
			e := newEnvVersion(t, v.version)
			cfg := e.config()
			cfg.ERPNext.NameEntriesByPaymentID = true
			cfg.ERPNext.Timeout = connector.Duration(time.Second)
			cfg.ERPNext.ServerTimeout = connector.Duration(time.Second)
			d := e.start(cfg)
			e.site.DropResponseAfterCommit(1)
			e.deliver(d, "T3stEvtName001", e.payment("payment.captured", "pay_T3stName000001", 1200000, nil))
			e.waitIdle(d)
			pe := e.one("pay_T3stName000001")
			if name := fmt.Sprint(pe["name"]); !strings.HasPrefix(name, v.wantName) {
				t.Errorf("entry named %s, want %s…", name, v.wantName)
			}
			if n := countInserts(e); n != 1 {
				t.Errorf("%d inserts, want 1", n)
			}
		})
	}
	t.Run("409IsNeverRetriedAsANewInsert", func(t *testing.T) {
		e := newEnvVersion(t, "15.72")
		other := e.newInvoice("Test Customer", "100.00")
		// Someone made an entry with our payment id as its name but another reference_no.
		var pe frappe.PaymentEntry
		if err := e.client().Insert(context.Background(), frappe.DoctypePaymentEntry, map[string]any{
			"name": "pay_T3stName000003", "payment_type": "Receive", "company": erpnextsim.DefaultCompany, "party_type": "Customer",
			"party": "Test Customer", "paid_to": erpnextsim.RazorpayClearing, "paid_amount": 100, "received_amount": 100,
			"reference_no": "MANUAL-1", "reference_date": istDate(time.Now()), "posting_date": istDate(time.Now()),
			"references": []map[string]any{{"reference_doctype": "Sales Invoice", "reference_name": other, "allocated_amount": 100}},
			"docstatus":  1}, &pe); err != nil {
			t.Fatal(err)
		}
		cfg := e.config()
		cfg.ERPNext.NameEntriesByPaymentID = true
		d := e.start(cfg)
		e.deliver(d, "T3stEvtName003", e.payment("payment.captured", "pay_T3stName000003", 1200000, nil))
		e.waitIdle(d)
		ev := e.statusOf("pay_T3stName000003")
		if ev.Status != connector.StatusParked || !strings.Contains(ev.LastError, "409 DuplicateEntryError") || !strings.Contains(ev.LastError, "already exists") {
			t.Fatalf("%s %q, want parked with ERPNext's 409 message", ev.Status, ev.LastError)
		}
		if n := countInserts(e); n != 2 { // the setup's and the connector's one attempt
			t.Errorf("%d inserts, want the connector to try once", n-1)
		}
		if out := amountMinor(t, e.invoiceField("outstanding_amount")); out != 1200000 {
			t.Errorf("invoice outstanding %d", out)
		}
	})
}
