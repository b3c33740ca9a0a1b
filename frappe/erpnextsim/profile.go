package erpnextsim

import (
	"fmt"
	"strings"
	"time"
)

// Profile is a latency profile: how long the site takes to serve each call, and how many
// calls it serves at once (a bench site runs a fixed number of gunicorn sync workers; further
// requests queue for a free worker). Set it with Options.Profile, or `simulate erpnext
// --profile NAME`. The /__sim/ control endpoints and injected failures (FailNext) bypass it.
//
// A read waits its service time before it is answered. A write is validated at once, waits its
// service time, then is validated again and committed (as CommitLate does), so that concurrent
// writes overlap the way they do on a real site (spec §3.7). Both hold a worker throughout.
type Profile struct {
	Name    string
	Workers int                      // calls served at once; 0 = no limit
	Service func(Call) time.Duration // service time of one call
}

// Call describes a request for a Profile.
type Call struct {
	HTTPMethod string // GET, POST, PUT, DELETE
	Doctype    string // DocType of /api/resource/{Doctype}[/{name}], or a frappe.client.* call's doctype argument
	Named      bool   // /api/resource/{Doctype}/{name}
	Method     string // dotted path of /api/method/{Method}; "" for resources
	Docstatus  int    // docstatus a write sends (1 submits, 2 cancels; 0 when absent)
}

// ProfileRealV15 is the recorded site of erpnext-recorded-connector/README "Timing": Frappe
// 15.72.4 / ERPNext 15.71.1 on 2 cores with 2 gunicorn sync workers, average service times from
// its access log over 517 connector requests — list Payment Entry 48 ms, GET Sales Invoice
// 101 ms, get_payment_entry 252 ms, POST Payment Entry with docstatus 1 776 ms. The other calls
// are estimates in proportion to the work the site does for them (noted in realV15Service).
func ProfileRealV15() Profile {
	return Profile{Name: "real-v15", Workers: 2, Service: realV15Service}
}

// ProfileByName returns the named profile: "real-v15", or "" / "none" for none (nil).
func ProfileByName(name string) (*Profile, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "none":
		return nil, nil
	case "real-v15":
		p := ProfileRealV15()
		return &p, nil
	}
	return nil, fmt.Errorf("erpnextsim: unknown latency profile %q (known: real-v15)", name)
}

func realV15Service(c Call) time.Duration {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	write := c.HTTPMethod != "GET"
	switch {
	case c.Method == getPaymentEntryCmd:
		return ms(252) // recorded
	case c.Method == "frappe.client.get_list" || (c.Method == "" && !c.Named && !write):
		return ms(48) // recorded for Payment Entry lists; other lists alike
	case c.Method == "" && c.Named && !write && c.Doctype == siDT:
		return ms(101) // recorded
	case c.Method == "" && c.Named && !write, c.Method == "frappe.client.get":
		return ms(70) // a smaller document than a Sales Invoice
	case c.Method == "frappe.client.get_count", c.Method == "frappe.client.get_value", c.Method == getSingleValueCmd, c.Method == getBalanceOnCmd:
		return ms(35)
	case c.Method == getLoggedUserCmd, c.Method == hasPermissionCmd:
		return ms(15)
	case c.Method == makePaymentRequestCmd:
		return ms(350)
	case c.Method == getLinkedPaymentsCmd:
		return ms(200)
	case c.Method == reconcileVouchersCmd:
		return ms(500)
	case c.Doctype == peDT && c.Docstatus == 1 && c.HTTPMethod == "POST" && c.Method == "":
		return ms(776) // recorded: insert, validate, GL, commit
	case c.Docstatus >= 1, c.Method == "frappe.client.submit", c.Method == "frappe.client.cancel":
		return ms(650) // submit or cancel of a saved document: the GL without the insert
	case write:
		return ms(400) // insert or save of a draft: validation without the ledger
	}
	return ms(50)
}

// profileCall summarises a parsed request for the profile.
func profileCall(c *call, path string) Call {
	pc := Call{HTTPMethod: c.method, Docstatus: cint(c.args["docstatus"])}
	switch {
	case strings.HasPrefix(path, "/api/resource/"):
		dt, _, named := strings.Cut(strings.TrimPrefix(path, "/api/resource/"), "/")
		pc.Doctype, pc.Named = dt, named
	case strings.HasPrefix(path, "/api/method/"):
		pc.Method = strings.TrimSuffix(strings.TrimPrefix(path, "/api/method/"), "/")
		pc.Doctype = c.str("doctype")
		if doc, ok := c.args["doc"].(map[string]any); ok {
			pc.Docstatus = cint(doc["docstatus"])
		}
	}
	return pc
}

// worker takes one of the profile's workers, waiting for a free one; the returned func gives
// it back. Without a profile or a worker limit it does nothing.
func (sv *server) worker() func() {
	if sv.workers == nil {
		return func() {}
	}
	sv.workers <- struct{}{}
	return func() { <-sv.workers }
}
