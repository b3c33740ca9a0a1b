package erpnextsim_test

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

func seeded(t *testing.T, opt ...erpnextsim.Options) *harness {
	t.Helper()
	var o erpnextsim.Options
	if len(opt) > 0 {
		o = opt[0]
	}
	if o.APIRoles == nil {
		o.APIRoles = erpnextsim.FirstPassAPIRoles // the first recordings' API user
	}
	h := newHarness(t, o)
	h.seedRecorded()
	return h
}

func list(path string, q map[string]string) string {
	v := url.Values{}
	for k, x := range q {
		v.Set(k, x)
	}
	return path + "?" + v.Encode()
}

func TestItem01GuestIsForbidden(t *testing.T) {
	h := seeded(t)
	r := h.do("GET", siPath, nil, "Authorization", "")
	r.expectError(t, 403, "PermissionError", "User <strong>Guest</strong> does not have doctype access via role permission for document <strong>Sales Invoice</strong>")
	if r.body["_error_message"] != "No permission for Sales Invoice" {
		t.Errorf("_error_message %v", r.body["_error_message"])
	}
	r = h.do("GET", siPath+"/ACC-SINV-2026-00001", nil, "Authorization", "")
	r.expectError(t, 403, "PermissionError", "User <strong>Guest</strong> does not have doctype access via role permission for document <strong>Sales Invoice</strong><br>User <strong>Guest</strong> does not have access to this document")
	r = h.do("POST", pePath, pe(nil), "Authorization", "")
	r.expectError(t, 403, "PermissionError")
	if got := strings.Join(keys(r.body), ","); got != "_error_message,_server_messages,exc_type" {
		t.Errorf("create denial keys %s", got)
	}
	if len(h.site.Docs("Payment Entry")) != 0 {
		t.Error("guest created a Payment Entry")
	}
}

