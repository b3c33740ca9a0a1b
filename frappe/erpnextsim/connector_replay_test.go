package erpnextsim_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/sharedtest"
)

const connectorFolder = "erpnext-recorded-connector"

// seed81 makes the state sequence-81.txt starts from (erpnext-recorded-connector/README "81"):
// Test Customer owing 1099.65 (1107.65 with the first 8.35 invoice, party_balance of
// 81-get-payment-entry-*), the Sales Invoice
// series at 00063 and the Payment Entry series at 00068, so that the recorded inserts get the
// recorded names (ACC-SINV-2026-00064…, ACC-PAY-2026-00069…).
func seed81(t *testing.T, h *harness) {
	t.Helper()
	if err := h.site.AddCustomer("Test Customer"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", DueDate: "2026-12-31", Submit: true,
		Name: "ACC-SINV-2026-00063", Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "1100.00"}}}); err != nil {
		t.Fatal(err)
	}
	mustOK(t, h.do("POST", pePath, pe(map[string]any{"name": "ACC-PAY-2026-00068", "docstatus": 1, "posting_date": "2026-12-01",
		"reference_date": "2026-12-01", "reference_no": "pay_seed81", "paid_amount": "0.35", "received_amount": "0.35", "references": []any{}})))
}

// connectorHarness is a site at the connector recordings' clock (2026-12-01) whose API user has
// the recorded roles (Accounts User + Sales User, the default) plus the recorded System
// Manager for the set-up requests.
func connectorHarness(t *testing.T) *harness {
	t.Helper()
	return newHarness(t, erpnextsim.Options{Now: func() time.Time { return connectorNow }, Users: []erpnextsim.User{siteAdmin}})
}

// connectorStatusOnly are connector exchanges whose bodies differ knowingly: status and
// exc_type are compared, the reason is logged.
var connectorStatusOnly = map[string]string{
	"81-company-round-off-account.json": "Company models 17 of its fields; round_off_account and round_off_cost_center are checked in TestR81CompanyRoundOffReadable",
}

// TestReplayConnectorRounding replays the rounded-invoice exchanges in sequence-81.txt order
// (erpnext-recorded-connector/README "81"): status, exc_type, messages, top-level keys and the
// key fields of every document and row.
func TestReplayConnectorRounding(t *testing.T) {
	dir := sharedtest.Dir(t, "reference", connectorFolder)
	f, err := os.Open(filepath.Join(dir, "sequence-81.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := connectorHarness(t)
	seed81(t, h)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name := strings.TrimSpace(sc.Text())
		if name == "" {
			continue
		}
		t.Run(strings.TrimSuffix(name, ".json"), func(t *testing.T) { replayConnectorOne(t, h, dir, name) })
	}
}

func replayConnectorOne(t *testing.T, h *harness, dir, name string) {
	t.Helper()
	rec, path, notes := loadRecording(t, filepath.Join(dir, name))
	user := erpnextsim.User{Key: key, Secret: secret, Email: erpnextsim.APIUser}
	if strings.HasPrefix(notes, "User: siteadmin@example.com") {
		user = siteAdmin
	}
	var body any
	if rec.Request.Body != nil && *rec.Request.Body != "" {
		body = *rec.Request.Body
	}
	got := h.do(rec.Request.Method, path, body, as(user)...)
	if got.status != rec.Response.Status {
		t.Fatalf("status %d, recorded %d; body %s", got.status, rec.Response.Status, got.raw)
	}
	if reason, ok := connectorStatusOnly[name]; ok {
		if got.excType() != rec.excType() {
			t.Errorf("exc_type %q, recorded %q", got.excType(), rec.excType())
		}
		t.Log("status only: " + reason)
		return
	}
	ordered := rec.Request.Query["order_by"] != "" || !strings.HasPrefix(rec.Request.Path, "/api/resource/GL Entry")
	compareRecorded(t, rec.Response.Body, got, ordered)
}
