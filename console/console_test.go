package console_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/console"
)

const (
	token      = "admin-token-0123456789-DO-NOT-RENDER"
	erpSecret  = "erp-api-secret-DO-NOT-RENDER"
	hostileMsg = `<script>document.title="pwned"</script>`
)

// site is a console on a test server with a fake backend holding a parked payment (id 1),
// a done one (2) and a processing one (3).
type site struct {
	t   *testing.T
	f   *fakeBackend
	srv *httptest.Server
	now time.Time
}

func newSite(t *testing.T, tok string) *site {
	t.Helper()
	f := newFake()
	ist, _ := time.LoadLocation("Asia/Kolkata")
	s := &site{t: t, f: f, now: fixedNow}
	c := console.New(console.Options{Backend: f, Token: tok, ERPNextURL: "https://erp.example.com/",
		Location: ist, Now: func() time.Time { return s.now }, Secrets: []string{erpSecret}})
	s.srv = httptest.NewServer(c)
	t.Cleanup(s.srv.Close)
	received := fixedNow.Add(-time.Hour)
	f.add(console.EventDetail{EventRow: console.EventRow{ID: 1, EventID: "EvtParked00001", Event: "payment.captured",
		BusinessKey: "pay_Parked000001", Status: "parked", Attempts: 1, ReceivedAt: received, UpdatedAt: received,
		Reason: "no invoice matched: " + hostileMsg}, AccountID: "acc_1",
		Body:    []byte(`{"payload":{"payment":{"entity":{"id":"pay_Parked000001","notes":{"note":"` + strings.ReplaceAll(hostileMsg, `"`, `\"`) + `"}}}}}`),
		Actions: console.Actions{Replay: true, Dismiss: true}})
	f.add(console.EventDetail{EventRow: console.EventRow{ID: 2, EventID: "EvtDone0000001", Event: "payment.captured",
		BusinessKey: "pay_Done00000001", Status: "done", ReceivedAt: received, UpdatedAt: received,
		ResultDoctype: "Payment Entry", ResultName: "ACC-PAY-2026-00001", BodyPurged: true},
		Document: &console.Document{Doctype: "Payment Entry", Name: "ACC-PAY-2026-00001", State: console.DocSubmitted},
		Actions:  console.Actions{ReplayWhy: "it is done (Payment Entry ACC-PAY-2026-00001)"}})
	f.add(console.EventDetail{EventRow: console.EventRow{ID: 3, EventID: "EvtBusy0000001", Event: "payment.captured",
		BusinessKey: "pay_Busy00000001", Status: "processing", ReceivedAt: received, UpdatedAt: received},
		Body: []byte(`{}`), Actions: console.Actions{Dismiss: true}})
	return s
}

// client is a browser-like client: a cookie jar, no automatic redirects.
func (s *site) client() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func (s *site) do(c *http.Client, method, path string, form url.Values, hdr map[string]string) (*http.Response, string) {
	s.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, s.srv.URL+path, body)
	if err != nil {
		s.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// login posts the token and returns the logged-in client and the Set-Cookie header.
func (s *site) login(name string) (*http.Client, *http.Cookie) {
	s.t.Helper()
	c := s.client()
	resp, body := s.do(c, "POST", "/login", url.Values{"token": {token}, "name": {name}, "next": {"/events?status=parked"}}, nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/events?status=parked" {
		s.t.Fatalf("login: %d %s\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	for _, ck := range resp.Cookies() {
		if ck.Name == console.SessionCookie {
			return c, ck
		}
	}
	s.t.Fatalf("login set no %s cookie: %v", console.SessionCookie, resp.Header["Set-Cookie"])
	return nil, nil
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf reads the CSRF token from a page.
func (s *site) csrf(page string) string {
	s.t.Helper()
	m := csrfRe.FindStringSubmatch(page)
	if m == nil {
		s.t.Fatalf("no CSRF field in page:\n%s", page)
	}
	return m[1]
}

func TestLoginFormThenSessionCookie(t *testing.T) {
	s := newSite(t, token)
	c := s.client()
	resp, body := s.do(c, "GET", "/", nil, nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `action="/login"`) || !strings.Contains(body, `name="token"`) {
		t.Fatalf("GET / without a session: %d, want the login form\n%s", resp.StatusCode, body)
	}
	if strings.Contains(body, "pay_Parked000001") {
		t.Fatal("the login page shows data")
	}
	resp, _ = s.do(c, "GET", "/events", nil, nil)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /events without a session: %d, want 401", resp.StatusCode)
	}
	resp, body = s.do(c, "POST", "/login", url.Values{"token": {"wrong-token"}}, nil)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "not the admin token") {
		t.Errorf("wrong token: %d\n%s", resp.StatusCode, body)
	}
	c, ck := s.login("Priya")
	if !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/" || ck.MaxAge != int((12*time.Hour)/time.Second) {
		t.Errorf("session cookie flags: HttpOnly %v SameSite %v Path %q MaxAge %d", ck.HttpOnly, ck.SameSite, ck.Path, ck.MaxAge)
	}
	if ck.Secure {
		t.Error("cookie is Secure on plain HTTP: the browser would never send it back")
	}
	if strings.Contains(ck.Value, token) {
		t.Error("the session cookie holds the admin token")
	}
	resp, body = s.do(c, "GET", "/events?status=parked", nil, nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "pay_Parked000001") || strings.Contains(body, "pay_Done00000001") {
		t.Fatalf("parked list with the cookie: %d\n%s", resp.StatusCode, body)
	}
	if !strings.Contains(body, "Priya (console)") {
		t.Error("the page does not show who is logged in")
	}
	// The session expires.
	s.now = s.now.Add(12*time.Hour + time.Second)
	if resp, _ := s.do(c, "GET", "/events", nil, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("after 12 h: %d, want 401", resp.StatusCode)
	}
}