func TestItem02BadCredentialsAre401(t *testing.T) {
	h := seeded(t)
	for _, a := range []string{"token KEY:wrong", "token nosuch:SECRET", "token justonevalue",
		"Basic " + base64.StdEncoding.EncodeToString([]byte("nosuch:SECRET")), "Bearer abc"} {
		r := h.do("GET", siPath, nil, "Authorization", a)
		r.expectError(t, 401, "AuthenticationError")
		if _, ok := r.body["_server_messages"]; ok {
			t.Errorf("%s: 401 carries _server_messages", a)
		}
	}
	r := h.do("GET", siPath, nil, "Authorization", "Basic %%%notbase64")
	r.expectError(t, 400, "InvalidAuthorizationToken", "Failed to decode token, please provide a valid base64-encoded token.")
	r = h.do("GET", siPath, nil, "Authorization", "token a:b extra")
	r.expectError(t, 403, "PermissionError")
	r = h.do("GET", siPath+"?limit=1", nil, "Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(key+":"+secret)))
	if r.status != 200 {
		t.Fatalf("basic auth: %d %s", r.status, r.raw)
	}
}

func names(r resp) []string {
	var out []string
	rows, _ := r.body["data"].([]any)
	for _, row := range rows {
		if m, ok := row.(map[string]any); ok {
			out = append(out, fmt.Sprint(m["name"]))
		}
	}
	return out
}

func TestItem03Lists(t *testing.T) {
	h := seeded(t)
	cases := []struct {
		name string
		q    map[string]string
		want string // names joined by ",", sorted unless order_by is sent
	}{
		{"DefaultPageIs20", nil, ""},
		{"LimitWithOrder", map[string]string{"limit": "3", "order_by": "name asc"}, "ACC-SINV-2026-00001,ACC-SINV-2026-00002,ACC-SINV-2026-00003"},
		{"PageLengthAndStart", map[string]string{"limit_page_length": "2", "limit_start": "2", "order_by": "name asc"}, "ACC-SINV-2026-00003,ACC-SINV-2026-00004"},
		{"OrderDesc", map[string]string{"limit": "2", "order_by": "name desc"}, "ACC-SINV-2026-00017,ACC-SINV-2026-00016"},
		{"ListFilter", map[string]string{"filters": `[["customer","=","Other Customer"]]`}, "ACC-SINV-2026-00016"},
		{"DictFilter", map[string]string{"filters": `{"docstatus": 2}`}, "ACC-SINV-2026-00017"},
		{"DictFilterWithOperator", map[string]string{"filters": `{"docstatus": ["!=", 1]}`, "order_by": "name asc"}, "ACC-SINV-2026-00015,ACC-SINV-2026-00017"},
		{"OrFilters", map[string]string{"or_filters": `[["docstatus","=",0],["docstatus","=",2]]`, "order_by": "name asc"}, "ACC-SINV-2026-00015,ACC-SINV-2026-00017"},
		{"EqualsIgnoresCase", map[string]string{"filters": `[["customer","=","other CUSTOMER"]]`}, "ACC-SINV-2026-00016"},
		{"Like", map[string]string{"filters": `[["name","like","%0001_"]]`, "order_by": "name asc"}, "ACC-SINV-2026-00010,ACC-SINV-2026-00011,ACC-SINV-2026-00012,ACC-SINV-2026-00013,ACC-SINV-2026-00014,ACC-SINV-2026-00015,ACC-SINV-2026-00016,ACC-SINV-2026-00017"},
		{"In", map[string]string{"filters": `[["name","in",["ACC-SINV-2026-00002","acc-sinv-2026-00003"]]]`, "order_by": "name asc"}, "ACC-SINV-2026-00002,ACC-SINV-2026-00003"},
		{"InCommaString", map[string]string{"filters": `[["name","in","ACC-SINV-2026-00002, ACC-SINV-2026-00003"]]`, "order_by": "name asc"}, "ACC-SINV-2026-00002,ACC-SINV-2026-00003"},
		{"NotIn", map[string]string{"filters": `[["docstatus","not in",[1]]]`, "order_by": "name asc"}, "ACC-SINV-2026-00015,ACC-SINV-2026-00017"},
		{"Comparisons", map[string]string{"filters": `[["name",">","ACC-SINV-2026-00014"],["name","<=","ACC-SINV-2026-00016"],["docstatus",">=",0],["docstatus","<",2]]`, "order_by": "name asc"}, "ACC-SINV-2026-00015,ACC-SINV-2026-00016"},
		{"IsSet", map[string]string{"filters": `[["return_against","is","set"]]`}, ""},
		{"IsNotSet", map[string]string{"filters": `[["return_against","is","not set"],["customer","=","Other Customer"]]`}, "ACC-SINV-2026-00016"},
		{"ChildTableFilter", map[string]string{"filters": `[["Sales Invoice Item","item_code","=","RZP-ITEM"],["docstatus","=",0]]`}, "ACC-SINV-2026-00015"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := h.do("GET", list(siPath, tc.q), nil)
			if r.status != 200 {
				t.Fatalf("%d %s", r.status, r.raw)
			}
			got := names(r)
			if tc.name == "DefaultPageIs20" {
				r = h.do("GET", "/api/resource/Account", nil)
				if n := len(names(r)); n != 20 {
					t.Fatalf("default page %d rows, want 20", n)
				}
				if n := len(got); n != 17 {
					t.Fatalf("all docstatus values: %d invoices, want 17", n)
				}
				return
			}
			if tc.q["order_by"] == "" {
				sortStrings(got)
			}
			if strings.Join(got, ",") != tc.want {
				t.Fatalf("got %v, want %s", got, tc.want)
			}
		})
	}
	t.Run("LimitZeroIsAll", func(t *testing.T) {
		for _, k := range []string{"limit", "limit_page_length"} {
			if n := len(names(h.do("GET", list("/api/resource/Account", map[string]string{k: "0"}), nil))); n <= 20 {
				t.Fatalf("%s=0 returned %d accounts", k, n)
			}
		}
	})
	t.Run("AsDict0", func(t *testing.T) {
		r := h.do("GET", list(siPath, map[string]string{"fields": `["name","docstatus","grand_total"]`, "as_dict": "0", "limit": "1", "order_by": "name desc"}), nil)
		if got := r.raw; got != `{"data":[["ACC-SINV-2026-00017",2,1000.0]]}` {
			t.Fatalf("as_dict=0: %s", got)
		}
	})
	t.Run("ChildField", func(t *testing.T) {
		r := h.do("GET", list(siPath, map[string]string{"fields": `["name","items.item_code","items.amount"]`, "limit": "1", "order_by": "name asc"}), nil)
		if got := r.raw; got != `{"data":[{"name":"ACC-SINV-2026-00001","item_code":"RZP-ITEM","amount":1000.0}]}` {
			t.Fatalf("child field: %s", got)
		}
	})
	t.Run("UnknownFieldIsDataError", func(t *testing.T) {
		h.do("GET", list(siPath, map[string]string{"fields": `["name","no_such_field"]`}), nil).
			expectError(t, 417, "DataError", "Field not permitted in query: no_such_field")
		h.do("GET", list(siPath, map[string]string{"filters": `[["no_such_field","=","x"]]`}), nil).
			expectError(t, 417, "DataError", "Field not permitted in query: no_such_field")
		h.do("GET", list(pePath, map[string]string{"filters": `[["Payment Entry Reference","no_such","=","x"]]`}), nil).
			expectError(t, 417, "DataError", "Field not permitted in query: no_such")
	})
	t.Run("InvalidJSONIs500", func(t *testing.T) {
		h.do("GET", list(siPath, map[string]string{"filters": `[["name","=",`}), nil).expectError(t, 500, "JSONDecodeError")
	})
	t.Run("BadOperator", func(t *testing.T) {
		r := h.do("GET", list(siPath, map[string]string{"filters": `[["name","~~","x"]]`}), nil)
		r.expectError(t, 417, "ValidationError")
		if !strings.HasPrefix(r.messages()[0], "Operator must be one of ") {
			t.Fatal(r.messages())
		}
	})
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func TestItem05UnknownDocumentIs404(t *testing.T) {
	h := seeded(t)
	r := h.do("GET", siPath+"/ACC-SINV-2026-99999", nil)
	r.expectError(t, 404, "DoesNotExistError", "Sales Invoice ACC-SINV-2026-99999 not found")
	if got := strings.Join(keys(r.body), ","); got != "_server_messages,exc_type" {
		t.Errorf("404 keys %s", got)
	}
	h.do("GET", "/api/nosuchthing", nil).expectError(t, 404, "DoesNotExistError")
	if r := h.do("GET", "/api/nosuchthing", nil); r.raw != `{"exc_type":"DoesNotExistError"}` {
		t.Errorf("route miss body %s", r.raw)
	}
	if r := h.do("PATCH", siPath+"/ACC-SINV-2026-00001", `{"remarks":"x"}`); r.raw != `{"exc_type":"DoesNotExistError"}` {
		t.Errorf("PATCH body %s", r.raw)
	}
}

func TestItem07InsertDraft(t *testing.T) {
	h := seeded(t)
	r := h.do("POST", pePath, pe(map[string]any{"no_such_key": "ignored"}))
	d := r.data()
	if r.status != 200 || field(d, "name") != "ACC-PAY-2026-00001" || field(d, "docstatus") != "0" || field(d, "status") != "Draft" {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	if _, ok := d["no_such_key"]; ok {
		t.Error("unknown key stored")
	}
	if field(h.invoice("ACC-SINV-2026-00001"), "outstanding_amount") != "1000.0" {
		t.Error("a draft changed the invoice")
	}
	if r.header.Get("Content-Type") != "application/json" {
		t.Errorf("content type %q", r.header.Get("Content-Type"))
	}
	t.Run("ClientNameKeptOn15.72", func(t *testing.T) {
		r := h.do("POST", pePath, pe(map[string]any{"name": "MY-OWN-NAME"}))
		if field(r.data(), "name") != "MY-OWN-NAME" {
			t.Fatalf("%s", r.raw)
		}
		r = h.do("POST", pePath, pe(map[string]any{"name": "MY-OWN-NAME"}))
		r.expectError(t, 409, "DuplicateEntryError", "Payment Entry <strong>MY-OWN-NAME</strong> already exists")
		if ex := r.body["exception"]; ex != `frappe.exceptions.DuplicateEntryError: ('Payment Entry', 'MY-OWN-NAME', IntegrityError(1062, "Duplicate entry 'MY-OWN-NAME' for key 'PRIMARY'"))` {
			t.Errorf("exception %v", ex)
		}
		if !strings.Contains(r.body["_server_messages"].(string), `\"title\": \"Duplicate Name\", \"indicator\": \"red\"}`) {
			t.Errorf("duplicate message object %v", r.body["_server_messages"])
		}
	})
	t.Run("ClientNameDiscardedOn15.44", func(t *testing.T) {
		old := seeded(t, erpnextsim.Options{Version: "15.44"})
		r := old.do("POST", pePath, pe(map[string]any{"name": "MY-OWN-NAME"}))
		if field(r.data(), "name") != "ACC-PAY-2026-00001" {
			t.Fatalf("%s", r.raw)
		}
	})
	t.Run("DataWrapper", func(t *testing.T) {
		r := h.do("POST", pePath, map[string]any{"data": pe(map[string]any{"reference_no": "pay_wrapped"})})
		if field(r.data(), "reference_no") != "pay_wrapped" {
			t.Fatalf("%s", r.raw)
		}
	})
}

func TestItem08InsertSubmitted(t *testing.T) {
	h := seeded(t)
	before := field(h.invoice("ACC-SINV-2026-00002"), "modified")
	r := h.do("POST", pePath, pe(map[string]any{"references": refs("ACC-SINV-2026-00002", 1000), "docstatus": 1}))
	d := r.data()
	if r.status != 200 || field(d, "docstatus") != "1" || field(d, "status") != "Submitted" {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	if got := field(row0(d, "references"), "outstanding_amount"); got != "0.0" {
		t.Errorf("row outstanding after submit %s", got)
	}
	inv := h.invoice("ACC-SINV-2026-00002")
	if field(inv, "outstanding_amount") != "0.0" || field(inv, "status") != "Paid" || field(inv, "modified") == before || field(inv, "modified_by") != erpnextsim.APIUser {
		t.Fatalf("invoice after submit: %v %v %v", inv["outstanding_amount"], inv["status"], inv["modified"])
	}
}

func TestItem09LinkValidation(t *testing.T) {
	h := seeded(t)
	h.do("POST", pePath, pe(map[string]any{"party": "No Such Customer"})).
		expectError(t, 417, "LinkValidationError", "Could not find Party: No Such Customer")
	h.do("POST", pePath, pe(map[string]any{"paid_amount": 1010, "received_amount": 1010, "references": refs("ACC-SINV-2026-00003", 1000, "ACC-SINV-2026-99999", 10)})).
		expectError(t, 417, "LinkValidationError", "Could not find Row #2: Name: ACC-SINV-2026-99999")
	r := h.do("POST", pePath, pe(map[string]any{"paid_to": "No Such Account - EC"}))
	r.expectError(t, 417, "ValidationError", "Account: No Such Account - EC is not permitted under Payment Entry") // recording over §3.2
	if r.body["_exc_source"] != "erpnext (app)" {
		t.Error("no _exc_source on an ERPNext error")
	}
	h.do("POST", pePath, pe(map[string]any{"references": refs("ACC-SINV-2026-00017", 1000)})).
		expectError(t, 417, "CancelledLinkError", "Cannot link cancelled document: Row #1: Name: ACC-SINV-2026-00017")
	h.do("POST", pePath, pe(map[string]any{"party_type": nil})).
		expectError(t, 417, "ValidationError", "Party Type must be set first")
	if len(h.site.Docs("Payment Entry")) != 0 {
		t.Error("a refused entry was stored")
	}
}

func TestItem10MandatoryFields(t *testing.T) {
	h := seeded(t)
	h.do("POST", pePath, pe(map[string]any{"party_type": nil, "party": nil})).expectError(t, 417, "ValidationError", "Party Type is mandatory")
	h.do("POST", pePath, pe(map[string]any{"party": nil})).expectError(t, 417, "ValidationError", "Party is mandatory")
	h.do("POST", pePath, pe(map[string]any{"paid_amount": nil})).expectError(t, 417, "ValidationError", "Paid Amount is mandatory")
	h.do("POST", pePath, pe(map[string]any{"received_amount": nil})).expectError(t, 417, "ValidationError", "Received Amount is mandatory")
	h.do("POST", pePath, pe(map[string]any{"paid_to": nil})).expectError(t, 417, "ValidationError", "Target Exchange Rate is mandatory")
	r := h.do("POST", pePath, pe(map[string]any{"paid_to": nil, "source_exchange_rate": 1, "target_exchange_rate": 1}))
	r.expectError(t, 417, "MandatoryError", "Error: Value missing for Payment Entry: Account Paid To", "Error: Value missing for Payment Entry: Account Currency (To)")
	if r.body["exception"] != "frappe.exceptions.MandatoryError: [Payment Entry, ACC-PAY-2026-00001]: paid_to, paid_to_account_currency" {
		t.Errorf("exception %v", r.body["exception"])
	}
	r = h.do("POST", pePath, pe(map[string]any{"paid_amount": 976.4, "received_amount": 976.4,
		"deductions": []any{map[string]any{"account": erpnextsim.FeeAccount, "amount": 23.6}}}))
	r.expectError(t, 417, "MandatoryError", "Error: <strong>Payment Entry Deduction</strong> Row #1: Value missing for: Cost Center")
}

func TestItem11ReferenceChecks(t *testing.T) {
	h := seeded(t)
	h.do("POST", pePath, pe(map[string]any{"references": refs("ACC-SINV-2026-00015", 1000)})).
		expectError(t, 417, "ValidationError", "Sales Invoice ACC-SINV-2026-00015 must be submitted")
	h.do("POST", pePath, pe(map[string]any{"references": refs("ACC-SINV-2026-00016", 1000)})).
		expectError(t, 417, "ValidationError", "Sales Invoice ACC-SINV-2026-00016 is not associated with Customer Test Customer")
	h.do("POST", pePath, pe(map[string]any{"paid_from": erpnextsim.CashAccount})).
		expectError(t, 417, "ValidationError", "Sales Invoice ACC-SINV-2026-00001 is associated with Debtors - EC, but Party Account is Cash - EC")
}

func TestItem12BankNeedsReference(t *testing.T) {
	h := seeded(t)
	h.do("POST", pePath, pe(map[string]any{"reference_no": nil})).
		expectError(t, 417, "ValidationError", "Reference No and Reference Date is mandatory for Bank transaction")
	h.do("POST", pePath, pe(map[string]any{"reference_date": nil})).
		expectError(t, 417, "ValidationError", "Reference No and Reference Date is mandatory for Bank transaction")
	r := h.do("POST", pePath, pe(map[string]any{"paid_to": erpnextsim.CashAccount, "reference_no": nil, "reference_date": nil, "mode_of_payment": nil}))
	if r.status != 200 || field(r.data(), "paid_to_account_type") != "Cash" {
		t.Fatalf("cash entry without reference: %d %s", r.status, r.raw)
	}
}

func TestItem13DuplicateReferenceRows(t *testing.T) {
	h := seeded(t)
	h.do("POST", pePath, pe(map[string]any{"references": refs("ACC-SINV-2026-00004", 500, "ACC-SINV-2026-00004", 500)})).
		expectError(t, 417, "ValidationError", "Row #2: Duplicate entry in References Sales Invoice ACC-SINV-2026-00004")
}

func TestItem14AlreadyFullyPaid(t *testing.T) {
	h := seeded(t)
	draft := h.do("POST", pePath, pe(map[string]any{"reference_no": "pay_older"}))
	if draft.status != 200 {
		t.Fatal(draft.raw)
	}
	if r := h.do("POST", pePath, pe(map[string]any{"reference_no": "pay_full", "docstatus": 1})); r.status != 200 {
		t.Fatal(r.raw)
	}
	h.do("POST", pePath, pe(map[string]any{"reference_no": "pay_again"})).
		expectError(t, 417, "ValidationError", "Sales Invoice ACC-SINV-2026-00001 has already been fully paid.")
	h.do("PUT", pePath+"/"+field(draft.data(), "name"), map[string]any{"docstatus": 1}).
		expectError(t, 417, "ValidationError", "Sales Invoice ACC-SINV-2026-00001 has already been fully paid.")
}

func TestItem15AllocatedGreaterThanOutstanding(t *testing.T) {
	h := seeded(t)
	h.do("POST", pePath, pe(map[string]any{"paid_amount": 1500, "received_amount": 1500, "references": refs("ACC-SINV-2026-00004", 1500)})).
		expectError(t, 417, "ValidationError", "Row #1: Allocated Amount cannot be greater than outstanding amount.")
}

func TestItem16ReceivedOverwrittenByPaid(t *testing.T) {
	h := seeded(t)
	r := h.do("POST", pePath, pe(map[string]any{"received_amount": 700}))
	if field(r.data(), "received_amount") != "1000.0" || field(r.data(), "difference_amount") != "0.0" {
		t.Fatalf("%s", r.raw)
	}
	h.do("POST", pePath, pe(map[string]any{"received_amount": 0})).
		expectError(t, 417, "ValidationError", "Received Amount is mandatory")
}

func TestItem17ComputedFields(t *testing.T) {
	h := seeded(t)
	body := pe(map[string]any{"paid_amount": 976.4, "received_amount": 976.4, "docstatus": 1,
		"base_paid_amount": 1, "unallocated_amount": 5, "difference_amount": 7, "total_allocated_amount": 3,
		"references": []any{map[string]any{"reference_doctype": "Sales Invoice", "reference_name": "ACC-SINV-2026-00007", "allocated_amount": 1000, "total_amount": 5, "outstanding_amount": 7, "due_date": "2030-01-01"}},
		"deductions": []any{map[string]any{"account": erpnextsim.FeeAccount, "cost_center": erpnextsim.CostCenter, "amount": 23.6, "description": "Razorpay fee incl GST"}}})
	r := h.do("POST", pePath, body)
	d := r.data()
	for k, want := range map[string]string{"paid_amount": "976.4", "received_amount": "976.4", "base_paid_amount": "976.4",
		"base_received_amount": "976.4", "total_allocated_amount": "1000.0", "base_total_allocated_amount": "1000.0",
		"unallocated_amount": "0.0", "difference_amount": "0.0", "status": "Submitted",
		"in_words": "INR Nine Hundred And Seventy Six and Forty Paisa only.",
		"remarks":  "Amount INR 976.4 received from Test Customer\nTransaction reference no pay_00001 dated 2026-11-30\nAmount INR 1000 against Sales Invoice ACC-SINV-2026-00007\nAmount INR 23.6 deducted against Razorpay Fees - EC"} {
		if got := field(d, k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	row := row0(d, "references")
	if field(row, "total_amount") != "1000.0" || field(row, "due_date") != "2026-12-30" || field(row, "account") != "Debtors - EC" {
		t.Errorf("row not refreshed from the invoice: %v", row)
	}
	if field(h.invoice("ACC-SINV-2026-00007"), "outstanding_amount") != "0.0" {
		t.Error("fee recipe did not settle the invoice")
	}
}

func TestItem18DifferenceMustBeZero(t *testing.T) {
	h := seeded(t)
	r := h.do("POST", pePath, pe(map[string]any{"paid_amount": 900, "received_amount": 900}))
	if field(r.data(), "difference_amount") != "100.0" || field(r.data(), "status") != "Draft" {
		t.Fatalf("%s", r.raw)
	}
	h.do("PUT", pePath+"/"+field(r.data(), "name"), map[string]any{"docstatus": 1}).
		expectError(t, 417, "ValidationError", "Difference Amount must be zero")
	h.do("POST", pePath, pe(map[string]any{"paid_amount": 900, "received_amount": 900, "docstatus": 1})).
		expectError(t, 417, "ValidationError", "Difference Amount must be zero")
	if field(h.invoice("ACC-SINV-2026-00001"), "outstanding_amount") != "1000.0" {
		t.Error("a refused submit changed the invoice")
	}
}

func TestItem20SubmitUpdatesInvoice(t *testing.T) {
	h := seeded(t)
	r := h.do("POST", pePath, pe(map[string]any{"paid_amount": 400, "received_amount": 400, "docstatus": 1, "references": refs("ACC-SINV-2026-00008", 400)}))
	if r.status != 200 {
		t.Fatal(r.raw)
	}
	inv := h.invoice("ACC-SINV-2026-00008")
	if field(inv, "outstanding_amount") != "600.0" || field(inv, "status") != "Partly Paid" {
		t.Fatalf("after partial: %v %v", inv["outstanding_amount"], inv["status"])
	}
	if field(row0(r.data(), "references"), "outstanding_amount") != "600.0" {
		t.Error("row outstanding after submit")
	}
	t.Run("OverdueBeforePartlyPaid", func(t *testing.T) {
		name, err := h.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", DueDate: "2026-11-29", PostingDate: "2026-11-01", Submit: true,
			Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 2, Rate: "500.00"}}})
		if err != nil {
			t.Fatal(err)
		}
		if st := field(h.invoice(name), "status"); st != "Overdue" {
			t.Fatalf("past due invoice status %s", st)
		}
		h.do("POST", pePath, pe(map[string]any{"paid_amount": 100, "received_amount": 100, "docstatus": 1, "references": refs(name, 100)}))
		if st := field(h.invoice(name), "status"); st != "Overdue" {
			t.Fatalf("partly paid overdue invoice status %s", st)
		}
	})
}

func TestItem21DuplicateReferenceNoAccepted(t *testing.T) {
	h := seeded(t)
	for _, inv := range []string{"ACC-SINV-2026-00002", "ACC-SINV-2026-00009"} {
		r := h.do("POST", pePath, pe(map[string]any{"reference_no": "pay_00002", "docstatus": 1, "references": refs(inv, 1000)}))
		if r.status != 200 || len(r.body) != 1 {
			t.Fatalf("%s: %d %s", inv, r.status, r.raw)
		}
	}
}

func TestItem22Cancel(t *testing.T) {
	h := seeded(t)
	a := h.do("POST", pePath, pe(map[string]any{"docstatus": 1, "references": refs("ACC-SINV-2026-00009", 1000)})).data()
	before := field(h.invoice("ACC-SINV-2026-00009"), "modified")
	r := h.do("PUT", pePath+"/"+field(a, "name"), map[string]any{"docstatus": 2})
	if field(r.data(), "status") != "Cancelled" || field(r.data(), "docstatus") != "2" {
		t.Fatalf("%s", r.raw)
	}
	inv := h.invoice("ACC-SINV-2026-00009")
	if field(inv, "outstanding_amount") != "1000.0" || field(inv, "status") != "Unpaid" || field(inv, "modified") == before {
		t.Fatalf("invoice after cancel %v %v", inv["outstanding_amount"], inv["status"])
	}
	b := h.do("POST", pePath, pe(map[string]any{"docstatus": 1, "references": refs("ACC-SINV-2026-00009", 1000)})).data()
	r = h.do("POST", "/api/method/frappe.client.cancel", map[string]any{"doctype": "Payment Entry", "name": field(b, "name")})
	if field(r.data(), "status") != "Cancelled" {
		t.Fatalf("frappe.client.cancel: %s", r.raw)
	}
	if _, ok := r.data()["clearance_date"]; !ok {
		t.Error("frappe.client.cancel dropped null fields")
	}
	draft := h.do("POST", pePath, pe(map[string]any{"references": refs("ACC-SINV-2026-00010", 1000)})).data()
	r = h.do("PUT", pePath+"/"+field(draft, "name"), map[string]any{"docstatus": 2})
	r.expectError(t, 417, "DocstatusTransitionError")
	if r.body["exception"] != "frappe.exceptions.DocstatusTransitionError: Cannot change docstatus from 0 (Draft) to 2 (Cancelled)" || r.body["_server_messages"] != nil {
		t.Errorf("draft cancel body %s", r.raw)
	}
	r = h.do("PUT", pePath+"/"+field(a, "name"), map[string]any{"remarks": "x"})
	if r.status != 417 || r.body["exception"] != "frappe.exceptions.ValidationError: Cannot edit cancelled document" {
		t.Errorf("write to cancelled: %s", r.raw)
	}
	c := h.do("POST", pePath, pe(map[string]any{"docstatus": 1, "references": refs("ACC-SINV-2026-00011", 1000)})).data()
	r = h.do("PUT", pePath+"/"+field(c, "name"), map[string]any{"docstatus": 0})
	if r.body["exception"] != "frappe.exceptions.DocstatusTransitionError: Cannot change docstatus from 1 (Submitted) to 0 (Draft)" {
		t.Errorf("submitted to draft: %s", r.raw)
	}
}

func TestItem26GetPaymentEntry(t *testing.T) {
	h := seeded(t)
	const cmd = "/api/method/erpnext.accounts.doctype.payment_entry.payment_entry.get_payment_entry"
	for _, r := range []resp{
		h.do("POST", cmd, map[string]any{"dt": "Sales Invoice", "dn": "ACC-SINV-2026-00010"}),
		h.do("GET", cmd+"?dt=Sales%20Invoice&dn=ACC-SINV-2026-00010", nil),
	} {
		d := r.data()
		for k, want := range map[string]string{"payment_type": "Receive", "posting_date": "2026-11-30", "paid_from": "Debtors - EC",
			"paid_to": erpnextsim.DefaultBank, "paid_amount": "1000.0", "received_amount": "1000.0", "__islocal": "1", "docstatus": "0", "party": "Test Customer"} {
			if got := field(d, k); got != want {
				t.Errorf("%s = %s, want %s", k, got, want)
			}
		}
		if _, ok := d["reference_no"]; ok {
			t.Error("reference_no set")
		}
		if _, ok := d["name"]; ok {
			t.Error("unsaved entry has a name")
		}
		row := row0(d, "references")
		if field(row, "allocated_amount") != "1000.0" || field(row, "__islocal") != "1" || field(row, "outstanding_amount") != "1000.0" {
			t.Errorf("row %v", row)
		}
	}
	if n := len(h.site.Docs("Payment Entry")); n != 0 {
		t.Fatalf("get_payment_entry wrote %d entries", n)
	}
	h.do("POST", pePath, pe(map[string]any{"docstatus": 1, "references": refs("ACC-SINV-2026-00002", 1000)}))
	d := h.do("POST", cmd, map[string]any{"dt": "Sales Invoice", "dn": "ACC-SINV-2026-00002"}).data()
	if field(d, "payment_type") != "Pay" || field(d, "paid_amount") != "0.0" || field(d, "paid_from") != erpnextsim.DefaultBank || field(d, "paid_to") != "Debtors - EC" {
		t.Errorf("fully paid invoice: %v", d)
	}
	t.Run("PartyAmountAndBankAccount", func(t *testing.T) {
		d := h.do("POST", cmd, map[string]any{"dt": "Sales Invoice", "dn": "ACC-SINV-2026-00012", "party_amount": 400, "bank_account": erpnextsim.RazorpayClearing}).data()
		row := row0(d, "references")
		if field(d, "paid_to") != erpnextsim.RazorpayClearing || field(d, "paid_amount") != "400.0" ||
			field(row, "total_amount") != "400.0" || field(row, "outstanding_amount") != "400.0" || field(row, "allocated_amount") != "400.0" {
			t.Errorf("party_amount: %v", d)
		}
	})
	h.do("POST", cmd, map[string]any{"dt": "Sales Invoice", "dn": "ACC-SINV-2026-99999"}).
		expectError(t, 404, "DoesNotExistError", "Sales Invoice ACC-SINV-2026-99999 not found")
}
