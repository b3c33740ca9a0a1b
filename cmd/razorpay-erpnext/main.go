// Command razorpay-erpnext books Razorpay payments into ERPNext exactly once. See README.md
// and DESIGN.md §6 for the commands; this package only wires the parts together.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// Exit codes (DESIGN.md §6).
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
	exitParked  = 3
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// Main is the whole program with its outside world injected, so tests can run any command.
type Main struct {
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
}

// exitError carries an exit code other than 1 out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func usageErr(format string, a ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, a...)}
}

// Run executes args (without the program name) and returns the exit code.
func (m *Main) Run(ctx context.Context, args []string) int {
	if m.Getenv == nil {
		m.Getenv = os.Getenv
	}
	root := &cobra.Command{
		Use:           "razorpay-erpnext",
		Short:         "Book Razorpay payments into ERPNext exactly once",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(m.Stdout)
	root.SetErr(m.Stderr)
	root.SetArgs(args)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageErr("%v", err) })
	root.AddCommand(m.serveCmd(), m.migrateCmd(), m.demoCmd(), m.simulateCmd(), m.versionCmd(), m.reconcileCmd())
	root.AddCommand(m.eventsCmd(), m.checkCmd())
	root.AddCommand(m.explainCmd())
	needSubcommand(root)
	safeOut, safeErr := &termWriter{w: m.Stdout}, &termWriter{w: m.Stderr}
	defer safeErr.Flush()
	defer safeOut.Flush()
	out := &countingWriter{w: safeOut}
	root.SetOut(out)
	root.SetErr(safeErr)
	m.Stdout, m.Stderr = out, safeErr
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code := exitCode(err)
	// --json promises one JSON object on stdout: a command that failed before printing one
	// prints the error as that object (the message still goes to stderr too).
	if wantsJSON(args) && out.n == 0 {
		_ = json.NewEncoder(out).Encode(map[string]any{"error": err.Error(), "exit_code": code})
	}
	var ee *exitError
	if !errors.As(err, &ee) || ee.err != nil {
		fmt.Fprintln(m.Stderr, "razorpay-erpnext:", err)
	}
	return code
}

// exitCode maps a command's error to the exit codes of DESIGN.md §6.
func exitCode(err error) int {
	var ee *exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		return ee.code
	case isUsage(err):
		return exitUsage
	}
	return exitFailure
}

// isUsage recognises cobra's own argument errors (unknown command, wrong arg count).
func isUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "accepts ", "requires ", "required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

func (m *Main) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintln(m.Stdout, "razorpay-erpnext", version)
			return nil
		},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	m := &Main{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	code := m.Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// needSubcommand makes a command that only groups others a usage error when it is run bare or
// with an unknown subcommand (DESIGN.md §6: exit 2), instead of printing help and exiting 0.
func needSubcommand(c *cobra.Command) {
	c.Args = cobra.NoArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		_ = cmd.Help()
		return usageErr("%s needs a subcommand", cmd.CommandPath())
	}
}

// countingWriter counts what a command wrote to stdout.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

// wantsJSON reports whether the command line asked for --json output.
func wantsJSON(args []string) bool {
	for _, a := range args {
		if a == "--json" || a == "--json=true" {
			return true
		}
	}
	return false
}
