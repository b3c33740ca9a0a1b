package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// auditScale is the number of fraction digits amounts are compared at: ERPNext sends Currency
// fields as decimals with up to the site's precision, never more than this in practice.
const auditScale = 6

// paidRow is one row of a Payment Entry list joined with its references (one row per
// reference row; the reference columns are empty for an entry without references).
type paidRow struct {
	Name           string      `json:"name"`
	ReferenceNo    string      `json:"reference_no"`
	PaidAmount     json.Number `json:"paid_amount"`
	RefDoctype     string      `json:"ref_doctype"`
	RefName        string      `json:"ref_name"`
	RefAllocated   json.Number `json:"ref_allocated"`
	PaymentRequest string      `json:"ref_payment_request"`
}

// paidRowFields are the list fields of paidRow: the child columns aliased so that they never
// collide with a parent column of the same name.
var paidRowFields = []string{"name", "reference_no", "paid_amount",
	"`tabPayment Entry Reference`.`reference_doctype` as ref_doctype",
	"`tabPayment Entry Reference`.`reference_name` as ref_name",
	"`tabPayment Entry Reference`.`allocated_amount` as ref_allocated",
	"`tabPayment Entry Reference`.`payment_request` as ref_payment_request"}

// paidBy is how much each submitted entry paid towards one document, and under which
// reference_no.
type paidBy struct {
	refs   map[string]string // entry name → reference_no
	amount map[string]int64  // entry name → amount at auditScale
}

func (p *paidBy) add(entry, ref string, amount int64) {
	if p.refs == nil {
		p.refs, p.amount = map[string]string{}, map[string]int64{}
	}
	p.refs[entry] = ref
	p.amount[entry] += amount
}

// paidTwice is true when at least two entries under different reference_no (exact case) paid
// the document.
func (p *paidBy) paidTwice() bool {
	distinct := map[string]bool{}
	for _, ref := range p.refs {
		distinct[ref] = true
	}
	return len(p.refs) > 1 && len(distinct) > 1
}

func (p *paidBy) total() int64 {
	var t int64
	for _, a := range p.amount {
		t += a
	}
	return t
}

// auditPaidTwice reports Sales Invoices and Payment Requests that submitted receipt Payment
// Entries under different reference_no paid beyond their total: ERPNext validates allocations
// against a stale outstanding when two entries are saved at once (spec/erpnext.md §3.7), and
// ERPNext's own checkout books a Payment Request under reference_no = its name without always
// linking it in a reference row (§3.9), so the same money can be booked twice under two
// references, which the duplicate reference_no audit cannot see. It looks at the documents the
// Razorpay entries posted since the listed range's start pay, and at every submitted entry that
// pays them (any date, any Mode of Payment). Nothing is changed.
func (a *audit) auditPaidTwice(ctx context.Context) error {
	var recent []paidRow
	err := a.erp.List(ctx, frappe.DoctypePaymentEntry, frappe.ListOptions{
		Fields:  paidRowFields,
		Filters: a.recentReceipts(),
		OrderBy: "creation asc",
		All:     true,
	}, &recent)
	if err != nil {
		return err
	}
	invoices, requests := map[string]bool{}, map[string]bool{}
	for _, row := range recent {
		if row.RefDoctype == frappe.DoctypeSalesInvoice && row.RefName != "" {
			invoices[row.RefName] = true
		}
		if row.PaymentRequest != "" {
			requests[row.PaymentRequest] = true
		}
	}
	byInvoice, err := a.paidInvoices(ctx, sortedKeys(invoices))
	if err != nil {
		return err
	}
	byRequest, err := a.paidRequests(ctx, sortedKeys(requests))
	if err != nil {
		return err
	}
	if err := a.reportPaidTwice(ctx, frappe.DoctypeSalesInvoice, AnomalyInvoicePaidTwice, byInvoice); err != nil {
		return err
	}
	return a.reportPaidTwice(ctx, frappe.DoctypePaymentRequest, AnomalyPaymentRequestPaidTwice, byRequest)
}

// paidInvoices sums, per invoice, what each submitted receipt entry allocated to it.
func (a *audit) paidInvoices(ctx context.Context, names []string) (map[string]*paidBy, error) {
	out := map[string]*paidBy{}
	err := a.eachChunk(ctx, names, func(chunk []string) []frappe.Filter {
		return []frappe.Filter{{frappe.DoctypePaymentEntryReference, "reference_name", "in", chunk}}
	}, func(row paidRow) {
		if row.RefDoctype != frappe.DoctypeSalesInvoice || !sortedHas(names, row.RefName) {
			return
		}
		a.addPaid(out, row.RefName, row, row.RefAllocated)
	})
	return out, err
}

