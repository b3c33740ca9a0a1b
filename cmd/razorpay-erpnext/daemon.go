package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/mattn/go-isatty"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/config"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/httpapi"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/operator"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/wire"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// daemon is one running connector: store, ERPNext client, workers and the two listeners.
type daemon struct {
	cfg  connector.Config
	log  zerolog.Logger
	db   *store.DB
	conn *wire.Core
	ops  *operator.Operator // replay, rebook, dismiss and the history, for the console
	pub  net.Listener       // webhooks, /healthz
	adm  net.Listener       // /metrics, /readyz, the console
	erp  *frappe.Client
	rzp  *razorpay.Client // nil without razorpay.key_id/key_secret
	// grace is how long shutdown lets the workers finish the events they hold (drainGrace).
	grace time.Duration
}

// newLogger builds the zerolog logger of log.level and log.format.
func newLogger(w io.Writer, cfg config.Log) zerolog.Logger {
	w = rawWriter(w)
	lvl, err := zerolog.ParseLevel(cfg.Level)
	if err != nil || cfg.Level == "" {
		lvl = zerolog.InfoLevel
	}
	if cfg.Format == "console" {
		f, isFile := w.(*os.File)
		color := isFile && isatty.IsTerminal(f.Fd()) // no ANSI codes in files and pipes
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: time.RFC3339, NoColor: !color}
	}
	return zerolog.New(w).Level(lvl).With().Timestamp().Logger()
}

// openDaemon opens and migrates the store, builds the clients and binds both listeners (so a
// port in use fails here, before anything runs).
func openDaemon(ctx context.Context, cfg connector.Config, log zerolog.Logger) (*daemon, error) {
	db, err := store.Open(ctx, cfg.Database.Driver, cfg.Database.DSN)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate store: %w", err)
	}
	erp, err := newERPClient(cfg)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("erpnext client: %w", err)
	}
	opts := wire.Options{Config: cfg, Store: db, ERP: erp, Log: log}
	var rzp *razorpay.Client
	if cfg.Razorpay.KeyID != "" && cfg.Razorpay.KeySecret != "" {
		rzp, err = newRazorpayClient(cfg, 0)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("razorpay client: %w", err)
		}
		opts.Razorpay = rzp
	}
	conn, err := wire.New(opts)
	if err != nil {
		db.Close()
		return nil, err
	}
	d := &daemon{cfg: cfg, log: log, db: db, conn: conn, ops: conn.Operator(), erp: erp, rzp: rzp, grace: drainGrace}
	if d.pub, err = net.Listen("tcp", cfg.Listen); err != nil {
		db.Close()
		return nil, fmt.Errorf("listen %s: %w", cfg.Listen, err)
	}
	if cfg.AdminListen != "" {
		if d.adm, err = net.Listen("tcp", cfg.AdminListen); err != nil {
			d.pub.Close()
			db.Close()
			return nil, fmt.Errorf("admin_listen %s: %w", cfg.AdminListen, err)
		}
	}
	return d, nil
}

// run serves until ctx is cancelled (SIGTERM or SIGINT in main), then shuts down in order:
// stop taking webhooks (new connections are refused, in-flight requests finish, 10 s at most),
// stop the reconcile schedule (a run in progress is cancelled and waited for), drain the
// workers (no new claims; events in progress finish within d.grace, else they are
// interrupted and written back as retries), stop retention, close the store last.
func (d *daemon) run(ctx context.Context) error {
	in := d.conn.Intake()
	pub := &http.Server{Handler: httpapi.Public(in, d.cfg.WebhookPath), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second}
	servers := []*http.Server{pub}
	listeners := []net.Listener{httpapi.PublicListener(d.pub, in)}
	bctx, stopBackground := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBackground()
	if d.adm != nil {
		servers = append(servers, &http.Server{Handler: d.adminHandler(bctx), ReadHeaderTimeout: 5 * time.Second})
		listeners = append(listeners, d.adm)
	}
	errc := make(chan error, len(servers))
	for i, s := range servers {
		go func(s *http.Server, l net.Listener) {
			if err := s.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		}(s, listeners[i])
	}
	wctx, stopWorkers := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		d.conn.Run(wctx)
	}()
	rctx, stopRetention := context.WithCancel(context.WithoutCancel(ctx))
	retentionDone := make(chan struct{})
	go func() {
		defer close(retentionDone)
		d.conn.Retention(d.db).Run(rctx, retentionInterval)
	}()
	stopReconcile := d.startReconcileSchedule()
	d.log.Info().Str("listen", d.pub.Addr().String()).Int("workers", d.cfg.Workers).Str("driver", d.cfg.Database.Driver).Msg("serving")
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-errc:
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, s := range servers {
		_ = s.Shutdown(sctx)
	}
	stopBackground()
	stopReconcile()
	d.stopWorkers(&wg, stopWorkers)
	stopRetention()
	<-retentionDone
	if err := d.db.Close(); err != nil && runErr == nil {
		runErr = err
	}
	d.log.Info().Msg("stopped")
	return runErr
}

