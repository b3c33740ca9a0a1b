package booking

// The customer of a payment that names no invoice (mapping.without_invoice: advance).

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// resolveCustomer follows mapping.customer_from for a payment without an invoice: a Customer
// named in notes, a Contact linked to one Customer by the payment's email (Contact Email, case
// ignored by the site's collation) or by the last 10 digits of its phone (Contact Phone, stored
// as typed, spec/erpnext.md §6: a `like '%<digits>'` match, so a number stored with spaces or
// dashes inside its last 10 digits is not found), then mapping.fallback_customer. The first
// source that names exactly one customer wins; why is a park reason when a source names
// several (a contact linked to several customers).
func (c *receiptJob) resolveCustomer(ctx context.Context, p *razorpay.Payment, o *razorpay.Order, l *razorpay.PaymentLink) (customer, why string, err error) {
	for _, src := range c.Account.Mapping.CustomerFrom {
		var found []string
		switch {
		case strings.HasPrefix(src, "notes."):
			name := p.Notes[strings.TrimPrefix(src, "notes.")]
			if name == "" && o != nil {
				name = o.Notes[strings.TrimPrefix(src, "notes.")]
			}
			if name == "" {
				continue
			}
			var cu frappe.Customer
			err := c.Account.ERP.Get(ctx, frappe.DoctypeCustomer, name, &cu)
			if frappe.IsNotFound(err) {
				continue
			}
			if err != nil {
				return "", "", err
			}
			found = []string{cu.Name}
		case src == "contact.email":
			email := strings.TrimSpace(p.Email)
			if email == "" && l != nil {
				email = l.Customer.Email
			}
			if email == "" || strings.EqualFold(email, "void@razorpay.com") {
				continue
			}
			if found, err = c.contactCustomers(ctx, frappe.Filter{"Contact Email", "email_id", "=", email}); err != nil {
				return "", "", err
			}
		case src == "contact.phone":
			digits := lastDigits(p.Contact, 10)
			if digits == "" && l != nil {
				digits = lastDigits(l.Customer.Contact, 10)
			}
			if digits == "" {
				continue
			}
			if found, err = c.contactCustomers(ctx, frappe.Filter{"Contact Phone", "phone", "like", "%" + digits}); err != nil {
				return "", "", err
			}
		}
		switch len(found) {
		case 0:
			continue
		case 1:
			return found[0], "", nil
		default:
			return "", fmt.Sprintf("%s: %s of payment %s matches customers %s", mapping.ReasonAmbiguousCustomer, src, p.ID, strings.Join(found, ", ")), nil
		}
	}
	return c.Account.Mapping.FallbackCustomer, "", nil
}

// contactCustomers lists the distinct Customers linked to Contacts matching f.
func (c *receiptJob) contactCustomers(ctx context.Context, f frappe.Filter) ([]string, error) {
	var rows []struct {
		LinkName string `json:"link_name"`
	}
	err := c.Account.ERP.List(ctx, frappe.DoctypeContact, frappe.ListOptions{
		Fields:  []string{"name", "links.link_name"},
		Filters: []frappe.Filter{f, {"Dynamic Link", "link_doctype", "=", frappe.DoctypeCustomer}},
		OrderBy: "name asc", All: true,
	}, &rows)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, r := range rows {
		if r.LinkName != "" {
			set[r.LinkName] = true
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

var nonDigit = regexp.MustCompile(`\D`)

// lastDigits is the last n digits of a free-text phone number ("" when it has fewer).
func lastDigits(s string, n int) string {
	d := nonDigit.ReplaceAllString(s, "")
	if len(d) < n {
		return ""
	}
	return d[len(d)-n:]
}

// receivableCurrency is the currency of the receivable account ERPNext will take for customer
// (its accounts row for the company, get_party_account, spec/erpnext.md §3.1); "" when the
// customer has none of its own (the company's default receivable, in the company currency).
func (c *receiptJob) receivableCurrency(ctx context.Context, customer string) (currency, account string, err error) {
	var cu struct {
		Accounts []struct {
			Company string `json:"company"`
			Account string `json:"account"`
		} `json:"accounts"`
	}
	if err := c.Account.ERP.Get(ctx, frappe.DoctypeCustomer, customer, &cu); err != nil {
		return "", "", err
	}
	for _, a := range cu.Accounts {
		if a.Company != c.Account.Mapping.Company || a.Account == "" {
			continue
		}
		var acct frappe.Account
		if err := c.Account.ERP.Get(ctx, frappe.DoctypeAccount, a.Account, &acct); err != nil {
			return "", "", err
		}
		return acct.AccountCurrency, a.Account, nil
	}
	return "", "", nil
}

// planAdvance finds the customer of a payment without an invoice and plans its advance; a
// *mapping.Park (as error) when a person must decide. Shared by the booking and explain.
func (c *receiptJob) planAdvance(ctx context.Context, rules mapping.Rules, p *razorpay.Payment, order *razorpay.Order, l *razorpay.PaymentLink, noInvoice string) (mapping.Receipt, error) {
	customer, why, err := c.resolveCustomer(ctx, p, order, l)
	if err != nil {
		return mapping.Receipt{}, err
	}
	if why != "" {
		return mapping.Receipt{}, &mapping.Park{Reason: mapping.ReasonAmbiguousCustomer, Detail: strings.TrimPrefix(why, mapping.ReasonAmbiguousCustomer+": ")}
	}
	if customer == "" {
		return mapping.Receipt{}, &mapping.Park{Reason: mapping.ReasonNoInvoice, Detail: noInvoice + "; no customer found either (mapping.customer_from)"}
	}
	cur, acct, err := c.receivableCurrency(ctx, customer)
	if err != nil {
		return mapping.Receipt{}, err
	}
	if cur != "" && cur != connector.CompanyCurrency {
		return mapping.Receipt{}, &mapping.Park{Reason: mapping.ReasonCurrency, Detail: fmt.Sprintf("customer %s receives in %s (%s); an advance of payment %s in %s is not booked against it",
			customer, cur, acct, p.ID, p.Currency)}
	}
	return mapping.PlanAdvance(rules, p, order, customer, c.Account.Mapping.Company)
}
