package frappe_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// auditFields are the child-table fields the paid-twice audit selects (connector
// reconcile_audit_paid.go paidRowFields, erpnext-recorded-connector/R01).
var auditFields = []string{"name", "reference_no", "paid_amount",
	"`tabPayment Entry Reference`.`reference_doctype` as ref_doctype",
	"`tabPayment Entry Reference`.`reference_name` as ref_name",
	"`tabPayment Entry Reference`.`allocated_amount` as ref_allocated",
	"`tabPayment Entry Reference`.`payment_request` as ref_payment_request"}

// TestListQualifiesOrderByWhenJoiningChildTable: the order_by on the wire, for every way a
// list can join a child table and for lists that do not.
func TestListQualifiesOrderByWhenJoiningChildTable(t *testing.T) {
	srv, got := captureServer(t, 200, `{"data":[]}`)
	c := newClient(t, frappe.Config{URL: srv.URL})
	childFilter := frappe.Filter{frappe.DoctypePaymentEntryReference, "payment_request", "=", "ACC-PRQ-2026-00001"}
	cases := []struct {
		name string
		opt  frappe.ListOptions
		want string
	}{
		{"ChildFilter", frappe.ListOptions{Fields: []string{"name"}, Filters: []frappe.Filter{childFilter, {"docstatus", "=", 1}}, OrderBy: "creation asc"},
			"`tabPayment Entry`.`creation` asc"},
		{"ChildOrFilter", frappe.ListOptions{OrFilters: []frappe.Filter{childFilter}, OrderBy: "modified DESC, name"},
			"`tabPayment Entry`.`modified` desc, `tabPayment Entry`.`name`"},
		{"ChildFieldsKeepAliases", frappe.ListOptions{Fields: auditFields, OrderBy: "creation asc, ref_name desc"},
			"`tabPayment Entry`.`creation` asc, ref_name desc"},
		{"ChildTableFieldnameSyntax", frappe.ListOptions{Fields: []string{"name", "references.reference_name"}, OrderBy: "posting_date desc,idx"},
			"`tabPayment Entry`.`posting_date` desc, `tabPayment Entry`.`idx`"},
		{"QualifiedTermsKept", frappe.ListOptions{Filters: []frappe.Filter{childFilter},
			OrderBy: "`tabPayment Entry Reference`.`allocated_amount` desc, `tabPayment Entry`.creation"},
			"`tabPayment Entry Reference`.`allocated_amount` desc, `tabPayment Entry`.creation"},
		{"NoJoinUnchanged", frappe.ListOptions{Fields: []string{"name", "`tabPayment Entry`.`paid_amount`"},
			Filters: []frappe.Filter{{frappe.DoctypePaymentEntry, "docstatus", "=", 1}, {"reference_no", "=", "pay_1"}}, OrderBy: "creation asc"},
			"creation asc"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var rows []map[string]any
			if err := c.List(context.Background(), frappe.DoctypePaymentEntry, tc.opt, &rows); err != nil {
				t.Fatal(err)
			}
			if ob := got.query.Get("order_by"); ob != tc.want {
				t.Errorf("order_by %q, want %q", ob, tc.want)
			}
		})
	}
	t.Run("ListAllDefaultOrder", func(t *testing.T) {
		var rows []map[string]any
		if err := c.ListAll(context.Background(), frappe.DoctypePaymentEntry, frappe.ListOptions{Filters: []frappe.Filter{childFilter}}, &rows); err != nil {
			t.Fatal(err)
		}
		if ob := got.query.Get("order_by"); ob != "`tabPayment Entry`.`creation` asc, `tabPayment Entry`.`name` asc" {
			t.Errorf("order_by %q", ob)
		}
	})
}

