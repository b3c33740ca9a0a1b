package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// Secrets the benchmark hands its children through the environment (never on a command line,
// never in a file).
const (
	envDSN            = "RPE_BENCH_DSN"
	envERPNextKey     = "RPE_BENCH_ERPNEXT_KEY"
	envERPNextSecret  = "RPE_BENCH_ERPNEXT_SECRET"
	envRazorpaySecret = "RPE_BENCH_RAZORPAY_SECRET"
	erpnextKey        = "benchapikey0001" // 15 characters, as ERPNext makes them
	razorpayKeyID     = "rzp_test_BenchKey0001"
)

// daemonSpec is how one daemon (serve) or reconcile is configured.
type daemonSpec struct {
	db          *database
	erpURL      string
	erpKey      string // "" = erpnextKey; another key makes ERPNext answer 401 (workers pause)
	razorpayURL string // "" = no Razorpay API (serve does not need it)
	bin         string // "" = the benchmark's binary
	yieldOff    bool   // worker.intake_first_above: 0
}

// writeConfig writes the daemon's configuration file into dir; secrets stay ${VAR} references.
func (s daemonSpec) writeConfig(dir string) (string, error) {
	adminPort, err := freePort()
	if err != nil {
		return "", err
	}
	cfg := fmt.Sprintf(`listen: 127.0.0.1:0
admin_listen: 127.0.0.1:%d
webhook_path: /webhooks/razorpay
workers: 4
database: {driver: %s, dsn: "${%s}"}
razorpay:
  webhook_secrets: ["${%s}"]
  account_id: %s
erpnext: {url: %q, api_key: "${%s}", api_secret: "${%s}", max_concurrency: 4}
mapping: {company: %q}
reconcile: {schedule: "0 0 1 1 *", integration_requests: false}
worker: {pause_recheck: 1h}
log: {level: info, format: json}
`, adminPort, s.db.Driver, envDSN, floorSecretEnv, benchAccount, s.erpURL, envERPNextKey, envERPNextSecret, erpnextsim.DefaultCompany)
	if s.yieldOff {
		cfg = strings.Replace(cfg, "worker: {pause_recheck: 1h}", "worker: {pause_recheck: 1h, intake_first_above: 0}", 1)
	}
	if s.razorpayURL != "" {
		cfg = strings.Replace(cfg, "  account_id:", fmt.Sprintf("  key_id: %s\n  key_secret: \"${%s}\"\n  api_url: %q\n  account_id:",
			razorpayKeyID, envRazorpaySecret, s.razorpayURL), 1)
	}
	path := filepath.Join(dir, fmt.Sprintf("config-%d.yaml", time.Now().UnixNano()))
	return path, os.WriteFile(path, []byte(cfg), 0o600)
}

// env is the children's environment for spec.
func (b *bench) env(s daemonSpec) []string {
	key := s.erpKey
	if key == "" {
		key = erpnextKey
	}
	return []string{envDSN + "=" + s.db.DSN, floorSecretEnv + "=" + b.secret, envERPNextKey + "=" + key,
		envERPNextSecret + "=" + b.erpSecret, envRazorpaySecret + "=" + b.erpSecret}
}

// daemon is one `razorpay-erpnext serve` process.
type daemon struct {
	*proc
	webhookURL string
	adminURL   string
}

// startDaemon starts `serve` on spec and returns once it listens (its "serving" log line).
func (b *bench) startDaemon(ctx context.Context, s daemonSpec) (*daemon, error) {
	path, err := s.writeConfig(b.dir)
	if err != nil {
		return nil, err
	}
	bin := s.bin
	if bin == "" {
		bin = b.bin
	}
	p, listen, err := startProc(ctx, "serve", bin, []string{"serve", "--config", path}, b.env(s), func(line string) (string, bool) {
		var l struct {
			Message string `json:"message"`
			Listen  string `json:"listen"`
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Message == "serving" && l.Listen != "" {
			return l.Listen, true
		}
		return "", false
	})
	if err != nil {
		return nil, err
	}
	cfgText, _ := os.ReadFile(path)
	admin := ""
	for _, line := range strings.Split(string(cfgText), "\n") {
		if v, ok := strings.CutPrefix(line, "admin_listen: "); ok {
			admin = "http://" + v
		}
	}
	return &daemon{proc: p, webhookURL: "http://" + listen + "/webhooks/razorpay", adminURL: admin}, nil
}

// waitPaused waits until the daemon's /readyz reports work paused (its ERPNext refused the API
// key: a configuration fault), so intake is measured with the workers idle.
func (d *daemon) waitPaused(ctx context.Context) error {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, d.adminURL+"/readyz", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			var body struct {
				Status string `json:"status"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if body.Status == "paused" {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("the daemon's workers did not pause within a minute:\n%s", d.tail)
}

// freePort returns a loopback TCP port nobody listens on at the moment.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
