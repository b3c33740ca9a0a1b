package erpnextsim

import (
	"io"
	"net/http"
	"runtime"
	"strings"
	"time"
)

// server serves a call: admission (site name, rate limit), authentication, the profile's
// workers, and the concurrency model of reads and writes (validate, wait, commit).
type server struct {
	db       *store
	users    *users
	faults   *faults
	invoices *salesInvoices
	rest     *rest
	opt      Options
	noLock   bool
	// workers holds a token per call being served under Options.Profile (profile.go).
	workers chan struct{}
}

// reply writes one answer of ServeHTTP and logs the request with its status.
type reply struct {
	faults *faults
	w      http.ResponseWriter
	log    RequestLog
}

func (rp *reply) send(status int, body, ctype string, headers map[string]string) {
	for k, v := range headers {
		rp.w.Header().Set(k, v)
	}
	rp.w.Header().Set("Content-Type", ctype)
	rp.w.WriteHeader(status)
	_, _ = io.WriteString(rp.w, body)
	rp.log.Status = status
	rp.faults.logRequest(rp.log)
}

func (rp *reply) sendErr(e *fErr) { rp.send(e.status, e.body(), "application/json", e.headers) }

// sendGateway answers with the proxy's gateway page of a dropped answer, after its wait.
func (rp *reply) sendGateway(plan faultPlan) {
	time.Sleep(plan.dropD)
	rp.send(plan.dropSt, gatewayPage(plan.dropSt), "text/html", nil)
}

// ServeHTTP answers the Frappe v1 REST API (spec §1.1) under /api/ and
// /api/v1/. Anything else is the HTML 404 page of a Frappe site.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/__sim/") {
		s.control(w, r)
		return
	}
	s.server.serve(w, r)
}

// serve answers one call of the REST API: faults planned, admitted, authenticated, routed,
// then served as a read or a write.
func (sv *server) serve(w http.ResponseWriter, r *http.Request) {
	write := r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodDelete || r.Method == http.MethodPatch
	// Commit faults (drop-after-commit, commit-late) target requests that change the site; a
	// POST to a read-only method such as get_payment_entry commits nothing.
	plan := sv.faults.planFaults(write && !readOnlyMethod(r.URL.Path))
	if plan.latency > 0 {
		time.Sleep(plan.latency)
	}
	rp := &reply{faults: sv.faults, w: w, log: RequestLog{Method: r.Method, Path: r.URL.Path, At: time.Now()}}
	if r.URL.RawQuery != "" {
		rp.log.Query = r.URL.Query()
	}
	path, ok := sv.admit(rp, r, plan)
	if !ok {
		return
	}
	user, aerr := sv.authenticate(r.Header.Get("Authorization"))
	if aerr != nil {
		rp.sendErr(aerr)
		return
	}
	c := &call{users: sv.users, method: r.Method, user: user, status: http.StatusOK, seen: map[string]dec{}}
	if perr := c.parseArgs(r); perr != nil {
		rp.sendErr(perr)
		return
	}
	h, key := sv.rest.route(c, strings.TrimSuffix(path, "/"))
	if p := sv.opt.Profile; p != nil {
		defer sv.worker()()
		if d := p.Service(profileCall(c, path)); !write {
			time.Sleep(d)
		} else {
			plan.late += d
		}
	}
	if !write {
		sv.serveRead(rp, c, h, key)
		return
	}
	sv.serveWrite(rp, c, h, key, plan, r.URL.Path)
}

// admit answers what is refused before authentication (the rate limit, an injected failure,
// an unknown site, a path outside the API) and returns ok false then; otherwise it returns the
// API path with /api/v1/ written as /api/.
func (sv *server) admit(rp *reply, r *http.Request, plan faultPlan) (path string, ok bool) {
	if rh, refused := sv.faults.rateCheck(); rh != nil {
		for k, v := range rh {
			rp.w.Header().Set(k, v)
		}
		if refused {
			e := &fErr{status: http.StatusTooManyRequests, excType: "TooManyRequestsError", bare: true}
			rp.send(e.status, e.body(), "application/json", nil)
			return "", false
		}
	}
	if plan.fail != 0 {
		body, ctype, h := injected(plan.fail, plan.kind)
		rp.send(plan.fail, body, ctype, h)
		return "", false
	}
	if name, ok := sv.unknownSite(r); !ok {
		rp.send(http.StatusNotFound, "<!doctype html>\n<html lang=en>\n<title>404 Not Found</title>\n<h1>Not Found</h1>\n<p>"+htmlEscape(name)+" does not exist</p>\n", "text/html; charset=utf-8", nil)
		return "", false
	}
	path = r.URL.Path
	if strings.HasPrefix(path, "/api/v1/") {
		path = "/api/" + strings.TrimPrefix(path, "/api/v1/")
	}
	if !strings.HasPrefix(path, "/api/") && path != "/api" {
		rp.send(http.StatusNotFound, "<!doctype html>\n<html lang=en>\n<title>404 Not Found</title>\n<h1>Not Found</h1>\n<p>The requested URL was not found on the server.</p>\n", "text/html; charset=utf-8", nil)
		return "", false
	}
	return path, true
}

// serveRead runs a read in one pass under s.mu.
func (sv *server) serveRead(rp *reply, c *call, h handler, key string) {
	sv.db.mu.Lock()
	sv.invoices.refreshStatuses()
	e, st := h(c)
	var out any
	if e == nil {
		out = st()
	}
	sv.db.mu.Unlock()
	if e != nil {
		rp.sendErr(e)
		return
	}
	rp.send(c.status, c.success(key, out), "application/json", nil)
}

// serveWrite runs a write: validate, (wait for the fault plan's meeting, lateness and the row
// locks), validate again and commit. requestPath is the path as sent, which decides whether
// the log marks the request as committed.
func (sv *server) serveWrite(rp *reply, c *call, h handler, key string, plan faultPlan, requestPath string) {
	sv.db.mu.Lock()
	sv.invoices.refreshStatuses()
	e, _ := h(c)
	if e != nil {
		sv.db.releaseNames(c)
	}
	sv.db.mu.Unlock()
	validated := e == nil
	if plan.meet != nil {
		plan.meet.arrive(validated)
	}
	if validated {
		if plan.late > 0 {
			time.Sleep(plan.late) // the client may be gone; the commit still happens
		}
		runtime.Gosched()
		e = sv.faults.waitRowLocks(c)
	}
	if e == nil {
		var out any
		if out, e = sv.commit(rp, c, h, requestPath); e == nil {
			if plan.drop {
				rp.sendGateway(plan) // committed; the proxy answers only later
				return
			}
			rp.send(c.status, c.success(key, out), "application/json", nil)
			return
		}
	} else if plan.late > 0 && !validated {
		time.Sleep(plan.late)
	}
	sv.db.mu.Lock()
	sv.db.releaseNames(c)
	sv.db.mu.Unlock()
	if plan.drop {
		rp.sendGateway(plan)
		return
	}
	rp.sendErr(e)
}

// commit validates a write again under s.mu and applies it when it still holds.
func (sv *server) commit(rp *reply, c *call, h handler, requestPath string) (any, *fErr) {
	sv.db.mu.Lock()
	defer sv.db.mu.Unlock()
	c.stale = sv.noLock
	c.infos = nil
	e, st := h(c)
	var out any
	if e == nil {
		out = st()
		rp.log.Committed = !readOnlyMethod(requestPath)
	}
	sv.db.releaseNames(c)
	return out, e
}