// TestConnectorListShapesRunOnStrictSimulator: the connector's joined lists (the Payment
// Request lookup of checkoutEntries, the paid-twice audit and its chunks, the Contact lookup)
// sent through the client run on the simulator, which answers the same lists sent unqualified
// with the real site's 500 1052.
func TestConnectorListShapesRunOnStrictSimulator(t *testing.T) {
	ctx := context.Background()
	site, base := simSite(t, 2, erpnextsim.Options{})
	pr, err := site.AddPaymentRequest("ACC-SINV-2026-00001", erpnextsim.PaymentRequestSpec{})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, frappe.Config{URL: base})
	entry := receipt("ACC-SINV-2026-00001", "pay_PR000000000001")
	entry["docstatus"] = 1
	entry["references"].([]any)[0].(map[string]any)["payment_request"] = pr
	if err := c.Insert(ctx, frappe.DoctypePaymentEntry, entry, nil); err != nil {
		t.Fatal(err)
	}
	second := receipt("ACC-SINV-2026-00002", "pay_PR000000000002")
	second["docstatus"] = 1
	if err := c.Insert(ctx, frappe.DoctypePaymentEntry, second, nil); err != nil {
		t.Fatal(err)
	}
	shapes := []struct {
		name string
		opt  frappe.ListOptions
		want string // names and reference_no of the rows, in order
	}{
		{"CheckoutEntriesByRow", frappe.ListOptions{Fields: []string{"name", "reference_no", "paid_amount"},
			Filters: []frappe.Filter{{frappe.DoctypePaymentEntryReference, "payment_request", "=", pr}, {"docstatus", "=", 1}},
			OrderBy: "creation asc", All: true}, "ACC-PAY-2026-00001 pay_PR000000000001"},
		{"AuditPaidTwice", frappe.ListOptions{Fields: auditFields, Filters: []frappe.Filter{{"docstatus", "=", 1},
			{"payment_type", "=", "Receive"}, {"posting_date", ">=", "2026-11-01"}}, OrderBy: "creation asc", All: true},
			"ACC-PAY-2026-00001 pay_PR000000000001,ACC-PAY-2026-00002 pay_PR000000000002"},
		{"AuditChunkByInvoice", frappe.ListOptions{Fields: auditFields, Filters: []frappe.Filter{{"docstatus", "=", 1},
			{frappe.DoctypePaymentEntryReference, "reference_name", "in", []string{"ACC-SINV-2026-00002"}}}, OrderBy: "creation asc", All: true},
			"ACC-PAY-2026-00002 pay_PR000000000002"},
	}
	for _, tc := range shapes {
		t.Run(tc.name, func(t *testing.T) {
			var rows []struct {
				Name        string `json:"name"`
				ReferenceNo string `json:"reference_no"`
			}
			if err := c.List(ctx, frappe.DoctypePaymentEntry, tc.opt, &rows); err != nil {
				t.Fatalf("through the client: %v", err)
			}
			var got []string
			for _, r := range rows {
				got = append(got, r.Name+" "+r.ReferenceNo)
			}
			if strings.Join(got, ",") != tc.want {
				t.Errorf("rows %v, want %s", got, tc.want)
			}
			status, exc := rawList(t, base, frappe.DoctypePaymentEntry, tc.opt)
			if status != 500 || exc != `pymysql.err.OperationalError: (1052, "Column 'creation' in ORDER BY is ambiguous")` {
				t.Errorf("the same list unqualified: %d %q, want the real site's 500 1052", status, exc)
			}
		})
	}
	t.Run("ContactCustomers", func(t *testing.T) {
		if _, err := site.AddContact(erpnextsim.ContactSpec{FirstName: "Asha", Emails: []erpnextsim.ContactEmail{{Email: "asha@example.com"}},
			Customers: []string{"Test Customer"}}); err != nil {
			t.Fatal(err)
		}
		var rows []map[string]any
		if err := c.List(ctx, frappe.DoctypeContact, frappe.ListOptions{Fields: []string{"name", "links.link_name"},
			Filters: []frappe.Filter{{"Contact Email", "email_id", "=", "ASHA@example.com"}, {"Dynamic Link", "link_doctype", "=", frappe.DoctypeCustomer}},
			OrderBy: "name asc", All: true}, &rows); err != nil {
			t.Fatalf("contact lookup: %v", err)
		}
		if len(rows) != 1 || rows[0]["link_name"] != "Test Customer" {
			t.Errorf("rows %v, want the contact's one link to Test Customer", rows)
		}
	})
}

// rawList sends a list with opt's parameters as written (no client qualification) and returns
// the status and the "exception" line.
func rawList(t *testing.T, base, doctype string, opt frappe.ListOptions) (int, string) {
	t.Helper()
	q := url.Values{}
	for k, v := range map[string]any{"fields": opt.Fields, "filters": opt.Filters} {
		b, _ := json.Marshal(v)
		q.Set(k, string(b))
	}
	q.Set("order_by", opt.OrderBy)
	q.Set("limit_page_length", "0")
	req, _ := http.NewRequest(http.MethodGet, base+"/api/resource/"+url.PathEscape(doctype)+"?"+q.Encode(), nil)
	req.Header.Set("Authorization", "token "+testKey+":"+testSecret)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var body struct {
		Exception string `json:"exception"`
	}
	_ = json.Unmarshal(raw, &body)
	return res.StatusCode, body.Exception
}