func TestCookieIsSecureBehindHTTPS(t *testing.T) {
	s := newSite(t, token)
	resp, _ := s.do(s.client(), "POST", "/login", url.Values{"token": {token}}, map[string]string{"X-Forwarded-Proto": "https"})
	if len(resp.Cookies()) != 1 || !resp.Cookies()[0].Secure {
		t.Fatalf("cookie over HTTPS: %v", resp.Header["Set-Cookie"])
	}
}

func TestForgedOrTamperedCookieIsRefused(t *testing.T) {
	s := newSite(t, token)
	_, ck := s.login("")
	other := newSite(t, "another-admin-token-abcdef")
	_, otherCk := other.login2(t)
	for name, v := range map[string]string{
		"Tampered":       strings.Replace(ck.Value, ck.Value[:3], "999", 1),
		"OtherToken":     otherCk.Value,
		"NoSignature":    ck.Value[:strings.LastIndexByte(ck.Value, '.')],
		"TheTokenItself": token,
	} {
		t.Run(name, func(t *testing.T) {
			resp, _ := s.do(s.client(), "GET", "/events", nil, map[string]string{"Cookie": console.SessionCookie + "=" + v})
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("%d, want 401", resp.StatusCode)
			}
		})
	}
}

// login2 logs in to a site whose token is not the package constant.
func (s *site) login2(t *testing.T) (*http.Client, *http.Cookie) {
	c := s.client()
	resp, _ := s.do(c, "POST", "/login", url.Values{"token": {"another-admin-token-abcdef"}}, nil)
	if len(resp.Cookies()) != 1 {
		t.Fatalf("login: %d", resp.StatusCode)
	}
	return c, resp.Cookies()[0]
}

func TestBearerWorksOnEveryPage(t *testing.T) {
	s := newSite(t, token)
	bearer := map[string]string{"Authorization": "Bearer " + token}
	for _, p := range []string{"/", "/events", "/events?status=parked", "/events/1", "/events/2", "/reconcile", "/check", "/events/1/status"} {
		resp, body := s.do(s.client(), "GET", p, nil, bearer)
		if resp.StatusCode != http.StatusOK || strings.Contains(body, `name="token"`) {
			t.Errorf("GET %s with Bearer: %d", p, resp.StatusCode)
		}
	}
	// A state-changing POST with Bearer needs no CSRF token (browsers never send it by themselves).
	resp, _ := s.do(s.client(), "POST", "/events/1/replay", url.Values{}, bearer)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("Bearer replay: %d, want 303", resp.StatusCode)
	}
	if got := s.f.recorded(); len(got) != 1 || got[0] != "replay 1 by API client (Bearer token)" {
		t.Fatalf("actions %q", got)
	}
	// A wrong Bearer token is 401 and never falls back to a cookie.
	c, _ := s.login("x")
	resp, _ = s.do(c, "GET", "/events", nil, map[string]string{"Authorization": "Bearer nope"})
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("wrong Bearer: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}

func TestPostNeedsCSRFToken(t *testing.T) {
	s := newSite(t, token)
	c, _ := s.login("Priya")
	_, page := s.do(c, "GET", "/events/1", nil, nil)
	good := s.csrf(page)
	for name, form := range map[string]url.Values{
		"Missing": {},
		"Wrong":   {"csrf": {"AAAA" + good[4:]}},
	} {
		t.Run(name, func(t *testing.T) {
			resp, body := s.do(c, "POST", "/events/1/replay", form, nil)
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "CSRF") {
				t.Fatalf("%d, want 403\n%s", resp.StatusCode, body)
			}
		})
	}
	resp, _ := s.do(c, "POST", "/events/1/replay", url.Values{"csrf": {good}}, map[string]string{"Origin": "https://evil.example"})
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin POST with a good token: %d, want 403", resp.StatusCode)
	}
	if got := s.f.recorded(); len(got) != 0 {
		t.Fatalf("refused POSTs acted: %q", got)
	}
	// Not even logout is a GET.
	if resp, _ := s.do(c, "GET", "/logout", nil, nil); resp.StatusCode == http.StatusSeeOther {
		t.Error("GET /logout logged out")
	}
	resp, _ = s.do(c, "POST", "/events/1/replay", url.Values{"csrf": {good}}, map[string]string{"Origin": s.srv.URL})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/events/1" {
		t.Fatalf("replay with the token: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	if got := s.f.recorded(); len(got) != 1 || got[0] != "replay 1 by Priya (console)" {
		t.Fatalf("actions %q", got)
	}
	_, page = s.do(c, "GET", "/events/1", nil, nil)
	if !strings.Contains(page, "EvtParked00001: parked → pending") {
		t.Errorf("the flash message is not shown after the redirect:\n%s", page)
	}
}

