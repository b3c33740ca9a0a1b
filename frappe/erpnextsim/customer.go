package erpnextsim

// parties is Customer and Contact: their insert and validation, a customer's primary contact
// and party account.
type parties struct {
	db    *store
	links *links
}

// insertCustomer is POST /api/resource/Customer: named after customer_name,
// de-duplicated "Name - 1", "Name - 2" (spec §6).
func (pa *parties) insertCustomer(c *call, body map[string]any) (*fErr, step) {
	cu := fromBody("Customer", body, nil)
	setDefault(cu, "customer_type", "Company")
	setDefault(cu, "disabled", int64(0))
	setDefault(cu, "is_internal_customer", int64(0))
	setDefault(cu, "naming_series", "CUST-.YYYY.-")
	name := pa.db.clientName(body)
	display := name
	if display == "" {
		display = cu.str("customer_name")
	}
	if e := pa.links.validateLinks(cu, false); e != nil {
		return e, nil
	}
	if e := validateMandatory(cu, display, nil); e != nil {
		return e, nil
	}
	if em := cu.str("email_id"); em != "" && !plausibleEmail(em) {
		return throw(em + " is not a valid Email Address").as("InvalidEmailAddressError").withTitle("Invalid Email Address"), nil
	}
	if ct := pa.db.get(contactDT, cu.str("customer_primary_contact")); ct != nil {
		// fetch_from customer_primary_contact.email_id / .mobile_no (spec §6)
		setOrDelete(cu, "email_id", ct.str("email_id"))
		setOrDelete(cu, "mobile_no", ct.str("mobile_no"))
	}
	if name != "" && pa.db.get("Customer", name) != nil {
		return duplicateName("Customer", name), nil
	}
	return nil, func() any {
		n := name
		if n == "" {
			base := cu.str("customer_name")
			n = base
			for i := 1; pa.db.get("Customer", n) != nil; i++ {
				n = base + " - " + itoa(i)
			}
		}
		pa.db.stampNew(cu, n, c.user)
		pa.db.put(cu)
		pa.customerPrimaryContact(c, cu)
		return cu.render(c.keepNulls())
	}
}
