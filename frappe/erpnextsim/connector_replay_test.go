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

// connectorScenario replays some of the R*/H* exchanges, in order, on a fresh site that setup
// brings to the state they were recorded in (the recorded session's invoices and entries they
// name, and the customer balances their answers show).
type connectorScenario struct {
	name    string
	siteURL string // the base URL the recording proxy reached the site at (links in messages)
	setup   func(t *testing.T, h *harness)
	files   []string
}

// connectorSkips are R*/H* exchanges the scenario replay does not send, with the reason.
var connectorSkips = map[string]string{
	"R03-concurrent-insert-same-client-name-deadlock-500.json": "two inserts must be in flight at once; TestR03ConcurrentInsertSameNameDeadlocks sends the recorded body twice concurrently",
}

// invoice adds a submitted Sales Invoice of rate for customer, named name, due 2026-12-31.
func invoice(t *testing.T, h *harness, customer, name, rate string) {
	t.Helper()
	if _, err := h.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: customer, DueDate: "2026-12-31", PostingDate: "2026-12-01", Submit: true,
		Name: name, Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: rate}}}); err != nil {
		t.Fatal(err)
	}
}

// advance posts a submitted unallocated receipt of amount from Test Customer (its balance
// goes down by amount).
func advance(t *testing.T, h *harness, name, amount string) {
	t.Helper()
	mustOK(t, h.do("POST", pePath, pe(map[string]any{"name": name, "docstatus": 1, "posting_date": "2026-12-01", "reference_date": "2026-12-01",
		"reference_no": "pay_" + name, "paid_amount": amount, "received_amount": amount, "references": []any{}})))
}

func testCustomer(t *testing.T, h *harness) {
	t.Helper()
	if err := h.site.AddCustomer("Test Customer"); err != nil {
		t.Fatal(err)
	}
}

func usdCustomer(t *testing.T, h *harness) {
	t.Helper()
	if err := h.site.AddCustomerSpec(erpnextsim.CustomerSpec{Name: "USD Customer", DefaultCurrency: "USD", ReceivableAccount: erpnextsim.ReceivableUSD}); err != nil {
		t.Fatal(err)
	}
}

func usdInvoice(t *testing.T, h *harness, name, rate, template string) {
	t.Helper()
	if _, err := h.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "USD Customer", Currency: "USD", ConversionRate: "84", DueDate: "2026-12-31",
		PostingDate: "2026-12-01", Submit: true, Name: name, PaymentTermsTemplate: template, Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: rate}}}); err != nil {
		t.Fatal(err)
	}
}

