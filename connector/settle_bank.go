package connector

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

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

// Bank match states.
const (
	BankMatched    = "matched"                 // a Bank Transaction is reconciled with the entry
	BankAwaiting   = "awaiting bank statement" // no Bank Transaction carries the UTR yet
	BankAmbiguous  = "ambiguous"               // several do: a person picks one
	BankWouldMatch = "would match"             // a dry run found the one it would reconcile
	BankOff        = "not matched"             // settlements.bank_account_doc is not set
	BankNotPosted  = "not posted yet"          // nothing to match before the entry exists
)

// BankMatch is the state of one settlement's bank match: Transaction is the matched (or, in a
// dry run, the one candidate) Bank Transaction, Candidates the ambiguous ones. ClearanceDate is
// the Journal Entry's once ERPNext cleared it — only when no other row of the entry is on a
// Bank-type account (erpnext-recorded-settlement/70-*, 72-*).
type BankMatch struct {
	State         string   `json:"state"`
	Transaction   string   `json:"bank_transaction,omitempty"`
	Candidates    []string `json:"candidates,omitempty"`
	ClearanceDate string   `json:"clearance_date,omitempty"`
}

// String is the match as a reason reads it.
func (m BankMatch) String() string {
	switch {
	case m.State == BankMatched && m.ClearanceDate != "":
		return fmt.Sprintf("matched Bank Transaction %s, cleared %s", m.Transaction, m.ClearanceDate)
	case m.State == BankMatched:
		return fmt.Sprintf("matched Bank Transaction %s (the entry is not cleared while the clearing account is of type Bank)", m.Transaction)
	case m.State == BankWouldMatch:
		return "would match Bank Transaction " + m.Transaction
	case m.State == BankAmbiguous:
		return fmt.Sprintf("ambiguous: Bank Transactions %s all carry the UTR and the amount; reconcile one by hand in the Bank Reconciliation Tool", strings.Join(m.Candidates, ", "))
	}
	return m.State
}

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
func (c *Connector) matchBank(ctx context.Context, s settledEntry, owner string, dryRun bool) (BankMatch, error) {
	doc := c.cfg.Settlements.BankAccountDoc
	if doc == "" {
		return BankMatch{State: BankOff}, nil
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
		return BankMatch{}, err
	case len(cands) == 0:
		return BankMatch{State: BankAwaiting}, nil
	case len(cands) > 1:
		return BankMatch{State: BankAmbiguous, Candidates: cands}, nil
	case dryRun || s.entry == "":
		return BankMatch{State: BankWouldMatch, Transaction: cands[0]}, nil
	}
	now := c.now()
	lock := "settlement:" + s.id
	held, err := c.store.AcquireLock(ctx, lock, owner, now, now.Add(c.writeFence()))
	if err != nil || !held {
		return BankMatch{State: BankAwaiting}, err
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = c.store.ReleaseLock(rctx, lock, owner)
	}()
	// Under the lock, again: another process may have matched it since the candidates were read.
	if linked, err := c.linkedTransaction(ctx, s.entry); err != nil || linked != "" {
		return c.matched(ctx, s.entry, linked, err)
	}
	args, err := frappe.ReconcileVouchersArgs(cands[0], frappe.ReconcileVoucher{PaymentDoctype: frappe.DoctypeJournalEntry,
		PaymentName: s.entry, Amount: json.Number(razorpay.FormatMinor(s.amount, 2))})
	if err != nil {
		return BankMatch{}, err
	}
	if err := c.erp.Call(ctx, frappe.MethodReconcileVouchers, args, nil); err != nil {
		return BankMatch{}, failed(fmt.Sprintf("reconcile Bank Transaction %s with %s", cands[0], s.entry), err)
	}
	linked, err := c.linkedTransaction(ctx, s.entry)
	if err == nil && linked == "" {
		err = fmt.Errorf("reconcile_vouchers answered but Bank Transaction %s does not list %s", cands[0], s.entry)
	}
	return c.matched(ctx, s.entry, linked, err)
}

// matched is the match of entry with the Bank Transaction bt, with the entry's clearance date.
func (c *Connector) matched(ctx context.Context, entry, bt string, err error) (BankMatch, error) {
	if err != nil {
		return BankMatch{}, err
	}
	var je frappe.JournalEntry
	if err := c.erp.Get(ctx, frappe.DoctypeJournalEntry, entry, &je); err != nil {
		return BankMatch{}, failed("read Journal Entry "+entry, err)
	}
	return BankMatch{State: BankMatched, Transaction: bt, ClearanceDate: je.ClearanceDate}, nil
}

// linkedTransaction is the submitted Bank Transaction that has entry among its payment
// entries ("" when none). The list joins the child table, so it sends no order_by (an
// unqualified one is 500 1052 on MariaDB, 65-je-list-child-filter-*).
func (c *Connector) linkedTransaction(ctx context.Context, entry string) (string, error) {
	var rows []struct {
		Name string `json:"name"`
	}
	err := c.erp.List(ctx, frappe.DoctypeBankTransaction, frappe.ListOptions{
		Fields: []string{"name"},
		Filters: []frappe.Filter{{"docstatus", "=", 1},
			{frappe.DoctypeBankTransactionPayments, "payment_document", "=", frappe.DoctypeJournalEntry},
			{frappe.DoctypeBankTransactionPayments, "payment_entry", "=", entry}},
		All: true,
	}, &rows)
	if err != nil {
		return "", failed("look up the Bank Transaction of "+entry, err)
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
func (c *Connector) bankCandidates(ctx context.Context, doc string, s settledEntry) ([]string, error) {
	var rows []bankLine
	err := c.erp.List(ctx, frappe.DoctypeBankTransaction, frappe.ListOptions{
		Fields:    []string{"name", "reference_number", "description", "deposit", "withdrawal", "unallocated_amount"},
		Filters:   []frappe.Filter{{"bank_account", "=", doc}, {"docstatus", "=", 1}},
		OrFilters: []frappe.Filter{{"reference_number", "=", s.utr}, {"description", "like", "%" + s.utr + "%"}},
		OrderBy:   "date asc, name asc",
		All:       true,
	}, &rows)
	if err != nil {
		return nil, failed(fmt.Sprintf("look up the bank statement line of %s (UTR %s)", s.id, s.utr), err)
	}
	var out []string
	for _, r := range rows {
		if r.ReferenceNumber != s.utr && !strings.Contains(r.Description, s.utr) {
			continue
		}
		dep, err1 := razorpay.ParseDecimal(orZero(r.Deposit), 2)
		wd, err2 := razorpay.ParseDecimal(orZero(r.Withdrawal), 2)
		un, err3 := razorpay.ParseDecimal(orZero(r.UnallocatedAmount), 2)
		if err1 == nil && err2 == nil && err3 == nil && dep == s.amount && wd == 0 && un == s.amount {
			out = append(out, r.Name)
		}
	}
	return out, nil
}

// orZero is n as decimal text, "0" when absent.
func orZero(n json.Number) string {
	if n == "" {
		return "0"
	}
	return n.String()
}
