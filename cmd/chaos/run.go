package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// Options configure one chaos run.
type Options struct {
	Payments  int
	Seed      uint64
	Replicas  int
	Workers   int
	KillEvery time.Duration // a replica is killed (-9) and restarted this often, ±20 %
	SendSpan  time.Duration // webhooks are spread over this long; 0 = 60 ms per payment, at least 20 s
	Timeout   time.Duration // the whole run; 0 = 10 min + 0.5 s per payment
	Bin       string        // a built razorpay-erpnext binary; "" = go build into the run directory
	Dir       string        // run directory; "" = a new temporary one, removed unless Keep
	Keep      bool
	Faults    proxyFaults
	Burst429  int // requests answered 429 with Retry-After in one burst, a quarter into the run
	Scenario  scenarioSettings
	Progress  io.Writer // one line per phase; nil = silent
	Driver    string    // the database: "mysql" (MariaDB, the default) or "postgres"
}

// DefaultOptions are the settings of `chaos` without flags (the 300-payment chaos run).
func DefaultOptions() Options {
	return Options{Driver: driverMySQL, Payments: 300, Seed: 1, Replicas: 2, Workers: 4, KillEvery: 10 * time.Second, Burst429: 40,
		Faults: proxyFaults{Err5xx: 0.02, DropAfterCommit: 0.01, CommitLate: 0.005, LateDelay: 3 * time.Second},
		Scenario: scenarioSettings{OrderShare: 1.0 / 3, ReceiptOnly: 0.5, LostShare: 0.01, RefundShare: 0.1,
			CreditNotes: 0.5, ReorderShare: 0.05, DupShare: 0.12, DupConcurrent: 0.5}}
}

// run is the state of one chaos run.
type run struct {
	opt     Options
	dir     string
	sec     secrets
	db      database
	poll    *sql.DB // the superuser over the socket: status polling and the final read
	site    *erpnextsim.Site
	rzp     *razorpaysim.Sim
	proxy   *faultProxy
	erpBase string // the simulator itself, for ground truth
	reps    []*replica
	bin     string
	cfgPath string

	actions   sync.Mutex // one kill (replica or database) at a time
	dbKills   atomic.Int64
	restartsF atomic.Int64 // restarts that needed more than one try
	servers   []*http.Server

	metricsMu  sync.Mutex
	metricSums map[string]int64 // series → sum over replica processes
	scrapeErrs []string
	log        func(format string, args ...any)
}

// Run performs the chaos run and returns its report; the error is for a run that could not be
// carried out (a violation is not an error: see Report.OK).
func Run(ctx context.Context, opt Options) (*Report, error) {
	if opt.Timeout == 0 {
		opt.Timeout = 10*time.Minute + time.Duration(opt.Payments)*500*time.Millisecond
	}
	if opt.SendSpan == 0 {
		opt.SendSpan = max(20*time.Second, time.Duration(opt.Payments)*60*time.Millisecond)
	}
	opt.Faults.LateDelayMS = opt.Faults.LateDelay.Milliseconds()
	opt.Scenario.Payments = opt.Payments
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	r := &run{opt: opt, log: func(string, ...any) {}}
	if opt.Progress != nil {
		r.log = func(f string, a ...any) { fmt.Fprintf(opt.Progress, "chaos: "+f+"\n", a...) }
	}
	defer r.close()
	rep := newReport(opt)
	if err := r.setUp(ctx, rep); err != nil {
		return nil, err
	}
	if err := r.exercise(ctx, rep); err != nil {
		return nil, err
	}
	if err := r.verify(ctx, rep); err != nil {
		return nil, err
	}
	rep.finish()
	if opt.Keep || opt.Dir != "" {
		rep.RunDir = r.dir
	}
	return rep, nil
}

// setUp starts the database server, the simulators and the fault proxy, builds the scenario, migrates and
// starts the replicas.
func (r *run) setUp(ctx context.Context, rep *Report) error {
	start := time.Now()
	var err error
	if r.dir = r.opt.Dir; r.dir == "" {
		if r.dir, err = os.MkdirTemp("", "razorpay-erpnext-chaos-"); err != nil {
			return err
		}
	} else if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return err
	}
	r.sec = secrets{Webhook: randHex(16), ERPKey: "chaoskey" + randHex(4), ERPSecret: randHex(16),
		RzpKeyID: "rzp_test_" + randHex(7), RzpSecret: randHex(16), Admin: randHex(16), DBPassword: randHex(12)}
	if r.bin = r.opt.Bin; r.bin == "" {
		r.log("building the daemon")
		if r.bin, err = buildDaemon(ctx, r.dir); err != nil {
			return err
		}
	}
	r.log("starting the run's own %s server (logs in %s)", r.opt.Driver, r.dir)
	if r.db, err = newDatabase(ctx, r.opt.Driver, r.dir, r.sec.DBPassword); err != nil {
		return err
	}
	if r.poll, err = r.db.poll(); err != nil {
		return err
	}
	if err := r.startSimulators(); err != nil {
		return err
	}
	r.log("building the scenario: %d payments", r.opt.Payments)
	rnd := mrand.New(mrand.NewPCG(r.opt.Seed, 0x6368616f73))
	sc, err := buildScenario(r.site, r.rzp, r.opt.Scenario, rnd)
	if err != nil {
		return err
	}
	rep.scenario = sc
	rep.Figures.Scenario = describeScenario(sc)
	if err := r.startReplicas(ctx); err != nil {
		return err
	}
	rep.Durations.SetUp = seconds(time.Since(start))
	return nil
}

