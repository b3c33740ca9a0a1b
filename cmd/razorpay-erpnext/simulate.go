package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

func (m *Main) simulateCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "simulate",
		Short: "Serve a simulator of an outside system (erpnext, razorpay)",
	}
	c.AddCommand(m.simulateERPNextCmd(), m.simulateRazorpayCmd())
	needSubcommand(c)
	return c
}

func (m *Main) simulateERPNextCmd() *cobra.Command {
	var (
		listen, key, secret, seed, ver string
		profile, roles                 string
		latency, lateDelay             time.Duration
		failNext, failStatus           int
		dropAfterCommit, commitLate    int
	)
	c := &cobra.Command{
		Use:   "erpnext --listen ADDR --api-key K --api-secret S [--seed FILE] [faults...]",
		Short: "Serve the ERPNext v15 simulator (default company: see README)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if listen == "" || key == "" || secret == "" {
				return usageErr("--listen, --api-key and --api-secret are required")
			}
			prof, err := erpnextsim.ProfileByName(profile)
			if err != nil {
				return usageErr("%v", err)
			}
			opt := erpnextsim.Options{APIKey: key, APISecret: secret, Version: ver, Profile: prof}
			if roles != "" {
				for _, r := range strings.Split(roles, ",") {
					if r = strings.TrimSpace(r); r != "" {
						opt.APIRoles = append(opt.APIRoles, r)
					}
				}
			}
			site := erpnextsim.New(opt)
			if seed != "" {
				f, err := os.Open(seed)
				if err != nil {
					return err
				}
				err = site.LoadSeed(f)
				f.Close()
				if err != nil {
					return fmt.Errorf("seed %s: %w", seed, err)
				}
			}
			site.SetLatency(latency)
			if failNext > 0 {
				site.FailNext(failNext, failStatus)
			}
			if dropAfterCommit > 0 {
				site.DropResponseAfterCommit(dropAfterCommit)
			}
			if commitLate > 0 {
				site.CommitLate(commitLate, lateDelay)
			}
			l, err := net.Listen("tcp", listen)
			if err != nil {
				return err
			}
			srv := &http.Server{Handler: site, ReadHeaderTimeout: 5 * time.Second}
			shown := ""
			if profile != "" && profile != "none" {
				shown = fmt.Sprintf(", latency profile %q", profile)
			}
			fmt.Fprintf(m.Stdout, "ERPNext simulator on http://%s (company %q%s)\n", l.Addr(), erpnextsim.DefaultCompany, shown)
			go func() {
				<-cmd.Context().Done()
				srv.Close()
			}()
			if err := srv.Serve(l); err != nil && err != http.ErrServerClosed {
				return err
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&listen, "listen", "", "address to listen on, e.g. 127.0.0.1:8000")
	f.StringVar(&key, "api-key", "", "API key of the simulated API user")
	f.StringVar(&secret, "api-secret", "", "API secret of the simulated API user")
	f.StringVar(&seed, "seed", "", "JSON file with customers and sales_invoices to create")
	f.StringVar(&ver, "version", "15.72", "Frappe behaviour: 15.72 (client names kept) or 15.44 (discarded)")
	f.StringVar(&profile, "profile", "", "latency profile: real-v15 (the recorded site's service times, 2 request workers) or none")
	f.StringVar(&roles, "api-roles", "", "comma-separated roles of the API user (default: Accounts User,Sales User)")
	f.DurationVar(&latency, "latency", 0, "fault: delay every request by this long")
	f.IntVar(&failNext, "fail-next", 0, "fault: fail the next N requests with --fail-status")
	f.IntVar(&failStatus, "fail-status", 500, "fault: status for --fail-next")
	f.IntVar(&dropAfterCommit, "drop-after-commit", 0, "fault: the next N writes commit, then answer a 504 page")
	f.IntVar(&commitLate, "commit-late", 0, "fault: the next N writes commit only after --commit-late-delay")
	f.DurationVar(&lateDelay, "commit-late-delay", 3*time.Second, "fault: delay for --commit-late")
	return c
}