var connectorScenarios = []connectorScenario{
	{name: "FreshSite", setup: testCustomer, files: []string{"H01-sales-invoice-insert-docstatus-1.json",
		"R10-get-payment-entry-as-connector-calls-it.json", "R11-check-get-logged-user.json", "R13-check-user-permission-403.json",
		"R01-audit-paid-twice-child-fields-order-by-creation-500.json", "R02-checkout-entries-child-filter-order-by-creation-500.json"}},
	{name: "NamedByPaymentID", setup: func(t *testing.T, h *harness) {
		testCustomer(t, h)
		invoice(t, h, "Test Customer", "ACC-SINV-2026-00021", "1100.00")
		advance(t, h, "ACC-PAY-2026-00021", "0.35") // Test Customer owes 1099.65 before the 1500
		invoice(t, h, "Test Customer", "ACC-SINV-2026-00022", "1500.00")
	}, files: []string{"R04-insert-named-by-payment-id-submitted.json"}},
	{name: "LockWait", setup: func(t *testing.T, h *harness) {
		testCustomer(t, h)
		invoice(t, h, "Test Customer", "ACC-SINV-2026-00063", "1234.00")
		h.site.HoldRowLock("Sales Invoice", "ACC-SINV-2026-00063", time.Hour)
	}, files: []string{"R05-insert-pe-lock-wait-timeout-500.json"}},
	{name: "FeeDeduction", setup: func(t *testing.T, h *harness) {
		testCustomer(t, h)
		invoice(t, h, "Test Customer", "ACC-SINV-2026-00002", "1180.00")
		advance(t, h, "ACC-PAY-2026-00001", "0.00001") // the series at 00001, nothing owed
	}, files: []string{"R06-fee-deduction-pe-submitted.json", "H03-gl-fee-deduction-pe.json"}},
	{name: "Refund", siteURL: "http://127.0.0.1:8000", setup: func(t *testing.T, h *harness) {
		testCustomer(t, h)
		invoice(t, h, "Test Customer", "ACC-SINV-2026-00005", "1000.00")
		mustOK(t, h.do("POST", pePath, pe(map[string]any{"name": "ACC-PAY-2026-00006", "docstatus": 1, "posting_date": "2026-12-01",
			"reference_date": "2026-12-01", "reference_no": "pay_RE102000000000", "references": refs("ACC-SINV-2026-00005", 1000)})))
		advance(t, h, "ACC-PAY-2026-00005", "200.35") // with the credit note: -500.35, the refund's party_balance
	}, files: []string{"H02-credit-note-insert.json", "R07-refund-pay-against-credit-note-submitted.json",
		"H04-gl-refund-pay-entry.json", "H05-refund-pay-entry-read-back.json"}},
	{name: "USD", siteURL: "http://127.0.0.1:28001", setup: func(t *testing.T, h *harness) {
		usdCustomer(t, h)
		testCustomer(t, h)
		invoice(t, h, "Test Customer", "ACC-SINV-2026-00007", "1.00")
		advance(t, h, "ACC-PAY-2026-00008", "1.00")
	}, files: []string{"H08-usd-invoice-insert.json", "R08-usd-pe-submitted.json"}},
	{name: "USDPaymentTerms", siteURL: "http://127.0.0.1:28001", setup: func(t *testing.T, h *harness) {
		usdCustomer(t, h)
		testCustomer(t, h)
		if err := h.site.AddPaymentTermsTemplate(erpnextsim.PaymentTermsTemplateSpec{Name: "30-70", AllocateByTerms: true,
			Terms: []erpnextsim.PaymentTermSpec{{Name: "Advance 30", InvoicePortion: "30", CreditDays: 30}, {Name: "Balance 70", InvoicePortion: "70", CreditDays: 30}}}); err != nil {
			t.Fatal(err)
		}
		// the Journal Entry series at 00001 (R08's exchange gain journal came first)
		mustOK(t, h.do("POST", jePath, map[string]any{"name": "ACC-JV-2026-00001", "posting_date": "2026-12-01",
			"accounts": []any{map[string]any{"account": erpnextsim.CashAccount, "debit_in_account_currency": 1},
				map[string]any{"account": "Office Rent - EC", "credit_in_account_currency": 1}}}, as(siteAdmin)...))
		usdInvoice(t, h, "ACC-SINV-2026-00020", "30.00", "") // USD Customer owes 55 with the next
		usdInvoice(t, h, "ACC-SINV-2026-00021", "25.00", "30-70")
		mustOK(t, h.do("POST", pePath, pe(map[string]any{"name": "ACC-PAY-2026-00021", "posting_date": "2026-12-01", "reference_date": "2026-12-01",
			"references": []any{}}))) // the series at 00021 (a draft of Test Customer)
	}, files: []string{"R09-usd-payment-terms-round-off-pe-submitted.json"}},
	{name: "PaymentRequest", setup: func(t *testing.T, h *harness) {
		testCustomer(t, h)
		invoice(t, h, "Test Customer", "ACC-SINV-2026-00018", "1000.00")
	}, files: []string{"H06-make-payment-request.json"}},
	{name: "CancelByFrappeClient", setup: func(t *testing.T, h *harness) {
		testCustomer(t, h)
		invoice(t, h, "Test Customer", "ACC-SINV-2026-00016", "900.00")
		advance(t, h, "ACC-PAY-2026-00016", "800.35") // Test Customer owes 99.65
		mustOK(t, h.do("POST", pePath, pe(map[string]any{"name": "ACC-PAY-2026-00017", "docstatus": 1, "posting_date": "2026-12-01",
			"reference_date": "2026-12-01", "reference_no": "pay_RX104000000000", "paid_amount": 900, "received_amount": 900,
			"custom_remarks": 1, "remarks": "Razorpay payment pay_RX104000000000; amount INR 900.00; method upi", "references": refs("ACC-SINV-2026-00016", 900)})))
	}, files: []string{"R12-check-has-permission.json", "H07-cancel-pe-frappe-client-cancel.json"}},
}

// TestReplayConnectorRecordings replays every R*/H* exchange of erpnext-recorded-connector
// (except connectorSkips) in its scenario, comparing as the other replays do.
func TestReplayConnectorRecordings(t *testing.T) {
	dir := sharedtest.Dir(t, "reference", connectorFolder)
	covered := map[string]bool{}
	for _, sc := range connectorScenarios {
		t.Run(sc.name, func(t *testing.T) {
			h := newHarness(t, erpnextsim.Options{Now: func() time.Time { return connectorNow }, Users: []erpnextsim.User{siteAdmin},
				LockWaitTimeout: 100 * time.Millisecond, SiteURL: sc.siteURL})
			sc.setup(t, h)
			for _, name := range sc.files {
				covered[name] = true
				t.Run(strings.TrimSuffix(name, ".json"), func(t *testing.T) { replayConnectorOne(t, h, dir, name) })
			}
		})
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		n := e.Name()
		if (strings.HasPrefix(n, "R") || strings.HasPrefix(n, "H")) && strings.HasSuffix(n, ".json") && !covered[n] && connectorSkips[n] == "" {
			t.Errorf("%s is neither replayed nor skipped with a reason", n)
		}
	}
}
