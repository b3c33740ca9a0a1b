package erpnextsim

import "strings"

// links validates a document's Link fields and renders the links ERPNext puts in messages
// (get_link_to_form, under Options.SiteURL).
type links struct {
	db  *store
	opt Options
}

// validateLinks is Frappe's _validate_links (§1.7, §3.2 first paragraph):
// every Link / Dynamic Link value must name an existing document; values are
// replaced by the stored name (the lookup is case-insensitive); links to
// cancelled documents are refused unless the document itself is being
// cancelled. All failures are reported in one message, missing ones first.
// Links with fetch-from dependents are skipped when missing (README
// difference 2: ERPNext then fails later with its own message).
func (lk *links) validateLinks(r *record, cancelling bool) *fErr {
	var invalid, cancelled []string
	var setFirst *fErr
	check := func(rec *record, prefix string) *fErr {
		m := rec.meta()
		for _, f := range m.fields {
			v := rec.str(f.name)
			if v == "" || (f.typ != ftLink && f.typ != ftDynLink) {
				continue
			}
			target := f.options
			if f.typ == ftDynLink {
				target = rec.str(f.options)
				if target == "" {
					label := f.options
					if tf := m.field(f.options); tf != nil {
						label = tf.label
					}
					return throw(label + " must be set first")
				}
			}
			if target == "DocType" {
				if metas[v] == nil && !knownUnmodelled[v] && lk.db.get("DocType", v) == nil {
					invalid = append(invalid, prefix+f.label+": "+v)
				}
				continue
			}
			if metas[target] == nil {
				return notModelled("links to " + target + " (" + f.name + ")")
			}
			doc := lk.db.get(target, v)
			if doc == nil {
				if !f.fetchDeps {
					invalid = append(invalid, prefix+f.label+": "+v)
				}
				continue
			}
			rec.f[f.name] = doc.name()
			if metas[target].submittable && doc.docstatus() == 2 && !cancelling {
				cancelled = append(cancelled, prefix+f.label+": "+v)
			}
		}
		return nil
	}
	if e := check(r, ""); e != nil {
		return e
	}
	for _, f := range r.meta().fields {
		if f.typ != ftTable {
			continue
		}
		for i, row := range r.rows(f.name) {
			if e := check(row, "Row #"+itoa(i+1)+": "); e != nil {
				return e
			}
		}
	}
	if setFirst != nil {
		return setFirst
	}
	if len(invalid) > 0 {
		return throw("Could not find " + strings.Join(invalid, ", ")).as("LinkValidationError")
	}
	if len(cancelled) > 0 {
		return throw("Cannot link cancelled document: " + strings.Join(cancelled, ", ")).as("CancelledLinkError")
	}
	return nil
}

// validateMandatory is the framework check F (§3.2): MandatoryError with one
// plain message per missing field, parent first, then child rows; the
// exception line lists field names (recordings 10-missing-paid-to-with-rates,
// 19-deduction-missing-cost-center).
func validateMandatory(r *record, name string, extra []string) *fErr {
	var msgs []srvMsg
	var names []string
	missing := func(rec *record, f *field) bool {
		v, ok := rec.f[f.name]
		return !ok || v == nil || v == ""
	}
	for _, f := range r.meta().fields {
		if f.reqd && f.typ != ftTable && missing(r, f) {
			msgs = append(msgs, srvMsg{message: "Error: Value missing for " + r.dt + ": " + f.label, title: "Message"})
			names = append(names, f.name)
		}
	}
	for _, x := range extra { // required tables (label|fieldname)
		label, fname, _ := strings.Cut(x, "|")
		msgs = append(msgs, srvMsg{message: "Error: Value missing for " + r.dt + ": " + label, title: "Message"})
		names = append(names, fname)
	}
	for _, tf := range r.meta().fields {
		if tf.typ != ftTable {
			continue
		}
		for i, row := range r.rows(tf.name) {
			for _, f := range row.meta().fields {
				if f.reqd && missing(row, f) {
					msgs = append(msgs, srvMsg{message: "Error: <strong>" + row.dt + "</strong> Row #" + itoa(i+1) + ": Value missing for: " + f.label, title: "Message"})
					names = append(names, f.name)
				}
			}
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return &fErr{status: 417, excType: "MandatoryError", msgs: msgs,
		exception: "frappe.exceptions.MandatoryError: [" + r.dt + ", " + name + "]: " + strings.Join(names, ", ")}
}

// duplicateName is the 409 of a primary-key clash (recording 07-insert-duplicate-client-name).
func duplicateName(dt, name string) *fErr {
	return &fErr{status: 409, excType: "DuplicateEntryError",
		exception: "frappe.exceptions.DuplicateEntryError: ('" + dt + "', '" + name + "', IntegrityError(1062, \"Duplicate entry '" + name + "' for key 'PRIMARY'\"))",
		msgs:      []srvMsg{{message: dt + " <strong>" + name + "</strong> already exists", title: "Duplicate Name", indicator: "red"}}}
}
