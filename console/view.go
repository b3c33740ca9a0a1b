package console

import (
	"bytes"
	"errors"
	"net/http"
	"time"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/redact"
)

// view renders the console's pages: each in the layout with the session's frame, configured
// secrets scrubbed, and a backend's failure as the page that says so.
type view struct {
	pages   map[string]*pageTemplate
	secrets []string
	// auth is nil while the console is off (no admin token).
	auth    *auth
	now     func() time.Time
	log     zerolog.Logger
	conceal func(error) string // Options.Conceal
}

// render executes a page into a buffer, scrubs configured secrets from it, and writes it.
func (v *view) render(w http.ResponseWriter, status int, name string, s session, data any) {
	var buf bytes.Buffer
	if err := v.pages[name].execute(&buf, v.frame(s, name, data)); err != nil {
		v.log.Error().Err(err).Str("page", name).Msg("console: render")
		http.Error(w, "console: could not render the page", http.StatusInternalServerError)
		return
	}
	out := []byte(redact.Secrets(buf.String(), v.secrets...))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(out)
}

func (v *view) renderError(w http.ResponseWriter, status int, s session, msg string) {
	v.render(w, status, "error", s, errorView{Status: status, Message: msg})
}

// frame is what every page template gets: the page's data plus the layout's needs.
type frame struct {
	Page     string
	LoggedIn bool
	Actor    string
	CSRF     string
	Now      time.Time
	Data     any
}

func (v *view) frame(s session, name string, data any) frame {
	f := frame{Page: name, Now: v.now(), Data: data}
	if v.auth != nil && (s.nonce != "" || s.bearer) {
		f.LoggedIn, f.Actor, f.CSRF = true, s.actor, v.auth.csrf(s)
	}
	return f
}

type errorView struct {
	Status  int
	Message string
}

// backendError shows a backend failure: 404 for ErrNotFound, 409 for a feature this
// configuration lacks, else 503 (the store or ERPNext did not answer).
func (v *view) backendError(w http.ResponseWriter, s session, what string, err error) {
	switch {
	case errors.Is(err, ErrNotFound):
		v.renderError(w, http.StatusNotFound, s, "Not found: "+err.Error())
	case errors.Is(err, ErrUnavailable):
		v.renderError(w, http.StatusConflict, s, err.Error())
	default:
		v.log.Warn().Err(err).Str("op", what).Msg("console: backend failed")
		v.renderError(w, http.StatusServiceUnavailable, s, "Could not "+what+": "+v.errorText(err))
	}
}

// errorText is a backend error as a page shows it: Options.Conceal's words when it recognises
// err, else err's own text.
func (v *view) errorText(err error) string {
	if v.conceal != nil {
		if alt := v.conceal(err); alt != "" {
			return alt
		}
	}
	return err.Error()
}
