package erpnextsim

import "fmt"

// Payment Term and Payment Terms Template over REST (POST /api/resource/…), as an accounts user
// sets them up before invoicing with a template (erpnext-recorded-connector/R09 used one). Names
// come from payment_term_name and template_name (autoname field:…; a repeat is 409
// DuplicateEntryError). A template row naming a Payment Term takes the term's portion, days,
// basis and description where the row leaves them empty (fetch_from); then ERPNext's validate
// (payment_terms_template.py, read in the v15 tree): the portions must add up to 100
// ("Combined invoice portion must equal 100%"), a row must name its term when the template
// allocates by term ("Row {idx}: Payment Term is mandatory"), and two rows with the same term,
// days, months and basis are refused ("The Payment Term at row {idx} is possibly a duplicate.").

func init() {
	insertHooks["Payment Term"] = func(s *Site) insertHook { return s.terms.insertPaymentTerm }
	insertHooks[pttDT] = func(s *Site) insertHook { return s.terms.insertPaymentTermsTemplate }
}

// termDefaults are the doctype defaults of Payment Term and of a template row.
var termDefaults = map[string]any{"due_date_based_on": "Day(s) after invoice date", "credit_days": int64(0),
	"credit_months": int64(0), "discount_type": "Percentage", "discount": dec(0)}

func (tm *paymentTerms) insertPaymentTerm(c *call, body map[string]any) (*fErr, step) {
	pt := fromBody("Payment Term", body, nil)
	for k, v := range termDefaults {
		setDefault(pt, k, v)
	}
	setDefault(pt, "invoice_portion", dec(0))
	name := pt.str("payment_term_name")
	if e := tm.links.validateLinks(pt, false); e != nil {
		return e, nil
	}
	if e := validateMandatory(pt, name, extraIf(name == "", "Payment Term Name|payment_term_name")); e != nil {
		return e, nil
	}
	if tm.db.get("Payment Term", name) != nil {
		return duplicateName("Payment Term", name), nil
	}
	return nil, func() any {
		tm.db.stampNew(pt, name, c.user)
		tm.db.put(pt)
		return pt.render(c.keepNulls())
	}
}

func (tm *paymentTerms) insertPaymentTermsTemplate(c *call, body map[string]any) (*fErr, step) {
	tmpl := fromBody(pttDT, body, nil)
	setDefault(tmpl, "allocate_payment_based_on_payment_terms", int64(0))
	name := tmpl.str("template_name")
	if e := tm.links.validateLinks(tmpl, false); e != nil {
		return e, nil
	}
	for _, row := range tmpl.rows("terms") {
		if pt := tm.db.get("Payment Term", row.str("payment_term")); pt != nil {
			for _, k := range []string{"description", "invoice_portion", "mode_of_payment", "due_date_based_on", "credit_days", "credit_months", "discount_type", "discount"} {
				if row.f[k] == nil || row.f[k] == "" {
					if v, ok := pt.f[k]; ok {
						row.f[k] = v
					}
				}
			}
		}
		for k, v := range termDefaults {
			setDefault(row, k, v)
		}
	}
	if e := validateTemplateTerms(tmpl); e != nil { // the controller's validate runs before the mandatory check
		return e, nil
	}
	extra := extraIf(name == "", "Template Name|template_name")
	if len(tmpl.rows("terms")) == 0 {
		extra = append(extra, "Payment Terms|terms")
	}
	if e := validateMandatory(tmpl, name, extra); e != nil {
		return e, nil
	}
	if tm.db.get(pttDT, name) != nil {
		return duplicateName(pttDT, name), nil
	}
	return nil, func() any {
		tm.db.stampNew(tmpl, name, c.user)
		tm.db.put(tmpl)
		return renderUnsaved(tmpl, c.keepNulls(), "terms")
	}
}

// validateTemplateTerms is PaymentTermsTemplate.validate.
func validateTemplateTerms(tmpl *record) *fErr {
	var total dec
	for _, row := range tmpl.rows("terms") {
		total += row.dec("invoice_portion")
	}
	if len(tmpl.rows("terms")) > 0 && total.round(2) != units(100) {
		return throw("Combined invoice portion must equal 100%")
	}
	seen := map[string]bool{}
	for i, row := range tmpl.rows("terms") {
		if tmpl.int("allocate_payment_based_on_payment_terms") == 1 && row.str("payment_term") == "" {
			return throw(fmt.Sprintf("Row %d: Payment Term is mandatory", i+1))
		}
		k := fmt.Sprint(row.str("payment_term"), "\x00", row.int("credit_days"), "\x00", row.int("credit_months"), "\x00", row.str("due_date_based_on"))
		if seen[k] {
			return throw(fmt.Sprintf("The Payment Term at row %d is possibly a duplicate.", i+1))
		}
		seen[k] = true
	}
	return nil
}

// extraIf is validateMandatory's extra list with one "Label|field" entry when cond holds.
func extraIf(cond bool, entry string) []string {
	if cond {
		return []string{entry}
	}
	return nil
}
