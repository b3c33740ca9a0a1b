package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/check"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/config"
)

// checkCmd validates the configuration, then the live ERPNext site and Razorpay account it
// names, printing one line per fact: ok, warn or fail with the fix. Exit 1 when any line
// fails (including an invalid configuration file), 0 otherwise; warnings do not fail.
func (m *Main) checkCmd() *cobra.Command {
	var path string
	var asJSON bool
	c := &cobra.Command{
		Use:   "check --config FILE [--json]",
		Short: "Validate the configuration against the live ERPNext site and Razorpay",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := m.loadConfig(path)
			if err != nil {
				var ce *config.Error
				if errors.As(err, &ce) {
					var lines []check.Line
					for _, p := range ce.Problems {
						lines = append(lines, check.Line{Item: "config", Status: check.Fail, Detail: p})
					}
					m.printCheck(check.Report{Lines: lines}, asJSON)
					return &exitError{code: exitFailure}
				}
				return err
			}
			erp, err := newERPClient(cfg)
			if err != nil {
				return err
			}
			var rzp check.RazorpayLister
			if cfg.Razorpay.KeyID != "" && cfg.Razorpay.KeySecret != "" {
				c, err := newRazorpayClient(cfg, 15*time.Second)
				if err != nil {
					return err
				}
				rzp = c
			}
			rep := check.Run(cmd.Context(), cfg, erp, rzp, time.Now())
			m.printCheck(rep, asJSON)
			if rep.Failed() {
				return &exitError{code: exitFailure}
			}
			return nil
		},
	}
	c.Flags().StringVar(&path, "config", "", "configuration file (YAML)")
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return c
}

func (m *Main) printCheck(rep check.Report, asJSON bool) {
	if asJSON {
		_ = json.NewEncoder(m.Stdout).Encode(map[string]any{"ok": !rep.Failed(), "checks": rep.Lines})
		return
	}
	counts := map[string]int{}
	for _, l := range rep.Lines {
		counts[l.Status]++
		fmt.Fprintf(m.Stdout, "%-4s  %-42s %s\n", l.Status, l.Item, l.Detail)
		if l.Fix != "" && l.Status != check.OK {
			fmt.Fprintf(m.Stdout, "      %-42s fix: %s\n", "", l.Fix)
		}
	}
	fmt.Fprintf(m.Stdout, "\n%d ok, %d warn, %d fail\n", counts[check.OK], counts[check.Warn], counts[check.Fail])
}
