package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rs/zerolog"

	"github.com/spf13/cobra"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/config"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/operator"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/wire"
)

// The events commands exit 0 when they did what was asked (a list that shows parked rows is
// still a successful list: alerting on parked payments is the job of /metrics and
// deploy/alerts.yml), 1 when the store fails or an ID matches nothing it can act on, and 2 on
// usage errors.
func (m *Main) eventsCmd() *cobra.Command {
	var path string
	c := &cobra.Command{
		Use:   "events list|show|replay|dismiss --config FILE",
		Short: "Look at inbox events, replay parked ones, dismiss those nobody should book",
		Long: `Inbox events are the webhooks (and reconcile rows) the connector stored.
ID is the event id (X-Razorpay-Event-Id, or reconcile:pay_…) or a business key such as pay_….`,
	}
	c.PersistentFlags().StringVar(&path, "config", "", "configuration file (YAML)")
	c.AddCommand(m.eventsListCmd(&path), m.eventsShowCmd(&path), m.eventsReplayCmd(&path), m.eventsDismissCmd(&path))
	needSubcommand(c)
	return c
}

// openStore loads the configuration and opens the existing, migrated store it names.
func (m *Main) openStore(ctx context.Context, path string) (*store.DB, error) {
	db, _, err := m.openStoreConfig(ctx, path)
	return db, err
}

// openStoreConfig loads the configuration and opens its store, which must exist and be
// migrated: a command never creates or migrates one (store.OpenExisting).
func (m *Main) openStoreConfig(ctx context.Context, path string) (*store.DB, connector.Config, error) {
	cfg, err := m.loadConfig(path)
	if err != nil {
		return nil, cfg, err
	}
	db, err := store.OpenExisting(ctx, cfg.Database.Driver, cfg.Database.DSN)
	return db, cfg, err
}

// eventView is one inbox row as `events list --json` and `events show --json` print it.
type eventView struct {
	ID            int64            `json:"id"`
	AccountID     string           `json:"account_id"`
	EventID       string           `json:"event_id"`
	Event         string           `json:"event"`
	BusinessKey   string           `json:"business_key"`
	Status        connector.Status `json:"status"`
	Attempts      int              `json:"attempts"`
	ReceivedAt    time.Time        `json:"received_at"`
	NextAttemptAt *time.Time       `json:"next_attempt_at,omitempty"`
	LastError     string           `json:"last_error,omitempty"`
	ResultDoctype string           `json:"result_doctype,omitempty"`
	ResultName    string           `json:"result_name,omitempty"`
	UpdatedAt     time.Time        `json:"updated_at"`
	BodyPurged    bool             `json:"body_purged,omitempty"`
	Body          json.RawMessage  `json:"body,omitempty"`
	// AttemptsInAll (show only) counts the worker attempts across replays, the one that
	// finished the event included (connector.Attempts); History is what people did to it.
	AttemptsInAll int                      `json:"attempts_in_all,omitempty"`
	History       []connector.HistoryEntry `json:"history,omitempty"`
}

func viewOf(e connector.InboxEvent, withBody bool) eventView {
	v := eventView{ID: e.ID, AccountID: e.AccountID, EventID: e.EventID, Event: e.Event, BusinessKey: e.BusinessKey,
		Status: e.Status, Attempts: e.Attempts, ReceivedAt: e.ReceivedAt, LastError: e.LastError,
		ResultDoctype: e.ResultDoctype, ResultName: e.ResultName, UpdatedAt: e.UpdatedAt, BodyPurged: e.RawBody == nil}
	if e.Status == connector.StatusPending {
		t := e.NextAttemptAt
		v.NextAttemptAt = &t
	}
	if withBody && json.Valid(e.RawBody) {
		v.Body = e.RawBody
	}
	return v
}

