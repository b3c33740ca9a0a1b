package connector

import (
	"fmt"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
)

// The bank match of a settlement's Journal Entry (connector/booking's settlement job, DESIGN.md
// §5), and the line of a settlement in reconcile's report, as Explain and reconcile show them.

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

// SettlementLine is one settlement as `reconcile` reports it. Amounts are INR paise.
// Summary (items, gross, fees, GST, refunds, adjustments, net) is nil when the settlement's
// rows could not be planned (Reason says why). ClearingResidue is what of the settlement's
// money is still in the clearing account: everything its items put there until its entry is
// posted, then that less the entry's clearing line — 0 when the entry took exactly what the
// items put in.
type SettlementLine struct {
	ID              string                     `json:"id"`
	UTR             string                     `json:"utr"`
	CreatedAt       time.Time                  `json:"created_at"`
	Amount          int64                      `json:"amount"`
	Items           int                        `json:"items"`
	Summary         *mapping.SettlementSummary `json:"summary,omitempty"`
	Entry           string                     `json:"entry,omitempty"` // the Journal Entry
	Status          string                     `json:"status"`          // the settlement event's status, or "posted"
	Reason          string                     `json:"reason,omitempty"`
	Bank            BankMatch                  `json:"bank"`
	ClearingResidue int64                      `json:"clearing_residue"`
}
