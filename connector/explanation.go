package connector

import (
	"errors"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
)

// Explanation is what booking an event would do, found by reading only: the plan of a dry run
// (connector/explain) as `explain --json` prints it.
type Explanation struct {
	Event     string           `json:"event"`
	Key       string           `json:"business_key"`
	Action    string           `json:"action"`
	Existing  string           `json:"existing,omitempty"` // the entry reused, submitted, booked already or cancelled
	Reason    string           `json:"reason,omitempty"`
	WaitUntil *time.Time       `json:"wait_until,omitempty"` // action wait: when the worker tries again (UTC)
	Fields    []ExplainedField `json:"fields,omitempty"`
	Entry     map[string]any   `json:"entry,omitempty"`  // action create: the document that would be inserted
	Ledger    *Ledger          `json:"ledger,omitempty"` // its money, in minor units
	// Settlement is a settlement's Journal Entry in minor units: lines, items and summary.
	Settlement *mapping.Settlement `json:"settlement,omitempty"`
	// Bank is the bank statement line the settlement's entry is (or would be) matched with.
	Bank *BankMatch `json:"bank,omitempty"`
	// Warnings name the body's optional fields of an unusable type, read as absent
	// (razorpay.Event.Warnings).
	Warnings []string `json:"warnings,omitempty"`
	// Source says where the event explained came from when the caller did not give it and
	// Razorpay's API did not either: explain --payment falling back to the body the store
	// kept ("the stored body of event …"). "" otherwise.
	Source string `json:"source,omitempty"`
}

// ExplainRetry is a dry run's action when a read failed in a way the worker would not park on
// (Razorpay or ERPNext unreachable, a 5xx, refused credentials, the store down): Reason says
// what failed and what the worker would do — try again after its backoff, or pause all work
// until the credentials work. It is never a Plan's action: the worker settles such a failure
// itself (settle).
const ExplainRetry = "retry"

// ErrBodyPurged is a dry run's error for a row whose raw body retention purged: there is
// nothing to explain (the worker makes such a row dead).
var ErrBodyPurged = errors.New("the raw body was purged by retention")
