// Package config reads the daemon's configuration file (DESIGN.md §7): YAML, ${VAR} expanded
// from the environment inside scalar values only, secrets refused when written literally,
// defaults for every optional key, and every problem reported with its key path. It is an
// edge of the core: the core (package connector) runs with a Config and never parses one.
package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Config is the daemon's configuration file (DESIGN.md §7). Keys are the contract; every
// optional key has a default (see Defaults). Secrets must be written as ${VAR} references and
// are expanded from the environment; a secret written literally is refused by Validate.
type Config struct {
	Listen      string      `yaml:"listen"`       // public side: webhooks and /healthz
	AdminListen string      `yaml:"admin_listen"` // private side: /metrics, /readyz
	WebhookPath string      `yaml:"webhook_path"`
	Workers     int         `yaml:"workers"`
	AdminToken  string      `yaml:"admin_token"`
	Server      Server      `yaml:"server"`
	Database    Database    `yaml:"database"`
	Razorpay    Razorpay    `yaml:"razorpay"`
	ERPNext     ERPNext     `yaml:"erpnext"`
	Mapping     Mapping     `yaml:"mapping"`
	Reconcile   Reconcile   `yaml:"reconcile"`
	Settlements Settlements `yaml:"settlements"`
	Retention   Retention   `yaml:"retention"`
	Log         Log         `yaml:"log"`
	Worker      Worker      `yaml:"worker"`
}

// Server tunes the public listener. MaxInFlight bounds the webhook requests served at once
// (default DefaultMaxInFlight, 1..65536): past it a webhook is answered 503 with Retry-After at
// once, without its body being read, so Razorpay retries later (spec/razorpay.md §1.4–1.5: any
// non-2xx is a failed delivery, retried on its ladder for 24 h; nothing says Razorpay reads
// Retry-After) and an overloaded process never holds more than MaxInFlight bodies.
type Server struct {
	MaxInFlight int `yaml:"max_in_flight"`
}

// DefaultMaxInFlight is server.max_in_flight when the file leaves it out.
const DefaultMaxInFlight = 256

// Database selects the store: driver "sqlite" (embedded default), "mysql" (MariaDB) or
// "postgres" (PostgreSQL), and its DSN in the driver's own form (connector/store.Open).
type Database struct {
	Driver string `yaml:"driver"`
	DSN    string `yaml:"dsn"`
}

// Razorpay holds the webhook secrets (two for rotation) and the optional API keys. AccountID is
// the merchant's account (acc_…): rows reconcile creates carry it, and a signed event of any
// other account parks (a test-mode webhook sent to the live daemon, or the reverse) unless
// AcceptAccounts lists that account too.
type Razorpay struct {
	WebhookSecrets []string `yaml:"webhook_secrets"`
	AccountID      string   `yaml:"account_id"`
	AcceptAccounts []string `yaml:"accept_accounts"`
	KeyID          string   `yaml:"key_id"`
	KeySecret      string   `yaml:"key_secret"`
	APIURL         string   `yaml:"api_url"`
	// MaxRetryAfter caps the pause a Razorpay 429's Retry-After may impose on every API call
	// of the process (default 5 min).
	MaxRetryAfter Duration `yaml:"max_retry_after"`
}

// ERPNext points at the Frappe site. ServerTimeout is how long the site may still run
// (and commit) a request after the client gave up (gunicorn -t, 120 s by default,
// spec/erpnext.md §8.2); it sizes the ambiguous-write fence of DESIGN.md §4 step 7.
// MaxRetryAfter caps the pause a 429 (or 503) Retry-After may impose on every ERPNext call of
// the process (default 5 min): a proxy's `Retry-After: 86400` must not stop booking for a day.
type ERPNext struct {
	URL                    string   `yaml:"url"`
	APIKey                 string   `yaml:"api_key"`
	APISecret              string   `yaml:"api_secret"`
	Timeout                Duration `yaml:"timeout"`
	ServerTimeout          Duration `yaml:"server_timeout"`
	NameEntriesByPaymentID bool     `yaml:"name_entries_by_payment_id"`
	MaxConcurrency         int      `yaml:"max_concurrency"`
	MaxRetryAfter          Duration `yaml:"max_retry_after"`
}

