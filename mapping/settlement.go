package mapping

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Park reasons of a settlement.
const (
	// ReasonSettlementMismatch: the Journal Entry would not balance to the paisa from
	// Razorpay's figures (the settlement's amount against its recon rows, or a row whose
	// credit or debit is not its amount and fee). Never forced: a person looks.
	ReasonSettlementMismatch = "settlement does not add up"
	// ReasonSettlementRows: a recon row this version cannot book (an unknown type, a Route
	// transfer without settlements.transfers_account), or no rows at all.
	ReasonSettlementRows = "settlement rows not bookable"
)

// SettlementRules is config `settlements` with the clearing account resolved (DESIGN.md §5).
// Every account is an ERPNext account name of Company.
type SettlementRules struct {
	Company         string
	Location        *time.Location // mapping.timezone: the posting date is the settlement's date there
	BankAccount     string         // debited the net payout
	ClearingAccount string         // the receipts' paid_to, credited what the settlement's items put into it
	// FeeAccount and TaxAccount take fee − GST and GST where fees were not deducted per
	// payment, an instant settlement's own fees, and a Route transfer's fee.
	FeeAccount, TaxAccount string
	AdjustmentsAccount     string // adjustments and dispute deductions, either sign
	TransfersAccount       string // Route transfers; "" parks a settlement that has one
	CostCenter             string // on the fee and adjustment lines; "" leaves ERPNext's default
	// FeesDeducted is mapping.fees.mode deduction: each receipt put amount − fee into the
	// clearing account, so the fee is already booked; otherwise it put the gross amount there.
	FeesDeducted bool
}

// Line roles of a settlement Journal Entry.
const (
	RoleBank        = "bank"
	RoleFee         = "fee"
	RoleTax         = "tax"
	RoleAdjustments = "adjustments"
	RoleTransfers   = "transfers"
	RoleClearing    = "clearing"
)

// JournalLine is one account row of a settlement's Journal Entry: Debit or Credit in INR paise
// (the other is 0), netted per account.
type JournalLine struct {
	Role       string `json:"role"`
	Account    string `json:"account"`
	Debit      int64  `json:"debit"`
	Credit     int64  `json:"credit"`
	CostCenter string `json:"cost_center,omitempty"`
}

// SettlementItem is one payment or refund of a settlement: Clearing is what its booking put
// into the clearing account in INR paise by Razorpay's figures (negative for a refund, which
// took money out of it).
type SettlementItem struct {
	Type      string `json:"type"` // razorpay.ReconPayment or razorpay.ReconRefund
	ID        string `json:"id"`   // pay_… or rfnd_…
	PaymentID string `json:"payment_id,omitempty"`
	Clearing  int64  `json:"clearing"`
	CreatedAt int64  `json:"created_at"` // unix seconds
}

// SettlementSummary adds up a settlement by kind of row, in INR paise: Gross is the payments'
// amounts, Fees the fees without GST and Tax the GST (payments, transfers and the settlement's
// own fees together), Refunded the refunds, Adjusted the adjustments (credit − debit, so a
// deduction is negative), Transferred the Route transfers without their fee, Net the payout
// and Clearing what leaves the clearing account.
type SettlementSummary struct {
	Payments    int   `json:"payments"`
	Refunds     int   `json:"refunds"`
	Adjustments int   `json:"adjustments"`
	Disputes    int   `json:"disputes"` // adjustments that are dispute deductions (also in Adjustments)
	Transfers   int   `json:"transfers"`
	Gross       int64 `json:"gross"`
	Fees        int64 `json:"fees"`
	Tax         int64 `json:"tax"`
	Refunded    int64 `json:"refunded"`
	Adjusted    int64 `json:"adjusted"`
	Transferred int64 `json:"transferred"`
	Net         int64 `json:"net"`
	Clearing    int64 `json:"clearing"`
}

// Settlement is the plan of one settlement's Journal Entry (Bank Entry): balanced Lines (Σ
// debit = Σ credit, bank first), the payments and refunds that must be booked before it, and
// the summary. PostingDate is the settlement's date in the rules' zone.
type Settlement struct {
	ID          string            `json:"id"`
	UTR         string            `json:"utr"`
	PostingDate string            `json:"posting_date"`
	Amount      int64             `json:"amount"`
	Lines       []JournalLine     `json:"lines"`
	Items       []SettlementItem  `json:"items"`
	Summary     SettlementSummary `json:"summary"`
}

// settleSums accumulates debit − credit per role while the rows are read.
type settleSums struct {
	net     map[string]int64 // role → debit − credit
	odd     []string         // rows whose own figures do not add up
	summary SettlementSummary
	items   []SettlementItem
}

