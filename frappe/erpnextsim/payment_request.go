package erpnextsim

import (
	"fmt"
	"sort"
	"strings"
)

// paymentRequests is the Payment Request doctype: make_payment_request, the open requests of
// an invoice, and their outstanding moved by a Payment Entry.
type paymentRequests struct {
	db    *store
	links *links
}

// Payment Request (spec §3.9, recordings 44-*, 46-*, 47-*). Behaviour followed: erpnext v15
// payment_request.py make_payment_request, update_payment_requests_as_per_pe_references and
// payment_entry.py validate_allocated_amount_as_per_payment_request (read, not copied).

const prDT = "Payment Request"

// MethodMakePaymentRequest is ERPNext's whitelisted Payment Request builder.
const makePaymentRequestCmd = "erpnext.accounts.doctype.payment_request.payment_request.make_payment_request"

var paymentRequestFields = `
payment_request_type|Select|Payment Request Type||
transaction_date|Date|Transaction Date||
naming_series|Select|Series||
company|Link|Company|Company|
mode_of_payment|Link|Mode of Payment|Mode of Payment|
party_type|Link|Party Type|DocType|
party|Dynamic Link|Party|party_type|
party_name|Data|Party Name||
reference_doctype|Link|Reference Doctype|DocType|
reference_name|Dynamic Link|Reference Name|reference_doctype|
grand_total|Currency|Amount||
currency|Link|Currency|Currency|
is_a_subscription|Check|Is a Subscription||
outstanding_amount|Currency|Outstanding Amount||
party_account_currency|Link|Party Account Currency|Currency|
bank_account|Data|Bank Account||
bank|Data|Bank||
bank_account_no|Data|Bank Account No||
account|Data|Account||
iban|Data|IBAN||
branch_code|Data|Branch Code||
swift_number|Data|SWIFT Number||
cost_center|Link|Cost Center|Cost Center|
project|Data|Project||
print_format|Data|Print Format||
email_to|Data|To||
subject|Data|Subject||
payment_gateway_account|Data|Payment Gateway Account||
status|Select|Status||
make_sales_invoice|Check|Make Sales Invoice||
message|Text|Message||
mute_email|Check|Mute Email||
payment_url|Data|Payment URL||
payment_gateway|Data|Payment Gateway||
payment_account|Data|Payment Account||
payment_channel|Select|Payment Channel||
payment_order|Data|Payment Order||
amended_from|Data|Amended From||
phone_number|Data|Phone Number||
subscription_plans|Table|Subscription Plans|Subscription Plan Detail|
`

func init() {
	register(prDT, paymentRequestFields, func(m *meta) { m.submittable = true; m.series = "ACC-PRQ-" })
	register("Subscription Plan Detail", "", func(m *meta) { m.child = true })
	delete(knownUnmodelled, prDT)
}

// PaymentRequestSpec describes a Payment Request made by AddPaymentRequest.
type PaymentRequestSpec struct {
	Draft       bool   // leave it a draft (docstatus 0, status "Draft"); default submitted, status "Requested"
	RecipientID string // email_to; default the invoice's owner (recorded "Administrator")
}

// AddPaymentRequest makes an Inward Payment Request for a submitted Sales Invoice as
// make_payment_request(dt, dn, submit_doc=1, mute_email=1) would, as Administrator, and returns
// its name ("ACC-PRQ-2026-00001"). Its amount is the invoice outstanding minus the outstanding
// of the invoice's other open requests.
func (s *Site) AddPaymentRequest(invoice string, spec PaymentRequestSpec) (string, error) {
	out, err := s.run(func(c *call) (*fErr, step) {
		c.args = map[string]any{"dt": siDT, "dn": invoice, "submit_doc": int64(b2i(!spec.Draft)), "mute_email": int64(1)}
		if spec.RecipientID != "" {
			c.args["recipient_id"] = spec.RecipientID
		}
		return s.requests.makePaymentRequest(c)
	})
	if err != nil {
		return "", err
	}
	name, _ := out.(obj).get("name")
	return name.(string), nil
}

// makePaymentRequest is make_payment_request for a Sales Invoice. Its answer is as_dict with
// nulls kept (recording 44-make-payment-request-submit). No Payment Gateway Account is modelled,
// so payment_gateway_account, payment_account and payment_url stay null.
func (preq *paymentRequests) makePaymentRequest(c *call) (*fErr, step) {
	dt, dn := c.str("dt"), c.str("dn")
	if dt != siDT {
		return notModelled("make_payment_request for " + dt), nil
	}
	inv := preq.db.get(siDT, dn)
	if inv == nil {
		return notFound(dt, dn), nil
	}
	amount := inv.dec("outstanding_amount")
	for _, pr := range preq.openPaymentRequests(inv.name()) {
		amount -= pr.dec("outstanding_amount")
	}
	if amount <= 0 {
		return erpThrow("Payment Entry is already created"), nil // unrecorded; ERPNext's text when nothing is left to request
	}
	submit := cint(c.args["submit_doc"]) == 1
	return nil, func() any {
		pr := newRecord(prDT)
		emailTo := c.str("recipient_id")
		if emailTo == "" {
			emailTo = inv.str("owner")
		}
		for k, v := range map[string]any{
			"payment_request_type": "Inward", "naming_series": "ACC-PRQ-.YYYY.-", "company": inv.str("company"),
			"party_type": "Customer", "party": inv.str("customer"), "party_name": inv.str("customer_name"),
			"reference_doctype": siDT, "reference_name": inv.name(), "grand_total": amount, "outstanding_amount": amount,
			"currency": inv.str("party_account_currency"), "party_account_currency": inv.str("party_account_currency"),
			"is_a_subscription": int64(0), "bank_account": "", "email_to": emailTo, "subject": "Payment Request for " + inv.name(),
			"status": "Draft", "make_sales_invoice": int64(0), "mute_email": int64(0), "payment_channel": "",
			"message": "<p>Hello,</p>\n\n<p>Requesting payment against Sales Invoice " + inv.name() + " for amount " +
				formatMoney(amount, inv.str("party_account_currency")) + "</p>\n\n<a href=\"{{ payment_url }}\">Make Payment</a>\n\n" +
				"<p>If you have any questions, please get back to us.</p>\n\n<p>Thank you for your business!</p>",
			"subscription_plans": []*record{},
		} {
			pr.f[k] = v
		}
		preq.db.stampNew(pr, preq.db.seriesName("ACC-PRQ-", true), c.user)
		if submit {
			pr.f["docstatus"], pr.f["status"] = int64(1), "Requested"
			preq.db.touch(pr, c.user)
		}
		preq.db.put(pr)
		c.nulls = true
		return pr.render(true)
	}
}

