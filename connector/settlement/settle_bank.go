package settlement

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Bank statement matching (DESIGN.md §5): a posted settlement's Journal Entry is reconciled with
// the Bank Transaction the user imported from the bank statement for it — on
// settlements.bank_account_doc, carrying the UTR in its reference number or description, with
// a deposit of exactly the net amount, nothing of it allocated yet — through reconcile_vouchers
// only. ERPNext's auto-reconcile matches on amount alone (a Bank Transaction with another
// reference still ranks, 72-get-linked-payments-other-reference), so it is never used, and the
// connector never creates a bank line.

// settledEntry is what matching needs of a settlement: its id, UTR, net paise and Journal
// Entry ("" before it is posted, in a dry run).
type settledEntry struct {
	id, utr, entry string
	amount         int64
}

// bankLine is the part of a Bank Transaction matching reads.
type bankLine struct {
	Name              string      `json:"name"`
	ReferenceNumber   string      `json:"reference_number"`
	Description       string      `json:"description"`
	Deposit           json.Number `json:"deposit"`
	Withdrawal        json.Number `json:"withdrawal"`
	UnallocatedAmount json.Number `json:"unallocated_amount"`
}

// matchBank matches s with the bank statement (dryRun: finds, never reconciles). owner takes
// the lock row "settlement:<id>" around the write, so a worker and a reconcile never match
// one settlement at once.
func (c *Job) matchBank(ctx context.Context, s settledEntry, owner string, dryRun bool) (connector.BankMatch, error) {
	doc := c.Account.Settlements.BankAccountDoc
	if doc == "" {
		return connector.BankMatch{State: connector.BankOff}, nil
	}
	if s.entry != "" {
		linked, err := c.linkedTransaction(ctx, s.entry)
		if err != nil || linked != "" {
			return c.matched(ctx, s.entry, linked, err)
		}
	}
	cands, err := c.bankCandidates(ctx, doc, s)
	switch {
	case err != nil:
		return connector.BankMatch{}, err
	case len(cands) == 0:
		return connector.BankMatch{State: connector.BankAwaiting}, nil
	case len(cands) > 1:
		return connector.BankMatch{State: connector.BankAmbiguous, Candidates: cands}, nil
	case dryRun || s.entry == "":
		return connector.BankMatch{State: connector.BankWouldMatch, Transaction: cands[0]}, nil
	}
	now := c.Now()
	lock := "settlement:" + s.id
	held, err := c.Store.AcquireLock(ctx, lock, owner, now, now.Add(c.WriteFence()))
	if err != nil || !held {
		return connector.BankMatch{State: connector.BankAwaiting}, err
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = c.Store.ReleaseLock(rctx, lock, owner)
	}()
	// Under the lock, again: another process may have matched it since the candidates were read.
	if linked, err := c.linkedTransaction(ctx, s.entry); err != nil || linked != "" {
		return c.matched(ctx, s.entry, linked, err)
	}
	args, err := frappe.ReconcileVouchersArgs(cands[0], frappe.ReconcileVoucher{PaymentDoctype: frappe.DoctypeJournalEntry,
		PaymentName: s.entry, Amount: json.Number(razorpay.FormatMinor(s.amount, 2))})
	if err != nil {
		return connector.BankMatch{}, err
	}
	if err := c.Account.ERP.Call(ctx, frappe.MethodReconcileVouchers, args, nil); err != nil {
		return connector.BankMatch{}, connector.Failed(fmt.Sprintf("reconcile Bank Transaction %s with %s", cands[0], s.entry), err)
	}
	linked, err := c.linkedTransaction(ctx, s.entry)
	if err == nil && linked == "" {
		err = fmt.Errorf("reconcile_vouchers answered but Bank Transaction %s does not list %s", cands[0], s.entry)
	}
	return c.matched(ctx, s.entry, linked, err)
}

// matched is the match of entry with the Bank Transaction bt, with the entry's clearance date.
func (c *Job) matched(ctx context.Context, entry, bt string, err error) (connector.BankMatch, error) {
	if err != nil {
		return connector.BankMatch{}, err
	}
	var je frappe.JournalEntry
	if err := c.Account.ERP.Get(ctx, frappe.DoctypeJournalEntry, entry, &je); err != nil {
		return connector.BankMatch{}, connector.Failed("read Journal Entry "+entry, err)
	}
	return connector.BankMatch{State: connector.BankMatched, Transaction: bt, ClearanceDate: je.ClearanceDate}, nil
}

// linkedTransaction is the submitted Bank Transaction that has entry among its payment
// entries ("" when none). The list joins the child table, so it sends no order_by (an
// unqualified one is 500 1052 on MariaDB, 65-je-list-child-filter-*).
func (c *Job) linkedTransaction(ctx context.Context, entry string) (string, error) {
	var rows []struct {
		Name string `json:"name"`
	}
	err := c.Account.ERP.List(ctx, frappe.DoctypeBankTransaction, frappe.ListOptions{
		Fields: []string{"name"},
		Filters: []frappe.Filter{{"docstatus", "=", 1},
			{frappe.DoctypeBankTransactionPayments, "payment_document", "=", frappe.DoctypeJournalEntry},
			{frappe.DoctypeBankTransactionPayments, "payment_entry", "=", entry}},
		All: true,
	}, &rows)
	if err != nil {
		return "", connector.Failed("look up the Bank Transaction of "+entry, err)
	}
	if len(rows) == 0 {
		return "", nil
	}
	return rows[0].Name, nil
}

// bankCandidates lists the submitted Bank Transactions of the Bank Account doc whose reference
// number equals s's UTR or whose description contains it (narrowed on the server, compared
// exactly here: the site's = and like ignore case, and _ is a wildcard), with a deposit of
// exactly s.amount and nothing allocated yet.
func (c *Job) bankCandidates(ctx context.Context, doc string, s settledEntry) ([]string, error) {
	var rows []bankLine
	err := c.Account.ERP.List(ctx, frappe.DoctypeBankTransaction, frappe.ListOptions{
		Fields:    []string{"name", "reference_number", "description", "deposit", "withdrawal", "unallocated_amount"},
		Filters:   []frappe.Filter{{"bank_account", "=", doc}, {"docstatus", "=", 1}},
		OrFilters: []frappe.Filter{{"reference_number", "=", s.utr}, {"description", "like", "%" + s.utr + "%"}},
		OrderBy:   "date asc, name asc",
		All:       true,
	}, &rows)
	if err != nil {
		return nil, connector.Failed(fmt.Sprintf("look up the bank statement line of %s (UTR %s)", s.id, s.utr), err)
	}
	var out []string
	for _, r := range rows {
		if r.ReferenceNumber != s.utr && !strings.Contains(r.Description, s.utr) {
			continue
		}
		dep, err1 := razorpay.ParseDecimal(connector.OrZero(r.Deposit), 2)
		wd, err2 := razorpay.ParseDecimal(connector.OrZero(r.Withdrawal), 2)
		un, err3 := razorpay.ParseDecimal(connector.OrZero(r.UnallocatedAmount), 2)
		if err1 == nil && err2 == nil && err3 == nil && dep == s.amount && wd == 0 && un == s.amount {
			out = append(out, r.Name)
		}
	}
	return out, nil
}
