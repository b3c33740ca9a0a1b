package config

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/redact"
)

// MinSecretLength is the shortest secret accepted (in bytes). Real ones are longer: ERPNext
// makes 15-character API keys and secrets, Razorpay's key secrets have 24 characters. A value
// this short is guessable, and would occur inside ordinary words of the messages it must be
// removed from (with the key secret "s", "does not exist" would lose every "s").
const MinSecretLength = redact.MinLength

// secretKey is a key that holds a secret: its path, its line in config.example.yaml, and
// where the real value comes from.
type secretKey struct {
	path, example, origin string
}

var secretKeys = []secretKey{
	{"admin_token", "admin_token: ${RAZORPAY_ERPNEXT_ADMIN_TOKEN}", "choose a long random value, e.g. `openssl rand -hex 32`"},
	{"razorpay.webhook_secrets", `webhook_secrets: ["${RAZORPAY_WEBHOOK_SECRET}"] under razorpay:`,
		"it is the secret you type when you add the webhook in the Razorpay Dashboard; choose a random one, e.g. `openssl rand -hex 16`"},
	{"razorpay.key_secret", "key_secret: ${RAZORPAY_KEY_SECRET} under razorpay:", "Razorpay's key secrets have 24 characters: Dashboard → Account & Settings → API Keys"},
	{"erpnext.api_key", "api_key: ${ERPNEXT_API_KEY} under erpnext:", "ERPNext makes 15-character API keys: User → Settings → API Access → Generate Keys"},
	{"erpnext.api_secret", "api_secret: ${ERPNEXT_API_SECRET} under erpnext:", "ERPNext makes 15-character API secrets: User → Settings → API Access → Generate Keys"},
}

// secretKeyOf is the secretKey at path, or holding it (razorpay.webhook_secrets[1]).
func secretKeyOf(path string) (secretKey, bool) {
	for _, k := range secretKeys {
		if path == k.path || strings.HasPrefix(path, k.path+"[") {
			return k, true
		}
	}
	return secretKey{}, false
}

// literalSecrets checks the document as written: a secret is exactly one ${VAR} (or empty);
// anything else is, or contains, the secret itself. The database password likewise.
func literalSecrets(doc *yaml.Node) []string {
	var problems []string
	check := func(path, v string) {
		if v != "" && !wholeRef.MatchString(strings.TrimSpace(v)) {
			problems = append(problems, fmt.Sprintf("%s: a secret is written literally; write exactly ${ENV_VAR} and set it in the environment", path))
		}
	}
	check("admin_token", scalarAt(doc, "admin_token"))
	for i, s := range sequenceAt(doc, "razorpay", "webhook_secrets") {
		check(fmt.Sprintf("razorpay.webhook_secrets[%d]", i), s)
	}
	check("razorpay.key_secret", scalarAt(doc, "razorpay", "key_secret"))
	check("erpnext.api_key", scalarAt(doc, "erpnext", "api_key"))
	check("erpnext.api_secret", scalarAt(doc, "erpnext", "api_secret"))
	if pw, ok := dsnPassword(scalarAt(doc, "database", "dsn")); ok && pw != "" && !wholeRef.MatchString(pw) {
		problems = append(problems, "database.dsn: the password is written literally; write it as ${ENV_VAR}, e.g. user:${DB_PASSWORD}@tcp(…)/db")
	}
	return problems
}

// dsnPassword is the password of a MariaDB DSN "user:password@tcp(…)/db", of a PostgreSQL URL
// "postgres://user:password@host/db" or of a PostgreSQL key=value DSN "… password=… …"
// (ok=false when the DSN names no password).
func dsnPassword(dsn string) (string, bool) {
	for _, scheme := range []string{"postgres://", "postgresql://"} {
		if rest, ok := strings.CutPrefix(dsn, scheme); ok {
			dsn, _, _ = strings.Cut(rest, "/")
		}
	}
	if !strings.Contains(dsn, "@") {
		for _, f := range strings.Fields(dsn) {
			if pw, ok := strings.CutPrefix(f, "password="); ok {
				return strings.Trim(pw, "'"), true
			}
		}
	}
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

// shortSecrets refuses every secret that expanded to fewer than MinSecretLength bytes (but
// not to nothing: an empty one is "required" or dropped), naming its variable and why.
func shortSecrets(refs []reference) []string {
	var p []string
	for _, r := range refs {
		k, ok := secretKeyOf(r.path)
		if !ok || r.length == 0 || r.length >= MinSecretLength {
			continue
		}
		p = append(p, fmt.Sprintf("%s: %s has %d character(s), too few for a real secret (%s); at least %d are needed: a shorter one is guessable, and would occur inside ordinary words of the messages it must be removed from",
			r.path, r.name, r.length, k.origin, MinSecretLength))
	}
	return p
}

// withVariables adds to a problem about a key the environment variable to set: the ones the
// key reads that are unset or empty, or, for a secret key the file leaves out, the line to
// write and the variable it reads.
func withVariables(problem string, refs []reference) string {
	path, _, ok := strings.Cut(problem, ": ")
	if !ok || strings.ContainsAny(path, " ,") {
		return problem
	}
	var unset []string
	written := false
	for _, r := range refs {
		if r.path == path || strings.HasPrefix(r.path, path+"[") || strings.HasPrefix(r.path, path+".") {
			written = true
			if r.length == 0 {
				unset = append(unset, r.name)
			}
		}
	}
	switch {
	case len(unset) == 1:
		return fmt.Sprintf("%s — set %s in the environment (the file reads ${%s}, which is unset or empty)", problem, unset[0], unset[0])
	case len(unset) > 1:
		return fmt.Sprintf("%s — set %s in the environment (the file reads them, and each is unset or empty)", problem, strings.Join(unset, " or "))
	}
	if k, secret := secretKeyOf(path); secret && !written {
		return fmt.Sprintf("%s — write %s and set that variable in the environment", problem, k.example)
	}
	return problem
}
