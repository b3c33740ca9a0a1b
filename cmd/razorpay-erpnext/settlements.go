package main

import (
	"fmt"
	"io"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// printSettlements writes the settlement lines of a reconcile report: per settlement its
// breakdown in rupees, the Journal Entry, the bank match and what is left in the clearing
// account.
func printSettlements(w io.Writer, lines []connector.SettlementLine) {
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "\nsettlements (%d):\n", len(lines))
	for _, l := range lines {
		entry := l.Entry
		if entry == "" {
			entry = "not posted"
		}
		fmt.Fprintf(w, "  %s UTR %s created %s: net %s, %s (%s)\n", l.ID, l.UTR, l.CreatedAt.Format(time.RFC3339), razorpay.INR(l.Amount).Display(), entry, l.Status)
		if s := l.Summary; s != nil {
			fmt.Fprintf(w, "    %d items: %d payments gross %s, fees %s, GST %s, %d refunds %s, %d adjustments %s",
				l.Items, s.Payments, razorpay.INR(s.Gross).Display(), razorpay.INR(s.Fees).Display(), razorpay.INR(s.Tax).Display(), s.Refunds, razorpay.INR(s.Refunded).Display(), s.Adjustments, razorpay.INR(s.Adjusted).Display())
			if s.Transfers > 0 {
				fmt.Fprintf(w, ", %d transfers %s", s.Transfers, razorpay.INR(s.Transferred).Display())
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "    bank: %s; clearing residue %s\n", l.Bank, razorpay.INR(l.ClearingResidue).Display())
		if l.Reason != "" && l.Status != string(connector.StatusDone) && l.Status != "posted" {
			fmt.Fprintf(w, "    %s\n", l.Reason)
		}
	}
}

// printSettlementPlan writes a settlement's planned Journal Entry lines (rupees, balanced) and
// its bank match, when the explanation has them.
func printSettlementPlan(w io.Writer, x *connector.Explanation) {
	if sp := x.Settlement; sp != nil {
		s := sp.Summary
		fmt.Fprintf(w, "\n  settlement %s UTR %s, posting date %s: %d payments gross %s, fees %s, GST %s, %d refunds %s, %d adjustments %s; net %s\n",
			sp.ID, sp.UTR, sp.PostingDate, s.Payments, razorpay.INR(s.Gross).Display(), razorpay.INR(s.Fees).Display(), razorpay.INR(s.Tax).Display(), s.Refunds, razorpay.INR(s.Refunded).Display(), s.Adjustments, razorpay.INR(s.Adjusted).Display(), razorpay.INR(s.Net).Display())
		fmt.Fprintf(w, "  %-36s %16s %16s\n", "account", "debit", "credit")
		var dr, cr int64
		for _, l := range sp.Lines {
			d, c := "", ""
			if l.Debit > 0 {
				d = razorpay.INR(l.Debit).Display()
			} else {
				c = razorpay.INR(l.Credit).Display()
			}
			dr, cr = dr+l.Debit, cr+l.Credit
			fmt.Fprintf(w, "  %-36s %16s %16s\n", l.Account, d, c)
		}
		fmt.Fprintf(w, "  %-36s %16s %16s\n", "total", razorpay.INR(dr).Display(), razorpay.INR(cr).Display())
	}
	if x.Bank != nil {
		fmt.Fprintf(w, "\n  bank statement: %s\n", x.Bank)
	}
}
