package connector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Explain and the worker decide through the same code: for an event, the plan Explain prints
// is what the worker then does, and the document it plans is the one the worker writes.

// agree explains body, then delivers it under eventID and lets the worker process it, and
// fails the test where the worker's outcome or document differs from the plan. It returns the
// plan and the inbox row.
func (r *rig) agree(eventID string, body []byte) (*connector.Explanation, connector.InboxEvent) {
	r.t.Helper()
	ev, err := razorpay.ParseEvent(body)
	if err != nil {
		r.t.Fatalf("parse: %v", err)
	}
	x, err := r.conn.Explain(context.Background(), ev)
	if err != nil {
		r.t.Fatalf("explain %s: %v", eventID, err)
	}
	before := len(r.site.Docs(frappe.DoctypePaymentEntry))
	r.deliver(eventID, body)
	r.work()
	return x, r.sameOutcome(eventID, x, before)
}

// agreeStored explains the stored row of eventID as the console and `events` do (ExplainStored:
// its own body, its arrival time, itself left out of the dismissal check), then lets the worker
// process it, and fails the test where the worker's outcome or document differs from the plan.
func (r *rig) agreeStored(eventID string) (*connector.Explanation, connector.InboxEvent) {
	r.t.Helper()
	stored := r.event(eventID)
	x, err := r.conn.ExplainStored(context.Background(), &stored)
	if err != nil {
		r.t.Fatalf("explain stored %s: %v", eventID, err)
	}
	before := len(r.site.Docs(frappe.DoctypePaymentEntry))
	r.work()
	return x, r.sameOutcome(eventID, x, before)
}

// sameOutcome compares the worker's outcome for eventID with the plan x explained before the
// worker ran (before: the Payment Entries the site held then) and returns the inbox row.
func (r *rig) sameOutcome(eventID string, x *connector.Explanation, before int) connector.InboxEvent {
	r.t.Helper()
	row := r.event(eventID)
	want := map[string]connector.Status{
		connector.ExplainCreate: connector.StatusDone, connector.ExplainReuse: connector.StatusDone,
		connector.ExplainSubmitDraft: connector.StatusDone, connector.ExplainCancel: connector.StatusDone,
		connector.ExplainVoid: connector.StatusDone, connector.ExplainDuplicate: connector.StatusDuplicate,
		connector.ExplainPark: connector.StatusParked, connector.ExplainWait: connector.StatusPending,
		connector.ExplainSkip: connector.StatusSkipped, connector.ExplainRetry: connector.StatusPending,
		connector.ExplainDismissed: connector.StatusDismissed,
	}[x.Action]
	if row.Status != want {
		r.t.Fatalf("%s: explain planned %s (%q), the worker made it %s (%q)", eventID, x.Action, x.Reason, row.Status, row.LastError)
	}
	switch x.Action {
	case connector.ExplainCreate:
		r.sameEntry(eventID, x, row)
	case connector.ExplainRetry:
		// The reason the worker records, then what it does about it.
		if !strings.HasPrefix(x.Reason, row.LastError+" — the worker would ") {
			r.t.Errorf("%s: explain's reason\n  %q\ndoes not start with the worker's\n  %q", eventID, x.Reason, row.LastError)
		}
	case connector.ExplainPark, connector.ExplainSkip, connector.ExplainDuplicate, connector.ExplainWait, connector.ExplainVoid, connector.ExplainReuse,
		connector.ExplainDismissed:
		if x.Reason != row.LastError {
			r.t.Errorf("%s: explain's reason\n  %q\nthe worker's\n  %q", eventID, x.Reason, row.LastError)
		}
	}
	switch x.Action {
	case connector.ExplainWait:
		// Waiters for another worker's claim wake at its fence plus up to 1 s of jitter, drawn
		// separately by Explain and the worker; every other wait is exact.
		if row.Attempts != 0 || x.WaitUntil == nil || x.WaitUntil.Sub(row.NextAttemptAt).Abs() >= jitter(x.Reason) {
			r.t.Errorf("%s: explain waits until %v, the worker until %v (attempts %d)", eventID, x.WaitUntil, row.NextAttemptAt, row.Attempts)
		}
	case connector.ExplainReuse, connector.ExplainSubmitDraft, connector.ExplainCancel, connector.ExplainDuplicate:
		if row.ResultName != x.Existing {
			r.t.Errorf("%s: explain names %s, the worker recorded %s", eventID, x.Existing, row.ResultName)
		}
	}
	if after := len(r.site.Docs(frappe.DoctypePaymentEntry)); (after > before) != (x.Action == connector.ExplainCreate) {
		r.t.Errorf("%s: %d Payment Entries made for the plan %s", eventID, after-before, x.Action)
	}
	return row
}