func (m *Main) eventsListCmd(path *string) *cobra.Command {
	var status, since string
	var asJSON bool
	var limit int
	var wait time.Duration
	c := &cobra.Command{
		Use:   "list [--status S] [--since T] [--limit N] [--json]",
		Short: "List inbox events, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f := connector.EventFilter{Status: connector.Status(status), Limit: limit}
			if status != "" && !connector.Status(status).Known() {
				return usageErr("--status %q: want one of %s", status, statusWords())
			}
			if since != "" {
				t, err := parseSince(since, time.Now())
				if err != nil {
					return usageErr("--since: %v", err)
				}
				f.Since = t
			}
			db, err := m.openStore(cmd.Context(), *path)
			if err != nil {
				return err
			}
			defer db.Close()
			rows, err := listSettled(cmd.Context(), db, f, wait)
			if err != nil {
				return err
			}
			if busy := unsettled(rows); busy > 0 && wait > 0 {
				fmt.Fprintf(m.Stderr, "warning: %d listed event(s) still pending or processing after %s\n", busy, wait)
			}
			if asJSON {
				views := make([]eventView, 0, len(rows))
				for _, r := range rows {
					views = append(views, viewOf(r, false))
				}
				return json.NewEncoder(m.Stdout).Encode(map[string]any{"events": views, "count": len(views)})
			}
			printEventTable(m.Stdout, rows)
			return nil
		},
	}
	c.Flags().StringVar(&status, "status", "", "only this status ("+statusWords()+")")
	c.Flags().StringVar(&since, "since", "", "only events received since T: RFC 3339 time, YYYY-MM-DD, or a duration back from now (36h, 7d)")
	c.Flags().IntVar(&limit, "limit", 200, "at most N rows (0 = all)")
	c.Flags().DurationVar(&wait, "wait", 0, "first wait up to this long (e.g. 30s) until no event is pending or processing")
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return c
}

// listSettled lists the events f selects; with wait > 0 it first waits, checking every
// 100 ms, until the store holds no pending or processing event (a webhook just sent is still
// being booked; whatever f's status filter), or wait has passed.
func listSettled(ctx context.Context, db *store.DB, f connector.EventFilter, wait time.Duration) ([]connector.InboxEvent, error) {
	deadline := time.Now().Add(wait)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for wait > 0 {
		n, err := db.CountByStatus(ctx)
		if err != nil {
			return nil, err
		}
		if n[connector.StatusPending]+n[connector.StatusProcessing] == 0 || !time.Now().Before(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
	return db.ListEvents(ctx, f)
}

// unsettled counts the rows a worker has yet to finish (pending or processing).
func unsettled(rows []connector.InboxEvent) int {
	n := 0
	for _, r := range rows {
		if r.Status == connector.StatusPending || r.Status == connector.StatusProcessing {
			n++
		}
	}
	return n
}

// statusWords lists connector.Statuses for usage messages.
func statusWords() string {
	words := make([]string, 0, len(connector.Statuses))
	for _, s := range connector.Statuses {
		words = append(words, string(s))
	}
	return strings.Join(words, ", ")
}

// parseSince reads an RFC 3339 time, a date (midnight UTC) or a duration back from now.
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if d, err := config.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q is not a time (2026-01-31T10:00:00Z), a date (2026-01-31) or a duration (36h, 7d)", s)
}

func printEventTable(w io.Writer, rows []connector.InboxEvent) {
	if len(rows) == 0 {
		fmt.Fprintln(w, "no events")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tRECEIVED (UTC)\tSTATUS\tEVENT\tKEY\tFAILED ATTEMPTS\tRESULT / REASON")
	for _, r := range rows {
		res := r.LastError
		if r.ResultName != "" {
			res = r.ResultDoctype + " " + r.ResultName
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", r.EventID, r.ReceivedAt.UTC().Format("2006-01-02 15:04:05"),
			r.Status, r.Event, r.BusinessKey, r.Attempts, shorten(res, 100))
	}
	tw.Flush()
}

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// cliConnector is a core for one CLI command: the store, the ERPNext client, no workers.
type cliConnector struct {
	*wire.Core
	ops *operator.Operator
	db  *store.DB
}

func (c *cliConnector) close() { c.db.Close() }

// eventsOf builds a cliConnector from the configuration file and finds the events id names
// (an event id or a business key); the caller closes the connector.
func (m *Main) eventsOf(ctx context.Context, path, id string) (*cliConnector, []connector.InboxEvent, error) {
	conn, err := m.connectorFor(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	rows, err := conn.ops.FindEvents(ctx, id)
	if err != nil {
		conn.close()
		return nil, nil, err
	}
	return conn, rows, nil
}

// connectorFor builds a cliConnector from the configuration file.
func (m *Main) connectorFor(ctx context.Context, path string) (*cliConnector, error) {
	db, cfg, err := m.openStoreConfig(ctx, path)
	if err != nil {
		return nil, err
	}
	erp, err := newERPClient(cfg)
	if err != nil {
		db.Close()
		return nil, err
	}
	conn, err := wire.New(wire.Options{Config: cfg, Store: db, ERP: erp, Log: zerolog.Nop()})
	if err != nil {
		db.Close()
		return nil, err
	}
	return &cliConnector{Core: conn, ops: conn.Operator(), db: db}, nil
}
