// Package console is the operator console: server-rendered pages on the admin listener for
// the people who run the connector — Today (counts, faults, 14 days of money booked vs
// captured), Events (filter, detail, explain, Replay / Rebook / Dismiss), Reconcile (recent
// runs, a dry run) and Check. It holds no policy: everything it shows and does goes through a
// Backend (cmd/razorpay-erpnext implements it with the functions the CLI calls).
//
// Security: the console is off without an admin token (every page says how to turn it on).
// The token is asked once and kept as a signed session in an HttpOnly, SameSite=Strict cookie
// (Secure over HTTPS); "Authorization: Bearer <token>" works on every page for scripts. Every
// state-changing request is a POST that needs the page's CSRF token when the session is a
// cookie (403 otherwise). Every response carries a Content-Security-Policy that allows only the
// console's own script and styles, X-Frame-Options: DENY and nosniff; html/template escapes
// everything user-supplied, and configured secrets are scrubbed from every page as a last guard.
package console

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/rs/zerolog"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Options configure a console.
type Options struct {
	Backend Backend
	// Token is admin_token; "" turns the console off.
	Token string
	// ERPNextURL is erpnext.url, for links into Desk (<url>/app/payment-entry/NAME).
	ERPNextURL string
	// Location is where "today" starts and how times are shown (mapping.timezone); UTC when nil.
	Location *time.Location
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// WebhookSilence is how old the last webhook may be before Today warns that Razorpay may
	// have disabled the webhook (3 h when zero, like the RazorpayWebhooksSilent alert).
	WebhookSilence time.Duration
	// SessionTTL is how long a login lasts (12 h when zero).
	SessionTTL time.Duration
	// Secrets are values no page may ever show (API secrets, webhook secrets, the token);
	// any of 8 characters or more found in a rendered page as a whole word is replaced by
	// "[redacted]" (internal/redact).
	Secrets []string
	// Log receives failures of the backend (never secrets: the backend's errors hold none).
	Log zerolog.Logger
	// Conceal, when set, gives the words a page shows instead of a backend error's own text
	// ("" to show the text): a database's message (MariaDB's error 1366 quoting the bytes it
	// refused, table and column names) belongs in the log, never on a page.
	Conceal func(error) string
}

// Console serves the console's pages; create it with New.
type Console struct {
	o    Options
	auth *auth
	view *view
	mux  *http.ServeMux
}

// New builds a console from o. It panics only when the embedded templates do not parse (a
// build defect every test catches).
func New(o Options) *Console {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Location == nil {
		o.Location = time.UTC
	}
	if o.WebhookSilence <= 0 {
		o.WebhookSilence = 3 * time.Hour
	}
	if o.SessionTTL <= 0 {
		o.SessionTTL = 12 * time.Hour
	}
	o.ERPNextURL = strings.TrimRight(o.ERPNextURL, "/")
	c := &Console{o: o}
	if o.Token != "" {
		c.auth = newAuth(o.Token, o.SessionTTL, o.Now)
	}
	c.view = &view{pages: c.parsePages(), auth: c.auth, now: o.Now, log: o.Log, conceal: o.Conceal}
	for _, s := range append(o.Secrets, o.Token) {
		if len(s) >= 8 {
			c.view.secrets = append(c.view.secrets, s)
		}
	}
	c.mux = c.routes()
	return c
}

// ServeHTTP serves every console path with the security headers set.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin") // no-referrer would make browsers send "Origin: null" on POST
	c.mux.ServeHTTP(w, r)
}

// ContentSecurityPolicy is sent with every console response: only the console's own script,
// stylesheet and images; no inline script, no framing, forms post only to the console.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

