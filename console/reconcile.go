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

func (c *Console) reconcile(w http.ResponseWriter, r *http.Request, s session) {
	c.render(w, http.StatusOK, "reconcile", s, c.reconcileView(r))
}

func (c *Console) reconcileView(r *http.Request) reconcileView {
	var v reconcileView
	runs, err := c.o.Backend.ReconcileRuns(r.Context(), reconcileRunsShown)
	if err != nil {
		v.RunsErr = err.Error()
	}
	v.Runs = runs
	if v.Last, err = c.o.Backend.LastReconcileReport(r.Context()); err != nil {
		c.o.Log.Warn().Err(err).Str("op", "read the last reconcile report").Msg("console: backend failed")
		v.LastErr = c.errorText(err)
	}
	return v
}

// dryRun runs reconcile --dry-run and shows what it would queue (it writes nothing anywhere,
// so it is safe to repeat). A failure answers 503 (409 when reconcile is not configured) with
// the page and the reason.
func (c *Console) dryRun(w http.ResponseWriter, r *http.Request, s session) {
	ctx, cancel := context.WithTimeout(r.Context(), dryRunTimeout)
	defer cancel()
	rep, err := c.o.Backend.DryRunReconcile(ctx)
	v := c.reconcileView(r)
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
	c.render(w, status, "reconcile", s, v)
}

// checkView is the Check page.
type checkView struct {
	Lines          []CheckLine
	OK, Warn, Fail int
	Err            string
}

func (c *Console) check(w http.ResponseWriter, r *http.Request, s session) {
	ctx, cancel := context.WithTimeout(r.Context(), checkTimeout)
	defer cancel()
	lines, err := c.o.Backend.Check(ctx)
	if err != nil {
		c.backendError(w, s, "run the checks", err)
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
	c.render(w, http.StatusOK, "check", s, v)
}
