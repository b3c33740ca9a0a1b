package main

import (
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

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

// erpnextSimFlags are the flags of "simulate erpnext".
type erpnextSimFlags struct {
	listen, key, secret, seed, ver string
	profile, roles                 string
	latency, lateDelay             time.Duration
	failNext, failStatus           int
	dropAfterCommit, commitLate    int
}

func (m *Main) simulateERPNextCmd() *cobra.Command {
	var fl erpnextSimFlags
	c := &cobra.Command{
		Use:   "erpnext --listen ADDR --api-key K --api-secret S [--seed FILE] [faults...]",
		Short: "Serve the ERPNext v15 simulator (default company: see README)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			site, err := fl.site()
			if err != nil {
				return err
			}
			l, err := net.Listen("tcp", fl.listen)
			if err != nil {
				return err
			}
			shown := ""
			if fl.profile != "" && fl.profile != "none" {
				shown = fmt.Sprintf(", latency profile %q", fl.profile)
			}
			fmt.Fprintf(m.Stdout, "ERPNext simulator on http://%s (company %q%s)\n", l.Addr(), erpnextsim.DefaultCompany, shown)
			return serveUntilDone(cmd.Context(), l, site)
		},
	}
	fl.bind(c.Flags())
	return c
}

// site checks the flags and makes the simulated site: seeded from --seed, with the faults
// the flags ask for.
func (fl *erpnextSimFlags) site() (*erpnextsim.Site, error) {
	if fl.listen == "" || fl.key == "" || fl.secret == "" {
		return nil, usageErr("--listen, --api-key and --api-secret are required")
	}
	prof, err := erpnextsim.ProfileByName(fl.profile)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	opt := erpnextsim.Options{APIKey: fl.key, APISecret: fl.secret, Version: fl.ver, Profile: prof}
	if fl.roles != "" {
		for _, r := range strings.Split(fl.roles, ",") {
			if r = strings.TrimSpace(r); r != "" {
				opt.APIRoles = append(opt.APIRoles, r)
			}
		}
	}
	site := erpnextsim.New(opt)
	if fl.seed != "" {
		f, err := os.Open(fl.seed)
		if err != nil {
			return nil, err
		}
		err = site.LoadSeed(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("seed %s: %w", fl.seed, err)
		}
	}
	site.SetLatency(fl.latency)
	if fl.failNext > 0 {
		site.FailNext(fl.failNext, fl.failStatus)
	}
	if fl.dropAfterCommit > 0 {
		site.DropResponseAfterCommit(fl.dropAfterCommit)
	}
	if fl.commitLate > 0 {
		site.CommitLate(fl.commitLate, fl.lateDelay)
	}
	return site, nil
}

func (fl *erpnextSimFlags) bind(f *pflag.FlagSet) {
	f.StringVar(&fl.listen, "listen", "", "address to listen on, e.g. 127.0.0.1:8000")
	f.StringVar(&fl.key, "api-key", "", "API key of the simulated API user")
	f.StringVar(&fl.secret, "api-secret", "", "API secret of the simulated API user")
	f.StringVar(&fl.seed, "seed", "", "JSON file with customers and sales_invoices to create")
	f.StringVar(&fl.ver, "version", "15.72", "Frappe behaviour: 15.72 (client names kept) or 15.44 (discarded)")
	f.StringVar(&fl.profile, "profile", "", "latency profile: real-v15 (the recorded site's service times, 2 request workers) or none")
	f.StringVar(&fl.roles, "api-roles", "", "comma-separated roles of the API user (default: Accounts User,Sales User)")
	f.DurationVar(&fl.latency, "latency", 0, "fault: delay every request by this long")
	f.IntVar(&fl.failNext, "fail-next", 0, "fault: fail the next N requests with --fail-status")
	f.IntVar(&fl.failStatus, "fail-status", 500, "fault: status for --fail-next")
	f.IntVar(&fl.dropAfterCommit, "drop-after-commit", 0, "fault: the next N writes commit, then answer a 504 page")
	f.IntVar(&fl.commitLate, "commit-late", 0, "fault: the next N writes commit only after --commit-late-delay")
	f.DurationVar(&fl.lateDelay, "commit-late-delay", 3*time.Second, "fault: delay for --commit-late")
}
