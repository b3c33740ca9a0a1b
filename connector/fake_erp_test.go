package connector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
)

// fakeERP is an in-memory ERPNext for deciding without HTTP: documents by doctype and name,
// lists filtered on their fields (and on the rows of their child tables), get_payment_entry
// proposing the invoice's outstanding as ERPNext does, and errors injected per operation. It
// refuses every write: decide reads only.
type fakeERP struct {
	mu     sync.Mutex
	docs   map[string]map[string]map[string]any // doctype → name → document
	fail   map[string]error                     // "list Sales Invoice", "list Payment Entry", "call get_payment_entry" → error
	writes []string
}

func newFakeERP() *fakeERP {
	f := &fakeERP{docs: map[string]map[string]map[string]any{}, fail: map[string]error{}}
	f.add("Mode of Payment", "Razorpay", map[string]any{"accounts": []any{map[string]any{"company": "Example Company", "default_account": "Razorpay Clearing - EC"}}})
	f.add("Company", "Example Company", map[string]any{"round_off_account": "Round Off - EC", "cost_center": "Main - EC"})
	return f
}

func (f *fakeERP) add(doctype, name string, doc map[string]any) {
	if f.docs[doctype] == nil {
		f.docs[doctype] = map[string]map[string]any{}
	}
	doc["name"] = name
	f.docs[doctype][name] = doc
}

// invoice adds a submitted INR Sales Invoice of Test Customer with outstanding (rupees).
func (f *fakeERP) invoice(name string, outstanding string) {
	f.add("Sales Invoice", name, map[string]any{"customer": "Test Customer", "company": "Example Company", "currency": "INR",
		"party_account_currency": "INR", "debit_to": "Debtors - EC", "docstatus": 1, "is_return": 0, "outstanding_amount": json.Number(outstanding)})
}

// entry adds a Payment Entry with reference_no, docstatus and allocations (invoice → rupees).
func (f *fakeERP) entry(name, ref string, docstatus int, paid string, refs ...map[string]any) {
	rows := []any{}
	for _, r := range refs {
		rows = append(rows, r)
	}
	f.add("Payment Entry", name, map[string]any{"reference_no": ref, "docstatus": docstatus, "payment_type": "Receive", "company": "Example Company",
		"party": "Test Customer", "paid_from": "Debtors - EC", "paid_to": "Razorpay Clearing - EC", "paid_amount": json.Number(paid),
		"received_amount": json.Number(paid), "references": rows})
}

func notFound(doctype, name string) error {
	return &frappe.Error{Method: http.MethodGet, Path: "/api/resource/" + doctype + "/" + name, Status: 404, ExcType: "DoesNotExistError",
		Messages: []string{doctype + " " + name + " not found"}}
}

func (f *fakeERP) Get(_ context.Context, doctype, name string, out any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.fail["get "+doctype]; err != nil {
		return err
	}
	doc, ok := f.docs[doctype][name]
	if !ok {
		return notFound(doctype, name)
	}
	return reencode(doc, out)
}

func (f *fakeERP) List(_ context.Context, doctype string, opt frappe.ListOptions, out any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.fail["list "+doctype]; err != nil {
		return err
	}
	var rows []map[string]any
	for _, doc := range f.docs[doctype] {
		if matches(doc, opt.Filters) {
			rows = append(rows, doc)
		}
	}
	return reencode(rows, out)
}

// matches applies =, != and like filters to top-level fields; a filter on a child doctype
// ([child, field, op, value]) matches when one row of one child table does.
func matches(doc map[string]any, filters []frappe.Filter) bool {
	for _, flt := range filters {
		if len(flt) == 4 {
			found := false
			for _, v := range doc {
				for _, row := range rowsOf(v) {
					found = found || holds(row[fmt.Sprint(flt[1])], fmt.Sprint(flt[2]), flt[3])
				}
			}
			if !found {
				return false
			}
			continue
		}
		if !holds(doc[fmt.Sprint(flt[0])], fmt.Sprint(flt[1]), flt[2]) {
			return false
		}
	}
	return true
}

func holds(got any, op string, want any) bool {
	g, w := fmt.Sprint(got), fmt.Sprint(want)
	switch op {
	case "=":
		return strings.EqualFold(g, w) // the site's collation ignores case
	case "!=":
		return g != w
	case "like":
		return strings.Contains(strings.ToLower(g), strings.Trim(strings.ToLower(w), "%"))
	case "in":
		list, _ := want.([]string)
		for _, v := range list {
			if strings.EqualFold(g, v) {
				return true
			}
		}
	}
	return false
}

func (f *fakeERP) Call(_ context.Context, method string, args any, out any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	short := method[strings.LastIndexByte(method, '.')+1:]
	if err := f.fail["call "+short]; err != nil {
		return err
	}
	if method != frappe.MethodGetPaymentEntry {
		f.writes = append(f.writes, "call "+method)
		return fmt.Errorf("fakeERP: %s is not a read", method)
	}
	a := args.(map[string]any)
	inv, ok := f.docs["Sales Invoice"][fmt.Sprint(a["dn"])]
	if !ok {
		return notFound("Sales Invoice", fmt.Sprint(a["dn"]))
	}
	pt := "Receive"
	if fmt.Sprint(inv["is_return"]) == "1" {
		pt = "Pay"
	}
	// ERPNext proposes the whole outstanding on the invoice row, whatever party_amount says.
	return reencode(map[string]any{"doctype": "Payment Entry", "payment_type": pt, "party_type": "Customer", "party": inv["customer"],
		"paid_from": inv["debit_to"], "references": []any{map[string]any{"reference_doctype": "Sales Invoice", "reference_name": inv["name"],
			"allocated_amount": inv["outstanding_amount"], "outstanding_amount": inv["outstanding_amount"]}}, "deductions": []any{}}, out)
}

func (f *fakeERP) Insert(_ context.Context, doctype string, _ any, _ any) error {
	f.mu.Lock()
	f.writes = append(f.writes, "insert "+doctype)
	f.mu.Unlock()
	return fmt.Errorf("fakeERP: decide inserted a %s", doctype)
}

func (f *fakeERP) Update(_ context.Context, doctype, name string, _ any, _ any) error {
	f.mu.Lock()
	f.writes = append(f.writes, "update "+doctype+" "+name)
	f.mu.Unlock()
	return fmt.Errorf("fakeERP: decide updated %s %s", doctype, name)
}

func reencode(v, out any) error {
	if out == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	return dec.Decode(out)
}
