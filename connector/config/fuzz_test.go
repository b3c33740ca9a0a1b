package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/config"
)

// FuzzParseConfig: any bytes as a configuration file never panic; a file that parses without
// error is valid (the bounds Validate enforces hold), and no secret expanded from the
// environment appears in an error or warning unless the file itself spells it out.
func FuzzParseConfig(f *testing.F) {
	example, err := os.ReadFile(filepath.Join("..", "..", "config.example.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example)
	f.Add([]byte("razorpay:\n  webhook_secrets: [\"${RAZORPAY_WEBHOOK_SECRET}\"]\nerpnext:\n  url: http://erp\n  api_key: ${ERPNEXT_API_KEY}\n  api_secret: ${ERPNEXT_API_SECRET}\nmapping:\n  company: X\n"))
	f.Add([]byte("server:\n  max_in_flight: 0\n"))
	f.Add([]byte("server:\n  max_in_flight: -1\nworkers: 100000\n"))
	f.Add([]byte("listen: ${ERPNEXT_API_SECRET}\nretention:\n  raw_bodies: 90x\n"))
	f.Add([]byte("database: [1, 2]\n\tbad: indent"))
	f.Add([]byte("&a [*a, *a]"))
	f.Add([]byte("razorpay:\n  webhook_secrets: ${RAZORPAY_WEBHOOK_SECRET}\n"))
	f.Add([]byte{0xff, 0xfe, ':', ' ', 0xff})
	secrets := map[string]string{
		"RAZORPAY_WEBHOOK_SECRET": whSecret, "ERPNEXT_API_KEY": erpKey, "ERPNEXT_API_SECRET": erpSecret,
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		cfg, warnings, err := config.Parse(raw, env(secrets))
		said := strings.Join(warnings, "\n")
		if err != nil {
			said += "\n" + err.Error()
		}
		for name, s := range secrets {
			if strings.Contains(said, s) && !strings.Contains(string(raw), s) {
				t.Fatalf("the value of %s appears in what Parse said: %s", name, said)
			}
		}
		if err != nil {
			return
		}
		if len(cfg.Razorpay.WebhookSecrets) == 0 || cfg.Workers < 1 || cfg.Workers > 256 ||
			cfg.Server.MaxInFlight < 1 || cfg.Server.MaxInFlight > 65536 {
			t.Fatalf("Parse accepted a configuration out of bounds: secrets %d, workers %d, max_in_flight %d",
				len(cfg.Razorpay.WebhookSecrets), cfg.Workers, cfg.Server.MaxInFlight)
		}
	})
}
