package connector

import (
	"encoding/json"
	"strings"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
)

// What the core reads of ERPNext's Integration Requests (spec/erpnext.md §5): a receipt's
// checkout stage finds a payment's Payment Request through them, and reconcile lists them.

// IntegrationRequest is the part of a Frappe Integration Request the connector reads
// (spec/erpnext.md §5.1). Data is JSON text (or, from some serialisers, a JSON object).
type IntegrationRequest struct {
	Name             string          `json:"name"`
	Status           string          `json:"status"`
	Data             json.RawMessage `json:"data"`
	ReferenceDoctype string          `json:"reference_doctype"`
	ReferenceDocname string          `json:"reference_docname"`
	Modified         string          `json:"modified"`
}

// IntegrationRequestFields are the list fields of IntegrationRequest.
var IntegrationRequestFields = []string{"name", "status", "data", "reference_doctype", "reference_docname", "modified"}

// IRData is what the payments app merges into an Integration Request's data
// (spec/erpnext.md §5.2): the Razorpay payment id and the document paid.
type IRData struct {
	PaymentID        string // razorpay_payment_id
	ReferenceDoctype string
	ReferenceDocname string
}

// PaymentRequest is the Payment Request the Integration Request is for: named in its data, else
// its own reference ("" when neither is a Payment Request).
func (ir IntegrationRequest) PaymentRequest(d IRData) string {
	switch {
	case d.ReferenceDoctype == frappe.DoctypePaymentRequest && d.ReferenceDocname != "":
		return d.ReferenceDocname
	case ir.ReferenceDoctype == frappe.DoctypePaymentRequest && ir.ReferenceDocname != "":
		return ir.ReferenceDocname
	}
	return ""
}

// ParseIRData reads an Integration Request's data: JSON text in a string (as Frappe stores it)
// or a JSON object. ok is false when it is neither.
func ParseIRData(raw json.RawMessage) (d IRData, ok bool) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return d, true
	}
	if strings.HasPrefix(s, `"`) {
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return d, false
		}
		if strings.TrimSpace(text) == "" {
			return d, true
		}
		raw = json.RawMessage(text)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return d, false
	}
	str := func(k string) string {
		v, _ := m[k].(string)
		return strings.TrimSpace(v)
	}
	d.PaymentID, d.ReferenceDoctype, d.ReferenceDocname = str("razorpay_payment_id"), str("reference_doctype"), str("reference_docname")
	return d, true
}
