package erpnextsim

import (
	"fmt"
	"net/url"
	"strings"
)

// Credit notes (return Sales Invoices), as recorded in erpnext-recorded/40-* … 43-*.
//
// A return has is_return 1, negative quantities (hence negative totals) and usually
// return_against, the original invoice. ERPNext 15.71 defaults update_outstanding_for_self to 1:
// the credit note then carries its own negative outstanding and the original is left alone
// (its status and modified do not change). With update_outstanding_for_self 0 the original's
// outstanding is reduced instead and the credit note's stays 0. Behaviour followed:
// erpnext controllers/sales_and_purchase_return.py validate_returned_items and
// accounts_controller.py validate_against_voucher_outstanding (read, not copied).

// validateReturn checks a return invoice and queues the informational messages ERPNext prints
// while saving one (recording 40-credit-note-create-submitted).
func (sis *salesInvoices) validateReturn(c *call, si *record) *fErr {
	negative := false
	for _, it := range si.rows("items") {
		if it.dec("qty") < 0 {
			negative = true
		}
	}
	if !negative {
		return throw("Atleast one item should be entered with negative quantity in return document")
	}
	si.f["payment_terms_template"] = "" // a return has no terms (H02, 40-credit-note-create-submitted)
	ra := si.str("return_against")
	if ra == "" {
		return nil
	}
	orig := sis.db.get(siDT, ra)
	if orig == nil {
		return nil // the link check already answered
	}
	if orig.docstatus() != 1 {
		return erpThrow("Return Against Sales Invoice " + orig.name() + " must be submitted") // unrecorded: text from ERPNext's validate_return_against
	}
	if !strings.EqualFold(orig.str("customer"), si.str("customer")) {
		return erpThrow("Customer must be same as in Sales Invoice " + orig.name()) // unrecorded
	}
	if si.int("update_outstanding_for_self") == 1 {
		link := sis.links.formLink(siDT, orig.name())
		c.info(fmt.Sprintf("We can see <strong>Credit Note</strong> is made against %s. If you want %s's outstanding to be updated, "+
			"uncheck '<strong>Update Outstanding for Self</strong>' checkbox. <br><br>Or you can use %s tool to reconcile against %s later.",
			link, link, sis.links.formLinkLabel("Payment Reconciliation", "Payment Reconciliation", "Payment Reconciliation"), link))
	}
	origRows := map[string]string{}
	for _, it := range orig.rows("items") {
		origRows[strings.ToLower(it.name())] = it.str("item_code")
	}
	for i, it := range si.rows("items") {
		if it.str("item_code") == "" || it.dec("qty") >= 0 {
			continue
		}
		msg := fmt.Sprintf("Row # %d: Returned Item %s does not exist in Sales Invoice %s", i+1, it.str("item_code"), orig.name())
		ref := it.str("sales_invoice_item")
		switch code, ok := origRows[strings.ToLower(ref)]; {
		case ref == "":
			c.info(msg) // keyed by item code alone: never found, printed without raising (recorded)
		case !ok || !strings.EqualFold(code, it.str("item_code")):
			return erpThrow(msg)
		}
	}
	return nil
}

// returnOriginal is the invoice whose outstanding a submitted return reduces: its
// return_against when update_outstanding_for_self is 0, else nil.
func (sis *salesInvoices) returnOriginal(si *record) *record {
	if si.int("is_return") != 1 || si.int("update_outstanding_for_self") == 1 || si.str("return_against") == "" {
		return nil
	}
	return sis.db.get(siDT, si.str("return_against"))
}

// partyTotal is the invoice total in the party account currency (what outstanding starts at).
func partyTotal(si *record) dec {
	total := si.dec("rounded_total")
	if si.int("disable_rounded_total") == 1 || total == 0 {
		total = si.dec("grand_total")
	}
	if si.str("party_account_currency") != si.str("currency") {
		total = si.dec("base_rounded_total")
		if si.int("disable_rounded_total") == 1 || total == 0 {
			total = si.dec("base_grand_total")
		}
	}
	return total
}

// preLedger turns a rendered invoice into the answer ERPNext 15.71 gives to an insert-and-submit of a Sales Invoice: the
// document as it was before on_submit posted the ledger — status "Draft", outstanding 0 —
// although docstatus is 1 (erpnext-recorded-connector/H01, H02, H08, 81-invoice-*-insert-
// submitted; recording 40-credit-note-create-submitted). A GET afterwards shows the real
// status and outstanding.
func preLedger(o obj) {
	for i := range o {
		switch o[i].k {
		case "status":
			o[i].v = "Draft"
		case "outstanding_amount":
			o[i].v = dec(0)
		}
	}
}

// formLink is frappe.utils.get_link_to_form: an anchor to the desk form, absolute with the
// site URL (Options.SiteURL), e.g. <a href="http://erp.localhost:8000/app/sales-invoice/X">X</a>.
func (lk *links) formLink(doctype, name string) string {
	return lk.formLinkLabel(doctype, name, name)
}

func (lk *links) formLinkLabel(doctype, name, label string) string {
	slug := strings.ReplaceAll(strings.ToLower(doctype), " ", "-")
	return `<a href="` + lk.siteURL() + "/app/" + slug + "/" + url.PathEscape(name) + `">` + label + "</a>"
}

func (lk *links) siteURL() string {
	if lk.opt.SiteURL != "" {
		return strings.TrimRight(lk.opt.SiteURL, "/")
	}
	return DefaultSiteURL
}

// info queues an informational msgprint (title "Message", no indicator) that a successful
// answer carries in _server_messages (recordings 40-credit-note-create-submitted, 49-usd-pe-submitted).
func (c *call) info(msg string) {
	c.infos = append(c.infos, srvMsg{message: msg, title: "Message"})
}
