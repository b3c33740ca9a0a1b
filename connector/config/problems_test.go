package config_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/config"
)

// exampleConfig is config.example.yaml as shipped.
func exampleConfig(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "config.example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// lineOf is the 1-based line of the first line of text that starts (after indentation) with
// prefix.
func lineOf(t *testing.T, text, prefix string) int {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return i + 1
		}
	}
	t.Fatalf("no line starts with %q", prefix)
	return 0
}

func problemsOf(t *testing.T, err error) []string {
	t.Helper()
	var ce *config.Error
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a *config.Error", err)
	}
	return ce.Problems
}

// With the README's secrets (k1, s1, s) redaction would mangle every message that holds an
// "s". Secrets too short to be real are refused, each naming its key, its
// variable and why; real-length ones pass.
func TestConfigRefusesShortSecretsNamingTheVariable(t *testing.T) {
	raw := exampleConfig(t)
	_, _, err := config.Parse([]byte(raw), env(map[string]string{
		"ERPNEXT_API_KEY": "k1", "ERPNEXT_API_SECRET": "s1", "RAZORPAY_WEBHOOK_SECRET": "whsec-test",
		"RAZORPAY_KEY_ID": "rzp_test_x", "RAZORPAY_KEY_SECRET": "s", "RAZORPAY_ERPNEXT_ADMIN_TOKEN": "token",
	}))
	p := problemsOf(t, err)
	want := []string{
		"admin_token: RAZORPAY_ERPNEXT_ADMIN_TOKEN has 5 character(s), too few for a real secret (choose a long random value",
		"razorpay.webhook_secrets[0]: RAZORPAY_WEBHOOK_SECRET has 10 character(s), too few for a real secret (it is the secret you type",
		"razorpay.key_secret: RAZORPAY_KEY_SECRET has 1 character(s), too few for a real secret (Razorpay's key secrets have 24 characters",
		"erpnext.api_key: ERPNEXT_API_KEY has 2 character(s), too few for a real secret (ERPNext makes 15-character API keys",
		"erpnext.api_secret: ERPNEXT_API_SECRET has 2 character(s), too few for a real secret (ERPNext makes 15-character API secrets",
	}
	if len(p) != len(want) {
		t.Fatalf("%d problems, want %d:\n%s", len(p), len(want), strings.Join(p, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(p[i], w) || !strings.Contains(p[i], "at least 12 are needed: a shorter one is guessable, and would occur inside ordinary words") {
			t.Errorf("problem %d = %q, want it to start with %q and say why", i, p[i], w)
		}
	}
	for _, secret := range []string{"k1", "s1", "whsec-test"} {
		if strings.Contains(strings.Join(p, "\n"), secret) {
			t.Errorf("a problem shows the value %q", secret)
		}
	}
	if _, _, err := config.Parse([]byte(raw), env(map[string]string{
		"ERPNEXT_API_KEY": "4f1e2d3c4b5a697", "ERPNEXT_API_SECRET": "9a8b7c6d5e4f3a2", "RAZORPAY_WEBHOOK_SECRET": "whsec_0123456",
		"RAZORPAY_KEY_ID": "rzp_test_x", "RAZORPAY_KEY_SECRET": "0123456789abcdefABCDEFgh", "RAZORPAY_ERPNEXT_ADMIN_TOKEN": "0123456789ab",
	})); err != nil {
		t.Errorf("secrets of 12 characters and more: %v", err)
	}
}

// Every YAML problem is reported at once, at the line of the file where it is — not of the
// document encoded again after expansion, which drops comments and blank lines.
func TestConfigErrorsCarryTheFilesLines(t *testing.T) {
	raw := exampleConfig(t)
	raw = strings.Replace(raw, "\nworkers: 4\n", "\nworkers: four\n", 1)
	raw = strings.Replace(raw, "  window: 48h\n", "  window: 2x\n", 1)
	raw = strings.Replace(raw, "  mode_of_payment: Razorpay\n", "  mode_of_paymnt: Razorpay\n", 1)
	_, _, err := config.Parse([]byte(raw), env(map[string]string{
		"ERPNEXT_API_KEY": erpKey, "ERPNEXT_API_SECRET": erpSecret, "RAZORPAY_WEBHOOK_SECRET": whSecret}))
	p := strings.Join(problemsOf(t, err), "\n")
	for _, w := range []string{
		fmt.Sprintf("line %d: cannot unmarshal !!str `four` into int", lineOf(t, raw, "workers: four")),
		fmt.Sprintf(`line %d: invalid duration "2x"`, lineOf(t, raw, "window: 2x")),
		fmt.Sprintf("line %d: mapping.mode_of_paymnt is not a known key (mapping has: comment_on_park, company, ", lineOf(t, raw, "mode_of_paymnt:")),
	} {
		if !strings.Contains(p, w) {
			t.Errorf("problems lack %q:\n%s", w, p)
		}
	}
}

// A required key names the environment variable to set: the one the file reads, or, when the
// file leaves a secret key out, the line to write.
func TestRequiredNamesTheVariable(t *testing.T) {
	_, _, err := config.Parse([]byte(exampleConfig(t)), env(map[string]string{"ERPNEXT_API_SECRET": erpSecret}))
	p := problemsOf(t, err)
	want := []string{
		"razorpay.webhook_secrets: at least one non-empty secret is required (an empty key would let anyone sign) — set RAZORPAY_WEBHOOK_SECRET in the environment (the file reads ${RAZORPAY_WEBHOOK_SECRET}, which is unset or empty)",
		"erpnext.api_key: required (the API key of the ERPNext API user) — set ERPNEXT_API_KEY in the environment (the file reads ${ERPNEXT_API_KEY}, which is unset or empty)",
	}
	if strings.Join(p, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(p, "\n"), strings.Join(want, "\n"))
	}
	_, _, err = config.Parse([]byte("erpnext: {url: \"http://erp\"}\nmapping: {company: C}\nrazorpay: {webhook_secrets: [\"${WH}\"]}\n"),
		env(map[string]string{"WH": whSecret}))
	p = problemsOf(t, err)
	if len(p) != 2 || p[0] != "erpnext.api_key: required (the API key of the ERPNext API user) — write api_key: ${ERPNEXT_API_KEY} under erpnext: and set that variable in the environment" ||
		!strings.HasPrefix(p[1], "erpnext.api_secret: required") || !strings.HasSuffix(p[1], "write api_secret: ${ERPNEXT_API_SECRET} under erpnext: and set that variable in the environment") {
		t.Errorf("problems:\n%s", strings.Join(p, "\n"))
	}
}

// migrate needs the store only: without any secret in the environment the example
// configuration is enough for it, and still refused for everything else. A secret written
// literally, an unknown key or a bad driver is refused there too.
func TestScopeStoreNeedsNoSecrets(t *testing.T) {
	raw := exampleConfig(t)
	cfg, warnings, err := config.ParseScope([]byte(raw), env(nil), config.ScopeStore)
	if err != nil || len(warnings) != 0 || cfg.Database.Driver != "sqlite" || cfg.Database.DSN != "./razorpay-erpnext.db" {
		t.Fatalf("store scope: cfg.Database %+v, warnings %v, err %v", cfg.Database, warnings, err)
	}
	if _, _, err := config.Parse([]byte(raw), env(nil)); err == nil {
		t.Error("the full scope accepted a configuration without secrets")
	}
	for _, driver := range []string{"sqlite", "mysql", "postgres"} {
		if _, _, err := config.ParseScope([]byte("database: {driver: "+driver+", dsn: x}\n"), env(nil), config.ScopeStore); err != nil {
			t.Errorf("driver %s refused: %v", driver, err)
		}
	}
	for name, bad := range map[string]struct{ yaml, want string }{
		"LiteralSecret": {"erpnext: {api_secret: hunter2hunter2}\n", "erpnext.api_secret: a secret is written literally"},
		"UnknownKey":    {"databse: {driver: sqlite}\n", "line 1: databse is not a known key"},
		"BadDriver":     {"database: {driver: oracle, dsn: x}\n", `database.driver: must be sqlite, mysql or postgres, got "oracle"`},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := config.ParseScope([]byte(bad.yaml), env(nil), config.ScopeStore)
			if p := problemsOf(t, err); len(p) != 1 || !strings.HasPrefix(p[0], bad.want) {
				t.Errorf("problems %q, want one starting with %q", p, bad.want)
			}
		})
	}
}

