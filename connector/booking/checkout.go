package booking

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// ERPNext's own checkout (DESIGN.md §4 step 5c, spec/erpnext.md §3.9, §5): a payment of a
// Payment Request waits mapping.payment_request_grace so that ERPNext books it first when it is
// going to; an entry it made is then recorded for one payment id only.

// wait is the grace wait of a payment of Payment Request pr; nil once it has passed.
func (c *checkoutJob) wait(pl *connector.Plan, p *razorpay.Payment, pr string) *connector.Plan {
	ready := time.Unix(p.CreatedAt, 0).Add(c.Account.Mapping.PaymentRequestGrace.D())
	if !c.Now().Before(ready) {
		return nil
	}
	return pl.Wait(ready, fmt.Sprintf("waiting until %s for ERPNext's checkout to book Payment Request %s", ready.UTC().Format(time.RFC3339), pr))
}

// plan looks, under the invoice lock (so two payments never both take the one entry
// ERPNext made), for an entry ERPNext's checkout made for Payment Request pr. One, unclaimed
// by another payment and of the payment's amount, is recorded as this payment's booking; two,
// or one of another amount or payment, park. nil: none, book it.
func (c *checkoutJob) plan(ctx context.Context, pl *connector.Plan, p *razorpay.Payment, pr string) (*connector.Plan, error) {
	entries, err := c.entries(ctx, pr, p.ID)
	if err != nil {
		return nil, connector.Failed("look up entries of Payment Request "+pr, err)
	}
	switch len(entries) {
	case 0:
		return nil, nil
	case 1:
	default:
		var names []string
		for _, e := range entries {
			names = append(names, e.Name)
		}
		return pl.Park(fmt.Sprintf("%s: Payment Request %s has %d entries (%s); which one is payment %s needs a person",
			mapping.ReasonPaymentRequest, pr, len(entries), strings.Join(names, ", "), p.ID)), nil
	}
	entry := entries[0]
	others, err := c.Facts().BookingsForDocument(ctx, frappe.DoctypePaymentEntry, entry.Name)
	if err != nil {
		return nil, connector.Failed("bookings of "+entry.Name, err)
	}
	for _, b := range others {
		if b.BusinessKey != p.ID {
			return pl.Park(fmt.Sprintf("%s: Payment Entry %s of Payment Request %s already accounts for payment %s; payment %s needs a person",
				mapping.ReasonPaymentRequest, entry.Name, pr, b.BusinessKey, p.ID)), nil
		}
	}
	amount, err := razorpay.NewMoney(p.Amount, p.Currency)
	if err != nil {
		return pl.Park(fmt.Sprintf("%s: payment %s is in %q, not in Razorpay's currency table", mapping.ReasonCurrency, p.ID, p.Currency)), nil
	}
	paid, perr := razorpay.ParseDecimal(entry.PaidAmount.String(), amount.Exponent())
	if perr != nil || paid != p.Amount {
		return pl.Park(fmt.Sprintf("%s: Payment Entry %s of Payment Request %s is for %s, payment %s is %s",
			mapping.ReasonPaymentRequest, entry.Name, pr, entry.PaidAmount, p.ID, amount)), nil
	}
	pl.Reuse(entry.Name, "booked by ERPNext's checkout for Payment Request "+pr)
	// ERPNext's checkout books the gross and never the gateway fee (spec/erpnext.md §3.9): with
	// fees in deduction mode the books would exceed what Razorpay settles. The entry stays this
	// payment's booking (never booked twice); the fee needs a person.
	if c.Account.Mapping.Fees.Mode == "deduction" && p.Fee != nil && *p.Fee > 0 && p.FeeBearer != "customer" {
		tax := int64(0)
		if p.Tax != nil {
			tax = *p.Tax
		}
		pl.Park(fmt.Sprintf("fee not booked: ERPNext's checkout booked Payment Entry %s for Payment Request %s at the gross amount; book Razorpay's fee INR %s (of which GST INR %s) out of %s by hand (Journal Entry)",
			entry.Name, pr, razorpay.FormatMinor(*p.Fee, 2), razorpay.FormatMinor(tax, 2), c.Account.Mapping.PaidTo))
	}
	return pl, nil
}

// checkoutEntry is a submitted entry ERPNext's own checkout made for a Payment Request.
type checkoutEntry struct {
	Name        string      `json:"name"`
	ReferenceNo string      `json:"reference_no"`
	PaidAmount  json.Number `json:"paid_amount"`
}

// entries lists the submitted entries that account for Payment Request pr: reference_no
// = its name (exact case; the site's `=` ignores case) or a reference row linking it, except
// entries carrying another Razorpay payment id than paymentID (spec/erpnext.md §3.9).
func (c *checkoutJob) entries(ctx context.Context, pr, paymentID string) ([]checkoutEntry, error) {
	var byRef, byRow []checkoutEntry
	err := c.Account.ERP.List(ctx, frappe.DoctypePaymentEntry, frappe.ListOptions{
		Fields:  []string{"name", "reference_no", "paid_amount"},
		Filters: []frappe.Filter{{"reference_no", "=", pr}, {"docstatus", "=", 1}},
		OrderBy: "creation asc", All: true,
	}, &byRef)
	if err != nil {
		return nil, err
	}
	err = c.Account.ERP.List(ctx, frappe.DoctypePaymentEntry, frappe.ListOptions{
		Fields:  []string{"name", "reference_no", "paid_amount"},
		Filters: []frappe.Filter{{frappe.DoctypePaymentEntryReference, "payment_request", "=", pr}, {"docstatus", "=", 1}},
		OrderBy: "creation asc", All: true,
	}, &byRow)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []checkoutEntry
	for _, r := range byRef {
		if r.ReferenceNo == pr && !seen[r.Name] {
			seen[r.Name] = true
			out = append(out, r)
		}
	}
	for _, r := range byRow {
		if strings.HasPrefix(r.ReferenceNo, "pay_") && r.ReferenceNo != paymentID || seen[r.Name] {
			continue
		}
		seen[r.Name] = true
		out = append(out, r)
	}
	return out, nil
}

// requestOf finds the Payment Request of a payment taken through ERPNext's own checkout:
// the Integration Request of service Razorpay whose data holds this razorpay_payment_id (exact
// case; the `like` filter ignores it) names it. "" when none, or when the API user may not
// read Integration Requests (403; `check` reports that) or the site has none (501).
func (c *checkoutJob) requestOf(ctx context.Context, paymentID string) (string, error) {
	var irs []connector.IntegrationRequest
	err := c.Account.ERP.List(ctx, frappe.DoctypeIntegrationRequest, frappe.ListOptions{
		Fields:  connector.IntegrationRequestFields,
		Filters: []frappe.Filter{{"integration_request_service", "=", "Razorpay"}, {"data", "like", "%" + paymentID + "%"}},
		OrderBy: "creation asc", All: true,
	}, &irs)
	var fe *frappe.Error
	if errors.As(err, &fe) && (fe.Status == 403 || fe.Status == 501) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	for _, ir := range irs {
		d, ok := connector.ParseIRData(ir.Data)
		if ok && d.PaymentID == paymentID {
			if pr := ir.PaymentRequest(d); pr != "" {
				return pr, nil
			}
		}
	}
	return "", nil
}
