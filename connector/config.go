package connector

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Config is the daemon's configuration file (DESIGN.md §7). Keys are the contract; every
// optional key has a default (see Defaults). Secrets must be written as ${VAR} references and
// are expanded from the environment; a secret written literally is refused by Validate.
type Config struct {
	Listen      string         `yaml:"listen"`       // public side: webhooks and /healthz
	AdminListen string         `yaml:"admin_listen"` // private side: /metrics, /readyz
	WebhookPath string         `yaml:"webhook_path"`
	Workers     int            `yaml:"workers"`
	AdminToken  string         `yaml:"admin_token"`
	Database    DatabaseConfig `yaml:"database"`
	Razorpay    RazorpayConfig `yaml:"razorpay"`
	ERPNext     ERPNextConfig  `yaml:"erpnext"`
	Mapping     MappingConfig  `yaml:"mapping"`
	Reconcile   ReconcileCfg   `yaml:"reconcile"`
	Retention   RetentionCfg   `yaml:"retention"`
	Log         LogConfig      `yaml:"log"`
	Worker      WorkerConfig   `yaml:"worker"`
}

// DatabaseConfig selects the store: driver "sqlite" (embedded default) or "mysql" (MariaDB).
type DatabaseConfig struct {
	Driver string `yaml:"driver"`
	DSN    string `yaml:"dsn"`
}

// RazorpayConfig holds the webhook secrets (two for rotation) and the optional API keys.
type RazorpayConfig struct {
	WebhookSecrets []string `yaml:"webhook_secrets"`
	AccountID      string   `yaml:"account_id"`
	KeyID          string   `yaml:"key_id"`
	KeySecret      string   `yaml:"key_secret"`
	APIURL         string   `yaml:"api_url"`
}

// ERPNextConfig points at the Frappe site. ServerTimeout is how long the site may still run
// (and commit) a request after the client gave up (gunicorn -t, 120 s by default,
// spec/erpnext.md §8.2); it sizes the ambiguous-write fence of DESIGN.md §4 step 7.
type ERPNextConfig struct {
	URL                    string   `yaml:"url"`
	APIKey                 string   `yaml:"api_key"`
	APISecret              string   `yaml:"api_secret"`
	Timeout                Duration `yaml:"timeout"`
	ServerTimeout          Duration `yaml:"server_timeout"`
	NameEntriesByPaymentID bool     `yaml:"name_entries_by_payment_id"`
	MaxConcurrency         int      `yaml:"max_concurrency"`
}

// MappingConfig is the ERPNext administrator's mapping from payments to documents.
type MappingConfig struct {
	Company             string      `yaml:"company"`
	Timezone            string      `yaml:"timezone"`
	ModeOfPayment       string      `yaml:"mode_of_payment"`
	PaidTo              string      `yaml:"paid_to"`
	InvoiceFrom         []string    `yaml:"invoice_from"`
	CustomerFrom        []string    `yaml:"customer_from"`
	Excess              string      `yaml:"excess"`
	PaymentRequestGrace Duration    `yaml:"payment_request_grace"`
	Fees                FeesConfig  `yaml:"fees"`
	Refunds             RefundsConf `yaml:"refunds"`
	CommentOnPark       bool        `yaml:"comment_on_park"`
	// WithoutInvoice is what happens to a payment that names no Sales Invoice: "park" (default)
	// or "advance" (an unallocated receipt for the customer found through CustomerFrom).
	WithoutInvoice string `yaml:"without_invoice"`
	// FallbackCustomer takes an advance no customer_from source matched ("" = park instead).
	FallbackCustomer string `yaml:"fallback_customer"`
	// DescriptionPattern is a regular expression tried on the payment's description after
	// InvoiceFrom; its first capture group (or the whole match) is tried as an invoice name.
	DescriptionPattern string `yaml:"description_pattern"`
}

// FeesConfig selects how Razorpay's fee is booked: "none" or "deduction" (DESIGN.md §5).
type FeesConfig struct {
	Mode       string `yaml:"mode"`
	FeeAccount string `yaml:"fee_account"`
	TaxAccount string `yaml:"tax_account"`
	CostCenter string `yaml:"cost_center"`
}

// RefundsConf: what to do with a refund whose invoice has no credit note ("park" or "unallocated").
type RefundsConf struct {
	WithoutCreditNote string `yaml:"without_credit_note"`
	// WaitForReceipt is how long a refund waits for its payment's receipt to be booked (it may
	// arrive first) before it parks.
	WaitForReceipt Duration `yaml:"wait_for_receipt"`
}

