package console

import (
	"context"
	"net/http"
	"time"
)

// reconcileRunsShown is how many recent runs the Reconcile page lists.
const reconcileRunsShown = 20

// Bounds of the slow pages: a dry-run reconcile pages Razorpay's lists and reads ERPNext; the
// checks read ERPNext and Razorpay line by line.
const (
	dryRunTimeout = 5 * time.Minute
	checkTimeout  = 2 * time.Minute
)

// reconcilePage is the Reconcile page and its dry run.
type reconcilePage struct {
	v       *view
	backend Backend
}

// reconcileView is the Reconcile page: recent runs, the last run's saved report and, after
// "run now (dry run)", the dry run's report.
type reconcileView struct {
	Runs      []ReconcileRun
	RunsErr   string
	Last      *RunReport
	LastErr   string
	Report    *ReconcileReport
	ReportErr string
}

func (p *reconcilePage) show(w http.ResponseWriter, r *http.Request, s session) {
	p.v.render(w, http.StatusOK, "reconcile", s, p.view(r))
}

func (p *reconcilePage) view(r *http.Request) reconcileView {
	var v reconcileView
	runs, err := p.backend.ReconcileRuns(r.Context(), reconcileRunsShown)
	if err != nil {
		v.RunsErr = err.Error()
	}
	v.Runs = runs
	if v.Last, err = p.backend.LastReconcileReport(r.Context()); err != nil {
		p.v.log.Warn().Err(err).Str("op", "read the last reconcile report").Msg("console: backend failed")
		v.LastErr = p.v.errorText(err)
	}
	return v
}

// dryRun runs reconcile --dry-run and shows what it would queue (it writes nothing anywhere,
// so it is safe to repeat). A failure answers 503 (409 when reconcile is not configured) with
// the page and the reason.
func (p *reconcilePage) dryRun(w http.ResponseWriter, r *http.Request, s session) {
	ctx, cancel := context.WithTimeout(r.Context(), dryRunTimeout)
	defer cancel()
	rep, err := p.backend.DryRunReconcile(ctx)
	v := p.view(r)
	status := http.StatusOK
	if err != nil {
		v.ReportErr = err.Error()
		status = http.StatusServiceUnavailable
		if isUnavailable(err) {
			status = http.StatusConflict
		}
	} else {
		rep.DryRun = true
		v.Report = &rep
	}
	p.v.render(w, status, "reconcile", s, v)
}

// checkPage is the Check page: the `check` lines of the running configuration.
type checkPage struct {
	v       *view
	backend Backend
}

// checkView is the Check page.
type checkView struct {
	Lines          []CheckLine
	OK, Warn, Fail int
	Err            string
}

func (p *checkPage) show(w http.ResponseWriter, r *http.Request, s session) {
	ctx, cancel := context.WithTimeout(r.Context(), checkTimeout)
	defer cancel()
	lines, err := p.backend.Check(ctx)
	if err != nil {
		p.v.backendError(w, s, "run the checks", err)
		return
	}
	v := checkView{Lines: lines}
	for _, l := range lines {
		switch l.Status {
		case "ok":
			v.OK++
		case "warn":
			v.Warn++
		default:
			v.Fail++
		}
	}
	p.v.render(w, http.StatusOK, "check", s, v)
}
