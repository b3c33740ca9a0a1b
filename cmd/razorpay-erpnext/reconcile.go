package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/robfig/cron/v3"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/reconcile"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/wire"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

func (m *Main) reconcileCmd() *cobra.Command {
	var (
		path, fromText, toText string
		dryRun, asJSON         bool
	)
	c := &cobra.Command{
		Use:   "reconcile --config FILE [--from T] [--to T] [--dry-run] [--json]",
		Short: "Find payments and refunds Razorpay reports that were never booked, and book them",
		Long: `Sweep the window (default: the last reconcile.window) for captured payments and processed
refunds that have neither a booking nor an inbox row, queue them and book them through the same
path as a webhook; sweep ERPNext's Integration Requests; audit duplicate reference_no and
cancelled bookings. T is RFC 3339 (2026-11-28T10:00:00+05:30) or a date (2026-11-28, midnight in
mapping.timezone), from 2015 up to now, --from before --to (else a usage error). --dry-run
writes nothing anywhere and lists what would be queued.
Exit codes: 0 ok, 1 failure, 2 usage, 3 finished but something needs a person.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := m.loadConfig(path)
			if err != nil {
				return err
			}
			loc, err := time.LoadLocation(cfg.Mapping.Timezone)
			if err != nil {
				return err
			}
			from, err := parseWhen(fromText, loc)
			if err != nil {
				return usageErr("--from: %v", err)
			}
			to, err := parseWhen(toText, loc)
			if err != nil {
				return usageErr("--to: %v", err)
			}
			if err := checkWindow(window{fromText, from}, window{toText, to}, time.Now()); err != nil {
				return usageErr("%v", err)
			}
			return m.reconcile(cmd.Context(), cfg, reconcile.Request{From: from, To: to, DryRun: dryRun, Drain: !dryRun, WaitForLock: time.Minute}, asJSON)
		},
	}
	f := c.Flags()
	f.StringVar(&path, "config", "", "configuration file (YAML)")
	f.StringVar(&fromText, "from", "", "window start (RFC 3339 or YYYY-MM-DD); default: --to minus reconcile.window")
	f.StringVar(&toText, "to", "", "window end (RFC 3339 or YYYY-MM-DD); default: now")
	f.BoolVar(&dryRun, "dry-run", false, "report what would be queued; write nothing anywhere")
	f.BoolVar(&asJSON, "json", false, "print the report as one JSON object on stdout")
	return c
}

// parseWhen reads an RFC 3339 time or a date (midnight in loc); "" is the zero time.
func parseWhen(s string, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, loc); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is neither RFC 3339 (2026-11-28T10:00:00+05:30) nor a date (2026-11-28)", s)
}

// razorpayEpoch is the earliest window bound reconcile accepts: no Razorpay payment is older.
var razorpayEpoch = time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)

// clockSkew is how far past this machine's clock a window bound may lie (another machine's
// "now", a bound typed a moment ago).
const clockSkew = 5 * time.Minute

// window is a --from or --to bound as typed ("" when not given) and as parsed.
type window struct {
	text string
	t    time.Time
}

// checkWindow refuses --from/--to bounds that cannot name a reconcile window: before 2015
// (0001-01-01T00:00:00Z parses to Go's zero time and used to fall back silently to the default
// window), in the future (9999-… listed nothing and failed after printing a table), or from not
// before to.
func checkWindow(from, to window, now time.Time) error {
	for _, b := range []struct {
		flag string
		window
	}{{"--from", from}, {"--to", to}} {
		switch {
		case strings.TrimSpace(b.text) == "":
		case b.t.Before(razorpayEpoch):
			return fmt.Errorf("%s %s is before 2015: Razorpay has no payments that old", b.flag, b.t.Format(time.RFC3339))
		case b.t.After(now.Add(clockSkew)):
			return fmt.Errorf("%s %s is in the future (now is %s)", b.flag, b.t.Format(time.RFC3339), now.UTC().Format(time.RFC3339))
		}
	}
	if from.text != "" && to.text != "" && !from.t.Before(to.t) {
		return fmt.Errorf("--from %s is not before --to %s", from.t.Format(time.RFC3339), to.t.Format(time.RFC3339))
	}
	return nil
}

// reconcile runs one reconcile by hand and prints its report.
func (m *Main) reconcile(ctx context.Context, cfg connector.Config, req reconcile.Request, asJSON bool) error {
	logCfg := cfg.Log
	if lvl, err := zerolog.ParseLevel(logCfg.Level); err != nil || lvl < zerolog.WarnLevel {
		logCfg.Level = "warn" // the report says what happened; per-event lines would bury it
	}
	log := newLogger(m.Stderr, logCfg)
	conn, db, err := openReconciler(ctx, cfg, log, req.DryRun)
	if err != nil {
		return err
	}
	defer db.Close()
	bar := newProgressBar(m.Stderr)
	req.Progress = bar.update
	rep, err := reconcile.Run(ctx, conn.Reconcile(), req)
	bar.finish()
	if rep != nil && (err == nil || !errors.Is(err, reconcile.ErrNoRazorpayAPI) && !errors.Is(err, reconcile.ErrBusy)) {
		if asJSON {
			enc := json.NewEncoder(m.Stdout)
			enc.SetIndent("", "  ")
			if jerr := enc.Encode(rep); jerr != nil {
				return jerr
			}
		} else {
			printReport(m.Stdout, rep)
		}
	}
	if err != nil {
		return err
	}
	if rep.NeedsAttention {
		return &exitError{code: exitParked}
	}
	return nil
}

// openReconciler opens the store (migrating it, except in a dry run, which only checks it is
// migrated) and builds a connector with both API clients.
func openReconciler(ctx context.Context, cfg connector.Config, log zerolog.Logger, dryRun bool) (*wire.Core, *store.DB, error) {
	if cfg.Razorpay.KeyID == "" || cfg.Razorpay.KeySecret == "" {
		return nil, nil, reconcile.ErrNoRazorpayAPI
	}
	rzp, err := newRazorpayClient(cfg, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("razorpay client: %w", err)
	}
	erp, err := newERPClient(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("erpnext client: %w", err)
	}
	// The store must exist and be migrated: reconcile never creates or migrates one (only
	// `migrate` and `serve` do), and --dry-run writes nothing at all.
	db, err := store.OpenExisting(ctx, cfg.Database.Driver, cfg.Database.DSN)
	if err != nil {
		return nil, nil, fmt.Errorf("store: %w", err)
	}
	conn, err := wire.New(wire.Options{Config: cfg, Store: db, ERP: erp, Razorpay: rzp, Log: log})
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return conn, db, nil
}

// startReconcileSchedule runs the reconcile on reconcile.schedule (robfig/cron, standard five
// fields or a descriptor such as "@every 10m", in mapping.timezone) until the returned function
// is called; that function cancels a run in progress and waits for it. Runs in one process never
// overlap (SkipIfStillRunning), and replicas never overlap thanks to the lock row "reconcile".
// The scheduled run queues rows and leaves booking to the workers.
func (d *daemon) startReconcileSchedule() (stop func()) {
	if d.cfg.Reconcile.Schedule == "" {
		return func() {}
	}
	if d.cfg.Razorpay.KeyID == "" || d.cfg.Razorpay.KeySecret == "" {
		d.log.Warn().Msg("reconcile schedule off: razorpay.key_id and razorpay.key_secret are not set")
		return func() {}
	}
	loc, err := time.LoadLocation(d.cfg.Mapping.Timezone)
	if err != nil {
		loc = time.UTC
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := cron.New(cron.WithLocation(loc), cron.WithChain(cron.SkipIfStillRunning(cron.DiscardLogger)))
	_, err = c.AddFunc(d.cfg.Reconcile.Schedule, func() { d.scheduledReconcile(ctx) })
	if err != nil {
		cancel()
		d.log.Error().Err(err).Str("schedule", d.cfg.Reconcile.Schedule).Msg("reconcile schedule off: bad schedule")
		return func() {}
	}
	c.Start()
	d.log.Info().Str("schedule", d.cfg.Reconcile.Schedule).Msg("reconcile scheduled")
	return func() {
		cancel()
		<-c.Stop().Done()
	}
}

func (d *daemon) scheduledReconcile(ctx context.Context) {
	rep, err := reconcile.Run(ctx, d.conn.Reconcile(), reconcile.Request{})
	switch {
	case errors.Is(err, reconcile.ErrBusy):
		d.log.Info().Msg("scheduled reconcile skipped: another process is reconciling")
		return
	case err != nil && ctx.Err() != nil:
		return
	case err != nil:
		d.log.Error().Err(err).Msg("scheduled reconcile failed")
		return
	}
	t := rep.Totals()
	l := d.log.Info()
	if rep.NeedsAttention {
		l = d.log.Warn().Int("parked", len(rep.Parked)).Int("authorized", len(rep.Authorized)).Int("anomalies", len(rep.Anomalies))
	}
	l.Int64("run", rep.RunID).Int("scanned", t.Scanned).Int("already_booked", t.AlreadyBooked).Int("in_inbox", t.InInbox).
		Int("queued", t.Queued).Int("retried_dead", len(rep.Retried)).Strs("warnings", rep.Warnings).Msg("scheduled reconcile done")
}

// printReport writes the human report.
func printReport(w io.Writer, r *reconcile.Report) {
	mode := ""
	if r.DryRun {
		mode = " (dry run: nothing was written)"
	}
	fmt.Fprintf(w, "reconcile %s → %s%s\nRazorpay listed from %s (created before the window, captured inside it)\n\n",
		r.WindowFrom.Format(time.RFC3339), r.WindowTo.Format(time.RFC3339), mode, r.ListedFrom.Format(time.RFC3339))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	queuedCol := "queued"
	if r.DryRun {
		queuedCol = "would queue"
	}
	fmt.Fprintln(tw, "\tscanned\talready booked\tin inbox\t"+queuedCol+"\tbooked\tparked\tpending\tnot booked\t")
	for _, s := range r.Sweeps() {
		c := s.Counts
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", s.Name, c.Scanned, c.AlreadyBooked, c.InInbox,
			c.Queued, c.Booked, c.Parked, c.Pending, c.NotBooked)
	}
	tw.Flush()
	if n := r.Totals().Captured; n > 0 {
		fmt.Fprintf(w, "\ncaptured %d authorized payment(s) (reconcile.capture_authorized) and queued them\n", n)
	}
	title := "queued"
	if r.DryRun {
		title = "would queue"
	}
	printItems(w, title, r.Queued)
	printRetried(w, r)
	printItems(w, "parked (needs a person)", r.Parked)
	printItems(w, "authorized, not captured (needs a person)", r.Authorized)
	printItems(w, "not booked by this version", r.NotBooked)
	printSettlements(w, r.Settlements)
	if len(r.Anomalies) > 0 {
		fmt.Fprintf(w, "\naudit (needs a person):\n")
		for _, a := range r.Anomalies {
			fmt.Fprintf(w, "  %s: %s\n", a.Kind, a.Detail)
		}
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintf(w, "\nwarnings:\n")
		for _, s := range r.Warnings {
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
}

// printRetried writes the report line of the dead events the run sent back to pending, and
// each of them with the failure it died of (or, after a drain, how it ended).
func printRetried(w io.Writer, r *reconcile.Report) {
	if len(r.Retried) == 0 {
		return
	}
	verb := "retried"
	if r.DryRun {
		verb = "would retry"
	}
	fmt.Fprintf(w, "\n%s %d dead event(s) whose last failure was transient (5xx, timeout, connection):\n", verb, len(r.Retried))
	for _, it := range r.Retried {
		line := fmt.Sprintf("  %s %s → %s", it.EventID, it.ID, it.Status)
		if it.Result != "" {
			line += " " + it.Result
		} else if it.Reason != "" {
			line += ": " + it.Reason
		}
		fmt.Fprintln(w, line)
	}
}

func printItems(w io.Writer, title string, items []reconcile.Item) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s (%d):\n", title, len(items))
	for _, it := range items {
		exp, ok := razorpay.Exponent(it.Currency)
		amount := fmt.Sprintf("%d minor units", it.AmountMinor)
		if ok {
			amount = razorpay.FormatMinor(it.AmountMinor, exp)
		}
		line := fmt.Sprintf("  %s %s %s created %s", it.ID, it.Currency, amount, it.CreatedAt.Format(time.RFC3339))
		if it.PaymentRequest != "" {
			line += " Payment Request " + it.PaymentRequest
		}
		if it.Result != "" {
			line += " → " + it.Result
		}
		if it.Reason != "" && it.Status != string(connector.StatusDone) {
			line += ": " + it.Reason
		}
		fmt.Fprintln(w, line)
	}
}

// progressBar draws reconcile progress on stderr when stderr is a terminal, and nothing
// otherwise (a pipe, a file, a test buffer).
type progressBar struct {
	mu    sync.Mutex
	w     io.Writer
	drawn bool
}

func newProgressBar(w io.Writer) *progressBar {
	w = rawWriter(w)
	f, ok := w.(*os.File)
	if !ok {
		return &progressBar{}
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return &progressBar{}
	}
	return &progressBar{w: w}
}

func (b *progressBar) update(p reconcile.Progress) {
	if b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	line := fmt.Sprintf("%s: %d", p.Phase, p.Done)
	if p.Total > 0 {
		const width = 30
		n := p.Done * width / p.Total
		line = fmt.Sprintf("%-20s [%s%s] %d/%d", p.Phase, strings.Repeat("#", n), strings.Repeat(".", width-n), p.Done, p.Total)
	}
	fmt.Fprintf(b.w, "\r\033[K%s", line)
	b.drawn = true
}

func (b *progressBar) finish() {
	if b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn {
		fmt.Fprint(b.w, "\r\033[K")
	}
}
