package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// The direct client is the least a program can do to book a payment once: look the
// reference_no up, then insert the Payment Entry with docstatus 1, built from what it already
// knows (customer, invoice, amount, accounts of the simulator's default site). It is what the
// connector's own ERPNext calls compare with in measurement (5).

// directEntry is the Payment Entry the direct client inserts for payment id on invoice, for
// amountMinor paise (decimal text made from the integer, never through a float).
func directEntry(id, invoice string, today string) map[string]any {
	amount := json.Number(razorpay.FormatMinor(amountMinor, 2))
	return map[string]any{
		"payment_type": "Receive", "company": erpnextsim.DefaultCompany, "posting_date": today,
		"mode_of_payment": "Razorpay", "party_type": "Customer", "party": benchCustomer,
		"paid_from": "Debtors - EC", "paid_to": "Razorpay Clearing - EC",
		"paid_amount": amount, "received_amount": amount, "source_exchange_rate": json.Number("1"),
		"target_exchange_rate": json.Number("1"), "reference_no": id, "reference_date": today,
		"references": []map[string]any{{"reference_doctype": "Sales Invoice", "reference_name": invoice, "allocated_amount": amount}},
		"docstatus":  1,
	}
}

// directBookings books n payments on n invoices through the real-v15 site with
// bookingConcurrency goroutines, timed from the first lookup to the last submitted entry.
func (b *bench) directBookings(ctx context.Context, n int) (bookingRun, error) {
	var r bookingRun
	st, err := b.startSite(ctx, invoicesFor(n))
	if err != nil {
		return r, err
	}
	defer st.close()
	erp, err := frappe.New(frappe.Config{URL: st.url, APIKey: erpnextKey, APISecret: b.erpSecret, Timeout: 5 * time.Minute})
	if err != nil {
		return r, err
	}
	co := newCorpus(runTag("D"), b.secret, n)
	today := time.Now().In(indiaTime).Format("2006-01-02")
	work := make(chan int, n)
	for k := 0; k < n; k++ {
		work <- k
	}
	close(work)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, bookingConcurrency)
	for g := 0; g < bookingConcurrency; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				if err := directBook(ctx, erp, co.paymentID(k), co.invoiceOf(k), today); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return r, err
	}
	calls, submitted := st.proxy.snapshot()
	last := start
	for k := 0; k < n; k++ {
		at, ok := submitted[co.paymentID(k)]
		if !ok {
			return r, fmt.Errorf("direct: payment %s has no submitted entry", co.paymentID(k))
		}
		last = maxTime(last, at)
	}
	r.calls, r.drain = calls, last.Sub(start)
	r.perSecond = perSecond(n, r.drain)
	return r, checkEntries(ctx, st.erp.url, b.erpSecret, co, n, n)
}

// directBook is one booking: the lookup, then the insert when nothing was found.
func directBook(ctx context.Context, erp *frappe.Client, id, invoice, today string) error {
	var found []struct {
		ReferenceNo string `json:"reference_no"`
	}
	err := erp.List(ctx, frappe.DoctypePaymentEntry, frappe.ListOptions{Fields: []string{"name", "reference_no"},
		Filters: []frappe.Filter{{"reference_no", "=", id}, {"docstatus", "!=", 2}}}, &found)
	if err != nil {
		return fmt.Errorf("direct: look up %s: %w", id, err)
	}
	for _, f := range found {
		if f.ReferenceNo == id {
			return nil
		}
	}
	if err := erp.Insert(ctx, frappe.DoctypePaymentEntry, directEntry(id, invoice, today), nil); err != nil {
		return fmt.Errorf("direct: insert %s: %w", id, err)
	}
	return nil
}

// indiaTime is the simulator company's time zone (posting dates).
var indiaTime = func() *time.Location {
	loc, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		return time.FixedZone("IST", 5*3600+1800)
	}
	return loc
}()

// checkEntries asks the simulator itself (not through the proxy) whether the books are right
// after a booking run: exactly one submitted Payment Entry per payment of co, each for
// amountMinor paise, and every invoice paid to 0 outstanding.
func checkEntries(ctx context.Context, url, secret string, co *corpus, n, invoices int) error {
	erp, err := frappe.New(frappe.Config{URL: url, APIKey: erpnextKey, APISecret: secret, Timeout: time.Minute})
	if err != nil {
		return err
	}
	var entries []struct {
		Name        string      `json:"name"`
		ReferenceNo string      `json:"reference_no"`
		PaidAmount  json.Number `json:"paid_amount"`
	}
	if err := erp.List(ctx, frappe.DoctypePaymentEntry, frappe.ListOptions{Fields: []string{"name", "reference_no", "paid_amount"},
		Filters: []frappe.Filter{{"docstatus", "=", 1}}, All: true}, &entries); err != nil {
		return fmt.Errorf("check entries: %w", err)
	}
	byRef := map[string]int{}
	for _, pe := range entries {
		byRef[pe.ReferenceNo]++
		if v, err := razorpay.ParseDecimal(pe.PaidAmount.String(), 2); err != nil || v != amountMinor {
			return fmt.Errorf("check entries: %s of %s pays %s; want %s", pe.Name, pe.ReferenceNo, pe.PaidAmount, razorpay.FormatMinor(amountMinor, 2))
		}
	}
	for k := 0; k < n; k++ {
		if c := byRef[co.paymentID(k)]; c != 1 {
			return fmt.Errorf("check entries: %d submitted entries for %s; want 1", c, co.paymentID(k))
		}
	}
	if len(entries) != n {
		return fmt.Errorf("check entries: %d submitted entries for %d payments", len(entries), n)
	}
	var invs []struct {
		Name        string      `json:"name"`
		Outstanding json.Number `json:"outstanding_amount"`
	}
	if err := erp.List(ctx, frappe.DoctypeSalesInvoice, frappe.ListOptions{Fields: []string{"name", "outstanding_amount"}, All: true}, &invs); err != nil {
		return fmt.Errorf("check invoices: %w", err)
	}
	if len(invs) != invoices {
		return fmt.Errorf("check invoices: %d invoices; want %d", len(invs), invoices)
	}
	for _, inv := range invs {
		if v, err := razorpay.ParseDecimal(inv.Outstanding.String(), 2); err != nil || v != 0 {
			return fmt.Errorf("check invoices: %s outstanding %s after its payments; want 0", inv.Name, inv.Outstanding)
		}
	}
	return nil
}