// ReconcileCfg schedules the reconcile sweep. Since is the go-live date: nothing created
// before it is ever booked.
type ReconcileCfg struct {
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

// RetentionCfg: raw webhook bodies hold personal data and are purged after RawBodies.
type RetentionCfg struct {
	RawBodies Duration `yaml:"raw_bodies"`
}

// LogConfig: level (debug, info, warn, error) and format (json or console).
type LogConfig struct {
	Level  string `yaml:"level"`
	Format string `yaml:"format"`
}

// WorkerConfig tunes the worker loop; every field has a default.
type WorkerConfig struct {
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

// UnmarshalYAML accepts "90d", Go durations and plain integers (seconds).
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
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
		Database:    DatabaseConfig{Driver: "sqlite", DSN: "./razorpay-erpnext.db"},
		Razorpay:    RazorpayConfig{APIURL: "https://api.razorpay.com"},
		ERPNext: ERPNextConfig{
			Timeout:        Duration(30 * time.Second),
			ServerTimeout:  Duration(120 * time.Second),
			MaxConcurrency: 4,
		},
		Mapping: MappingConfig{
			Timezone:            "Asia/Kolkata",
			ModeOfPayment:       "Razorpay",
			InvoiceFrom:         []string{"notes.invoice", "notes.sales_invoice", "order.receipt", "payment_link.reference_id"},
			CustomerFrom:        []string{"invoice", "notes.customer", "contact.email", "contact.phone"},
			Excess:              "unallocated",
			PaymentRequestGrace: Duration(10 * time.Minute),
			Fees:                FeesConfig{Mode: "none"},
			Refunds:             RefundsConf{WithoutCreditNote: "park", WaitForReceipt: Duration(72 * time.Hour)},
			WithoutInvoice:      "park",
		},
		Reconcile: ReconcileCfg{Schedule: "*/10 * * * *", Window: Duration(48 * time.Hour), IntegrationRequests: true,
			Lookback: Duration(72 * time.Hour), AuthorizedAge: Duration(2 * time.Hour), DrainTimeout: Duration(2 * time.Minute)},
		Retention: RetentionCfg{RawBodies: Duration(90 * 24 * time.Hour)},
		Log:       LogConfig{Level: "info", Format: "json"},
		Worker: WorkerConfig{
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

var (
	envRef   = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)
	wholeRef = regexp.MustCompile(`^\$\{[A-Za-z_][A-Za-z0-9_]*\}$`)
)

// expandNode replaces ${VAR} in every scalar value of n with getenv(VAR), recording in seen
// each non-empty value and the reference it came from (for scrubbing messages).
func expandNode(n *yaml.Node, getenv func(string) string, seen map[string]string) {
	if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "${") {
		n.Value = envRef.ReplaceAllStringFunc(n.Value, func(m string) string {
			v := getenv(envRef.FindStringSubmatch(m)[1])
			if v != "" {
				seen[v] = m
			}
			return v
		})
		// The value is set on the node, never re-parsed as YAML text; the empty tag lets a plain
		// scalar resolve again (a number for workers: ${WORKERS}), a quoted one stays a string.
		n.Tag = ""
		return
	}
	for _, c := range n.Content {
		expandNode(c, getenv, seen)
	}
}

// scrub replaces every value that came from the environment with its ${VAR} reference: a
// message about a bad value must not print a secret that was put in the wrong key. yaml.v3
// shortens long values in its errors to their first 7 characters and "...": those go too.
func scrub(msg string, seen map[string]string) string {
	for v, ref := range seen {
		if len(v) < 4 {
			continue
		}
		msg = strings.ReplaceAll(msg, v, ref)
		if len(v) > 10 {
			msg = strings.ReplaceAll(msg, v[:7]+"...", ref)
		}
	}
	return msg
}

// nodeAt walks keys down from the document root; nil when a key is missing.
func nodeAt(doc *yaml.Node, keys ...string) *yaml.Node {
	n := doc
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, k := range keys {
		if n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return n
}

// scalarAt is the scalar value at keys ("" when absent or not a scalar).
func scalarAt(doc *yaml.Node, keys ...string) string {
	if n := nodeAt(doc, keys...); n != nil && n.Kind == yaml.ScalarNode {
		return n.Value
	}
	return ""
}

// sequenceAt is the scalar items of the sequence at keys.
func sequenceAt(doc *yaml.Node, keys ...string) []string {
	n := nodeAt(doc, keys...)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		out = append(out, c.Value)
	}
	return out
}

// dsnPassword is the password of a MariaDB DSN "user:password@tcp(…)/db" (ok=false when the DSN
// has no user:password part).
func dsnPassword(dsn string) (string, bool) {
	at := strings.LastIndex(dsn, "@")
	if at < 0 {
		return "", false
	}
	user, pw, ok := strings.Cut(dsn[:at], ":")
	if !ok || user == "" {
		return "", false
	}
	return pw, true
}

// LoadConfig reads a YAML file, checks that secrets are ${VAR} references, expands them from
// getenv (os.Getenv when nil), fills defaults and validates. The error lists every problem
// with its key path.
func LoadConfig(path string, getenv func(string) string) (Config, []string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Config{}, nil, fmt.Errorf("read config: %w", err)
	}
	return ParseConfig(raw, getenv)
}

