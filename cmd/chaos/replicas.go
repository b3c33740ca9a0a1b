package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// buildDaemon builds cmd/razorpay-erpnext into dir once and returns the binary's path.
func buildDaemon(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "razorpay-erpnext")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/razorpay-erpnext/razorpay-erpnext/cmd/razorpay-erpnext")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}

// secrets are the run's credentials, random per run, handed to the processes only through the
// environment; none may appear in any log line.
type secrets struct {
	Webhook, ERPKey, ERPSecret, RzpKeyID, RzpSecret, Admin, DBPassword string
}

// env is the environment of every daemon process.
func (s secrets) env() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"RAZORPAY_WEBHOOK_SECRET=" + s.Webhook, "ERPNEXT_API_KEY=" + s.ERPKey, "ERPNEXT_API_SECRET=" + s.ERPSecret,
		"RAZORPAY_KEY_ID=" + s.RzpKeyID, "RAZORPAY_KEY_SECRET=" + s.RzpSecret,
		"RAZORPAY_ERPNEXT_ADMIN_TOKEN=" + s.Admin, "CHAOS_DB_PASSWORD=" + s.DBPassword}
}

// secretValues are the values to look for in logs (the ERPNext API key is not secret alone,
// but "key:secret" would be; the secret itself is looked for).
func (s secrets) secretValues() map[string]string {
	return map[string]string{"webhook secret": s.Webhook, "ERPNext API secret": s.ERPSecret,
		"Razorpay key secret": s.RzpSecret, "admin token": s.Admin, "database password": s.DBPassword}
}

// configSpec is what writeConfig needs to know about the run.
type configSpec struct {
	Listen, AdminListen, Driver, DSN, ERPNextURL, RazorpayURL, AccountID string
	Workers                                                              int
}

// writeConfig writes a replica's configuration: the run's database, fees deducted, refunds without a
// credit note parked, short worker timings so kills and fences play out within the run, no
// reconcile schedule (the run reconciles by hand at the end).
func writeConfig(path string, c configSpec) error {
	y := fmt.Sprintf(`listen: %s
admin_listen: %s
workers: %d
admin_token: ${RAZORPAY_ERPNEXT_ADMIN_TOKEN}
database: {driver: %s, dsn: %q}
razorpay:
  webhook_secrets: ["${RAZORPAY_WEBHOOK_SECRET}"]
  account_id: %s
  key_id: ${RAZORPAY_KEY_ID}
  key_secret: ${RAZORPAY_KEY_SECRET}
  api_url: %s
erpnext:
  url: %s
  api_key: ${ERPNEXT_API_KEY}
  api_secret: ${ERPNEXT_API_SECRET}
  timeout: 5s
  server_timeout: 5s
  max_concurrency: 4
mapping:
  company: Example Company
  excess: unallocated
  fees: {mode: deduction, fee_account: "Razorpay Fees - EC", tax_account: "Input Tax GST - EC", cost_center: "Main - EC"}
  refunds: {without_credit_note: park, wait_for_receipt: 72h}
reconcile: {schedule: "", window: 48h, integration_requests: false, since: 2026-01-01, drain_timeout: 5m}
log: {level: info, format: json}
worker: {lease: 4s, poll: 200ms, max_attempts: 12, backoff_base: 200ms, backoff_max: 3s, fence_margin: 1s, pause_recheck: 1s}
`, c.Listen, c.AdminListen, c.Workers, c.Driver, c.DSN, c.AccountID, c.RazorpayURL, c.ERPNextURL)
	return os.WriteFile(path, []byte(y), 0o600)
}

// replica is one `serve` process of the run, restarted on the same ports after each kill.
type replica struct {
	name, bin, config, logPath string
	listen, admin              string
	env                        []string
	kills                      int // only the chaos loop kills, one action at a time
	proc
}

// start runs `serve` and waits until it answers /healthz.
func (r *replica) start(ctx context.Context) error {
	if err := r.launch(r.bin, []string{"serve", "--config", r.config}, r.env, r.logPath); err != nil {
		return err
	}
	hc := &http.Client{Timeout: time.Second}
	return waitUntil(ctx, 60*time.Second, func() bool {
		if r.exited() {
			return true
		}
		resp, err := hc.Get("http://" + r.listen + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, func() error { return r.exitedErr(r.name, r.logPath) })
}

// kill9 kills the replica with SIGKILL (counted) and waits until it is gone.
func (r *replica) kill9() {
	r.kills++
	r.proc.kill9()
}

// metrics scrapes the replica's /metrics and returns the samples whose name starts with one of
// prefixes, keyed by the sample line's name and labels.
func (r *replica) metrics(token string, prefixes ...string) (map[string]string, error) {
	req, err := http.NewRequest(http.MethodGet, "http://"+r.admin+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s /metrics: %s", r.name, resp.Status)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(io.LimitReader(resp.Body, 8<<20))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		for _, p := range prefixes {
			if strings.HasPrefix(line, p) {
				if i := strings.LastIndexByte(line, ' '); i > 0 {
					out[line[:i]] = line[i+1:]
				}
			}
		}
	}
	return out, sc.Err()
}

// runTool runs the daemon binary once (migrate, reconcile) with the run's environment,
// appending its output to logPath; it returns stdout and the exit code.
func runTool(ctx context.Context, bin string, env []string, logPath string, args ...string) ([]byte, int, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var stdout strings.Builder
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, 0, err
	}
	defer logf.Close()
	cmd.Stdout = io.MultiWriter(&stdout, logf)
	cmd.Stderr = logf
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code, err = ee.ExitCode(), nil
	}
	return []byte(stdout.String()), code, err
}
