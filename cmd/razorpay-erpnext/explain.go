package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/config"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/wire"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

func (m *Main) explainCmd() *cobra.Command {
	var path, payload, paymentID, settlementID string
	var asJSON bool
	c := &cobra.Command{
		Use:   "explain --config FILE (--payload FILE | --payment pay_ID | --settlement setl_ID) [--json]",
		Short: "Show what booking a payment (or posting a settlement) would do, reading ERPNext only (a dry run)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if n := countSet(payload, paymentID, settlementID); n != 1 {
				return usageErr("give exactly one of --payload FILE, --payment pay_ID or --settlement setl_ID")
			}
			cfg, err := m.loadConfig(path)
			if err != nil {
				return err
			}
			conn, opts, rzp, closeStore, err := m.explainConnector(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			defer closeStore()
			var ev *razorpay.Event
			var source string
			switch {
			case payload != "":
				ev, err = payloadEvent(payload)
			case settlementID != "":
				ev, err = settlementEvent(cmd.Context(), cfg, rzp, settlementID)
			default:
				ev, source, err = paymentEvent(cmd.Context(), cfg, rzp, opts.Store, paymentID)
			}
			if err != nil {
				return err
			}
			x, err := conn.Explain(cmd.Context(), ev)
			if err != nil {
				return err
			}
			x.Source = source
			return m.printExplained(x, asJSON)
		},
	}
	f := c.Flags()
	f.StringVar(&path, "config", "", "configuration file (YAML)")
	f.StringVar(&payload, "payload", "", "a webhook body (JSON file) to explain")
	f.StringVar(&paymentID, "payment", "", "a Razorpay payment id to fetch and explain")
	f.StringVar(&settlementID, "settlement", "", "a Razorpay settlement id to fetch and explain (its Journal Entry)")
	f.BoolVar(&asJSON, "json", false, "print one JSON object")
	return c
}

// explainConnector is the dry run's Connector: ERPNext, the store when one exists (read only:
// explain never creates or migrates one) and Razorpay when its keys are configured (rzp nil
// otherwise). closeStore closes the store, if any.
func (m *Main) explainConnector(ctx context.Context, cfg config.Config) (conn *wire.Core, opts wire.Options, rzp *razorpay.Client, closeStore func(), err error) {
	closeStore = func() {}
	erp, err := newERPClient(cfg)
	if err != nil {
		return nil, opts, nil, closeStore, err
	}
	opts = wire.Options{Config: cfg, ERP: erp, Log: zerolog.Nop()}
	// The store, when there is one, tells what the worker would find booked already.
	if db, err := store.OpenExisting(ctx, cfg.Database.Driver, cfg.Database.DSN); err == nil {
		closeStore = func() { db.Close() }
		opts.Store = db
	} else if !errors.Is(err, store.ErrNotMigrated) {
		fmt.Fprintf(m.Stderr, "warning: %v; explaining without the connector's own bookings\n", err)
	}
	if cfg.Razorpay.KeyID != "" && cfg.Razorpay.KeySecret != "" {
		if rzp, err = newRazorpayClient(cfg, 0); err != nil {
			return nil, opts, nil, closeStore, err
		}
		opts.Razorpay = rzp
	}
	conn, err = wire.New(opts)
	return conn, opts, rzp, closeStore, err
}