// Mapping is the ERPNext administrator's mapping from payments to documents.
type Mapping struct {
	Company             string   `yaml:"company"`
	Timezone            string   `yaml:"timezone"`
	ModeOfPayment       string   `yaml:"mode_of_payment"`
	PaidTo              string   `yaml:"paid_to"`
	InvoiceFrom         []string `yaml:"invoice_from"`
	CustomerFrom        []string `yaml:"customer_from"`
	Excess              string   `yaml:"excess"`
	PaymentRequestGrace Duration `yaml:"payment_request_grace"`
	Fees                Fees     `yaml:"fees"`
	Refunds             Refunds  `yaml:"refunds"`
	CommentOnPark       bool     `yaml:"comment_on_park"`
	// WithoutInvoice is what happens to a payment that names no Sales Invoice: "park" (default)
	// or "advance" (an unallocated receipt for the customer found through CustomerFrom).
	WithoutInvoice string `yaml:"without_invoice"`
	// FallbackCustomer takes an advance no customer_from source matched ("" = park instead).
	FallbackCustomer string `yaml:"fallback_customer"`
	// DescriptionPattern is a regular expression tried on the payment's description after
	// InvoiceFrom; its first capture group (or the whole match) is tried as an invoice name.
	DescriptionPattern string `yaml:"description_pattern"`
}

// Fees selects how Razorpay's fee is booked: "none" or "deduction" (DESIGN.md §5).
type Fees struct {
	Mode       string `yaml:"mode"`
	FeeAccount string `yaml:"fee_account"`
	TaxAccount string `yaml:"tax_account"`
	CostCenter string `yaml:"cost_center"`
}

// Refunds: what to do with a refund whose invoice has no credit note ("park" or "unallocated").
type Refunds struct {
	WithoutCreditNote string `yaml:"without_credit_note"`
	// WaitForReceipt is how long a refund waits for its payment's receipt to be booked (it may
	// arrive first) before it parks.
	WaitForReceipt Duration `yaml:"wait_for_receipt"`
}

// Reconcile schedules the reconcile sweep. Since is the go-live date: nothing created
// before it is ever booked.
type Reconcile struct {
	Schedule            string   `yaml:"schedule"`
	Window              Duration `yaml:"window"`
	IntegrationRequests bool     `yaml:"integration_requests"`
	Since               string   `yaml:"since"`
	// Lookback is how far before the window start Razorpay's payment list is read: the list
	// filters on created_at, so a payment created earlier but captured inside the window is
	// found only this way (default 3 days, Razorpay's capture limit, spec/razorpay.md §5.4).
	Lookback Duration `yaml:"lookback"`
	// AuthorizedAge: an Integration Request's payment still authorized (not captured) this long
	// after it was created is reported for a person, before Razorpay's 3-day auto-refund.
	AuthorizedAge Duration `yaml:"authorized_age"`
	// CaptureAuthorized lets reconcile capture such payments (POST /v1/payments/{id}/capture
	// with the authorized amount) and then book them; off by default: nothing is ever captured
	// unless this is true.
	CaptureAuthorized bool `yaml:"capture_authorized"`
	// DrainTimeout bounds how long `reconcile` waits for the rows it queued to be booked before
	// it reports the rest as still pending (the daemon's workers finish them).
	DrainTimeout Duration `yaml:"drain_timeout"`
}

// Retention: raw webhook bodies hold personal data and are purged after RawBodies.
type Retention struct {
	RawBodies Duration `yaml:"raw_bodies"`
}

// Log: level (debug, info, warn, error) and format (json or console).
type Log struct {
	Level  string `yaml:"level"`
	Format string `yaml:"format"`
}