// sameEntry compares the entry the plan would insert with the one the worker sent, field by
// field, and the fields the connector owns with the entry the site then kept; it checks that
// the plan's ledger balances and matches the document.
func (r *rig) sameEntry(eventID string, x *connector.Explanation, row connector.InboxEvent) {
	r.t.Helper()
	sent := r.lastSent()
	if diffs := docDiffs("", x.Entry, sent); len(diffs) > 0 || len(sent) != len(x.Entry) {
		r.t.Errorf("%s: the planned entry (%d fields) and the one the worker sent (%d fields) differ:\n  %s",
			eventID, len(x.Entry), len(sent), strings.Join(append(diffs, docDiffs("sent ", sent, x.Entry)...), "\n  "))
	}
	stored, ok := r.site.Doc(frappe.DoctypePaymentEntry, row.ResultName)
	if !ok {
		r.t.Fatalf("%s: the worker recorded %s, which the site does not have", eventID, row.ResultName)
	}
	if diffs := docDiffs("", ownFields(x.Entry), stored); len(diffs) > 0 {
		r.t.Errorf("%s: the planned entry and %s as the site keeps it differ:\n  %s", eventID, row.ResultName, strings.Join(diffs, "\n  "))
	}
	checkLedger(r.t, eventID, x.Ledger, x.Entry)
}

// owned are the fields of a Payment Entry the connector sets or takes from get_payment_entry
// and ERPNext keeps as sent; the rest (status, balances, outstanding snapshots, amounts after
// tax) the site computes again on submit.
var owned = map[string]bool{"payment_type": true, "party_type": true, "party": true, "company": true, "posting_date": true,
	"reference_date": true, "reference_no": true, "mode_of_payment": true, "paid_to": true, "paid_from": true,
	"paid_amount": true, "received_amount": true, "source_exchange_rate": true, "target_exchange_rate": true,
	"remarks": true, "docstatus": true, "name": true, "references": true, "deductions": true,
	"reference_doctype": true, "reference_name": true, "allocated_amount": true, "payment_request": true,
	"payment_term": true, "account": true, "cost_center": true, "amount": true, "description": true}

// ownFields is doc with only the owned fields, in its child tables too (whose docstatus
// follows the parent's).
func ownFields(doc map[string]any) map[string]any { return own(doc, false) }

func own(doc map[string]any, child bool) map[string]any {
	out := map[string]any{}
	for k, v := range doc {
		if !owned[k] || child && k == "docstatus" {
			continue
		}
		if rs := rowsOf(v); rs != nil {
			var kept []any
			for _, row := range rs {
				kept = append(kept, own(row, true))
			}
			out[k] = kept
			continue
		}
		out[k] = v
	}
	return out
}