// startSimulators serves the ERPNext simulator (directly, and behind the fault proxy) and the
// Razorpay simulator's API on loopback ports.
func (r *run) startSimulators() error {
	r.site = erpnextsim.New(erpnextsim.Options{APIKey: r.sec.ERPKey, APISecret: r.sec.ERPSecret})
	r.site.SetLatencyRange(0, 10*time.Millisecond)
	erp, err := r.serve(r.site)
	if err != nil {
		return err
	}
	r.erpBase = "http://" + erp
	r.proxy = newFaultProxy(r.erpBase, r.opt.Faults, r.opt.Seed)
	r.rzp = razorpaysim.New(razorpaysim.Options{KeyID: r.sec.RzpKeyID, KeySecret: r.sec.RzpSecret,
		AccountID: chaosAccount, Seed: int64(r.opt.Seed)})
	return nil
}

// chaosAccount is the Razorpay account id of the run (acc_ + 14 characters).
const chaosAccount = "acc_ChaosRun000001"

// serve serves h on a new loopback port and returns its address.
func (r *run) serve(h http.Handler) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	r.servers = append(r.servers, srv)
	go func() { _ = srv.Serve(l) }()
	return l.Addr().String(), nil
}

// startReplicas writes the configuration, migrates once and starts the serve replicas.
func (r *run) startReplicas(ctx context.Context) error {
	proxyAddr, err := r.serve(r.proxy)
	if err != nil {
		return err
	}
	rzpAddr, err := r.serve(r.rzp)
	if err != nil {
		return err
	}
	env := r.sec.env()
	for i := 0; i < r.opt.Replicas; i++ {
		pub, err1 := freePort()
		adm, err2 := freePort()
		if err1 != nil || err2 != nil {
			return fmt.Errorf("free ports: %v %v", err1, err2)
		}
		rp := &replica{name: fmt.Sprintf("replica%d", i+1), bin: r.bin, env: env,
			listen: fmt.Sprintf("127.0.0.1:%d", pub), admin: fmt.Sprintf("127.0.0.1:%d", adm),
			config:  filepath.Join(r.dir, fmt.Sprintf("replica%d.yaml", i+1)),
			logPath: filepath.Join(r.dir, fmt.Sprintf("replica%d.log", i+1))}
		if err := writeConfig(rp.config, configSpec{Listen: rp.listen, AdminListen: rp.admin, Driver: r.db.driver(), DSN: r.db.dsn(),
			ERPNextURL: "http://" + proxyAddr, RazorpayURL: "http://" + rzpAddr, AccountID: chaosAccount,
			Workers: r.opt.Workers}); err != nil {
			return err
		}
		r.reps = append(r.reps, rp)
	}
	r.cfgPath = r.reps[0].config
	out, code, err := runTool(ctx, r.bin, env, filepath.Join(r.dir, "migrate.log"), "migrate", "--config", r.cfgPath)
	if err != nil || code != 0 {
		return fmt.Errorf("migrate: exit %d, %v: %s", code, err, out)
	}
	for _, rp := range r.reps {
		if err := rp.start(ctx); err != nil {
			return err
		}
	}
	r.log("%d replicas serving", len(r.reps))
	return nil
}

// restart starts a killed replica again. A start that fails (serve exits while the database is
// still coming back) is tried again once the database answers a ping (bounded), ten tries in all.
func (r *run) restart(ctx context.Context, rp *replica) error {
	var err error
	for try := 0; try < 10 && ctx.Err() == nil; try++ {
		if err = rp.start(ctx); err == nil {
			if try > 0 {
				r.restartsF.Add(1)
			}
			return nil
		}
		if werr := waitUntil(ctx, 60*time.Second, func() bool { return r.poll.PingContext(ctx) == nil }, nil); werr != nil {
			return fmt.Errorf("%w (and the database did not answer: %v)", err, werr)
		}
	}
	return err
}

// close stops everything the run started and removes its directory unless asked to keep it.
func (r *run) close() {
	for _, rp := range r.reps {
		rp.stop(40 * time.Second) // the daemon drains its workers in ≤ 20 s
	}
	for _, s := range r.servers {
		_ = s.Close()
	}
	if r.rzp != nil {
		r.rzp.Close()
	}
	if r.poll != nil {
		r.poll.Close()
	}
	if r.db != nil {
		r.db.stop(30 * time.Second)
		r.db.remove()
	}
	if r.dir != "" && r.opt.Dir == "" && !r.opt.Keep {
		_ = os.RemoveAll(r.dir)
	}
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func seconds(d time.Duration) float64 { return float64(d.Milliseconds()) / 1000 }

// decodeJSON decodes b into v, ignoring a failure (a report field stays empty).
func decodeJSON(b []byte, v any) {
	_ = json.Unmarshal([]byte(strings.TrimSpace(string(b))), v)
}