// retentionInterval is how often serve purges raw webhook bodies past retention.raw_bodies.
const retentionInterval = time.Hour

// drainGrace is how long workers get, after they stop claiming, to finish the events they hold;
// then their context is cancelled and each writes its event back as a retry (an ambiguous
// ERPNext write keeps its fence), so no lease outlives the process.
const drainGrace = 20 * time.Second

// stopWorkers drains the workers (no new claims; events in progress finish), cancels them after
// d.grace, and waits until every worker has written its outcome.
func (d *daemon) stopWorkers(wg *sync.WaitGroup, cancel context.CancelFunc) {
	d.conn.Drain()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d.grace):
		d.log.Warn().Dur("grace", d.grace).Msg("shutdown: workers still busy; interrupting them (their events are retried)")
		cancel()
		<-done
	}
	cancel()
}

func (m *Main) loadConfig(path string) (connector.Config, error) {
	return m.loadConfigScope(path, config.ScopeAll)
}

// loadConfigScope loads the configuration validating only what scope needs (migrate: the
// store), printing its warnings on stderr.
func (m *Main) loadConfigScope(path string, scope config.Scope) (connector.Config, error) {
	if path == "" {
		return connector.Config{}, usageErr("--config FILE is required")
	}
	cfg, warnings, err := config.LoadScope(path, m.Getenv, scope)
	for _, w := range warnings {
		fmt.Fprintln(m.Stderr, "warning:", w)
	}
	return cfg, err
}

func (m *Main) serveCmd() *cobra.Command {
	var path string
	c := &cobra.Command{
		Use:   "serve --config FILE",
		Short: "Run the webhook server, the workers and the reconcile schedule",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := m.loadConfig(path)
			if err != nil {
				return err
			}
			d, err := openDaemon(cmd.Context(), cfg, newLogger(m.Stderr, cfg.Log))
			if err != nil {
				return err
			}
			return d.run(cmd.Context())
		},
	}
	c.Flags().StringVar(&path, "config", "", "configuration file (YAML)")
	return c
}

func (m *Main) migrateCmd() *cobra.Command {
	var path string
	c := &cobra.Command{
		Use:   "migrate --config FILE",
		Short: "Create or upgrade the connector's database tables (needs only the database section)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := m.loadConfigScope(path, config.ScopeStore)
			if err != nil {
				return err
			}
			db, err := store.Open(cmd.Context(), cfg.Database.Driver, cfg.Database.DSN)
			if err != nil {
				return err
			}
			defer db.Close()
			if err := db.Migrate(cmd.Context()); err != nil {
				return err
			}
			fmt.Fprintf(m.Stdout, "migrations applied (%s)\n", cfg.Database.Driver)
			return nil
		},
	}
	c.Flags().StringVar(&path, "config", "", "configuration file (YAML)")
	return c
}

// newERPClient is the Frappe client of the configured site.
func newERPClient(cfg connector.Config) (*frappe.Client, error) {
	return frappe.New(frappe.Config{URL: cfg.ERPNext.URL, APIKey: cfg.ERPNext.APIKey, APISecret: cfg.ERPNext.APISecret,
		Timeout: cfg.ERPNext.Timeout.D(), MaxRetryAfter: cfg.ERPNext.MaxRetryAfter.D()})
}

// newRazorpayClient is the Razorpay API client of the configured keys; timeout 0 is the
// client's default.
func newRazorpayClient(cfg connector.Config, timeout time.Duration) (*razorpay.Client, error) {
	return razorpay.NewClient(razorpay.ClientConfig{BaseURL: cfg.Razorpay.APIURL, KeyID: cfg.Razorpay.KeyID,
		KeySecret: cfg.Razorpay.KeySecret, Timeout: timeout, MaxRetryAfter: cfg.Razorpay.MaxRetryAfter.D()})
}