// checkLedger checks the accounting identity of a planned entry, to the minor unit, and that
// the document carries the ledger's amounts.
func checkLedger(t *testing.T, name string, l *connector.Ledger, doc map[string]any) {
	t.Helper()
	if l == nil {
		t.Fatalf("%s: a create plan without a ledger", name)
	}
	exp, _ := razorpay.Exponent(l.Currency)
	rexp, _ := razorpay.Exponent(l.ReceivedCurrency)
	if l.Currency == l.ReceivedCurrency {
		if l.Received+l.Deductions != l.Allocated+l.Unallocated && l.Allocated >= 0 {
			t.Errorf("%s: received %d + deductions %d ≠ allocated %d + unallocated %d (%s)", name, l.Received, l.Deductions, l.Allocated, l.Unallocated, l.Currency)
		}
		if l.Allocated < 0 && l.Paid != -l.Allocated+l.Unallocated {
			t.Errorf("%s: refund paid %d ≠ allocated %d + unallocated %d", name, l.Paid, -l.Allocated, l.Unallocated)
		}
	} else if l.Paid != l.Allocated+l.Unallocated {
		t.Errorf("%s: paid %d ≠ allocated %d + unallocated %d (%s)", name, l.Paid, l.Allocated, l.Unallocated, l.Currency)
	}
	var alloc, ded int64
	for _, ref := range rowsOf(doc["references"]) {
		alloc += parseMinor(t, ref["allocated_amount"], exp)
	}
	for _, d := range rowsOf(doc["deductions"]) {
		ded += parseMinor(t, d["amount"], rexp)
	}
	if got := parseMinor(t, doc["paid_amount"], exp); got != l.Paid {
		t.Errorf("%s: paid_amount %d, ledger %d", name, got, l.Paid)
	}
	if got := parseMinor(t, doc["received_amount"], rexp); got != l.Received {
		t.Errorf("%s: received_amount %d, ledger %d", name, got, l.Received)
	}
	if alloc != l.Allocated || ded != l.Deductions {
		t.Errorf("%s: references allocate %d, deductions %d; ledger %d and %d", name, alloc, ded, l.Allocated, l.Deductions)
	}
}

func jitter(reason string) time.Duration {
	if strings.Contains(reason, "is being booked by another worker") {
		return time.Second
	}
	return time.Nanosecond
}

func parseMinor(t *testing.T, v any, exp int) int64 {
	t.Helper()
	if v == nil {
		return 0
	}
	return minor(t, v, exp)
}

// rowsOf is a child table of a planned document ([]any or []map[string]any).
func rowsOf(v any) []map[string]any {
	switch rs := v.(type) {
	case []map[string]any:
		return rs
	case []any:
		var out []map[string]any
		for _, x := range rs {
			if m, ok := x.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}

// docDiffs lists the fields of planned whose value stored does not have. Numbers compare by
// value ("1180.00" = 1180), empty values (nil, "") as equal, child tables row by row.
func docDiffs(path string, planned, stored map[string]any) []string {
	var out []string
	keys := make([]string, 0, len(planned))
	for k := range planned {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		pv, sv := planned[k], stored[k]
		field := path + k
		if prows := rowsOf(pv); prows != nil || isList(pv) {
			srows := rowsOf(sv)
			if len(prows) != len(srows) {
				out = append(out, fmt.Sprintf("%s: %d rows planned, %d stored", field, len(prows), len(srows)))
				continue
			}
			for i := range prows {
				out = append(out, docDiffs(fmt.Sprintf("%s[%d].", field, i), prows[i], srows[i])...)
			}
			continue
		}
		if !sameValue(pv, sv) {
			out = append(out, fmt.Sprintf("%s: planned %v, stored %v", field, pv, sv))
		}
	}
	return out
}

func isList(v any) bool {
	switch v.(type) {
	case []any, []map[string]any:
		return true
	}
	return false
}

func sameValue(a, b any) bool {
	as, bs := text(a), text(b)
	if as == bs {
		return true
	}
	ar, aok := new(big.Rat).SetString(as)
	br, bok := new(big.Rat).SetString(bs)
	return aok && bok && ar.Cmp(br) == 0
}

func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case json.Number:
		return x.String()
	case float64:
		return big.NewFloat(x).Text('f', -1)
	}
	return fmt.Sprint(v)
}