// PlanSettlement plans the Journal Entry of a processed settlement st from its recon rows
// (those with st's id; others are ignored), from Razorpay's integers only:
//
//   - Dr BankAccount st.Amount;
//   - a payment row: Cr clearing credit (= amount − fee) when fees were deducted per payment;
//     otherwise Cr clearing amount, Dr fee (fee − tax) and Dr tax (tax);
//   - a refund row: Dr clearing amount (debit = amount + fee; a fee goes to fee and tax);
//   - an adjustment row (dispute deductions too): Cr or Dr AdjustmentsAccount;
//   - a transfer row: Dr TransfersAccount amount, Dr fee and tax its fee (debit = amount + fee);
//   - the settlement's own fees (instant settlements): Dr fee (fees − tax) and Dr tax (tax).
//
// Lines are netted per account and must balance to the paisa; otherwise, or when a row's
// credit or debit is not its amount and fee, it returns a *Park (ReasonSettlementMismatch)
// naming the difference and the rows that make it — a balance is never forced. An unknown row
// type, a transfer without TransfersAccount, or no row at all parks with ReasonSettlementRows.
func PlanSettlement(rules SettlementRules, st razorpay.Settlement, rows []razorpay.ReconItem) (Settlement, error) {
	s := &settleSums{net: map[string]int64{}}
	n := 0
	for i := range rows {
		r := &rows[i]
		if r.SettlementID != st.ID {
			continue
		}
		n++
		if err := s.add(rules, r); err != nil {
			return Settlement{}, err
		}
	}
	if n == 0 {
		return Settlement{}, park(ReasonSettlementRows, "settlement %s has no recon rows", st.ID)
	}
	if st.Tax < 0 || st.Tax > st.Fees {
		s.odd = append(s.odd, fmt.Sprintf("settlement fees %s with GST %s", razorpay.INR(st.Fees).String(), razorpay.INR(st.Tax).String()))
	}
	s.fee(st.Fees, st.Tax)
	s.net[RoleBank] += st.Amount
	s.summary.Net = st.Amount
	s.summary.Clearing = -s.net[RoleClearing]
	if st.Amount <= 0 {
		return Settlement{}, park(ReasonSettlementMismatch, "settlement %s pays out %s; nothing to post", st.ID, razorpay.INR(st.Amount).String())
	}
	var diff int64
	for _, v := range s.net {
		diff += v
	}
	if diff != 0 || len(s.odd) > 0 {
		return Settlement{}, s.mismatch(st, diff)
	}
	return Settlement{ID: st.ID, UTR: st.UTR, PostingDate: BookingDate(st.CreatedAt, rules.Location), Amount: st.Amount,
		Lines: s.lines(rules), Items: s.items, Summary: s.summary}, nil
}

// add books one row of the settlement into the sums.
func (s *settleSums) add(rules SettlementRules, r *razorpay.ReconItem) error {
	sm := &s.summary
	switch r.Type {
	case razorpay.ReconPayment:
		s.check(r, r.Credit == r.Amount-r.Fee && r.Debit == 0, "credit %s ≠ amount %s − fee %s", razorpay.INR(r.Credit).String(), razorpay.INR(r.Amount).String(), razorpay.INR(r.Fee).String())
		clearing := r.Amount
		if rules.FeesDeducted {
			clearing = r.Credit
		} else {
			s.fee(r.Fee, r.Tax)
		}
		s.net[RoleClearing] -= clearing
		sm.Payments++
		sm.Gross += r.Amount
		if rules.FeesDeducted { // the fee is in the receipts' deductions, but it is Razorpay's fee all the same
			sm.Fees, sm.Tax = sm.Fees+r.Fee-r.Tax, sm.Tax+r.Tax
		}
		s.items = append(s.items, SettlementItem{Type: r.Type, ID: r.EntityID, Clearing: clearing, CreatedAt: r.CreatedAt})
	case razorpay.ReconRefund:
		s.check(r, r.Debit == r.Amount+r.Fee && r.Credit == 0, "debit %s ≠ amount %s + fee %s", razorpay.INR(r.Debit).String(), razorpay.INR(r.Amount).String(), razorpay.INR(r.Fee).String())
		s.fee(r.Fee, r.Tax)
		s.net[RoleClearing] += r.Amount
		sm.Refunds++
		sm.Refunded += r.Amount
		s.items = append(s.items, SettlementItem{Type: r.Type, ID: r.EntityID, PaymentID: r.PaymentID, Clearing: -r.Amount, CreatedAt: r.CreatedAt})
	case razorpay.ReconAdjustment:
		s.check(r, (r.Credit == 0) != (r.Debit == 0), "an adjustment with credit %s and debit %s", razorpay.INR(r.Credit).String(), razorpay.INR(r.Debit).String())
		s.net[RoleAdjustments] += r.Debit - r.Credit
		sm.Adjustments++
		sm.Adjusted += r.Credit - r.Debit
		if r.DisputeID != "" {
			sm.Disputes++
		}
	case razorpay.ReconTransfer:
		if rules.TransfersAccount == "" {
			return park(ReasonSettlementRows, "row %s is a Route transfer of %s (payment %s); set settlements.transfers_account to book transfers",
				r.EntityID, razorpay.INR(r.Amount).String(), r.PaymentID)
		}
		s.check(r, r.Debit == r.Amount+r.Fee && r.Credit == 0, "debit %s ≠ amount %s + fee %s", razorpay.INR(r.Debit).String(), razorpay.INR(r.Amount).String(), razorpay.INR(r.Fee).String())
		s.net[RoleTransfers] += r.Amount
		s.fee(r.Fee, r.Tax)
		sm.Transfers++
		sm.Transferred += r.Amount
	default:
		return park(ReasonSettlementRows, "row %s has type %q, which this version does not book", r.EntityID, r.Type)
	}
	return nil
}