// ParseConfig is LoadConfig on bytes. It returns the config, warnings (e.g. a webhook secret
// that expanded to empty and was dropped) and an error listing every problem.
func ParseConfig(raw []byte, getenv func(string) string) (Config, []string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	var problems, warnings []string
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return Config{}, nil, fmt.Errorf("config: %w", err)
	}
	// Literal-secret check on the document as written. A secret is exactly one ${VAR} (or
	// empty): anything else is, or contains, the secret itself.
	check := func(path, v string) {
		if v != "" && !wholeRef.MatchString(strings.TrimSpace(v)) {
			problems = append(problems, fmt.Sprintf("%s: a secret is written literally; write exactly ${ENV_VAR} and set it in the environment", path))
		}
	}
	check("admin_token", scalarAt(&doc, "admin_token"))
	secretRefs := sequenceAt(&doc, "razorpay", "webhook_secrets")
	for i, s := range secretRefs {
		check(fmt.Sprintf("razorpay.webhook_secrets[%d]", i), s)
	}
	check("razorpay.key_secret", scalarAt(&doc, "razorpay", "key_secret"))
	check("erpnext.api_key", scalarAt(&doc, "erpnext", "api_key"))
	check("erpnext.api_secret", scalarAt(&doc, "erpnext", "api_secret"))
	if pw, ok := dsnPassword(scalarAt(&doc, "database", "dsn")); ok && pw != "" && !wholeRef.MatchString(pw) {
		problems = append(problems, "database.dsn: the password is written literally; write it as ${ENV_VAR}, e.g. user:${DB_PASSWORD}@tcp(…)/db")
	}

	// Expand ${VAR} inside scalar values of the parsed document, never in its text: a value with
	// quotes, "#", a backslash or a newline stays one value and cannot inject keys. The expanded
	// document is encoded again (quoting what needs it) and decoded strictly: unknown keys are
	// errors.
	seen := map[string]string{}
	expandNode(&doc, getenv, seen)
	cfg := Defaults()
	if len(doc.Content) > 0 {
		out, err := yaml.Marshal(&doc)
		if err != nil {
			return Config{}, nil, fmt.Errorf("config: %s", scrub(err.Error(), seen))
		}
		dec := yaml.NewDecoder(bytes.NewReader(out))
		dec.KnownFields(true)
		if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
			return Config{}, nil, fmt.Errorf("config: %s", scrub(err.Error(), seen))
		}
	}
	var secrets []string
	for i, s := range cfg.Razorpay.WebhookSecrets {
		if strings.TrimSpace(s) == "" {
			ref := ""
			if i < len(secretRefs) {
				ref = " (" + secretRefs[i] + " is unset or empty)"
			}
			warnings = append(warnings, fmt.Sprintf("razorpay.webhook_secrets[%d]%s was dropped: an empty secret would let anyone sign", i, ref))
			continue
		}
		secrets = append(secrets, s)
	}
	cfg.Razorpay.WebhookSecrets = secrets
	for _, p := range cfg.Validate() {
		problems = append(problems, scrub(p, seen))
	}
	if len(problems) > 0 {
		return cfg, warnings, &ConfigError{Problems: problems}
	}
	return cfg, warnings, nil
}

// ConfigError lists every configuration problem, one per line, each with its key path.
type ConfigError struct{ Problems []string }

// Error lists the problems, one per line.
func (e *ConfigError) Error() string {
	return "invalid configuration:\n  - " + strings.Join(e.Problems, "\n  - ")
}

