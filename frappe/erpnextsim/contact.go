package erpnextsim

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Contact (spec §6; recordings 56-*). A Contact holds a person's addresses and numbers in
// child tables email_ids (Contact Email), phone_nos (Contact Phone) and its parties in links
// (Dynamic Link). The behaviour follows frappe v15 contact.py as read, not copied:
//
//   - name: the full name (first, middle, last joined by spaces, else company_name), then
//     "-" + the first link's link_name; a taken name gets "-1", "-2", … appended
//     (append_number_if_name_exists). Nothing at all → 417 "No Name Specified for Contact".
//     Frappe's Title Case of the name is not applied.
//   - email_id mirrors the email_ids row with is_primary; phone the row with is_primary_phone;
//     mobile_no the row with is_primary_mobile_no ("" when none). Two primaries of one kind →
//     417 "Only one <strong>Email ID</strong> can be set as primary." (Phone, Mobile No).
//   - Contact Email email_id must look like an address: 417 InvalidEmailAddressError
//     "{email} is not a valid Email Address" (unrecorded; the simulator's check is simple).
//   - links get link_title from the linked Customer's customer_name; duplicate links are dropped.
//
// Permissions (contact.json): Sales User/Manager, Accounts User/Manager, System Manager may
// read and create; so the API user can POST /api/resource/Contact. The role "All" (if_owner)
// is not modelled: a user without those roles is refused.

const contactDT = "Contact"

var contactFields = `
first_name|Data|First Name||
middle_name|Data|Middle Name||
last_name|Data|Last Name||
full_name|Data|Full Name||
email_id|Data|Email Address||
user|Data|User Id||
address|Data|Address||
sync_with_google_contacts|Check|Sync with Google Contacts||
status|Select|Status||
salutation|Data|Salutation||
designation|Data|Designation||
gender|Data|Gender||
phone|Data|Phone||
mobile_no|Data|Mobile No||
company_name|Data|Company Name||
image|Data|Image||
google_contacts_id|Data|Google Contacts Id||
pulled_from_google_contacts|Check|Pulled from Google Contacts||
email_ids|Table|Email IDs|Contact Email|
phone_nos|Table|Contact Numbers|Contact Phone|
links|Table|Links|Dynamic Link|
is_primary_contact|Check|Is Primary Contact||
department|Data|Department||
unsubscribed|Check|Unsubscribed||
`

var contactEmailFields = `
email_id|Data|Email ID||r
is_primary|Check|Is Primary||
`

var contactPhoneFields = `
phone|Data|Number||r
is_primary_phone|Check|Is Primary Phone||
is_primary_mobile_no|Check|Is Primary Mobile||
`

var dynamicLinkFields = `
link_doctype|Link|Link Document Type|DocType|r
link_name|Dynamic Link|Link Name|link_doctype|r
link_title|Data|Link Title||
`

func init() {
	register(contactDT, contactFields, nil)
	register("Contact Email", contactEmailFields, func(m *meta) { m.child = true })
	register("Contact Phone", contactPhoneFields, func(m *meta) { m.child = true })
	register("Dynamic Link", dynamicLinkFields, func(m *meta) { m.child = true })
	delete(knownUnmodelled, contactDT)
	docPerms[contactDT] = struct{ read, create []string }{
		read:   []string{RoleSystemManager, RoleSalesUser, RoleSalesManager, RoleAccountsUser, RoleAccountsManager},
		create: []string{RoleSystemManager, RoleSalesUser, RoleSalesManager, RoleAccountsUser, RoleAccountsManager},
	}
}

// ContactSpec describes a Contact made by AddContact (spec §6, recordings 56-*).
type ContactSpec struct {
	FirstName, LastName string
	CompanyName         string         // used for the name when there is no first/last name
	Emails              []ContactEmail // the first with Primary (or, if none is marked, the first) becomes email_id
	Phones              []ContactPhone
	Customers           []string // linked Customers (Dynamic Link rows, link_doctype "Customer"), in order
	// PrimaryFor makes the contact the primary contact (is_primary_contact 1) and sets each
	// linked Customer's customer_primary_contact, email_id and mobile_no from it, as saving
	// the Customer afterwards does in ERPNext (fetch_from customer_primary_contact.*).
	PrimaryFor bool
	Name       string // optional fixed name; default from the names as ERPNext does
}

// ContactEmail is one Contact Email row.
type ContactEmail struct {
	Email   string
	Primary bool
}

// ContactPhone is one Contact Phone row; the number is stored as given (no normalisation, §6).
type ContactPhone struct {
	Phone         string
	PrimaryPhone  bool
	PrimaryMobile bool
}

