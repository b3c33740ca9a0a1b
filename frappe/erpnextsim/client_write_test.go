package erpnextsim_test

import (
	"encoding/json"
	"regexp"
	"testing"
)

const (
	savePath     = "/api/method/frappe.client.save"
	submitPath   = "/api/method/frappe.client.submit"
	setValuePath = "/api/method/frappe.client.set_value"
	deletePath   = "/api/method/frappe.client.delete"
)

var mismatchRE = regexp.MustCompile(`^Error: Document has been modified after you have opened it \((\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}), (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6})\)\. Please refresh to get the latest document\.$`)

// expectMismatch checks a TimestampMismatchError 417 (recordings 25-client-*): the first
// timestamp is the stored modified, the second the server's now (later).
func expectMismatch(t *testing.T, r resp, stored string) {
	t.Helper()
	r.expectError(t, 417, "TimestampMismatchError")
	msgs := r.messages()
	if len(msgs) != 1 {
		t.Fatalf("messages %q", msgs)
	}
	m := mismatchRE.FindStringSubmatch(msgs[0])
	if m == nil || m[1] != stored || m[2] <= stored {
		t.Fatalf("message %q, stored modified %s", msgs[0], stored)
	}
	if want := "frappe.exceptions.TimestampMismatchError: " + msgs[0][:len(msgs[0])-1]; r.body["exception"] != want {
		t.Errorf("exception %q, want %q", r.body["exception"], want)
	}
}

// getDoc is GET /api/resource as a plain dict, the doc a client would send back.
func (h *harness) getDoc(path string) map[string]any {
	h.t.Helper()
	r := h.do("GET", path, nil)
	if r.status != 200 {
		h.t.Fatalf("GET %s: %s", path, r.raw)
	}
	return r.data()
}

// TestClientSaveAndSubmit: spec §1.6, §8.3, recordings 23-resubmit-frappe-client-submit-current, 25-client-*.
func TestClientSaveAndSubmit(t *testing.T) {
	h := seeded(t)
	draft := h.do("POST", pePath, pe(map[string]any{"reference_no": "pay_draft"})).data()
	name := field(draft, "name")
	path := pePath + "/" + name
	doc := h.getDoc(path)
	stored := field(doc, "modified")

	// Missing and stale modified conflict (25-client-save-missing-modified, -stale-modified, 25-client-submit-missing-modified).
	missing := h.getDoc(path)
	delete(missing, "modified")
	expectMismatch(t, h.do("POST", savePath, map[string]any{"doc": missing}), stored)
	expectMismatch(t, h.do("POST", submitPath, map[string]any{"doc": missing}), stored)
	stale := h.getDoc(path)
	stale["modified"] = "2026-01-01 00:00:00.000000"
	expectMismatch(t, h.do("POST", savePath, map[string]any{"doc": stale}), stored)
	if field(h.getDoc(path), "modified") != stored {
		t.Fatal("a refused save changed the document")
	}

	// save with the current modified: the dict replaces the document and modified moves on.
	doc["remarks"], doc["custom_remarks"] = "saved by frappe.client.save", 1 // else ERPNext rewrites remarks
	r := h.do("POST", savePath, map[string]any{"doc": doc})
	d := r.data()
	if r.status != 200 || field(d, "remarks") != "saved by frappe.client.save" || field(d, "docstatus") != "0" || field(d, "modified") <= stored {
		t.Fatalf("save: %s", r.raw)
	}
	if _, ok := d["clearance_date"]; !ok || d["clearance_date"] != nil {
		t.Errorf("frappe.client.* answers keep nulls: %v", d["clearance_date"])
	}
	// The doc as JSON text works too; a dict lacking a field clears it.
	doc = h.getDoc(path)
	delete(doc, "remarks")
	delete(doc, "custom_remarks")
	r = h.do("POST", savePath, map[string]any{"doc": mustJSON(doc)})
	if r.status != 200 || field(r.data(), "remarks") == "saved by frappe.client.save" {
		t.Errorf("whole-doc save: %s", r.raw)
	}
	// Re-using the previous modified is now stale.
	expectMismatch(t, h.do("POST", savePath, map[string]any{"doc": doc}), field(h.getDoc(path), "modified"))

	// submit with the current modified submits the draft.
	doc = h.getDoc(path)
	r = h.do("POST", submitPath, map[string]any{"doc": doc})
	d = r.data()
	if r.status != 200 || field(d, "docstatus") != "1" || field(d, "status") != "Submitted" {
		t.Fatalf("submit: %s", r.raw)
	}
	if inv := h.invoice("ACC-SINV-2026-00001"); field(inv, "outstanding_amount") != "0.0" {
		t.Errorf("invoice after submit: %s", field(inv, "outstanding_amount"))
	}
	// Re-submit with the current modified: 200, modified bumped (README difference 7, 23-resubmit-frappe-client-submit-current).
	doc = h.getDoc(path)
	before := field(doc, "modified")
	r = h.do("POST", submitPath, map[string]any{"doc": doc})
	if r.status != 200 || field(r.data(), "modified") <= before || field(r.data(), "docstatus") != "1" {
		t.Fatalf("re-submit: %s", r.raw)
	}
	// Changing a field that is not allow_on_submit is refused.
	doc = h.getDoc(path)
	doc["reference_no"] = "pay_changed"
	h.do("POST", submitPath, map[string]any{"doc": doc}).expectError(t, 417, "UpdateAfterSubmitError",
		" Not allowed to change <strong>Cheque/Reference No</strong> after submission from <strong>pay_draft</strong> to <strong>pay_changed</strong>")

	// A dict without a name is inserted (and, by submit, submitted).
	body := pe(map[string]any{"doctype": "Payment Entry", "reference_no": "pay_new", "paid_amount": 500, "received_amount": 500,
		"references": refs("ACC-SINV-2026-00002", 500)})
	r = h.do("POST", submitPath, map[string]any{"doc": body})
	if r.status != 200 || field(r.data(), "docstatus") != "1" || field(h.invoice("ACC-SINV-2026-00002"), "outstanding_amount") != "500.0" {
		t.Fatalf("submit of a new doc: %s", r.raw)
	}
	// Unknown name, wrong verb.
	missingDoc := h.getDoc(path)
	missingDoc["name"] = "ACC-PAY-2026-09999"
	h.do("POST", savePath, map[string]any{"doc": missingDoc}).expectError(t, 417, "ValidationError", "Record does not exist")
	h.do("GET", list(savePath, map[string]string{"doc": mustJSON(doc)}), nil).expectError(t, 403, "PermissionError", "Not permitted")
}