// Validate returns every problem of an expanded configuration, each prefixed with its key path.
func (c Config) Validate() []string {
	var p []string
	add := func(f string, a ...any) { p = append(p, fmt.Sprintf(f, a...)) }
	if c.Listen == "" {
		add("listen: required (e.g. 127.0.0.1:8080)")
	}
	if !strings.HasPrefix(c.WebhookPath, "/") {
		add("webhook_path: must start with /")
	}
	if c.Workers < 1 || c.Workers > 256 {
		add("workers: must be 1..256, got %d", c.Workers)
	}
	switch c.Database.Driver {
	case "sqlite", "mysql":
	default:
		add("database.driver: must be sqlite or mysql, got %q", c.Database.Driver)
	}
	if c.Database.DSN == "" {
		add("database.dsn: required")
	}
	if len(c.Razorpay.WebhookSecrets) == 0 {
		add("razorpay.webhook_secrets: at least one non-empty secret is required (an empty key would let anyone sign)")
	}
	if c.ERPNext.URL == "" {
		add("erpnext.url: required (e.g. https://erp.example.com)")
	} else if !strings.HasPrefix(c.ERPNext.URL, "http://") && !strings.HasPrefix(c.ERPNext.URL, "https://") {
		add("erpnext.url: must start with http:// or https://")
	}
	if c.ERPNext.APIKey == "" || c.ERPNext.APISecret == "" {
		add("erpnext.api_key, erpnext.api_secret: required (API key and secret of the ERPNext API user)")
	}
	if c.ERPNext.Timeout <= 0 {
		add("erpnext.timeout: must be positive")
	}
	if c.ERPNext.ServerTimeout < c.ERPNext.Timeout {
		add("erpnext.server_timeout: must be at least erpnext.timeout (the site may run a request longer than the client waits)")
	}
	if c.Mapping.Company == "" {
		add("mapping.company: required (the ERPNext Company the receipts are booked in)")
	}
	if _, err := time.LoadLocation(c.Mapping.Timezone); err != nil || c.Mapping.Timezone == "" {
		add("mapping.timezone: %q is not a known IANA time zone (e.g. Asia/Kolkata)", c.Mapping.Timezone)
	}
	if c.Mapping.ModeOfPayment == "" {
		add("mapping.mode_of_payment: required")
	}
	for i, s := range c.Mapping.InvoiceFrom {
		if !validInvoiceSource(s) {
			add("mapping.invoice_from[%d]: unknown source %q (notes.<key>, order.receipt, payment_link.reference_id)", i, s)
		}
	}
	for i, s := range c.Mapping.CustomerFrom {
		if s != "invoice" && s != "contact.email" && s != "contact.phone" && !(strings.HasPrefix(s, "notes.") && len(s) > len("notes.")) {
			add("mapping.customer_from[%d]: unknown source %q (invoice, notes.<key>, contact.email, contact.phone)", i, s)
		}
	}
	switch c.Mapping.WithoutInvoice {
	case "park", "advance":
	default:
		add("mapping.without_invoice: must be park or advance, got %q", c.Mapping.WithoutInvoice)
	}
	if c.Mapping.DescriptionPattern != "" {
		if _, err := regexp.Compile(c.Mapping.DescriptionPattern); err != nil {
			add("mapping.description_pattern: %v", err)
		}
	}
	switch c.Mapping.Excess {
	case "unallocated", "park":
	default:
		add("mapping.excess: must be unallocated or park, got %q", c.Mapping.Excess)
	}
	switch c.Mapping.Fees.Mode {
	case "none":
	case "deduction":
		if c.Mapping.Fees.FeeAccount == "" || c.Mapping.Fees.TaxAccount == "" || c.Mapping.Fees.CostCenter == "" {
			add("mapping.fees: mode deduction needs fee_account, tax_account and cost_center")
		}
	default:
		add("mapping.fees.mode: must be none or deduction, got %q", c.Mapping.Fees.Mode)
	}
	switch c.Mapping.Refunds.WithoutCreditNote {
	case "park", "unallocated":
	default:
		add("mapping.refunds.without_credit_note: must be park or unallocated")
	}
	if c.Reconcile.Since != "" {
		if _, err := time.Parse("2006-01-02", c.Reconcile.Since); err != nil {
			add("reconcile.since: must be a date YYYY-MM-DD, got %q", c.Reconcile.Since)
		}
	}
	p = append(p, c.Reconcile.validate()...)
	switch c.Log.Format {
	case "json", "console":
	default:
		add("log.format: must be json or console")
	}
	if c.Worker.Lease <= 0 || c.Worker.Poll <= 0 || c.Worker.MaxAttempts < 1 {
		add("worker: lease and poll must be positive and max_attempts at least 1")
	}
	return p
}

func validInvoiceSource(s string) bool {
	switch {
	case strings.HasPrefix(s, "notes.") && len(s) > len("notes."):
		return true
	case s == "order.receipt", s == "payment_link.reference_id":
		return true
	}
	return false
}
