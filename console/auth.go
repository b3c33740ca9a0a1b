package console

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Sessions are stateless: the cookie holds an expiry, a random nonce and the name the person
// gave, signed with HMAC-SHA256 under a key derived from admin_token. So any replica with the
// same token accepts it, the token itself is never in the cookie, and changing admin_token ends
// every session. The CSRF token of a session is an HMAC of its nonce.

// SessionCookie is the name of the console's session cookie (HttpOnly, SameSite=Strict).
const SessionCookie = "rzp_console"

// CSRFField is the form field that carries the page's CSRF token on every POST.
const CSRFField = "csrf"

// session is a verified session (or Bearer access, with bearer set and no CSRF needed).
type session struct {
	nonce  string
	actor  string
	bearer bool
}

// auth signs and checks sessions for one admin token.
type auth struct {
	token []byte
	key   []byte
	ttl   time.Duration
	now   func() time.Time

	mu sync.Mutex
	// failures are the wrong tokens (logins and Bearer headers) of each client address in its
	// current minute.
	failures map[string]failWindow
}

// failWindow is one client address's wrong tokens since start (the current minute).
type failWindow struct {
	start time.Time
	n     int
}

// maxLoginFailures is how many wrong tokens (POST /login or Authorization: Bearer) one client
// address may present per minute; past it a wrong token is answered 429 until the minute is
// over. The right token is never refused: the guard slows guessing, it locks nobody out.
const maxLoginFailures = 10

// maxFailureAddrs bounds the addresses remembered: past it, the expired windows are dropped,
// and if every one is live the new address shares one window with the other newcomers
// (overflowAddr), so many addresses cannot grow memory or escape the limit.
const (
	maxFailureAddrs = 4096
	overflowAddr    = "(other addresses)"
)

func newAuth(token string, ttl time.Duration, now func() time.Time) *auth {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("razorpay-erpnext console session key v1"))
	return &auth{token: []byte(token), key: m.Sum(nil), ttl: ttl, now: now, failures: map[string]failWindow{}}
}

func (a *auth) mac(parts ...string) string {
	m := hmac.New(sha256.New, a.key)
	m.Write([]byte(strings.Join(parts, "\x00")))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// tokenMatches compares a presented token with admin_token in constant time.
func (a *auth) tokenMatches(presented string) bool {
	return subtle.ConstantTimeCompare([]byte(presented), a.token) == 1
}

// wrongToken counts a wrong token presented by client address addr (clientAddr) and reports
// whether addr has spent its budget this minute (maxLoginFailures): then the caller answers
// 429, and the refused try is not counted.
func (a *auth) wrongToken(addr string) (limited bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	if _, known := a.failures[addr]; !known && len(a.failures) >= maxFailureAddrs {
		for k, w := range a.failures {
			if now.Sub(w.start) >= time.Minute {
				delete(a.failures, k)
			}
		}
		if len(a.failures) >= maxFailureAddrs {
			addr = overflowAddr
		}
	}
	w := a.failures[addr]
	if now.Sub(w.start) >= time.Minute {
		w = failWindow{start: now}
	}
	if w.n >= maxLoginFailures {
		return true
	}
	w.n++
	a.failures[addr] = w
	return false
}

// clientAddr is the address the request came from, without its port: the peer of the TCP
// connection (r.RemoteAddr). A forwarded-for header is not trusted (any client can send one);
// behind a reverse proxy every client has the proxy's address and shares its budget.
func clientAddr(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// newCookie makes a signed session for actor (a name the person typed; trimmed to 60
// characters) valid for the TTL.
func (a *auth) newCookie(actor string, secure bool) *http.Cookie {
	var b [16]byte
	_, _ = rand.Read(b[:])
	nonce := hex.EncodeToString(b[:])
	exp := strconv.FormatInt(a.now().Add(a.ttl).Unix(), 10)
	name := base64.RawURLEncoding.EncodeToString([]byte(cleanActor(actor)))
	payload := exp + "." + nonce + "." + name
	return &http.Cookie{Name: SessionCookie, Value: payload + "." + a.mac("session", payload), Path: "/",
		MaxAge: int(a.ttl / time.Second), HttpOnly: true, Secure: secure, SameSite: http.SameSiteStrictMode}
}

// cleanActor keeps a typed name printable, one line, at most 60 characters.
func cleanActor(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || !utf8.ValidRune(r) {
			return -1
		}
		return r
	}, s)
	if r := []rune(s); len(r) > 60 {
		s = string(r[:60])
	}
	return s
}

// clearCookie ends the session in the browser.
func clearCookie(secure bool) *http.Cookie {
	return &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: secure,
		SameSite: http.SameSiteStrictMode}
}

// fromCookie verifies the session cookie: signature, expiry, shape.
func (a *auth) fromCookie(r *http.Request) (session, bool) {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return session{}, false
	}
	i := strings.LastIndexByte(c.Value, '.')
	if i < 0 {
		return session{}, false
	}
	payload, sig := c.Value[:i], c.Value[i+1:]
	if !hmac.Equal([]byte(sig), []byte(a.mac("session", payload))) {
		return session{}, false
	}
	parts := strings.Split(payload, ".")
	if len(parts) != 3 {
		return session{}, false
	}
	exp, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || a.now().Unix() >= exp {
		return session{}, false
	}
	name, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return session{}, false
	}
	actor := cleanActor(string(name))
	if actor == "" {
		actor = "console user"
	}
	return session{nonce: parts[1], actor: actor + " (console)"}, true
}

// csrf is the CSRF token of a cookie session ("" for Bearer access, which needs none).
func (a *auth) csrf(s session) string {
	if s.bearer {
		return ""
	}
	return a.mac("csrf", s.nonce)
}

// authenticate reads the request's credentials. A request with an Authorization header is
// judged by it alone: "Bearer <admin_token>" passes, anything else fails (bad=true), so a
// wrong token never falls back to a cookie.
func (a *auth) authenticate(r *http.Request) (s session, ok, bad bool) {
	if h := r.Header.Get("Authorization"); h != "" {
		tok, found := strings.CutPrefix(h, "Bearer ")
		if found && a.tokenMatches(strings.TrimSpace(tok)) {
			return session{actor: "API client (Bearer token)", bearer: true}, true, false
		}
		return session{}, false, true
	}
	s, ok = a.fromCookie(r)
	return s, ok, false
}

// checkCSRF accepts a POST of a Bearer client, or of a cookie session whose form carries the
// session's CSRF token.
func (a *auth) checkCSRF(r *http.Request, s session) bool {
	if s.bearer {
		return true
	}
	return hmac.Equal([]byte(r.PostFormValue(CSRFField)), []byte(a.csrf(s)))
}

// sameOrigin refuses a POST whose Origin header (browsers send it on every POST) names
// another site than the one the console is served from.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == r.Host
}

// secureRequest reports whether the console is reached over HTTPS (directly or through a
// proxy that says so), so the cookie gets the Secure flag. Plain-HTTP access on loopback or
// through an SSH tunnel keeps working.
func secureRequest(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// safeNext keeps a post-login redirect on this site: a path starting with one "/".
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return "/"
	}
	return next
}
