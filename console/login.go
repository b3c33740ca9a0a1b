package console

import (
	"crypto/hmac"
	"encoding/base64"
	"net/http"
	"strings"
)

// loginView is the login form: where to go afterwards and why the last try failed.
type loginView struct {
	Next  string
	Error string
}

// loginForm shows the form (or goes home when the request is already authenticated).
func (c *Console) loginForm(w http.ResponseWriter, r *http.Request) {
	if _, ok, _ := c.auth.authenticate(r); ok {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	c.view.render(w, http.StatusOK, "login", session{}, loginView{Next: safeNext(r.URL.Query().Get("next"))})
}

// login checks the posted token field against admin_token and, when it matches, sets the
// session cookie and goes on to the form's next page (303), always: the token is compared
// first, so no one can lock the operators out. A wrong token answers 401 with the form again;
// past maxLoginFailures wrong tokens from the client's address in a minute, 429.
func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	next := safeNext(r.PostFormValue("next"))
	if !sameOrigin(r) {
		c.view.renderError(w, http.StatusForbidden, session{}, "This login form did not come from the console.")
		return
	}
	if !c.auth.tokenMatches(r.PostFormValue("token")) {
		if c.auth.wrongToken(clientAddr(r)) {
			w.Header().Set("Retry-After", "60")
			c.view.render(w, http.StatusTooManyRequests, "login", session{}, loginView{Next: next,
				Error: "Too many wrong tokens from this address in the last minute. Wait a minute and try again."})
			return
		}
		c.view.render(w, http.StatusUnauthorized, "login", session{}, loginView{Next: next,
			Error: "That is not the admin token (admin_token in the configuration)."})
		return
	}
	http.SetCookie(w, c.auth.newCookie(r.PostFormValue("name"), secureRequest(r)))
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// logout clears the session cookie.
func (c *Console) logout(w http.ResponseWriter, r *http.Request, s session) {
	http.SetCookie(w, clearCookie(secureRequest(r)))
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// flashCookie carries a one-time message to the page a POST redirects to, signed so that no
// other site can plant a message in the console.
const flashCookie = "rzp_console_flash"

// flashes are the one-time messages of the console, signed by its auth.
type flashes struct{ auth *auth }

// set sends msg to the page the POST redirects to.
func (f flashes) set(w http.ResponseWriter, r *http.Request, msg string) {
	v := base64.RawURLEncoding.EncodeToString([]byte(msg))
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: v + "." + f.auth.mac("flash", v), Path: "/",
		MaxAge: 60, HttpOnly: true, Secure: secureRequest(r), SameSite: http.SameSiteStrictMode})
}

// take reads and clears the flash message ("" when none or not signed by this console).
func (f flashes) take(w http.ResponseWriter, r *http.Request) string {
	ck, err := r.Cookie(flashCookie)
	if err != nil {
		return ""
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		Secure: secureRequest(r), SameSite: http.SameSiteStrictMode})
	v, sig, ok := strings.Cut(ck.Value, ".")
	if !ok || !hmac.Equal([]byte(sig), []byte(f.auth.mac("flash", v))) {
		return ""
	}
	msg, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return ""
	}
	return string(msg)
}