// TestClientSetValueAndDelete: spec §1.6 (set_value, delete).
func TestClientSetValueAndDelete(t *testing.T) {
	h := seeded(t)
	name := field(h.do("POST", pePath, pe(nil)).data(), "name")
	path := pePath + "/" + name
	stored := field(h.getDoc(path), "modified")
	r := h.do("POST", setValuePath, map[string]any{"doctype": "Payment Entry", "name": name, "fieldname": "reference_no", "value": "pay_set"})
	if r.status != 200 || field(r.data(), "reference_no") != "pay_set" || field(r.data(), "modified") <= stored {
		t.Fatalf("set_value: %s", r.raw)
	}
	r = h.do("POST", setValuePath, map[string]any{"doctype": "Payment Entry", "name": name, "fieldname": `{"remarks":"two","custom_remarks":1,"reference_no":"pay_two"}`})
	if r.status != 200 || field(r.data(), "reference_no") != "pay_two" || field(r.data(), "remarks") != "two" {
		t.Fatalf("set_value with a dict: %s", r.raw)
	}
	h.do("POST", setValuePath, map[string]any{"doctype": "Payment Entry", "name": name, "fieldname": "docstatus", "value": 1}).
		expectError(t, 417, "ValidationError", "Cannot edit standard fields")
	h.do("POST", setValuePath, map[string]any{"doctype": "Payment Entry", "name": "ACC-PAY-2026-09999", "fieldname": "remarks", "value": "x"}).
		expectError(t, 404, "DoesNotExistError", "Payment Entry ACC-PAY-2026-09999 not found")

	h.do("GET", list(deletePath, map[string]string{"doctype": "Payment Entry", "name": name}), nil).expectError(t, 403, "PermissionError", "Not permitted")
	r = h.do("POST", deletePath, map[string]any{"doctype": "Payment Entry", "name": name})
	if r.status != 200 || r.raw != `{}` {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	if _, ok := h.site.Doc("Payment Entry", name); ok {
		t.Error("still there")
	}
	sub := field(h.do("POST", pePath, pe(map[string]any{"docstatus": 1})).data(), "name")
	h.do("DELETE", list(deletePath, map[string]string{"doctype": "Payment Entry", "name": sub}), nil).expectError(t, 417, "ValidationError",
		"Payment Entry "+sub+": Submitted Record cannot be deleted. You must <a href='https://docs.erpnext.com//docs/user/manual/en/setting-up/articles/delete-submitted-document' target='_blank'> Cancel </a> it first.")
	// set_value on a submitted document: update after submit rules.
	h.do("POST", setValuePath, map[string]any{"doctype": "Payment Entry", "name": sub, "fieldname": "paid_amount", "value": 10}).
		expectError(t, 417, "UpdateAfterSubmitError")
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
