package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

func (m *Main) eventsShowCmd(path *string) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "show ID [--json]",
		Short: "Show an event: raw body, attempts, last error (ERPNext's message), result",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			conn, rows, err := m.eventsOf(ctx, *path, args[0])
			if err != nil {
				return err
			}
			defer conn.close()
			if asJSON {
				views := make([]eventView, 0, len(rows))
				for _, r := range rows {
					v := viewOf(r, true)
					if v.History, err = conn.db.EventHistory(ctx, r.ID); err != nil {
						return err
					}
					_, v.AttemptsInAll, _ = connector.Attempts(r, v.History)
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
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return c
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
	field(connector.AttemptsLine(r, hist))
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
