package erpnextsim_test

import (
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

const makePRCmd = "/api/method/erpnext.accounts.doctype.payment_request.payment_request.make_payment_request"

// TestPaymentRequestLifecycle is recordings 44-*, 46-*, 47-* and §3.4/§3.5.
func TestPaymentRequestLifecycle(t *testing.T) {
	h := seeded(t)
	r := h.do("POST", makePRCmd, map[string]any{"dt": "Sales Invoice", "dn": "ACC-SINV-2026-00009", "submit_doc": 1, "mute_email": 1})
	d := r.data()
	for k, want := range map[string]string{"name": "ACC-PRQ-2026-00001", "docstatus": "1", "status": "Requested", "payment_request_type": "Inward",
		"grand_total": "1000.0", "outstanding_amount": "1000.0", "currency": "INR", "reference_doctype": "Sales Invoice",
		"reference_name": "ACC-SINV-2026-00009", "party": "Test Customer", "email_to": "Administrator", "subject": "Payment Request for ACC-SINV-2026-00009"} {
		if got := field(d, k); got != want {
			t.Errorf("%s = %s, want %s", k, got, want)
		}
	}
	for _, k := range []string{"payment_gateway_account", "payment_account", "transaction_date", "payment_url"} {
		if v, ok := d[k]; !ok || v != nil {
			t.Errorf("%s = %v (present %v), want null kept", k, v, ok)
		}
	}
	if want := "<p>Requesting payment against Sales Invoice ACC-SINV-2026-00009 for amount ₹ 1,000.00</p>"; !contains(field(d, "message"), want) {
		t.Errorf("message %q", d["message"])
	}
	h.do("GET", makePRCmd+"?dt=Sales%20Invoice&dn=ACC-SINV-2026-00009", nil).expectError(t, 403, "PermissionError", "Not permitted")

	g := h.do("POST", getPECmd, map[string]any{"dt": "Sales Invoice", "dn": "ACC-SINV-2026-00009", "bank_account": erpnextsim.RazorpayClearing}).data()
	row := row0(g, "references")
	if field(row, "payment_request") != "ACC-PRQ-2026-00001" || field(row, "payment_request_outstanding") != "1000.0" || field(row, "allocated_amount") != "1000.0" {
		t.Errorf("get_payment_entry row %v", row)
	}

	withPR := func(amount any) []any {
		return []any{map[string]any{"reference_doctype": "Sales Invoice", "reference_name": "ACC-SINV-2026-00009", "allocated_amount": amount, "payment_request": "ACC-PRQ-2026-00001"}}
	}
	t.Run("MoreThanRequestRefused", func(t *testing.T) {
		h2 := seeded(t)
		if _, err := h2.site.AddPaymentRequest("ACC-SINV-2026-00009", erpnextsim.PaymentRequestSpec{}); err != nil {
			t.Fatal(err)
		}
		// Pay part of the invoice first so the request (1000) exceeds nothing, then over-allocate the request.
		h2.do("POST", pePath, pe(map[string]any{"paid_amount": 600, "received_amount": 600, "docstatus": 1, "references": []any{map[string]any{
			"reference_doctype": "Sales Invoice", "reference_name": "ACC-SINV-2026-00009", "allocated_amount": 600, "payment_request": "ACC-PRQ-2026-00001"}}}))
		if d, _ := h2.site.Doc("Payment Request", "ACC-PRQ-2026-00001"); field(d, "status") != "Partially Paid" || field(d, "outstanding_amount") != "400.0" {
			t.Fatalf("after partial: %v %v", d["status"], d["outstanding_amount"])
		}
		h2.do("POST", pePath, pe(map[string]any{"paid_amount": 400.5, "received_amount": 400.5, "references": []any{map[string]any{
			"reference_doctype": "Sales Invoice", "reference_name": "ACC-SINV-2026-00009", "allocated_amount": 400.5, "payment_request": "ACC-PRQ-2026-00001"}}})).
			expectError(t, 417, "ValidationError", `Row #1: Allocated Amount cannot be greater than Outstanding Amount of Payment Request <a href="http://erp.localhost:8000/app/payment-request/ACC-PRQ-2026-00001">ACC-PRQ-2026-00001</a>`)
	})

	sub := h.do("POST", pePath, pe(map[string]any{"reference_no": "pay_IRtest00000001", "docstatus": 1, "references": withPR(1000)}))
	if sub.status != 200 || field(row0(sub.data(), "references"), "payment_request_outstanding") != "0.0" {
		t.Fatalf("submit with payment_request: %s", sub.raw)
	}
	prDoc, _ := h.site.Doc("Payment Request", "ACC-PRQ-2026-00001")
	if field(prDoc, "status") != "Paid" || field(prDoc, "outstanding_amount") != "0.0" || field(prDoc, "modified") == field(d, "modified") {
		t.Errorf("request after PE: %v %v", prDoc["status"], prDoc["outstanding_amount"])
	}
	if _, ok := h.do("GET", "/api/resource/Payment%20Request/ACC-PRQ-2026-00001", nil).data()["payment_gateway_account"]; ok {
		t.Error("GET kept a null field")
	}
	if inv := h.invoice("ACC-SINV-2026-00009"); field(inv, "status") != "Paid" {
		t.Errorf("invoice %v", inv["status"])
	}
	h.do("POST", makePRCmd, map[string]any{"dt": "Sales Invoice", "dn": "ACC-SINV-2026-00009", "submit_doc": 1}).
		expectError(t, 417, "ValidationError", "Payment Entry is already created")
	h.do("PUT", pePath+"/"+field(sub.data(), "name"), map[string]any{"docstatus": 2})
	prDoc, _ = h.site.Doc("Payment Request", "ACC-PRQ-2026-00001")
	if field(prDoc, "status") != "Requested" || field(prDoc, "outstanding_amount") != "1000.0" {
		t.Errorf("request after cancel: %v %v", prDoc["status"], prDoc["outstanding_amount"])
	}
}

// TestIntegrationRequestNeedsSystemManager is recordings 29-api-user-post-integration-request and 45-*.
func TestIntegrationRequestNeedsSystemManager(t *testing.T) {
	h := newHarness(t, erpnextsim.Options{Users: []erpnextsim.User{{Email: "sysmgr@example.com", Key: "SMKEY", Secret: "SMSECRET",
		Roles: []string{erpnextsim.RoleSystemManager, erpnextsim.RoleAccountsUser}}}})
	name, err := h.site.AddIntegrationRequest(erpnextsim.IntegrationRequestSpec{Name: "stv7lfv77m", Service: "Razorpay", Status: "Authorized",
		ReferenceDoctype: "Payment Request", ReferenceDocname: "ACC-PRQ-2026-00001",
		Data: map[string]any{"amount": 100000, "razorpay_payment_id": "pay_IRtest00000001", "subscription_id": nil}})
	if err != nil || name != "stv7lfv77m" {
		t.Fatal(name, err)
	}
	path := list("/api/resource/Integration%20Request", map[string]string{"fields": `["name","status","data"]`,
		"filters": `[["integration_request_service","=","razorpay"],["data","like","%PAY_IRTEST00000001%"]]`})
	r := h.do("GET", path, nil)
	r.expectError(t, 403, "PermissionError", "User <strong>api@example.com</strong> does not have doctype access via role permission for document <strong>Integration Request</strong>")
	if r.body["_error_message"] != "No permission for Integration Request" {
		t.Errorf("_error_message %v", r.body["_error_message"])
	}
	r = h.do("GET", path, nil, "Authorization", "token SMKEY:SMSECRET")
	if r.raw != `{"data":[{"name":"stv7lfv77m","status":"Authorized","data":"{\"amount\": 100000, \"razorpay_payment_id\": \"pay_IRtest00000001\", \"subscription_id\": null}"}]}` {
		t.Errorf("system manager list: %s", r.raw)
	}
	for _, auth := range []string{"token " + key + ":" + secret, "token SMKEY:SMSECRET"} {
		r = h.do("POST", "/api/resource/Integration%20Request", map[string]any{"integration_request_service": "Razorpay", "status": "Queued", "data": "{}"}, "Authorization", auth)
		r.expectError(t, 403, "PermissionError")
		if _, ok := r.body["exception"]; ok {
			t.Errorf("create denial carries exception: %s", r.raw)
		}
	}
	if _, err := h.site.AddIntegrationRequest(erpnextsim.IntegrationRequestSpec{Status: "Bogus"}); err == nil {
		t.Error("bad status accepted")
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