// AddContact creates a Contact as Administrator through the same validation as
// POST /api/resource/Contact and returns its name, e.g. "Two Mail Person-Test Customer"
// for first name "Two Mail", last name "Person" linked to "Test Customer" (recordings 56-*).
// Linked customers must exist.
func (s *Site) AddContact(spec ContactSpec) (string, error) {
	body := map[string]any{}
	for k, v := range map[string]string{"first_name": spec.FirstName, "last_name": spec.LastName, "company_name": spec.CompanyName} {
		if v != "" {
			body[k] = v
		}
	}
	anyPrimary := false
	for _, e := range spec.Emails {
		anyPrimary = anyPrimary || e.Primary
	}
	var emails, phones, links []any
	for i, e := range spec.Emails {
		emails = append(emails, map[string]any{"email_id": e.Email, "is_primary": json.Number(fmt.Sprint(b2i(e.Primary || (!anyPrimary && i == 0))))})
	}
	for _, p := range spec.Phones {
		phones = append(phones, map[string]any{"phone": p.Phone, "is_primary_phone": json.Number(fmt.Sprint(b2i(p.PrimaryPhone))),
			"is_primary_mobile_no": json.Number(fmt.Sprint(b2i(p.PrimaryMobile)))})
	}
	for _, cu := range spec.Customers {
		links = append(links, map[string]any{"link_doctype": "Customer", "link_name": cu})
	}
	body["email_ids"], body["phone_nos"], body["links"] = emails, phones, links
	body["is_primary_contact"] = json.Number(fmt.Sprint(b2i(spec.PrimaryFor)))
	if spec.Name != "" {
		s.db.mu.Lock()
		exists := s.db.get(contactDT, spec.Name) != nil
		s.db.mu.Unlock()
		if exists {
			return "", fmt.Errorf("erpnextsim: Contact %q already exists", spec.Name)
		}
	}
	out, err := s.run(func(c *call) (*fErr, step) {
		c.fixedName = spec.Name
		return s.parties.insertContact(c, body)
	})
	if err != nil {
		return "", err
	}
	v, _ := out.(obj).get("name")
	name, _ := v.(string)
	if name == "" {
		return "", errors.New("erpnextsim: contact without a name")
	}
	if spec.PrimaryFor {
		s.db.mu.Lock()
		ct := s.db.get(contactDT, name)
		for _, cu := range spec.Customers {
			if r := s.db.get("Customer", cu); r != nil {
				r.f["customer_primary_contact"] = ct.name()
				setOrDelete(r, "email_id", ct.str("email_id"))
				setOrDelete(r, "mobile_no", ct.str("mobile_no"))
				s.db.touch(r, admin)
			}
		}
		s.db.mu.Unlock()
	}
	return name, nil
}

func setOrDelete(r *record, k, v string) {
	if v == "" {
		delete(r.f, k)
	} else {
		r.f[k] = v
	}
}

// insertContact is POST /api/resource/Contact: link check, contact validate, mandatory
// child fields, naming.
func (pa *parties) insertContact(c *call, body map[string]any) (*fErr, step) {
	ct := fromBody(contactDT, body, nil)
	setDefault(ct, "status", "Passive")
	for _, k := range []string{"is_primary_contact", "unsubscribed", "pulled_from_google_contacts", "sync_with_google_contacts"} {
		setDefault(ct, k, int64(0))
	}
	if e := pa.links.validateLinks(ct, false); e != nil {
		return e, nil
	}
	if e := pa.validateContact(ct); e != nil {
		return e, nil
	}
	name := c.fixedName
	if name == "" {
		name = pa.db.clientName(body)
	}
	if e := validateMandatory(ct, name, nil); e != nil {
		return e, nil
	}
	if name != "" && pa.db.get(contactDT, name) != nil {
		return duplicateName(contactDT, name), nil
	}
	base := ct.str("full_name")
	for _, l := range ct.rows("links") {
		base += "-" + strings.TrimSpace(l.str("link_name"))
		break
	}
	if name == "" && strings.TrimSpace(base) == "" {
		return throw("No Name Specified for Contact"), nil
	}
	return nil, func() any {
		n := name
		if n == "" {
			n = base
			for i := 1; pa.db.get(contactDT, n) != nil; i++ {
				n = base + "-" + itoa(i)
			}
		}
		pa.db.stampNew(ct, n, c.user)
		pa.db.put(ct)
		return ct.render(c.keepNulls())
	}
}

