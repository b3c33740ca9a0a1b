package reconcile

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
)

// auditChunk is how many names one ERPNext list call asks about.
const auditChunk = 100

// audit reads ERPNext and the bookings made since from (the listed range's start, a day of
// the site's time zone loc) for anomalies, and adds them to the tally; it changes nothing.
// modeOfPayment is mapping.mode_of_payment: the Razorpay receipts it starts from.
type audit struct {
	t             *tally
	erp           erpNext
	store         Store
	loc           *time.Location
	from          time.Time
	modeOfPayment string
}

// run reports, without changing anything: submitted Payment Entries of the configured Mode of
// Payment posted since the listed range's start that share one reference_no (compared with
// exact case, spec/erpnext.md §3.6: ERPNext never checks), Sales Invoices and Payment Requests
// paid beyond their total under different references (auditPaidTwice), and bookings made since then whose
// ERPNext document (Payment Entry or settlement Journal Entry) is cancelled or gone. Failures become warnings: the audit never stops a run.
func (a *audit) run(ctx context.Context) {
	a.t.progress("audit", 0, 0)
	if err := a.auditDuplicateReferences(ctx); err != nil {
		a.t.warn("audit of duplicate reference_no skipped: %v", err)
	}
	if err := a.auditPaidTwice(ctx); err != nil {
		a.t.warn("audit of invoices and Payment Requests paid twice skipped: %v", err)
	}
	if err := a.auditCancelledBookings(ctx); err != nil {
		a.t.warn("audit of cancelled bookings skipped: %v", err)
	}
}

func (a *audit) auditDuplicateReferences(ctx context.Context) error {
	var rows []struct {
		Name        string `json:"name"`
		ReferenceNo string `json:"reference_no"`
	}
	err := a.erp.List(ctx, frappe.DoctypePaymentEntry, frappe.ListOptions{
		Fields:  []string{"name", "reference_no"},
		Filters: a.recentReceipts(),
		OrderBy: "creation asc",
		All:     true,
	}, &rows)
	if err != nil {
		return err
	}
	byRef := map[string][]string{}
	for _, row := range rows {
		if ref := row.ReferenceNo; ref != "" {
			byRef[ref] = append(byRef[ref], row.Name)
		}
	}
	refs := make([]string, 0, len(byRef))
	for ref, names := range byRef {
		if len(names) > 1 {
			refs = append(refs, ref)
		}
	}
	sort.Strings(refs)
	for _, ref := range refs {
		names := byRef[ref]
		a.t.rep.Anomalies = append(a.t.rep.Anomalies, Anomaly{Kind: AnomalyDuplicateReference, Documents: names,
			Detail: fmt.Sprintf("%d submitted Payment Entries share reference_no %s: %s; cancel the extra one in ERPNext if the money arrived once. "+
				"A usual cause is two connector stores booking into this ERPNext (e.g. the old SQLite daemon left running during a move to MariaDB): "+
				"every replica must use one database; erpnext.name_entries_by_payment_id makes ERPNext itself refuse a second entry",
				len(names), ref, strings.Join(names, ", "))})
	}
	return nil
}

// auditedDoctypes are the documents a booking can name: Payment Entries (receipts, refunds)
// and Journal Entries (settlements).
var auditedDoctypes = []string{frappe.DoctypePaymentEntry, frappe.DoctypeJournalEntry}

// auditCancelledBookings reports each booking made since the listed range's start whose erpNext
// document (Payment Entry or Journal Entry) is cancelled (docstatus 2) or gone: one list call
// per auditChunk names of a doctype.
func (a *audit) auditCancelledBookings(ctx context.Context) error {
	bookings, err := a.store.ListBookings(ctx, a.from)
	if err != nil {
		return err
	}
	byName := map[string]connector.Booking{}
	names := map[string][]string{}
	for _, b := range bookings {
		if b.Name == "" {
			continue
		}
		byName[b.Doctype+"\x00"+b.Name] = b
		names[b.Doctype] = append(names[b.Doctype], b.Name)
	}
	for _, doctype := range auditedDoctypes {
		all := names[doctype]
		for start := 0; start < len(all); start += auditChunk {
			if err := a.auditCancelledChunk(ctx, doctype, all[start:min(start+auditChunk, len(all))], byName); err != nil {
				return err
			}
		}
	}
	return nil
}

func (a *audit) auditCancelledChunk(ctx context.Context, doctype string, chunk []string, byName map[string]connector.Booking) error {
	var rows []struct {
		Name      string `json:"name"`
		Docstatus int    `json:"docstatus"`
	}
	err := a.erp.List(ctx, doctype, frappe.ListOptions{
		Fields:  []string{"name", "docstatus"},
		Filters: []frappe.Filter{{"name", "in", chunk}},
		All:     true,
	}, &rows)
	if err != nil {
		return err
	}
	state := map[string]int{}
	for _, row := range rows {
		state[row.Name] = row.Docstatus
	}
	for _, name := range chunk {
		b := byName[doctype+"\x00"+name]
		ds, found := state[name]
		what := ""
		switch {
		case !found:
			what = "deleted"
		case ds == frappe.DocstatusCancelled:
			what = "cancelled"
		default:
			continue
		}
		a.t.rep.Anomalies = append(a.t.rep.Anomalies, Anomaly{Kind: AnomalyBookingCancelled, Documents: []string{name},
			Detail: fmt.Sprintf("%s %s booked for %s was %s in ERPNext; it is not re-booked automatically (replay the event after checking the money)",
				b.Doctype, name, b.BusinessKey, what)})
	}
	return nil
}

// recentReceipts filters the submitted Razorpay receipts (Mode of Payment mapping.mode_of_payment)
// posted since the start of the listed range: what the audits start from.
func (a *audit) recentReceipts() []frappe.Filter {
	return []frappe.Filter{
		{"docstatus", "=", frappe.DocstatusSubmitted},
		{"payment_type", "=", "Receive"},
		{"mode_of_payment", "=", a.modeOfPayment},
		{"posting_date", ">=", a.from.In(a.loc).Format("2006-01-02")},
	}
}