func (c *Console) routes() *http.ServeMux {
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", staticFiles(static)))
	if c.auth == nil {
		mux.HandleFunc("/", c.off)
		return mux
	}
	b, v := c.o.Backend, c.view
	today := &todayPage{v: v, backend: b, now: c.o.Now, loc: c.o.Location, silence: c.o.WebhookSilence}
	events := &eventPages{v: v, backend: b, loc: c.o.Location, flash: flashes{c.auth}}
	rec := &reconcilePage{v: v, backend: b}
	check := &checkPage{v: v, backend: b}
	mux.HandleFunc("GET /{$}", c.page(today.show))
	mux.HandleFunc("GET /login", c.loginForm)
	mux.HandleFunc("POST /login", c.login)
	mux.HandleFunc("POST /logout", c.action(c.logout))
	mux.HandleFunc("GET /events", c.page(events.list))
	mux.HandleFunc("GET /events/{id}", c.page(events.show))
	mux.HandleFunc("GET /events/{id}/status", c.page(events.status))
	mux.HandleFunc("POST /events/{id}/replay", c.action(events.replay))
	mux.HandleFunc("POST /events/{id}/rebook", c.action(events.rebook))
	mux.HandleFunc("POST /events/{id}/dismiss", c.action(events.dismiss))
	mux.HandleFunc("GET /reconcile", c.page(rec.show))
	mux.HandleFunc("POST /reconcile/dry-run", c.action(rec.dryRun))
	mux.HandleFunc("GET /check", c.page(check.show))
	mux.HandleFunc("/", c.page(c.notFound))
	return mux
}

// staticFiles serves the embedded stylesheet and script; they hold nothing secret, so the
// login page is styled too.
func staticFiles(fsys fs.FS) http.Handler {
	files := http.FileServerFS(fsys)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=300")
		files.ServeHTTP(w, r)
	})
}

// handlerFunc is a page handler that got past authentication.
type handlerFunc func(w http.ResponseWriter, r *http.Request, s session)

// page authenticates a GET: without credentials it shows the login form (200 at "/", 401
// elsewhere), with a wrong Bearer token it answers 401 (429 past the wrong-token budget).
func (c *Console) page(h handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, ok, bad := c.auth.authenticate(r)
		switch {
		case bad:
			c.unauthorized(w, r, true)
		case !ok:
			status := http.StatusUnauthorized
			if r.URL.Path == "/" {
				status = http.StatusOK
			}
			c.view.render(w, status, "login", session{}, loginView{Next: r.URL.RequestURI()})
		default:
			h(w, r, s)
		}
	}
}

// action authenticates a POST: credentials (401), the same origin and, for a cookie session,
// the page's CSRF token (403 otherwise).
func (c *Console) action(h handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		s, ok, bad := c.auth.authenticate(r)
		if bad || !ok {
			c.unauthorized(w, r, bad)
			return
		}
		if !sameOrigin(r) || !c.auth.checkCSRF(r, s) {
			c.view.renderError(w, http.StatusForbidden, s, "This form has expired or did not come from the console (missing or wrong CSRF token). Reload the page and try again.")
			return
		}
		h(w, r, s)
	}
}

// unauthorized answers a request without valid credentials: 401, or 429 when wrong (a wrong
// Bearer token, counted like a wrong login) and its client address is past maxLoginFailures
// wrong tokens this minute.
func (c *Console) unauthorized(w http.ResponseWriter, r *http.Request, wrong bool) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if wrong && c.auth.wrongToken(clientAddr(r)) {
		w.Header().Set("Retry-After", "60")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte("too many wrong tokens from this address in the last minute: wait a minute\n"))
		return
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="razorpay-erpnext console"`)
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write([]byte("admin token required: log in at / or send Authorization: Bearer <admin_token>\n"))
}

// off answers every path while no admin token is configured: 403 and how to turn it on.
func (c *Console) off(w http.ResponseWriter, r *http.Request) {
	c.view.render(w, http.StatusForbidden, "off", session{}, nil)
}

func (c *Console) notFound(w http.ResponseWriter, r *http.Request, s session) {
	c.view.renderError(w, http.StatusNotFound, s, "There is no console page at "+r.URL.Path+".")
}