// payloadEvent parses the webhook body in the file path.
func payloadEvent(path string) (*razorpay.Event, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ev, err := razorpay.ParseEvent(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ev, nil
}

// settlementEvent is a settlement.processed event of settlement id as Razorpay's API returns it.
func settlementEvent(ctx context.Context, cfg config.Config, rzp *razorpay.Client, id string) (*razorpay.Event, error) {
	if rzp == nil {
		return nil, errors.New("--settlement needs razorpay.key_id and razorpay.key_secret in the configuration (the settlement and its rows are read from Razorpay)")
	}
	st, err := rzp.GetSettlement(ctx, id)
	if err != nil {
		return nil, err
	}
	return &razorpay.Event{Entity: "event", Event: connector.EventSettlementProcessed, AccountID: cfg.Razorpay.AccountID, Settlement: st, CreatedAt: st.CreatedAt}, nil
}

// printExplained prints x as JSON or as text. It returns exit 3 (finished, a person must look)
// when the worker would park, or when a read failed and the plan could not be made (retry: the
// reason says what failed).
func (m *Main) printExplained(x *connector.Explanation, asJSON bool) error {
	if asJSON {
		if err := json.NewEncoder(m.Stdout).Encode(x); err != nil {
			return err
		}
	} else {
		printExplanation(m.Stdout, x)
	}
	if x.Action == connector.ExplainPark || x.Action == connector.ExplainRetry {
		return &exitError{code: exitParked}
	}
	return nil
}

// paymentEvent is the event `explain --payment` explains: the payment as Razorpay's API
// returns it now, or else — no API keys, or Razorpay refuses the id (a payment only a webhook
// brought, a test payment of another mode) or cannot be reached — the body the store kept of
// the payment's receipt event, with source saying which. Without keys and with nothing stored,
// the error is a configuration failure (exit 1), not a usage error: the command line is right.
func paymentEvent(ctx context.Context, cfg connector.Config, rzp *razorpay.Client, st connector.Store, paymentID string) (*razorpay.Event, string, error) {
	var apiErr error
	if rzp != nil {
		p, err := rzp.GetPayment(ctx, paymentID)
		if err == nil {
			return &razorpay.Event{Entity: "event", Event: "payment.captured", AccountID: cfg.Razorpay.AccountID, Payment: p, CreatedAt: p.CreatedAt}, "", nil
		}
		apiErr = err
	}
	row, err := storedReceiptEvent(ctx, st, paymentID)
	if err != nil {
		return nil, "", err
	}
	switch {
	case row != nil:
		ev, err := razorpay.ParseEvent(row.RawBody)
		if err != nil {
			return nil, "", fmt.Errorf("the stored body of event %s: %w", row.EventID, err)
		}
		why := "no razorpay.key_id/key_secret to fetch it from Razorpay"
		if apiErr != nil {
			why = "Razorpay did not give it: " + shorten(apiErr.Error(), 200)
		}
		return ev, fmt.Sprintf("the stored body of event %s (%s, received %s; %s)", row.EventID, row.Event,
			row.ReceivedAt.UTC().Format(time.RFC3339), why), nil
	case apiErr != nil:
		return nil, "", apiErr
	}
	return nil, "", fmt.Errorf("--payment %s: the store holds no event of it, and razorpay.key_id and razorpay.key_secret are not configured to fetch it from Razorpay; set them, or explain a body with --payload FILE", paymentID)
}

// storedReceiptEvent is the stored receipt event of paymentID whose body is kept: the one a
// worker finished as done, else the latest. nil when there is none (or no store).
func storedReceiptEvent(ctx context.Context, st connector.Store, paymentID string) (*connector.InboxEvent, error) {
	if st == nil {
		return nil, nil
	}
	rows, err := st.FindEvents(ctx, paymentID)
	if err != nil {
		return nil, err
	}
	var best *connector.InboxEvent
	for i := range rows {
		r := &rows[i]
		if r.BusinessKey != paymentID || r.RawBody == nil || connector.RouteOf(r.Event) != connector.RouteReceipt {
			continue
		}
		if best == nil || best.Status != connector.StatusDone {
			best = r // rows are oldest first: the latest, unless a done one came before
		}
	}
	return best, nil
}

func printExplanation(w io.Writer, x *connector.Explanation) {
	if x.Source != "" {
		fmt.Fprintf(w, "explained from %s\n", x.Source)
	}
	fmt.Fprintf(w, "%s %s → %s", x.Event, x.Key, strings.ToUpper(x.Action))
	if x.Existing != "" {
		fmt.Fprintf(w, " %s", x.Existing)
	}
	fmt.Fprintln(w)
	if x.Reason != "" {
		fmt.Fprintf(w, "  %s\n", x.Reason)
	}
	if len(x.Fields) > 0 {
		fmt.Fprintln(w)
	}
	for _, f := range x.Fields {
		fmt.Fprintf(w, "  %-32s %s\n  %-32s   ← %s\n", f.Field, f.Value, "", f.Source)
	}
	printSettlementPlan(w, x)
	if x.Action == connector.ExplainCreate {
		fmt.Fprintln(w, "\n  Nothing was written. `serve` would insert this entry with docstatus 1.")
	}
}

// countSet counts the non-empty values.
func countSet(values ...string) int {
	n := 0
	for _, v := range values {
		if v != "" {
			n++
		}
	}
	return n
}