// validateContact is Contact.validate: full name, primary mirrors, link titles, duplicate links.
func (pa *parties) validateContact(ct *record) *fErr {
	var parts []string
	for _, k := range []string{"first_name", "middle_name", "last_name"} {
		if v := strings.TrimSpace(ct.str(k)); v != "" {
			parts = append(parts, v)
		}
	}
	full := strings.Join(parts, " ")
	if full == "" {
		full = ct.str("company_name")
	}
	setOrDelete(ct, "full_name", full)
	for _, row := range ct.rows("email_ids") {
		if e := row.str("email_id"); e != "" && !plausibleEmail(e) {
			return throw(e + " is not a valid Email Address").as("InvalidEmailAddressError").withTitle("Invalid Email Address")
		}
	}
	primary := func(table, flag, value, label string) (string, *fErr) {
		var found []string
		for _, row := range ct.rows(table) {
			if row.int(flag) == 1 {
				found = append(found, strings.TrimSpace(row.str(value)))
			}
		}
		if len(found) > 1 {
			return "", throw("Only one <strong>" + label + "</strong> can be set as primary.")
		}
		if len(found) == 1 {
			return found[0], nil
		}
		return "", nil
	}
	for _, p := range []struct{ table, flag, value, label, target string }{
		{"email_ids", "is_primary", "email_id", "Email ID", "email_id"},
		{"phone_nos", "is_primary_phone", "phone", "Phone", "phone"},
		{"phone_nos", "is_primary_mobile_no", "phone", "Mobile No", "mobile_no"},
	} {
		v, e := primary(p.table, p.flag, p.value, p.label)
		if e != nil {
			return e
		}
		ct.f[p.target] = v
	}
	seen := map[string]bool{}
	var links []*record
	for _, l := range ct.rows("links") {
		key := strings.ToLower(l.str("link_doctype") + "\x00" + l.str("link_name"))
		if seen[key] {
			continue
		}
		seen[key] = true
		if l.str("link_doctype") == "Customer" {
			if cu := pa.db.get("Customer", l.str("link_name")); cu != nil {
				l.f["link_title"] = cu.str("customer_name")
			}
		}
		links = append(links, l)
	}
	if ct.f["links"] != nil {
		ct.f["links"] = links
	}
	return nil
}

// plausibleEmail is a loose address check: one @, text on both sides, a dot in the domain.
func plausibleEmail(e string) bool {
	local, domain, ok := strings.Cut(strings.TrimSpace(e), "@")
	return ok && local != "" && strings.Contains(domain, ".") && !strings.ContainsAny(domain, "@ ") &&
		!strings.HasPrefix(domain, ".") && !strings.HasSuffix(domain, ".")
}

// customerPrimaryContact is ERPNext's Customer.create_primary_contact (customer.py, read, not
// copied; unrecorded): a Customer inserted with email_id or mobile_no and no
// customer_primary_contact gets a Contact (company_name = customer_name for a Company,
// first/middle/last name for an Individual) linked to it, which becomes its primary contact.
// Called in the commit step of the Customer insert.
func (pa *parties) customerPrimaryContact(c *call, cu *record) {
	if cu.str("customer_primary_contact") != "" || (cu.str("email_id") == "" && cu.str("mobile_no") == "") {
		return
	}
	body := map[string]any{"is_primary_contact": json.Number("1"),
		"links": []any{map[string]any{"link_doctype": "Customer", "link_name": cu.name()}}}
	if cu.str("customer_type") == "Individual" {
		words := strings.Fields(cu.str("customer_name"))
		switch {
		case len(words) == 1:
			body["first_name"] = words[0]
		case len(words) == 2:
			body["first_name"], body["last_name"] = words[0], words[1]
		case len(words) > 2:
			body["first_name"], body["middle_name"], body["last_name"] = words[0], strings.Join(words[1:len(words)-1], " "), words[len(words)-1]
		}
	} else {
		body["company_name"] = cu.str("customer_name")
	}
	if e := cu.str("email_id"); e != "" {
		body["email_ids"] = []any{map[string]any{"email_id": e, "is_primary": json.Number("1")}}
	}
	if m := cu.str("mobile_no"); m != "" {
		body["phone_nos"] = []any{map[string]any{"phone": m, "is_primary_mobile_no": json.Number("1")}}
	}
	sub := &call{users: c.users, user: c.user, args: map[string]any{}, seen: map[string]dec{}, status: 200}
	e, st := pa.insertContact(sub, body)
	if e != nil {
		return // ERPNext would fail the whole insert; an invalid address is the likely cause
	}
	v, _ := st().(obj).get("name")
	cu.f["customer_primary_contact"] = v
	if ct := pa.db.get(contactDT, str(v)); ct != nil {
		setOrDelete(cu, "email_id", ct.str("email_id"))
		setOrDelete(cu, "mobile_no", ct.str("mobile_no"))
	}
}
