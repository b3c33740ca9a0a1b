package erpnextsim_test

import (
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

const getPECmd = "/api/method/erpnext.accounts.doctype.payment_entry.payment_entry.get_payment_entry"

// refundPE is the recorded refund body (41-refund-pay-*): Pay to the customer from the clearing account.
func refundPE(over map[string]any) map[string]any {
	b := pe(map[string]any{"payment_type": "Pay", "paid_from": erpnextsim.RazorpayClearing, "paid_to": erpnextsim.DefaultReceivable,
		"paid_amount": 100, "received_amount": 100, "reference_no": "rfnd_TEST000001", "docstatus": 1})
	for k, v := range over {
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
	}
	return b
}

// creditNote makes the recorded credit note: −300 against a fully paid invoice (40-*).
func creditNote(t *testing.T, h *harness) (orig, cn string) {
	t.Helper()
	if r := h.do("POST", pePath, pe(map[string]any{"docstatus": 1, "references": refs("ACC-SINV-2026-00006", 1000)})); r.status != 200 {
		t.Fatal(r.raw)
	}
	r := h.do("POST", siPath, map[string]any{"customer": "Test Customer", "company": "Example Company", "posting_date": "2026-11-30",
		"is_return": 1, "return_against": "ACC-SINV-2026-00006", "items": []any{map[string]any{"item_code": "RZP-ITEM", "qty": -1, "rate": 300}}, "docstatus": 1})
	if r.status != 200 {
		t.Fatal(r.raw)
	}
	return "ACC-SINV-2026-00006", field(r.data(), "name")
}

func TestCreditNoteCreatedAsRecorded(t *testing.T) {
	h := seeded(t)
	if r := h.do("POST", pePath, pe(map[string]any{"docstatus": 1, "references": refs("ACC-SINV-2026-00006", 1000)})); r.status != 200 {
		t.Fatal(r.raw)
	}
	before := field(h.invoice("ACC-SINV-2026-00006"), "modified")
	r := h.do("POST", siPath, map[string]any{"customer": "Test Customer", "is_return": 1, "return_against": "ACC-SINV-2026-00006",
		"items": []any{map[string]any{"item_code": "RZP-ITEM", "qty": -1, "rate": 300}}, "docstatus": 1})
	d := r.data()
	// The answer is stale: Draft and 0 although submitted (40-credit-note-create-submitted).
	for k, want := range map[string]string{"docstatus": "1", "status": "Draft", "outstanding_amount": "0.0", "grand_total": "-300.0",
		"is_return": "1", "return_against": "ACC-SINV-2026-00006", "update_outstanding_for_self": "1", "in_words": "INR Three Hundred only."} {
		if got := field(d, k); got != want {
			t.Errorf("%s = %s, want %s", k, got, want)
		}
	}
	link := `<a href="http://erp.localhost:8000/app/sales-invoice/ACC-SINV-2026-00006">ACC-SINV-2026-00006</a>`
	want := []string{"We can see <strong>Credit Note</strong> is made against " + link + ". If you want " + link +
		"'s outstanding to be updated, uncheck '<strong>Update Outstanding for Self</strong>' checkbox. <br><br>Or you can use " +
		`<a href="http://erp.localhost:8000/app/payment-reconciliation/Payment%20Reconciliation">Payment Reconciliation</a>` +
		" tool to reconcile against " + link + " later.",
		"Row # 1: Returned Item RZP-ITEM does not exist in Sales Invoice ACC-SINV-2026-00006"}
	if got := r.messages(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("messages\n%q\nwant\n%q", got, want)
	}
	cn := h.invoice(field(d, "name"))
	if field(cn, "status") != "Return" || field(cn, "outstanding_amount") != "-300.0" {
		t.Errorf("credit note after: %v %v", cn["status"], cn["outstanding_amount"])
	}
	orig := h.invoice("ACC-SINV-2026-00006")
	if field(orig, "status") != "Paid" || field(orig, "outstanding_amount") != "0.0" || field(orig, "modified") != before {
		t.Errorf("original touched: %v %v", orig["status"], orig["outstanding_amount"])
	}
	h.do("POST", siPath, map[string]any{"customer": "Test Customer", "is_return": 1, "items": []any{map[string]any{"item_code": "RZP-ITEM", "qty": 1, "rate": 300}}}).
		expectError(t, 417, "ValidationError", "Atleast one item should be entered with negative quantity in return document")
}

func TestCreditNoteViaAddSalesInvoice(t *testing.T) {
	h := seeded(t)
	cn, err := h.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true, IsReturn: true, ReturnAgainst: "ACC-SINV-2026-00003",
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "250.00"}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := h.invoice(cn); field(d, "outstanding_amount") != "-250.0" || field(d, "status") != "Return" {
		t.Fatalf("credit note %v %v", d["outstanding_amount"], d["status"])
	}
	if d := h.invoice("ACC-SINV-2026-00003"); field(d, "outstanding_amount") != "1000.0" {
		t.Fatalf("original changed: %v", d["outstanding_amount"])
	}
	cn2, err := h.site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: "Test Customer", Submit: true, IsReturn: true, ReturnAgainst: "ACC-SINV-2026-00004",
		UpdateOriginal: true, Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "250.00"}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := h.invoice(cn2); field(d, "outstanding_amount") != "0.0" {
		t.Fatalf("credit note with update_outstanding_for_self 0: %v", d["outstanding_amount"])
	}
	if d := h.invoice("ACC-SINV-2026-00004"); field(d, "outstanding_amount") != "750.0" || field(d, "status") != "Partly Paid" {
		t.Fatalf("original: %v %v", d["outstanding_amount"], d["status"])
	}
}