// Worker tunes the worker loop; every field has a default.
type Worker struct {
	Lease        Duration `yaml:"lease"`         // event lease; a crashed worker's event is retried after it
	Poll         Duration `yaml:"poll"`          // how often idle workers look for due events
	MaxAttempts  int      `yaml:"max_attempts"`  // failures before an event is dead
	BackoffBase  Duration `yaml:"backoff_base"`  // first retry delay
	BackoffMax   Duration `yaml:"backoff_max"`   // cap of the exponential backoff
	FenceMargin  Duration `yaml:"fence_margin"`  // added to server_timeout after an ambiguous write
	PauseRecheck Duration `yaml:"pause_recheck"` // how often a paused connector re-tests credentials
	// NoHeartbeat stops workers from extending their event lease while they work, so tests can
	// reproduce a stalled process whose lease runs out mid-booking. Not settable from YAML.
	NoHeartbeat bool `yaml:"-"`
}

// Duration is a time.Duration in YAML as Go duration text ("30s", "10m") or days ("90d").
type Duration time.Duration

// UnmarshalYAML accepts "90d", Go durations and plain integers (seconds). A bad value is a
// *yaml.TypeError with its line, so decoding goes on and every other problem is reported too.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseDuration(n.Value)
	if err != nil {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %v", n.Line, err)}}
	}
	*d = Duration(v)
	return nil
}

// D returns the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// ParseDuration parses whole days ("90d"), Go duration text ("36h", "10m") and bare seconds ("30").
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "d") {
		n, err := strconv.Atoi(strings.TrimSuffix(s, "d"))
		if err != nil || n < 0 {
			return 0, fmt.Errorf("invalid duration %q (want e.g. 90d, 36h, 10m)", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		return time.Duration(n) * time.Second, nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (want e.g. 90d, 36h, 10m)", s)
	}
	return v, nil
}

// Defaults returns the configuration used for every key the file leaves out.
func Defaults() Config {
	return Config{
		Listen:      "127.0.0.1:8080",
		AdminListen: "127.0.0.1:9090",
		WebhookPath: "/webhooks/razorpay",
		Workers:     4,
		Server:      Server{MaxInFlight: DefaultMaxInFlight},
		Database:    Database{Driver: "sqlite", DSN: "./razorpay-erpnext.db"},
		Razorpay:    Razorpay{APIURL: "https://api.razorpay.com", MaxRetryAfter: Duration(5 * time.Minute)},
		ERPNext: ERPNext{
			Timeout:        Duration(30 * time.Second),
			ServerTimeout:  Duration(120 * time.Second),
			MaxConcurrency: 4,
			MaxRetryAfter:  Duration(5 * time.Minute),
		},
		Mapping: Mapping{
			Timezone:            "Asia/Kolkata",
			ModeOfPayment:       "Razorpay",
			InvoiceFrom:         []string{"notes.invoice", "notes.sales_invoice", "order.receipt", "payment_link.reference_id"},
			CustomerFrom:        []string{"invoice", "notes.customer", "contact.email", "contact.phone"},
			Excess:              "unallocated",
			PaymentRequestGrace: Duration(10 * time.Minute),
			Fees:                Fees{Mode: "none"},
			Refunds:             Refunds{WithoutCreditNote: "park", WaitForReceipt: Duration(72 * time.Hour)},
			WithoutInvoice:      "park",
		},
		Reconcile: Reconcile{Schedule: "*/10 * * * *", Window: Duration(48 * time.Hour), IntegrationRequests: true,
			Lookback: Duration(72 * time.Hour), AuthorizedAge: Duration(2 * time.Hour), DrainTimeout: Duration(2 * time.Minute)},
		Settlements: Settlements{Window: Duration(30 * 24 * time.Hour)},
		Retention:   Retention{RawBodies: Duration(90 * 24 * time.Hour)},
		Log:         Log{Level: "info", Format: "json"},
		Worker: Worker{
			Lease:        Duration(60 * time.Second),
			Poll:         Duration(time.Second),
			MaxAttempts:  12,
			BackoffBase:  Duration(2 * time.Second),
			BackoffMax:   Duration(10 * time.Minute),
			FenceMargin:  Duration(15 * time.Second),
			PauseRecheck: Duration(30 * time.Second),
		},
	}
}
