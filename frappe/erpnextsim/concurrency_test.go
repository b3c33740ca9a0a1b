package erpnextsim_test

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/sharedtest"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
)

// TestR03ConcurrentInsertSameNameDeadlocks: two inserts of one client-supplied name at once
// (both validated before either commits): one is submitted, the other gets the recorded 500
// QueryDeadlockError (1213) and nothing of it is committed; once the winner is in, another
// insert of the name is a plain refusal, not a deadlock.
func TestR03ConcurrentInsertSameNameDeadlocks(t *testing.T) {
	h := connectorHarness(t)
	seedSplitInvoice(t, h, erpnextsim.RazorpayClearing)
	if _, err := h.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", DueDate: "2026-12-31", Submit: true,
		Name: "ACC-SINV-2026-00022", Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "1500.00"}}}); err != nil {
		t.Fatal(err)
	}
	rec, _, _ := loadRecording(t, sharedFile(t, connectorFolder, "R03-concurrent-insert-same-client-name-deadlock-500.json"))
	h.site.CommitTogether(2, testtime.Bound)
	var wg sync.WaitGroup
	answers := make([]resp, 2)
	for i := range answers {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			answers[i] = h.do("POST", pePath, *rec.Request.Body)
		}(i)
	}
	wg.Wait()
	won, lost := answers[0], answers[1]
	if won.status != 200 {
		won, lost = lost, won
	}
	if won.status != 200 || field(won.data(), "name") != "pay_RN100000000000" || field(won.data(), "docstatus") != "1" {
		t.Fatalf("winner %d %s", won.status, won.raw)
	}
	if lost.status != rec.Response.Status {
		t.Fatalf("loser %d %s, recorded %d", lost.status, lost.raw, rec.Response.Status)
	}
	compareRecorded(t, rec.Response.Body, lost, true)
	if n := h.entriesWithReference("pay_RN100000000000"); n != 1 {
		t.Errorf("%d entries with the payment id, want the winner's only", n)
	}
	if out := field(h.invoice("ACC-SINV-2026-00022"), "outstanding_amount"); out != "0.0" {
		t.Errorf("invoice outstanding %s, want 0.0 (paid once)", out)
	}
	again := h.do("POST", pePath, *rec.Request.Body)
	again.expectError(t, 417, "ValidationError", "Sales Invoice ACC-SINV-2026-00022 has already been fully paid.")
}

// TestR05WriteWaitsForHeldInvoiceRow: a Payment Entry whose invoice row another connection
// holds FOR UPDATE waits for it; past the lock wait timeout it gets the recorded 500
// QueryTimeoutError (1205) and nothing is committed; held briefly, it waits and books.
func TestR05WriteWaitsForHeldInvoiceRow(t *testing.T) {
	h := newHarness(t, erpnextsim.Options{Now: func() time.Time { return connectorNow }, LockWaitTimeout: 200 * time.Millisecond})
	seedSplitInvoice(t, h, erpnextsim.RazorpayClearing)
	inv, err := h.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", DueDate: "2026-12-31", Submit: true,
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "1234.00"}}})
	if err != nil {
		t.Fatal(err)
	}
	rec, _, _ := loadRecording(t, sharedFile(t, connectorFolder, "R05-insert-pe-lock-wait-timeout-500.json"))
	body := pe(map[string]any{"docstatus": 1, "posting_date": "2026-12-01", "reference_date": "2026-12-01", "reference_no": "pay_R05",
		"paid_amount": 1234, "received_amount": 1234, "references": refs(inv, 1234)})
	h.site.HoldRowLock("Sales Invoice", inv, time.Hour)
	start := time.Now()
	r := h.do("POST", pePath, body)
	if r.status != rec.Response.Status || time.Since(start) < 200*time.Millisecond {
		t.Fatalf("held row: %d after %v: %s", r.status, time.Since(start), r.raw)
	}
	compareRecorded(t, rec.Response.Body, r, true)
	if n := h.entriesWithReference("pay_R05"); n != 0 || field(h.invoice(inv), "outstanding_amount") != "1234.0" {
		t.Fatalf("%d entries, outstanding %s: the timed-out write committed", n, field(h.invoice(inv), "outstanding_amount"))
	}
	h.site.HoldRowLock("Sales Invoice", inv, 50*time.Millisecond)
	if r := h.do("POST", pePath, body); r.status != 200 || field(h.invoice(inv), "status") != "Paid" {
		t.Fatalf("briefly held row: %d %s", r.status, r.raw)
	}
}

// sharedFile is the path of one recording in shared/reference/folder.
func sharedFile(t *testing.T, folder, name string) string {
	t.Helper()
	return filepath.Join(sharedtest.Dir(t, "reference", folder), name)
}