// paidRequests sums, per Payment Request, what each submitted receipt entry paid towards it:
// the allocations of reference rows linking it, or, for an entry whose reference_no is the
// Payment Request's name (exact case) and that links it nowhere, the entry's paid_amount.
func (a *audit) paidRequests(ctx context.Context, names []string) (map[string]*paidBy, error) {
	out := map[string]*paidBy{}
	linked := map[string]bool{} // entry name + "\x00" + Payment Request
	err := a.eachChunk(ctx, names, func(chunk []string) []frappe.Filter {
		return []frappe.Filter{{frappe.DoctypePaymentEntryReference, "payment_request", "in", chunk}}
	}, func(row paidRow) {
		if !sortedHas(names, row.PaymentRequest) {
			return
		}
		linked[row.Name+"\x00"+row.PaymentRequest] = true
		a.addPaid(out, row.PaymentRequest, row, row.RefAllocated)
	})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	err = a.eachChunk(ctx, names, func(chunk []string) []frappe.Filter {
		return []frappe.Filter{{"reference_no", "in", chunk}}
	}, func(row paidRow) {
		if !sortedHas(names, row.ReferenceNo) || linked[row.Name+"\x00"+row.ReferenceNo] || seen[row.Name] {
			return
		}
		seen[row.Name] = true // one line per reference row: count the entry once
		a.addPaid(out, row.ReferenceNo, row, row.PaidAmount)
	})
	return out, err
}

// eachChunk lists the submitted receipt entries matching filter(chunk) for names in chunks of
// auditChunk and hands every joined row to each.
func (a *audit) eachChunk(ctx context.Context, names []string, filter func([]string) []frappe.Filter, each func(paidRow)) error {
	for start := 0; start < len(names); start += auditChunk {
		chunk := names[start:min(start+auditChunk, len(names))]
		var rows []paidRow
		err := a.erp.List(ctx, frappe.DoctypePaymentEntry, frappe.ListOptions{
			Fields: paidRowFields,
			Filters: append([]frappe.Filter{
				{"docstatus", "=", frappe.DocstatusSubmitted},
				{"payment_type", "=", "Receive"},
			}, filter(chunk)...),
			OrderBy: "creation asc",
			All:     true,
		}, &rows)
		if err != nil {
			return err
		}
		for _, row := range rows {
			each(row)
		}
	}
	return nil
}

func (a *audit) addPaid(out map[string]*paidBy, doc string, row paidRow, amount json.Number) {
	v, err := razorpay.ParseDecimal(amount.String(), auditScale)
	if err != nil {
		a.t.warn("audit: Payment Entry %s: amount %q for %s not read: %v", row.Name, amount, doc, err)
		return
	}
	p := out[doc]
	if p == nil {
		p = &paidBy{}
		out[doc] = p
	}
	p.add(row.Name, row.ReferenceNo, v)
}

// reportPaidTwice reads the totals of the documents paid under two references or more and
// reports those paid beyond their total (rounded_total when the site rounds, else grand_total).
func (a *audit) reportPaidTwice(ctx context.Context, doctype, kind string, paid map[string]*paidBy) error {
	var names []string
	for name, p := range paid {
		if p.paidTwice() {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	fields := []string{"name", "grand_total"}
	if doctype == frappe.DoctypeSalesInvoice {
		fields = append(fields, "rounded_total")
	}
	for start := 0; start < len(names); start += auditChunk {
		chunk := names[start:min(start+auditChunk, len(names))]
		var docs []struct {
			Name         string      `json:"name"`
			GrandTotal   json.Number `json:"grand_total"`
			RoundedTotal json.Number `json:"rounded_total"`
		}
		err := a.erp.List(ctx, doctype, frappe.ListOptions{Fields: fields,
			Filters: []frappe.Filter{{"name", "in", chunk}}, All: true}, &docs)
		if err != nil {
			return err
		}
		for _, d := range docs {
			p := paid[d.Name]
			if p == nil {
				continue
			}
			total, err := razorpay.ParseDecimal(d.GrandTotal.String(), auditScale)
			if rt, rerr := razorpay.ParseDecimal(d.RoundedTotal.String(), auditScale); rerr == nil && rt != 0 {
				total, err = rt, nil
			}
			if err != nil {
				a.t.warn("audit: %s %s: total %q not read: %v", doctype, d.Name, d.GrandTotal, err)
				continue
			}
			if p.total() <= total {
				continue // paid in parts under several references: nothing wrong
			}
			a.t.rep.Anomalies = append(a.t.rep.Anomalies, paidTwiceAnomaly(doctype, kind, d.Name, total, p))
		}
	}
	return nil
}

func paidTwiceAnomaly(doctype, kind, name string, total int64, p *paidBy) Anomaly {
	entries := make([]string, 0, len(p.refs))
	for e := range p.refs {
		entries = append(entries, e)
	}
	sort.Strings(entries)
	parts := make([]string, 0, len(entries))
	for _, e := range entries {
		parts = append(parts, fmt.Sprintf("%s (reference_no %s, %s)", e, p.refs[e], trimZeros(razorpay.FormatMinor(p.amount[e], auditScale))))
	}
	return Anomaly{Kind: kind, Documents: append([]string{name}, entries...),
		Detail: fmt.Sprintf("%s %s (total %s) was paid %s by submitted Payment Entries under different references: %s; if the money arrived once, cancel the extra entry in ERPNext, otherwise refund or keep it as an advance",
			doctype, name, trimZeros(razorpay.FormatMinor(total, auditScale)), trimZeros(razorpay.FormatMinor(p.total(), auditScale)), strings.Join(parts, ", "))}
}

// trimZeros shortens "1000.000000" to "1000.00": amounts read at auditScale print like money.
func trimZeros(s string) string {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		for len(s) > i+3 && s[len(s)-1] == '0' {
			s = s[:len(s)-1]
		}
	}
	return s
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedHas(names []string, name string) bool {
	i := sort.SearchStrings(names, name)
	return i < len(names) && names[i] == name
}