// The examples config.example.yaml gives in its comments are accepted as written: the MariaDB
// DSN (its password from the environment, not refused as a literal
// password) and the two webhook secrets of a rotation.
func TestExampleCommentsAreAccepted(t *testing.T) {
	raw := exampleConfig(t)
	commented := func(prefix string) string {
		t.Helper()
		for _, l := range strings.Split(raw, "\n") {
			if l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "#")); strings.HasPrefix(l, prefix) {
				return l
			}
		}
		t.Fatalf("config.example.yaml has no commented %q", prefix)
		return ""
	}
	dsn := commented("driver: mysql, dsn:")
	rotation := commented("webhook_secrets: [")
	raw = strings.Replace(raw, "  driver: sqlite\n  dsn: ./razorpay-erpnext.db\n", "  {"+dsn+"}\n", 1)
	raw = strings.Replace(raw, "\n  webhook_secrets: [\"${RAZORPAY_WEBHOOK_SECRET}\"]\n", "\n  "+rotation+"\n", 1)
	cfg, warnings, err := config.Parse([]byte(strings.Replace(raw, "database:\n  {", "database: {", 1)), env(map[string]string{
		"ERPNEXT_API_KEY": erpKey, "ERPNEXT_API_SECRET": erpSecret, "DB_PASSWORD": "p@ss:w#rd",
		"RAZORPAY_WEBHOOK_SECRET": whSecret, "RAZORPAY_WEBHOOK_SECRET_PREVIOUS": "whsec_previous_0001"}))
	if err != nil || len(warnings) != 0 {
		t.Fatalf("examples refused: %v (warnings %v)", err, warnings)
	}
	if cfg.Database.Driver != "mysql" || cfg.Database.DSN != "razorpay:p@ss:w#rd@tcp(127.0.0.1:3306)/razorpay_erpnext?parseTime=true" {
		t.Errorf("database %+v", cfg.Database)
	}
	if len(cfg.Razorpay.WebhookSecrets) != 2 || cfg.Razorpay.WebhookSecrets[1] != "whsec_previous_0001" {
		t.Errorf("webhook secrets %q", cfg.Razorpay.WebhookSecrets)
	}
}

