package connector

import (
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/config"
)

// Account is "whose money": everything a job needs about one Razorpay account and the ERPNext
// company it books into. Jobs read it, never the global Config, so serving many accounts is
// configuration plus a loop over Accounts (DESIGN.md §3). AccountOf builds the one Account of
// a single-account Config.
//
// The business keys (payment, refund, settlement ids) and the document locks
// ("invoice:<name>") do not carry Site: the stored key formats of existing bookings and locks
// rows stay as they are, and one store serves one site today. Site is there for the key of a
// second site when there is one.
type Account struct {
	// ID is razorpay.account_id ("acc_…"): events of another account park unless Accepts lists
	// it; "" checks nothing. Synthetic events are stamped with it.
	ID string
	// Accepts is razorpay.accept_accounts: other accounts whose events are booked here too.
	Accepts []string
	// WebhookSecrets are razorpay.webhook_secrets, the secrets a webhook of this account is
	// signed with. Secret: never logged, never printed.
	WebhookSecrets []string
	// Site is erpnext.url, the ERPNext site the company lives on.
	Site string
	// ERP is the ERPNext client of Site; Razorpay the client of the account's API (nil when
	// razorpay.key_id/key_secret are not configured).
	ERP      ERPNext
	Razorpay RazorpayAPI
	// Mapping is config `mapping`: the company, its time zone, mode of payment and paid_to,
	// where invoices and customers come from, fees and refunds.
	Mapping config.Mapping
	// Settlements is config `settlements`: the Journal Entry of each settlement.
	Settlements config.Settlements
	// Reconcile is config `reconcile`: its go-live date (Since) bounds the items a settlement
	// waits for; IntegrationRequests lets a receipt find its Payment Request that way.
	Reconcile config.Reconcile
	// NameEntriesByPaymentID is erpnext.name_entries_by_payment_id: entries are inserted under
	// the Razorpay id as their name (a second insert is a 409).
	NameEntriesByPaymentID bool
	// Location is mapping.timezone loaded: the day of a posting date.
	Location *time.Location
}

// AccountOf is the one Account of a single-account Config, booking through erp and rzp (nil
// when the Razorpay API is not configured). It returns an error when mapping.timezone is not
// a known zone.
func AccountOf(cfg Config, erp ERPNext, rzp RazorpayAPI) (Account, error) {
	loc, err := time.LoadLocation(cfg.Mapping.Timezone)
	if err != nil {
		return Account{}, err
	}
	return Account{
		ID: cfg.Razorpay.AccountID, Accepts: cfg.Razorpay.AcceptAccounts, WebhookSecrets: cfg.Razorpay.WebhookSecrets,
		Site: cfg.ERPNext.URL, ERP: erp, Razorpay: rzp,
		Mapping: cfg.Mapping, Settlements: cfg.Settlements, Reconcile: cfg.Reconcile,
		NameEntriesByPaymentID: cfg.ERPNext.NameEntriesByPaymentID, Location: loc,
	}, nil
}

// Company is mapping.company, the ERPNext company the account books into.
func (a Account) Company() string { return a.Mapping.Company }