func TestDismissNeedsReasonAndRefusalIs409(t *testing.T) {
	s := newSite(t, token)
	c, _ := s.login("Priya")
	_, page := s.do(c, "GET", "/events/3", nil, nil)
	tok := s.csrf(page)
	resp, body := s.do(c, "POST", "/events/3/dismiss", url.Values{"csrf": {tok}, "reason": {"  "}}, nil)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "needs a reason") {
		t.Fatalf("dismiss without reason: %d", resp.StatusCode)
	}
	resp, body = s.do(c, "POST", "/events/3/dismiss", url.Values{"csrf": {tok}, "reason": {"test payment"}}, nil)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "being processed right now") {
		t.Fatalf("dismiss of a processing event: %d\n%s", resp.StatusCode, body)
	}
	resp, _ = s.do(c, "POST", "/events/1/dismiss", url.Values{"csrf": {tok}, "reason": {"customer paid twice by mistake"}}, nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("dismiss: %d", resp.StatusCode)
	}
	if got := s.f.recorded(); len(got) != 1 || got[0] != "dismiss 1 by Priya (console): customer paid twice by mistake" {
		t.Fatalf("actions %q", got)
	}
	if resp, _ := s.do(c, "POST", "/events/99/replay", url.Values{"csrf": {tok}}, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("replay of a missing event: %d, want 404", resp.StatusCode)
	}
}

func TestHeadersOnEveryResponse(t *testing.T) {
	s := newSite(t, token)
	off := newSite(t, "")
	for _, c := range []struct {
		site *site
		path string
	}{{s, "/"}, {s, "/events/1"}, {s, "/static/console.css"}, {s, "/nope"}, {off, "/"}, {off, "/events"}} {
		resp, _ := c.site.do(c.site.client(), "GET", c.path, nil, map[string]string{"Authorization": "Bearer " + token})
		h := resp.Header
		if h.Get("Content-Security-Policy") != console.ContentSecurityPolicy || h.Get("X-Frame-Options") != "DENY" ||
			h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: CSP %q, XFO %q, nosniff %q", c.path, h.Get("Content-Security-Policy"), h.Get("X-Frame-Options"), h.Get("X-Content-Type-Options"))
		}
	}
	if !strings.Contains(console.ContentSecurityPolicy, "script-src 'self'") || strings.Contains(console.ContentSecurityPolicy, "unsafe") {
		t.Errorf("CSP %q allows inline script", console.ContentSecurityPolicy)
	}
}

func TestConsoleOffWithoutToken(t *testing.T) {
	s := newSite(t, "")
	for _, p := range []string{"/", "/events?status=parked", "/events/1", "/login"} {
		resp, body := s.do(s.client(), "GET", p, nil, map[string]string{"Authorization": "Bearer "})
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "admin_token") ||
			!strings.Contains(body, "RAZORPAY_ERPNEXT_ADMIN_TOKEN") || strings.Contains(body, "pay_Parked000001") {
			t.Errorf("GET %s with the console off: %d\n%s", p, resp.StatusCode, body)
		}
	}
	resp, _ := s.do(s.client(), "POST", "/login", url.Values{"token": {""}}, nil)
	if resp.StatusCode != http.StatusForbidden || len(resp.Cookies()) != 0 {
		t.Errorf("POST /login with the console off: %d, cookies %v", resp.StatusCode, resp.Cookies())
	}
}