// openPaymentRequests are the submitted, not fully paid requests of an invoice, oldest first.
func (preq *paymentRequests) openPaymentRequests(invoice string) []*record {
	var out []*record
	for _, pr := range preq.db.lookup(prDT, "reference_name", indexKey(invoice)) {
		if pr.docstatus() == 1 && strings.EqualFold(pr.str("reference_name"), invoice) && pr.dec("outstanding_amount") > 0 &&
			pr.str("status") != "Paid" && pr.str("status") != "Cancelled" {
			out = append(out, pr)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name() < out[j].name() })
	return out
}

// checkPaymentRequests is §3.2 V13: a row may not allocate more than its Payment Request's
// outstanding.
func (preq *paymentRequests) checkPaymentRequests(pe *record) *fErr {
	for i, row := range pe.rows("references") {
		name := row.str("payment_request")
		if name == "" {
			continue
		}
		pr := preq.db.get(prDT, name)
		if pr == nil {
			continue
		}
		if row.dec("allocated_amount") > pr.dec("outstanding_amount") {
			return erpThrow(fmt.Sprintf("Row #%d: Allocated Amount cannot be greater than Outstanding Amount of Payment Request %s",
				i+1, preq.links.formLink(prDT, pr.name())))
		}
	}
	return nil
}

// movePaymentRequests applies a submit (sign −1) or cancel (+1) to the rows' Payment Requests
// (§3.4 step 1, §3.5): outstanding, status Paid / Partially Paid / Requested, modified bumped.
func (preq *paymentRequests) movePaymentRequests(c *call, pe *record, sign dec) {
	for _, row := range pe.rows("references") {
		pr := preq.db.get(prDT, row.str("payment_request"))
		if pr == nil || row.str("payment_request") == "" {
			continue
		}
		out := pr.dec("outstanding_amount") + sign*row.dec("allocated_amount")
		pr.f["outstanding_amount"] = out
		switch {
		case out <= 0:
			pr.f["status"] = "Paid"
		case out >= pr.dec("grand_total"):
			pr.f["status"] = "Requested"
		default:
			pr.f["status"] = "Partially Paid"
		}
		preq.db.touch(pr, c.user)
		row.f["payment_request_outstanding"] = out
	}
}

// formatMoney is frappe's fmt_money with the currency symbol, e.g. "₹ 1,000.00" (INR uses the
// Indian grouping #,##,###.##).
func formatMoney(d dec, currency string) string {
	symbol := map[string]string{"INR": "₹", "USD": "$", "EUR": "€", "GBP": "£"}[currency]
	if symbol == "" {
		symbol = currency
	}
	d = d.round(2)
	neg := d < 0
	d = d.abs()
	whole := fmt.Sprint(int64(d / nano))
	frac := fmt.Sprintf("%02d", int64(d%nano)/(nano/100))
	var groups []string
	first := 3
	for len(whole) > first {
		groups = append([]string{whole[len(whole)-first:]}, groups...)
		whole = whole[:len(whole)-first]
		if currency == "INR" {
			first = 2
		}
	}
	groups = append([]string{whole}, groups...)
	out := strings.Join(groups, ",") + "." + frac
	if neg {
		out = "-" + out
	}
	return symbol + " " + out
}

// splitByPaymentRequests attaches the invoice's open Payment Requests to the reference rows
// get_payment_entry built (§3.8 allocate_open_payment_requests_to_references; recording 46-*):
// the requests, oldest first, are spent over the rows in order (one per term when the
// invoice allocates by payment term); a row larger than the request it gets is split, the
// rest going to the next request or, when none is left, to a row without a request.
func (preq *paymentRequests) splitByPaymentRequests(rows []*record, inv *record, pt string) []*record {
	prs := preq.openPaymentRequests(inv.name())
	if pt != "Receive" || len(prs) == 0 {
		for i, r := range rows {
			r.f["idx"] = int64(i + 1)
		}
		return rows
	}
	left := make([]dec, len(prs))
	for i, pr := range prs {
		left[i] = pr.dec("outstanding_amount")
	}
	var out []*record
	next := 0
	for _, row := range rows {
		alloc := row.dec("allocated_amount")
		for alloc > 0 {
			for next < len(prs) && left[next] <= 0 {
				next++
			}
			r := row.clone()
			if next == len(prs) {
				r.f["allocated_amount"] = alloc
				out = append(out, r)
				break
			}
			pr := prs[next]
			a := min(left[next], alloc)
			r.f["allocated_amount"], r.f["payment_request"], r.f["payment_request_outstanding"] = a, pr.name(), pr.dec("outstanding_amount")
			out = append(out, r)
			left[next] -= a
			alloc -= a
		}
	}
	for i, r := range out {
		r.f["idx"] = int64(i + 1)
	}
	return out
}