// server.max_in_flight defaults to 256 and must be 1..65536 (bounded intake).
func TestServerMaxInFlight(t *testing.T) {
	if got := config.Defaults().Server.MaxInFlight; got != 256 {
		t.Errorf("default max_in_flight %d; want 256", got)
	}
	example := exampleConfig(t)
	for _, tc := range []struct {
		value string
		want  string // a problem, or "" for none
	}{{"1", ""}, {"65536", ""}, {"0", "server.max_in_flight: must be 1..65536, got 0"},
		{"65537", "server.max_in_flight: must be 1..65536, got 65537"}, {"-5", "server.max_in_flight: must be 1..65536, got -5"}} {
		raw := strings.Replace(example, "max_in_flight: 256", "max_in_flight: "+tc.value, 1)
		cfg, _, err := config.Parse([]byte(raw), env(map[string]string{
			"RAZORPAY_WEBHOOK_SECRET": whSecret, "ERPNEXT_API_KEY": erpKey, "ERPNEXT_API_SECRET": erpSecret,
		}))
		switch {
		case tc.want == "" && (err != nil || fmt.Sprint(cfg.Server.MaxInFlight) != tc.value):
			t.Errorf("max_in_flight %s: %v, read %d", tc.value, err, cfg.Server.MaxInFlight)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("max_in_flight %s: %v; want %q", tc.value, err, tc.want)
		}
	}
}

// worker.intake_first_above is gone with the workers' giving way to a burst: a file that still
// sets it is read, with a warning that names its line, and nothing else changes.
func TestRemovedIntakeFirstAboveIsAWarning(t *testing.T) {
	example := exampleConfig(t)
	want, _, err := config.Parse([]byte(example), env(map[string]string{
		"RAZORPAY_WEBHOOK_SECRET": whSecret, "ERPNEXT_API_KEY": erpKey, "ERPNEXT_API_SECRET": erpSecret,
	}))
	if err != nil {
		t.Fatal(err)
	}
	for _, value := range []string{"0", "200", "-1", "fast"} {
		raw := example + "\nworker: {intake_first_above: " + value + "}\n"
		line := strings.Count(raw, "\n")
		cfg, warnings, err := config.Parse([]byte(raw), env(map[string]string{
			"RAZORPAY_WEBHOOK_SECRET": whSecret, "ERPNEXT_API_KEY": erpKey, "ERPNEXT_API_SECRET": erpSecret,
		}))
		if err != nil {
			t.Errorf("intake_first_above %s: %v; want it read with a warning", value, err)
			continue
		}
		prefix := fmt.Sprintf("line %d: worker.intake_first_above was removed and is ignored: ", line)
		if len(warnings) != 1 || !strings.HasPrefix(warnings[0], prefix) || !strings.HasSuffix(warnings[0], "delete it from the file") {
			t.Errorf("intake_first_above %s: warnings %q; want one starting %q", value, warnings, prefix)
		}
		if !reflect.DeepEqual(cfg, want) {
			t.Errorf("intake_first_above %s changed the config:\n%+v\nwant\n%+v", value, cfg, want)
		}
	}
}
