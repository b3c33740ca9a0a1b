package settlement

import (
	"context"
	"strings"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Lookup before create of a settlement's Journal Entry (DESIGN.md §4 step 5, §5). The key is
// the settlement id, held by the entry in two places the connector writes and compares exactly
// in Go: its name (under erpnext.name_entries_by_payment_id, where the site keeps client names,
// erpnext-recorded/07-*, erpnext-recorded-settlement/61-je-insert-client-name-*) and the start
// of its user_remark ("Razorpay settlement setl_… "). The list is narrowed on the server by
// cheque_no = the UTR — an `=` the site answers case-insensitively (65-je-list-by-cheque-no-
// other-case) — and never by a LIKE on the remark, where "_" is a wildcard (65-je-list-by-user-
// remark-like): the rows are then compared exactly here, so neither case nor wildcard can make
// another entry count as this settlement's.

// settleMatch is what the lookup found: this settlement's entry (submitted or draft), and
// entries a person made with the same UTR.
type settleMatch struct {
	submitted, draft string
	foreign          []string
}

// findSettlementEntry lists the Journal Entries with cheque_no = st.UTR and docstatus ≠ 2 and
// sorts them: the connector's for st (exact name or exact remark marker, exact UTR), or
// another entry carrying exactly this UTR (foreign).
func (c *Job) findSettlementEntry(ctx context.Context, st *razorpay.Settlement) (settleMatch, error) {
	var rows []frappe.JournalEntry
	err := c.Account.ERP.List(ctx, frappe.DoctypeJournalEntry, frappe.ListOptions{
		Fields:  []string{"name", "cheque_no", "user_remark", "docstatus"},
		Filters: []frappe.Filter{{"cheque_no", "=", st.UTR}, {"docstatus", "!=", 2}},
		OrderBy: "creation asc",
		All:     true,
	}, &rows)
	if err != nil {
		return settleMatch{}, connector.Failed("look up Journal Entry by cheque_no "+st.UTR, err)
	}
	var m settleMatch
	for _, r := range rows {
		switch {
		case r.ChequeNo != st.UTR:
			continue // another case of the UTR: not this bank line
		case r.Name != st.ID && !strings.HasPrefix(r.UserRemark, settlementMarker(st.ID)):
			m.foreign = append(m.foreign, r.Name)
		case r.Docstatus == 1 && m.submitted == "":
			m.submitted = r.Name
		case r.Docstatus == 0 && m.draft == "":
			m.draft = r.Name
		}
	}
	return m, nil
}

// settledEntryOf returns the name of st's submitted entry ("" when none): the lookup again,
// after a write that ERPNext refused with 409 (its own key found the name).
func (c *Job) settledEntryOf(st *razorpay.Settlement) func(ctx context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		m, err := c.findSettlementEntry(ctx, st)
		return m.submitted, err
	}
}
