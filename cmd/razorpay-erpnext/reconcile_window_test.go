package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reconcile's --from/--to are usage errors (exit 2, nothing on stdout) when they cannot name a
// window: 0001-01-01T00:00:00Z used to fall back silently to the default window, 9999-… to
// print a table and exit 1.
func TestReconcileWindowBounds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfgPath, []byte(`
database: {driver: sqlite, dsn: `+filepath.Join(dir, "missing.db")+`}
razorpay: {webhook_secrets: ["${W}"], key_id: "${RK}", key_secret: "${RS}"}
erpnext: {url: "http://127.0.0.1:1", api_key: "${K}", api_secret: "${S}"}
mapping: {company: Example Company}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	envs := map[string]string{"W": testWebhook, "K": testKey, "S": testSecret, "RK": "rzp_test_rk", "RS": testRzpSecret}
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--from", "0001-01-01T00:00:00Z"}, "--from 0001-01-01T00:00:00Z is before 2015: Razorpay has no payments that old"},
		{[]string{"--from", "2014-12-31"}, "--from 2014-12-31T00:00:00+05:30 is before 2015"},
		{[]string{"--to", "0001-01-01"}, "--to 0001-01-01T00:00:00+05:53 is before 2015"},
		{[]string{"--from", "9999-01-01T00:00:00Z"}, "--from 9999-01-01T00:00:00Z is in the future (now is "},
		{[]string{"--from", "2026-01-10", "--to", "9999-12-31"}, "--to 9999-12-31T00:00:00+05:30 is in the future"},
		{[]string{"--from", "2026-01-10", "--to", "2026-01-10"}, "--from 2026-01-10T00:00:00+05:30 is not before --to 2026-01-10T00:00:00+05:30"},
	} {
		args := append([]string{"reconcile", "--config", cfgPath}, tc.flags...)
		code, out, errs := run(t, envs, args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout, %q", tc.flags, code, out, errs, tc.want)
		}
	}
}