// fee debits fee − tax to the fee line and tax to the tax line (fee includes tax).
func (s *settleSums) fee(fee, tax int64) {
	if fee == 0 && tax == 0 {
		return
	}
	s.net[RoleFee] += fee - tax
	s.net[RoleTax] += tax
	s.summary.Fees += fee - tax
	s.summary.Tax += tax
}

// check notes a row whose own figures do not add up (ok false), or whose GST is outside its fee.
func (s *settleSums) check(r *razorpay.ReconItem, ok bool, format string, a ...any) {
	if !ok {
		s.odd = append(s.odd, r.EntityID+": "+fmt.Sprintf(format, a...))
	}
	if r.Tax < 0 || r.Tax > r.Fee {
		s.odd = append(s.odd, fmt.Sprintf("%s: GST %s outside its fee %s", r.EntityID, razorpay.INR(r.Tax).String(), razorpay.INR(r.Fee).String()))
	}
}

// mismatch is the park of a settlement that does not balance: the difference and the rows.
func (s *settleSums) mismatch(st razorpay.Settlement, diff int64) *Park {
	rows := "no single row explains it"
	if len(s.odd) > 0 {
		rows = "rows that do not add up: " + strings.Join(s.odd, "; ")
	}
	sm := s.summary
	return park(ReasonSettlementMismatch,
		"settlement %s (UTR %s) pays %s, but its rows add up to %s (difference %s: %d payments %s, fees %s, GST %s, %d refunds %s, %d adjustments %s, %d transfers %s); %s; nothing is posted — check the settlement in the Razorpay Dashboard",
		st.ID, st.UTR, razorpay.INR(st.Amount).String(), razorpay.INR(st.Amount-diff).String(), razorpay.INR(diff).String(), sm.Payments, razorpay.INR(sm.Gross).String(), razorpay.INR(sm.Fees).String(), razorpay.INR(sm.Tax).String(),
		sm.Refunds, razorpay.INR(sm.Refunded).String(), sm.Adjustments, razorpay.INR(sm.Adjusted).String(), sm.Transfers, razorpay.INR(sm.Transferred).String(), rows)
}

// lines nets the sums into one line per account, bank first and clearing last (ERPNext titles
// the entry after its first row); a role whose account is another role's shares its line.
func (s *settleSums) lines(rules SettlementRules) []JournalLine {
	order := []struct{ role, account, cc string }{
		{RoleBank, rules.BankAccount, ""}, {RoleFee, rules.FeeAccount, rules.CostCenter}, {RoleTax, rules.TaxAccount, ""},
		{RoleAdjustments, rules.AdjustmentsAccount, rules.CostCenter}, {RoleTransfers, rules.TransfersAccount, ""},
		{RoleClearing, rules.ClearingAccount, ""},
	}
	byAccount := map[string]int{}
	var out []JournalLine
	var nets []int64
	for _, o := range order {
		v := s.net[o.role]
		if v == 0 {
			continue
		}
		if i, ok := byAccount[o.account]; ok {
			nets[i] += v
			continue
		}
		byAccount[o.account] = len(out)
		out = append(out, JournalLine{Role: o.role, Account: o.account, CostCenter: o.cc})
		nets = append(nets, v)
	}
	kept := out[:0]
	for i, l := range out {
		switch v := nets[i]; {
		case v > 0:
			l.Debit = v
		case v < 0:
			l.Credit = -v
		default:
			continue
		}
		kept = append(kept, l)
	}
	return kept
}

// SortedItems returns the items of a settlement by type then id (a stable order for reasons).
func (s Settlement) SortedItems() []SettlementItem {
	out := append([]SettlementItem(nil), s.Items...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Type != out[j].Type {
			return out[i].Type < out[j].Type
		}
		return out[i].ID < out[j].ID
	})
	return out
}
