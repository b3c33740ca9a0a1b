package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/operator"
)

func (m *Main) eventsReplayCmd(path *string) *cobra.Command {
	var status string
	var rebook bool
	c := &cobra.Command{
		Use:   "replay ID | --status parked",
		Short: "Send events back to pending; booking looks up before it creates, so a replay never books twice",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (len(args) == 1) == (status != "") {
				return usageErr("give either an ID or --status (e.g. --status parked)")
			}
			if status != "" && !connector.Status(status).Replayable() {
				return usageErr("--status %q: only parked, dead, skipped or dismissed events can be replayed", status)
			}
			if rebook && len(args) == 0 {
				return usageErr("--rebook takes one ID, never a --status")
			}
			ctx := cmd.Context()
			conn, err := m.connectorFor(ctx, *path)
			if err != nil {
				return err
			}
			defer conn.close()
			if rebook {
				forgot, err := conn.ops.ForgetCancelledBooking(ctx, args[0])
				if err != nil {
					return err
				}
				if forgot != "" {
					fmt.Fprintf(m.Stdout, "%s: forgot %s (cancelled or deleted in ERPNext); it will be booked again\n", args[0], forgot)
				}
			}
			var rows []connector.InboxEvent
			if status != "" {
				rows, err = conn.db.ListEvents(ctx, connector.EventFilter{Status: connector.Status(status)})
			} else {
				rows, err = conn.ops.FindEvents(ctx, args[0])
			}
			if err != nil {
				return err
			}
			return m.replayEvents(ctx, conn, rows, rebook)
		},
	}
	c.Flags().StringVar(&status, "status", "", "replay every event with this status (parked, dead, skipped, dismissed)")
	c.Flags().BoolVar(&rebook, "rebook", false, "the payment's entry was cancelled or deleted in ERPNext on purpose: book it again (refused while the entry is live)")
	return c
}

// replayEvents replays rows by hand, printing what each replay did and a count. It fails when
// an event was busy, or when nothing was replayed and some replay was refused.
func (m *Main) replayEvents(ctx context.Context, conn *cliConnector, rows []connector.InboxEvent, rebook bool) error {
	n, busy, refused, err := m.act(rows, func(r connector.InboxEvent) (operator.RowAction, error) {
		return conn.ops.Replay(ctx, r, rebook, "hand")
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "%d event(s) replayed; a running daemon books them within its poll interval\n", n)
	if busy > 0 {
		return busyErr(busy)
	}
	if n == 0 && refused > 0 {
		return &exitError{code: exitFailure, err: errors.New("nothing replayed")}
	}
	return nil
}

// act does do to each row in turn, printing what it did, and counts the rows changed, busy and
// refused; it stops at the first error.
func (m *Main) act(rows []connector.InboxEvent, do func(connector.InboxEvent) (operator.RowAction, error)) (n, busy, refused int, err error) {
	for _, r := range rows {
		a, err := do(r)
		if err != nil {
			return n, busy, refused, err
		}
		fmt.Fprintln(m.Stdout, a.Message)
		switch {
		case a.Changed:
			n++
		case a.Busy:
			busy++
		case a.Refused:
			refused++
		}
	}
	return n, busy, refused, nil
}

// busyErr is the exit of replay and dismiss when busy events were claimed by a worker after
// they were listed: changing them then would drop the worker's outcome (perhaps a booking), so
// the store refused, and the person should look again once the worker is done.
func busyErr(busy int) error {
	return &exitError{code: exitFailure, err: fmt.Errorf("%d event(s) are being processed right now; try again", busy)}
}

func (m *Main) eventsDismissCmd(path *string) *cobra.Command {
	var why string
	c := &cobra.Command{
		Use:   "dismiss ID --reason TEXT",
		Short: "Mark events dismissed: kept for the record, never booked",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(why) == "" {
				return usageErr("--reason TEXT is required (it is kept with the event)")
			}
			ctx := cmd.Context()
			conn, rows, err := m.eventsOf(ctx, *path, args[0])
			if err != nil {
				return err
			}
			defer conn.close()
			who := m.Getenv("USER")
			if who == "" {
				who = "an operator"
			}
			n, busy, _, err := m.act(rows, func(r connector.InboxEvent) (operator.RowAction, error) {
				return conn.ops.Dismiss(ctx, r, who, why)
			})
			if err != nil {
				return err
			}
			if busy > 0 {
				return busyErr(busy)
			}
			if n == 0 {
				return &exitError{code: exitFailure, err: errors.New("nothing dismissed")}
			}
			return nil
		},
	}
	c.Flags().StringVar(&why, "reason", "", "why nobody should book it (kept with the event)")
	return c
}