// TestRefundAgainstCreditNote is recordings 40-credit-note-get-payment-entry, 41-*, 42-*, 43-*.
func TestRefundAgainstCreditNote(t *testing.T) {
	h := seeded(t)
	orig, cn := creditNote(t, h)
	origModified := field(h.invoice(orig), "modified")

	t.Run("GetPaymentEntryGivesPositiveAllocation", func(t *testing.T) {
		d := h.do("POST", getPECmd, map[string]any{"dt": "Sales Invoice", "dn": cn, "party_amount": 300, "bank_account": erpnextsim.RazorpayClearing}).data()
		row := row0(d, "references")
		for k, want := range map[string]string{"payment_type": "Pay", "paid_from": erpnextsim.RazorpayClearing, "paid_to": "Debtors - EC",
			"paid_amount": "300.0", "received_amount": "300.0", "total_allocated_amount": "300.0"} {
			if got := field(d, k); got != want {
				t.Errorf("%s = %s, want %s", k, got, want)
			}
		}
		if field(row, "allocated_amount") != "300.0" || field(row, "outstanding_amount") != "300.0" || field(row, "total_amount") != "300.0" {
			t.Errorf("row %v", row)
		}
		// Posting it back unchanged is refused (41-refund-get-payment-entry-result-submitted-as-is).
		d["docstatus"], d["reference_no"] = 1, "rfnd_TEST000004"
		h.do("POST", pePath, d).expectError(t, 417, "ValidationError", "Row #1: Allocated Amount cannot be greater than outstanding amount.")
	})
	t.Run("PositiveAllocationRefused", func(t *testing.T) {
		r := h.do("POST", pePath, refundPE(map[string]any{"reference_no": "rfnd_TEST000002", "references": refs(cn, 100)}))
		r.expectError(t, 417, "ValidationError", "Row #1: Allocated Amount cannot be greater than outstanding amount.")
		if r.body["_exc_source"] != "erpnext (app)" {
			t.Error("no _exc_source")
		}
	})
	t.Run("NegativeAllocationSubmits", func(t *testing.T) {
		r := h.do("POST", pePath, refundPE(map[string]any{"references": refs(cn, -100)}))
		d := r.data()
		for k, want := range map[string]string{"status": "Submitted", "total_allocated_amount": "100.0", "unallocated_amount": "0.0", "difference_amount": "0.0",
			"remarks": "Amount INR 100 to Test Customer\nTransaction reference no rfnd_TEST000001 dated 2026-11-30\nAmount INR -100 against Sales Invoice " + cn} {
			if got := field(d, k); got != want {
				t.Errorf("%s = %q, want %q", k, got, want)
			}
		}
		row := row0(d, "references")
		if field(row, "total_amount") != "-300.0" || field(row, "outstanding_amount") != "-200.0" || field(row, "allocated_amount") != "-100.0" {
			t.Errorf("row %v", row)
		}
		c := h.invoice(cn)
		if field(c, "outstanding_amount") != "-200.0" || field(c, "status") != "Return" {
			t.Errorf("credit note %v %v", c["outstanding_amount"], c["status"])
		}
		o := h.invoice(orig)
		if field(o, "status") != "Paid" || field(o, "modified") != origModified {
			t.Errorf("original touched: %v", o["status"])
		}
		// Over-refunding what is left is refused.
		h.do("POST", pePath, refundPE(map[string]any{"paid_amount": 250, "received_amount": 250, "reference_no": "rfnd_big", "references": refs(cn, -250)})).
			expectError(t, 417, "ValidationError", "Row #1: Allocated Amount cannot be greater than outstanding amount.")
		// Cancel restores the credit note's outstanding.
		h.do("PUT", pePath+"/"+field(d, "name"), map[string]any{"docstatus": 2})
		if c := h.invoice(cn); field(c, "outstanding_amount") != "-300.0" || field(c, "status") != "Return" {
			t.Errorf("after cancel %v %v", c["outstanding_amount"], c["status"])
		}
	})
	t.Run("UnallocatedPayAccepted", func(t *testing.T) {
		d := h.do("POST", pePath, refundPE(map[string]any{"paid_amount": 50, "received_amount": 50, "reference_no": "rfnd_TEST000003", "references": nil})).data()
		for k, want := range map[string]string{"status": "Submitted", "unallocated_amount": "50.0", "difference_amount": "0.0", "total_allocated_amount": "0.0",
			"remarks": "Amount INR 50 to Test Customer\nTransaction reference no rfnd_TEST000003 dated 2026-11-30"} {
			if got := field(d, k); got != want {
				t.Errorf("%s = %q, want %q", k, got, want)
			}
		}
	})
	t.Run("ReceiveAgainstCreditNoteRefused", func(t *testing.T) {
		h.do("POST", pePath, pe(map[string]any{"paid_amount": 100, "received_amount": 100, "references": refs(cn, -100)})).
			expectError(t, 417, "ValidationError", "Cannot receive from customer against negative outstanding")
	})
}
