package console

import (
	"net/http"
)

// reconcileRunsShown is how many recent runs the Reconcile page lists.
const reconcileRunsShown = 20

// reconcileView is the Reconcile page: recent runs and, after "run now (dry run)", its report.
type reconcileView struct {
	Runs      []ReconcileRun
	RunsErr   string
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
	return v
}

// dryRun runs reconcile --dry-run and shows what it would queue (it writes nothing anywhere,
// so it is safe to repeat). A failure answers 503 (409 when reconcile is not configured) with
// the page and the reason.
func (c *Console) dryRun(w http.ResponseWriter, r *http.Request, s session) {
	rep, err := c.o.Backend.DryRunReconcile(r.Context())
	v := c.reconcileView(r)
	status := http.StatusOK
	if err != nil {
		v.ReportErr = err.Error()
		status = http.StatusServiceUnavailable
		if isUnavailable(err) {
			status = http.StatusConflict
		}
	} else {
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
	lines, err := c.o.Backend.Check(r.Context())
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
