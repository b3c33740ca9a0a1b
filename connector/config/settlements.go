package config

import (
	"fmt"
	"strings"
	"time"
)

// Settlements is config `settlements` (DESIGN.md §5, §7): each processed Razorpay settlement
// becomes one Journal Entry (Bank Entry) moving its money from the clearing account (the
// receipts' paid_to) to BankAccount, matched to the imported bank statement line when
// BankAccountDoc is set. Accounts are ERPNext account names of mapping.company.
type Settlements struct {
	Enabled bool `yaml:"enabled"`
	// BankAccount is the GL account (type Bank) the payouts land in.
	BankAccount string `yaml:"bank_account"`
	// BankAccountDoc is the ERPNext Bank Account document of BankAccount ("HDFC Current - HDFC
	// Bank"); when set, each settlement's Journal Entry is reconciled with the imported Bank
	// Transaction carrying its UTR. "" = no statement matching.
	BankAccountDoc string `yaml:"bank_account_doc"`
	// AdjustmentsAccount takes Razorpay's adjustments and dispute deductions.
	AdjustmentsAccount string `yaml:"adjustments_account"`
	// FeeAccount and TaxAccount take the fee (without GST) and the GST when mapping.fees.mode
	// is none, and an instant settlement's or a transfer's fee in any mode; empty = the
	// accounts of mapping.fees.
	FeeAccount string `yaml:"fee_account"`
	TaxAccount string `yaml:"tax_account"`
	// TransfersAccount takes Route transfers to linked accounts; "" parks a settlement that
	// has one.
	TransfersAccount string `yaml:"transfers_account"`
	// Since: settlements created before this date (YYYY-MM-DD in mapping.timezone) are never
	// posted.
	Since string `yaml:"since"`
	// Window is how far back reconcile lists settlements: to post those whose webhook was lost
	// and to match those still awaiting their bank statement line (default 30d).
	Window Duration `yaml:"window"`
}

// Fees returns the fee and GST accounts of settlement lines: FeeAccount and TaxAccount, each
// defaulting to mapping.fees'.
func (s Settlements) Fees(m Mapping) (fee, tax string) {
	fee, tax = s.FeeAccount, s.TaxAccount
	if fee == "" {
		fee = m.Fees.FeeAccount
	}
	if tax == "" {
		tax = m.Fees.TaxAccount
	}
	return fee, tax
}

// SinceIn returns the start of the day settlements.since in loc; zero when unset.
func (s Settlements) SinceIn(loc *time.Location) time.Time {
	return Reconcile{Since: s.Since}.SinceIn(loc)
}

// validate returns the problems of the settlements section, each prefixed with its key path.
// Nothing is required while it is disabled, but what is written must still be well-formed.
func (s Settlements) validate(c Config) []string {
	var p problems
	if s.Since != "" {
		if _, err := time.Parse("2006-01-02", s.Since); err != nil {
			p.add("settlements.since: must be a date YYYY-MM-DD, got %q", s.Since)
		}
	}
	if s.Window <= 0 {
		p.add("settlements.window: must be positive (e.g. 30d)")
	}
	if !s.Enabled {
		return p
	}
	if s.BankAccount == "" {
		p.add("settlements.bank_account: required when settlements.enabled (the GL account the payouts land in)")
	}
	if s.AdjustmentsAccount == "" {
		p.add("settlements.adjustments_account: required when settlements.enabled (Razorpay adjustments and dispute deductions)")
	}
	if msg := s.missingFeeAccounts(c.Mapping); msg != "" {
		p.add("%s", msg)
	}
	if c.Razorpay.KeyID == "" || c.Razorpay.KeySecret == "" {
		p.add("settlements.enabled: needs razorpay.key_id and razorpay.key_secret (a settlement's rows are read from Razorpay's API)")
	}
	if s.Since != "" && c.Reconcile.Since != "" && s.Since < c.Reconcile.Since {
		p.add("settlements.since: %s is before reconcile.since %s; a settlement would wait for payments the connector never books", s.Since, c.Reconcile.Since)
	}
	return p
}

// missingFeeAccounts is the problem of a fee or GST account that neither settlements nor
// mapping.fees names, naming both ways to set each missing one (the settlement's accounts
// default to mapping.fees'); "" when both are known.
func (s Settlements) missingFeeAccounts(m Mapping) string {
	fee, tax := s.Fees(m)
	var ours, theirs []string
	if fee == "" {
		ours, theirs = append(ours, "settlements.fee_account"), append(theirs, "mapping.fees.fee_account")
	}
	if tax == "" {
		ours, theirs = append(ours, "settlements.tax_account"), append(theirs, "mapping.fees.tax_account")
	}
	if len(ours) == 0 {
		return ""
	}
	return fmt.Sprintf("%s: required when settlements.enabled and mapping.fees.mode is none (the fee and its GST are booked with the settlement): "+
		"set %s, or %s (used when the settlements keys are empty)",
		strings.Join(ours, ", "), strings.Join(ours, " and "), strings.Join(theirs, " and "))
}
