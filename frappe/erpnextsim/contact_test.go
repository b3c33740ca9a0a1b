package erpnextsim_test

import (
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

const contactPath = "/api/resource/Contact"

// twoMailPerson is the recorded site's console-made Contact (README second pass, recordings 56-*).
func twoMailPerson(t *testing.T, h *harness) string {
	t.Helper()
	name, err := h.site.AddContact(erpnextsim.ContactSpec{FirstName: "Two Mail", LastName: "Person",
		Emails:    []erpnextsim.ContactEmail{{Email: "two.primary@example.com", Primary: true}, {Email: "Two.Second@Example.com"}},
		Customers: []string{"Test Customer"}})
	if err != nil {
		t.Fatal(err)
	}
	if name != "Two Mail Person-Test Customer" {
		t.Fatalf("contact named %q", name)
	}
	return name
}

// TestContactLookupAsRecorded replays the three 56-* lookups and compares the bodies byte for byte.
func TestContactLookupAsRecorded(t *testing.T) {
	h := seeded(t)
	twoMailPerson(t, h)
	for _, tc := range []struct{ name, fields, filters, limit, want string }{
		{"56-contact-by-primary-email", `["name","links.link_name"]`,
			`[["Contact Email", "email_id", "=", "two.primary@example.com"], ["Dynamic Link", "link_doctype", "=", "Customer"]]`, "0",
			`{"data":[{"name":"Two Mail Person-Test Customer","link_name":"Test Customer"}]}`},
		{"56-contact-by-second-email-other-case", `["name","links.link_name"]`,
			`[["Contact Email", "email_id", "=", "two.second@example.com"], ["Dynamic Link", "link_doctype", "=", "Customer"]]`, "0",
			`{"data":[{"name":"Two Mail Person-Test Customer","link_name":"Test Customer"}]}`},
		{"56-contact-by-email-fields-without-link-filter", `["name","email_id","links.link_doctype","links.link_name","email_ids.email_id"]`,
			`[["Contact Email", "email_id", "=", "two.second@example.com"]]`, "",
			`{"data":[{"name":"Two Mail Person-Test Customer","email_id":"Two.Second@Example.com","link_doctype":"Customer","link_name":"Test Customer"}]}`},
	} {
		q := map[string]string{"fields": tc.fields, "filters": tc.filters}
		if tc.limit != "" {
			q["limit_page_length"] = tc.limit
		}
		if r := h.do("GET", list(contactPath, q), nil); r.status != 200 || r.raw != tc.want {
			t.Errorf("%s: %d %s\nwant %s", tc.name, r.status, r.raw, tc.want)
		}
	}
	if r := h.do("GET", list(contactPath, map[string]string{"fields": `["name"]`, "filters": `[["Contact Email","email_id","=","nobody@example.com"]]`}), nil); r.raw != `{"data":[]}` {
		t.Errorf("unknown address: %s", r.raw)
	}
}

// TestContactRowsPerChildCombination: a contact linked to two customers yields one row per
// link; an unfiltered email child field multiplies the rows (LEFT JOIN, no DISTINCT).
func TestContactRowsPerChildCombination(t *testing.T) {
	h := seeded(t)
	name, err := h.site.AddContact(erpnextsim.ContactSpec{FirstName: "Shared",
		Emails:    []erpnextsim.ContactEmail{{Email: "shared@example.com"}, {Email: "other@example.com"}},
		Phones:    []erpnextsim.ContactPhone{{Phone: "+91 98765 43210"}, {Phone: "+91-9876543210", PrimaryMobile: true}},
		Customers: []string{"Test Customer", "Other Customer"}})
	if err != nil || name != "Shared-Test Customer" {
		t.Fatalf("%q %v", name, err)
	}
	r := h.do("GET", list(contactPath, map[string]string{"fields": `["name","links.link_name"]`, "order_by": "name asc",
		"filters": `[["Contact Email","email_id","=","SHARED@example.com"],["Dynamic Link","link_doctype","=","Customer"]]`}), nil)
	rows, _ := r.body["data"].([]any)
	got := map[string]bool{}
	for _, row := range rows {
		got[field(row.(map[string]any), "link_name")] = true
	}
	if len(rows) != 2 || !got["Test Customer"] || !got["Other Customer"] {
		t.Fatalf("two links: %s", r.raw)
	}
	r = h.do("GET", list(contactPath, map[string]string{"fields": `["name","links.link_name","email_ids.email_id"]`}), nil)
	if rows, _ := r.body["data"].([]any); len(rows) != 4 {
		t.Errorf("2 links x 2 emails: %s", r.raw)
	}
	// Phones are stored as typed; a like on the last 10 digits finds only the compact one.
	r = h.do("GET", list(contactPath, map[string]string{"fields": `["name","phone_nos.phone"]`, "filters": `[["Contact Phone","phone","like","%9876543210"]]`}), nil)
	if r.raw != `{"data":[{"name":"Shared-Test Customer","phone":"+91-9876543210"}]}` {
		t.Errorf("phone like: %s", r.raw)
	}
	doc, _ := h.site.Doc("Contact", name)
	if field(doc, "email_id") != "shared@example.com" || field(doc, "mobile_no") != "+91-9876543210" || doc["phone"] != nil && field(doc, "phone") != "" {
		t.Errorf("mirrors: email_id %s mobile_no %s phone %v", field(doc, "email_id"), field(doc, "mobile_no"), doc["phone"])
	}
	links, _ := doc["links"].([]any)
	if len(links) != 2 || field(links[1].(map[string]any), "link_title") != "Other Customer" {
		t.Errorf("links %v", links)
	}
	// A second contact of the same names gets "-1".
	if n, err := h.site.AddContact(erpnextsim.ContactSpec{FirstName: "Shared", Customers: []string{"Test Customer"}}); err != nil || n != "Shared-Test Customer-1" {
		t.Errorf("second contact %q %v", n, err)
	}
}

// TestCustomerEmailAndMobileFilters: a primary contact's email_id / mobile_no are copied to the
// Customer (§6 fallback lookup), and `=` on them is case-insensitive.
func TestCustomerEmailAndMobileFilters(t *testing.T) {
	h := seeded(t)
	if _, err := h.site.AddContact(erpnextsim.ContactSpec{FirstName: "Primary", PrimaryFor: true,
		Emails: []erpnextsim.ContactEmail{{Email: "Buyer@Example.com"}}, Phones: []erpnextsim.ContactPhone{{Phone: "9876543210", PrimaryMobile: true}},
		Customers: []string{"Test Customer"}}); err != nil {
		t.Fatal(err)
	}
	cu, _ := h.site.Doc("Customer", "Test Customer")
	if field(cu, "customer_primary_contact") != "Primary-Test Customer" || field(cu, "email_id") != "Buyer@Example.com" || field(cu, "mobile_no") != "9876543210" {
		t.Fatalf("customer %v", cu)
	}
	custPath := "/api/resource/Customer"
	if r := h.do("GET", list(custPath, map[string]string{"filters": `[["email_id","=","buyer@example.com"]]`}), nil); r.raw != `{"data":[{"name":"Test Customer"}]}` {
		t.Errorf("email_id: %s", r.raw)
	}
	if r := h.do("GET", list(custPath, map[string]string{"filters": `[["mobile_no","like","%9876543210"]]`}), nil); r.raw != `{"data":[{"name":"Test Customer"}]}` {
		t.Errorf("mobile_no: %s", r.raw)
	}
	// ERPNext's create_primary_contact: a Customer inserted with email_id gets a Contact.
	r := h.do("POST", custPath, map[string]any{"customer_name": "Mail Customer", "email_id": "mail@example.com", "mobile_no": "+919000000001"})
	if r.status != 200 || field(r.data(), "customer_primary_contact") != "Mail Customer-Mail Customer" {
		t.Fatalf("customer with email: %s", r.raw)
	}
	r = h.do("GET", list(contactPath, map[string]string{"fields": `["name","links.link_name"]`,
		"filters": `[["Contact Email","email_id","=","MAIL@example.com"],["Dynamic Link","link_doctype","=","Customer"]]`}), nil)
	if r.raw != `{"data":[{"name":"Mail Customer-Mail Customer","link_name":"Mail Customer"}]}` {
		t.Errorf("lookup of the made contact: %s", r.raw)
	}
	h.do("POST", custPath, map[string]any{"customer_name": "Bad Mail", "email_id": "not-an-address"}).
		expectError(t, 417, "InvalidEmailAddressError", "not-an-address is not a valid Email Address")
}

// TestContactCreateOverREST: the API user (Sales/Accounts roles) may create contacts
// (contact.json grants create to Sales User, Accounts User and their managers).
func TestContactCreateOverREST(t *testing.T) {
	h := seeded(t, erpnextsim.Options{Users: []erpnextsim.User{
		{Email: "limited@example.com", Key: "LK", Secret: "LS", Roles: []string{erpnextsim.RoleSalesUser}},
		{Email: "norole@example.com", Key: "NK", Secret: "NS"},
	}})
	body := map[string]any{"first_name": "Rest", "last_name": "Person",
		"email_ids": []any{map[string]any{"email_id": "rest@example.com", "is_primary": 1}},
		"phone_nos": []any{map[string]any{"phone": "+919812345678", "is_primary_mobile_no": 1, "is_primary_phone": 1}},
		"links":     []any{map[string]any{"link_doctype": "Customer", "link_name": "test customer"}}}
	r := h.do("POST", contactPath, body)
	d := r.data()
	if r.status != 200 || field(d, "name") != "Rest Person-Test Customer" || field(d, "email_id") != "rest@example.com" ||
		field(d, "mobile_no") != "+919812345678" || field(d, "phone") != "+919812345678" || field(d, "full_name") != "Rest Person" ||
		field(d, "status") != "Passive" || field(d, "owner") != erpnextsim.APIUser {
		t.Fatalf("create: %s", r.raw)
	}
	if l := row0(d, "links"); field(l, "link_name") != "Test Customer" || field(l, "link_title") != "Test Customer" || field(l, "parenttype") != "Contact" {
		t.Errorf("link row %v", l)
	}
	r = h.do("GET", contactPath+"/Rest%20Person-Test%20Customer", nil)
	if r.status != 200 || field(r.data(), "email_id") != "rest@example.com" {
		t.Errorf("read back: %s", r.raw)
	}
	if r := h.do("POST", contactPath, map[string]any{"first_name": "Lim"}, "Authorization", "token LK:LS"); r.status != 200 || field(r.data(), "name") != "Lim" {
		t.Errorf("Sales User create: %s", r.raw)
	}
	r = h.do("POST", contactPath, map[string]any{"first_name": "X"}, "Authorization", "token NK:NS")
	r.expectError(t, 403, "PermissionError", "User <strong>norole@example.com</strong> does not have doctype access via role permission for document <strong>Contact</strong>")
	if r.body["_error_message"] != "No permission for Contact" {
		t.Errorf("create denial: %s", r.raw)
	}
	two := []any{map[string]any{"email_id": "a@example.com", "is_primary": 1}, map[string]any{"email_id": "b@example.com", "is_primary": 1}}
	h.do("POST", contactPath, map[string]any{"first_name": "Two", "email_ids": two}).
		expectError(t, 417, "ValidationError", "Only one <strong>Email ID</strong> can be set as primary.")
	h.do("POST", contactPath, map[string]any{"first_name": "Bad", "email_ids": []any{map[string]any{"email_id": "nope"}}}).
		expectError(t, 417, "InvalidEmailAddressError", "nope is not a valid Email Address")
	h.do("POST", contactPath, map[string]any{"first_name": "Gone", "links": []any{map[string]any{"link_doctype": "Customer", "link_name": "No Such Customer"}}}).
		expectError(t, 417, "LinkValidationError", "Could not find Row #1: Link Name: No Such Customer")
	h.do("POST", contactPath, map[string]any{"email_ids": []any{map[string]any{"email_id": "anon@example.com"}}}).
		expectError(t, 417, "ValidationError", "No Name Specified for Contact")
	r = h.do("POST", contactPath, map[string]any{"first_name": "Empty", "email_ids": []any{map[string]any{"is_primary": 1}}})
	r.expectError(t, 417, "MandatoryError", "Error: <strong>Contact Email</strong> Row #1: Value missing for: Email ID")
	if !strings.Contains(str(r.body["exception"]), "[Contact, ") {
		t.Errorf("mandatory exception %v", r.body["exception"])
	}
}
