package config

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

var (
	envRef   = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)
	wholeRef = regexp.MustCompile(`^\$\{[A-Za-z_][A-Za-z0-9_]*\}$`)
)

// Scope is how much of the configuration a command needs, and so how much Load validates.
type Scope int

const (
	// ScopeAll validates every key: serve, check, explain, reconcile, events.
	ScopeAll Scope = iota
	// ScopeStore validates only what opening the store needs (database, log): migrate creates
	// the connector's tables and needs no ERPNext or Razorpay secret. The file must still be
	// valid YAML with known keys, and no secret may be written in it literally.
	ScopeStore
)

// reference is one ${VAR} written in a scalar value, at its key path (e.g. "erpnext.api_key",
// "razorpay.webhook_secrets[1]"), with the length of the variable's value (0: unset or empty).
type reference struct {
	path, name string
	length     int
}

// expansion is what expanding a document found: each non-empty value and the reference it
// came from (for scrubbing messages), and every reference by key path.
type expansion struct {
	seen map[string]string
	refs []reference
}

// expandNode replaces ${VAR} in every scalar value of n with getenv(VAR). path is n's key path.
func (x *expansion) expandNode(n *yaml.Node, path string, getenv func(string) string) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			x.expandNode(c, path, getenv)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			x.expandNode(n.Content[i+1], joinPath(path, n.Content[i].Value), getenv)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			x.expandNode(c, path+"["+strconv.Itoa(i)+"]", getenv)
		}
	case yaml.ScalarNode:
		if !strings.Contains(n.Value, "${") {
			return
		}
		n.Value = envRef.ReplaceAllStringFunc(n.Value, func(m string) string {
			name := envRef.FindStringSubmatch(m)[1]
			v := getenv(name)
			if v != "" {
				x.seen[v] = m
			}
			x.refs = append(x.refs, reference{path: path, name: name, length: len(v)})
			return v
		})
		// The value is set on the node, never re-parsed as YAML text; the empty tag lets a plain
		// scalar resolve again (a number for workers: ${WORKERS}), a quoted one stays a string.
		n.Tag = ""
	}
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
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

// Load reads a YAML file, checks that secrets are ${VAR} references, expands them from
// getenv (os.Getenv when nil), fills defaults and validates every key (ScopeAll). The error
// lists every problem with its key path.
func Load(path string, getenv func(string) string) (Config, []string, error) {
	return LoadScope(path, getenv, ScopeAll)
}

// LoadScope is Load validating only what scope needs.
func LoadScope(path string, getenv func(string) string, scope Scope) (Config, []string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Config{}, nil, fmt.Errorf("read config: %w", err)
	}
	return ParseScope(raw, getenv, scope)
}

// Parse is Load on bytes. It returns the config, warnings (e.g. a webhook secret
// that expanded to empty and was dropped, a removed key still set) and an error listing every
// problem.
func Parse(raw []byte, getenv func(string) string) (Config, []string, error) {
	return ParseScope(raw, getenv, ScopeAll)
}

// ParseScope is Parse validating only what scope needs. Line numbers in its errors are the
// file's own: the document is decoded from the parsed nodes, never from re-encoded text.
func ParseScope(raw []byte, getenv func(string) string, scope Scope) (Config, []string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return Config{}, nil, fmt.Errorf("config: %w", err)
	}
	problems := literalSecrets(&doc)
	secretRefs := sequenceAt(&doc, "razorpay", "webhook_secrets")

	// Expand ${VAR} inside scalar values of the parsed document, never in its text: a value with
	// quotes, "#", a backslash or a newline stays one value and cannot inject keys. Unknown keys
	// are errors, removed ones warnings; the nodes keep the lines of the file for every message.
	x := &expansion{seen: map[string]string{}}
	x.expandNode(&doc, "", getenv)
	cfg := Defaults()
	var warnings []string
	if len(doc.Content) > 0 {
		keys := unknownKeys(&doc)
		warnings = keys.removed
		decodeProblems := keys.unknown
		if err := doc.Decode(&cfg); err != nil {
			decodeProblems = append(decodeProblems, yamlProblems(err)...)
		}
		if len(decodeProblems) > 0 {
			for i, p := range decodeProblems {
				decodeProblems[i] = scrub(p, x.seen)
			}
			return Config{}, nil, &Error{Problems: append(problems, decodeProblems...)}
		}
	}
	if scope == ScopeAll {
		warnings = append(warnings, dropEmptyWebhookSecrets(&cfg, secretRefs)...)
		problems = append(problems, shortSecrets(x.refs)...)
	}
	for _, p := range cfg.validate(scope) {
		problems = append(problems, scrub(withVariables(p, x.refs), x.seen))
	}
	if len(problems) > 0 {
		return cfg, warnings, &Error{Problems: problems}
	}
	return cfg, warnings, nil
}

// yamlProblems splits a decoding error into one problem per line of yaml.v3's report.
func yamlProblems(err error) []string {
	if te, ok := err.(*yaml.TypeError); ok {
		return te.Errors
	}
	return []string{err.Error()}
}

// dropEmptyWebhookSecrets removes the webhook secrets that expanded to empty (an empty key
// would let anyone sign), with a warning naming each one's reference.
func dropEmptyWebhookSecrets(cfg *Config, refs []string) []string {
	var warnings, secrets []string
	for i, s := range cfg.Razorpay.WebhookSecrets {
		if strings.TrimSpace(s) == "" {
			ref := ""
			if i < len(refs) {
				ref = " (" + refs[i] + " is unset or empty)"
			}
			warnings = append(warnings, fmt.Sprintf("razorpay.webhook_secrets[%d]%s was dropped: an empty secret would let anyone sign", i, ref))
			continue
		}
		secrets = append(secrets, s)
	}
	cfg.Razorpay.WebhookSecrets = secrets
	return warnings
}

// Error lists every configuration problem, one per line, each with its key path.
type Error struct{ Problems []string }

// Error lists the problems, one per line.
func (e *Error) Error() string {
	return "invalid configuration:\n  - " + strings.Join(e.Problems, "\n  - ")
}
