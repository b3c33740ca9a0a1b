package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

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

// Load reads a YAML file, checks that secrets are ${VAR} references, expands them from
// getenv (os.Getenv when nil), fills defaults and validates. The error lists every problem
// with its key path.
func Load(path string, getenv func(string) string) (Config, []string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Config{}, nil, fmt.Errorf("read config: %w", err)
	}
	return Parse(raw, getenv)
}

// Parse is Load on bytes. It returns the config, warnings (e.g. a webhook secret
// that expanded to empty and was dropped) and an error listing every problem.
func Parse(raw []byte, getenv func(string) string) (Config, []string, error) {
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
		return cfg, warnings, &Error{Problems: problems}
	}
	return cfg, warnings, nil
}

// Error lists every configuration problem, one per line, each with its key path.
type Error struct{ Problems []string }

// Error lists the problems, one per line.
func (e *Error) Error() string {
	return "invalid configuration:\n  - " + strings.Join(e.Problems, "\n  - ")
}
