package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/operator"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

func (m *Main) eventsShowCmd(path *string) *cobra.Command {
	var asJSON bool
	var wait time.Duration
	c := &cobra.Command{
		Use:   "show ID [--wait D] [--json]",
		Short: "Show an event: raw body, attempts, last error (ERPNext's message), result",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			conn, rows, err := m.showSettled(ctx, *path, args[0], wait)
			if err != nil {
				return err
			}
			defer conn.close()
			if busy := unsettled(rows); busy > 0 && wait > 0 {
				fmt.Fprintf(m.Stderr, "warning: %d event(s) of %s still pending or processing after %s\n", busy, args[0], wait)
			}
			if asJSON {
				views := make([]eventView, 0, len(rows))
				for _, r := range rows {
					v := viewOf(r, true)
					if v.History, err = conn.db.EventHistory(ctx, r.ID); err != nil {
						return err
					}
					_, v.AttemptsInAll, _ = operator.Attempts(r, v.History)
					views = append(views, v)
				}
				return json.NewEncoder(m.Stdout).Encode(map[string]any{"events": views})
			}
			for i, r := range rows {
				if i > 0 {
					fmt.Fprintln(m.Stdout)
				}
				m.printEvent(ctx, conn.db, r)
			}
			return nil
		},
	}
	c.Flags().DurationVar(&wait, "wait", 0, "first wait up to this long (e.g. 30s) until ID names an event and none of its events is pending or processing")
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return c
}

// showSettled is eventsOf for show. With wait > 0 it first waits, looking every 100 ms, until
// id names at least one event and none of them is pending or processing, or wait has passed:
// a webhook may not be stored yet (Razorpay, and its simulator, answer the call that caused it
// before the webhook is delivered), or be stored and still being booked. Past wait it returns
// what id names then, or the error that it names nothing. A store that cannot be reached is an
// error at once.
func (m *Main) showSettled(ctx context.Context, path, id string, wait time.Duration) (*cliConnector, []connector.InboxEvent, error) {
	conn, err := m.connectorFor(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	deadline := time.Now().Add(wait)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		rows, err := conn.ops.FindEvents(ctx, id)
		over := !time.Now().Before(deadline)
		switch {
		case err == nil && (over || unsettled(rows) == 0):
			return conn, rows, nil
		case err != nil && (over || errors.Is(err, connector.ErrStoreUnavailable)):
			conn.close()
			return nil, nil, err
		}
		select {
		case <-ctx.Done():
			conn.close()
			return nil, nil, ctx.Err()
		case <-tick.C:
		}
	}
}

func (m *Main) printEvent(ctx context.Context, db *store.DB, r connector.InboxEvent) {
	w := m.Stdout
	field := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "%-16s %s\n", k+":", v)
		}
	}
	field("event id", r.EventID)
	field("row", strconv.FormatInt(r.ID, 10))
	field("account", r.AccountID)
	field("event", r.Event)
	field("business key", r.BusinessKey)
	field("status", string(r.Status))
	hist, err := db.EventHistory(ctx, r.ID)
	if err != nil {
		fmt.Fprintf(w, "%-16s %v\n", "history:", err)
	}
	field(operator.AttemptsLine(r, hist))
	field("received", r.ReceivedAt.UTC().Format(time.RFC3339))
	if r.Status == connector.StatusPending {
		field("next attempt", r.NextAttemptAt.UTC().Format(time.RFC3339))
	}
	field("updated", r.UpdatedAt.UTC().Format(time.RFC3339))
	if r.ResultName != "" {
		field("result", r.ResultDoctype+" "+r.ResultName)
	}
	switch r.Status {
	case connector.StatusDone, connector.StatusDuplicate, connector.StatusSkipped:
		field("outcome", r.LastError) // how it ended, not an error
	default:
		field("last error", r.LastError)
	}
	if r.BusinessKey != "" {
		if b, err := db.GetBooking(ctx, r.BusinessKey); err == nil {
			line := fmt.Sprintf("%s %s %s %s", b.State, b.Kind, b.Doctype, b.Name)
			if b.Invoice != "" { // a settlement's booking pays no invoice
				line += " (" + b.Invoice + ")"
			}
			field("booking", line)
		}
	}
	for i, h := range hist {
		k := ""
		if i == 0 {
			k = "history:"
		}
		line := fmt.Sprintf("%s %s by %s", h.At.UTC().Format(time.RFC3339), h.Action, h.Actor)
		if h.Detail != "" {
			line += ": " + shorten(h.Detail, 300)
		}
		fmt.Fprintf(w, "%-16s %s\n", k, line)
	}
	switch {
	case r.RawBody == nil:
		fmt.Fprintln(w, "body:            (purged by retention; the event can no longer be replayed)")
	default:
		var pretty bytes.Buffer
		if json.Indent(&pretty, r.RawBody, "  ", "  ") == nil {
			fmt.Fprintf(w, "body:\n  %s\n", pretty.String())
		} else {
			fmt.Fprintf(w, "body (not JSON): %q\n", shorten(string(r.RawBody), 2000))
		}
	}
}
