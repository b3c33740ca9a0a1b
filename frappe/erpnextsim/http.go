package erpnextsim

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// call is one request being handled.
type call struct {
	users    *users // whose roles decide what the call may do
	method   string
	user     string         // "" for Guest
	args     map[string]any // Frappe's form_dict (§1.3)
	jsonBody bool
	status   int  // success status, 200 unless set
	nulls    bool // frappe.client.* answers keep null fields (§1.5)
	rpc      bool // a frappe.client.* method: list arguments may be JSON values, not only text
	// fixedName is a name AddSalesInvoice imposes whatever the version.
	fixedName string

	// seen holds the invoice outstanding amounts read while validating the
	// first time; with NoInvoiceLock the commit phase reuses them (§3.7).
	seen  map[string]dec
	stale bool
	// infos are msgprints of a successful request, sent as _server_messages next to the result.
	infos []srvMsg
	// direct marks a call made through the Go API (Site.run): one pass, no concurrency model.
	direct bool
	// claims are the client-supplied names this request is inserting; rows the rows it will
	// update on commit (concurrency.go).
	claims []string
	rows   []string
}

// success renders a 2xx body: {key: out} plus any queued _server_messages.
func (c *call) success(key string, out any) string {
	o := obj{{key, out}}
	if _, none := out.(noMessage); none {
		o = obj{}
	}
	if len(c.infos) > 0 {
		o = append(o, kv{"_server_messages", (&fErr{msgs: c.infos}).messagesJSON()})
	}
	return pyJSON(o, false)
}

// step is a validated operation: commit applies it and returns the body.
type step func() any

// handler validates a request against the current state without changing it
// and returns either an error or the step that applies it. Handlers run with
// s.mu held; writes run twice (validate, then validate again and commit).
type handler func(c *call) (*fErr, step)

// authenticate applies §1.2: token key:secret or Basic; a header that is not
// two words is ignored (Guest); two words without a valid user are 401.
func (sv *server) authenticate(h string) (string, *fErr) {
	unauthorized := &fErr{status: http.StatusUnauthorized, excType: "AuthenticationError", bare: true}
	parts := strings.Fields(h)
	if len(parts) != 2 {
		return "", nil
	}
	var key, secret string
	switch strings.ToLower(parts[0]) {
	case "token":
		k, sec, ok := strings.Cut(parts[1], ":")
		if !ok {
			return "", unauthorized
		}
		key, secret = k, sec
	case "basic":
		raw, err := base64.StdEncoding.DecodeString(parts[1])
		p := strings.Split(string(raw), ":")
		if err != nil || len(p) != 2 {
			e := throw("Failed to decode token, please provide a valid base64-encoded token.").as("InvalidAuthorizationToken")
			e.status = http.StatusBadRequest
			return "", e
		}
		key, secret = p[0], p[1]
	default:
		return "", unauthorized
	}
	user := sv.users.lookupUser(key, secret)
	if user == "" {
		return "", unauthorized
	}
	return user, nil
}

// parseArgs builds form_dict: a JSON body replaces the query string entirely
// (§1.3); otherwise query and form values merge.
func (c *call) parseArgs(r *http.Request) *fErr {
	body, err := io.ReadAll(io.LimitReader(r.Body, 25<<20))
	if err != nil {
		return serverError("ClientDisconnected", "werkzeug.exceptions.ClientDisconnected")
	}
	c.args = map[string]any{}
	ct := r.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "application/json") && len(bytes.TrimSpace(body)) > 0 {
		c.jsonBody = true
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return jsonDecodeError(string(body), err)
		}
		switch x := v.(type) {
		case map[string]any:
			c.args = x
		default:
			c.args["data"] = x
		}
		return nil
	}
	vals := r.URL.Query()
	if strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		if form, err := url.ParseQuery(string(body)); err == nil {
			for k, v := range form {
				vals[k] = v
			}
		}
	}
	for k, v := range vals {
		if len(v) > 0 {
			c.args[k] = v[len(v)-1]
		}
	}
	return nil
}

// jsonDecodeError is the 500 Frappe answers for malformed JSON (recording 04-invalid-json-filters).
func jsonDecodeError(text string, err error) *fErr {
	off := 0
	if se, ok := err.(*json.SyntaxError); ok {
		off = int(se.Offset)
	} else if err == io.ErrUnexpectedEOF || err == io.EOF {
		off = len(strings.TrimRight(text, " \n\r\t"))
	}
	if off > len(text) {
		off = len(text)
	}
	line, col := 1, 1
	for _, ch := range text[:off] {
		if ch == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return serverError("JSONDecodeError", "json.decoder.JSONDecodeError: Expecting value: line "+itoa(line)+" column "+itoa(col)+" (char "+itoa(off)+")")
}

// route picks the handler and the success envelope key ("data" or "message").
func (rs *rest) route(c *call, path string) (handler, string) {
	switch {
	case strings.HasPrefix(path, "/api/resource/"):
		rest := strings.TrimPrefix(path, "/api/resource/")
		dt, name, hasName := strings.Cut(rest, "/")
		return rs.resourceHandler(c, dt, name, hasName), "data"
	case strings.HasPrefix(path, "/api/method/"):
		return rs.methodHandler(c, strings.TrimPrefix(path, "/api/method/")), "message"
	case strings.HasPrefix(path, "/api/v2/"):
		return fail(notModelled("REST API v2")), "data"
	}
	return fail(routeMiss()), "data"
}

func fail(e *fErr) handler { return func(*call) (*fErr, step) { return e, nil } }

// str returns a string argument ("" when absent or not a string).
func (c *call) str(k string) string {
	switch v := c.args[k].(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return ""
}

// readOnlyMethods are whitelisted methods that write nothing, whatever the HTTP verb.
var readOnlyMethods = map[string]bool{
	getPaymentEntryCmd:            true,
	"frappe.client.get":           true,
	"frappe.client.get_list":      true,
	"frappe.client.get_count":     true,
	"frappe.client.get_value":     true,
	getSingleValueCmd:             true,
	"frappe.auth.get_logged_user": true,
}

// readOnlyMethod reports whether path calls a method of readOnlyMethods.
func readOnlyMethod(path string) bool {
	path = strings.Replace(path, "/api/v1/", "/api/", 1)
	cmd, ok := strings.CutPrefix(path, "/api/method/")
	return ok && readOnlyMethods[strings.TrimSuffix(cmd, "/")]
}

// unknownSite reports the site name a request asks for and whether this server is that site
// (spec §9 item 34: an unknown Host or X-Frappe-Site-Name is an HTML 404, not JSON). The
// header wins over Host, as in Frappe's init_request.
func (sv *server) unknownSite(r *http.Request) (string, bool) {
	if len(sv.opt.SiteNames) == 0 {
		return "", true
	}
	name := r.Header.Get("X-Frappe-Site-Name")
	if name == "" {
		name = r.Host
		if h, _, err := net.SplitHostPort(name); err == nil {
			name = h
		}
	}
	for _, n := range sv.opt.SiteNames {
		if strings.EqualFold(n, name) {
			return name, true
		}
	}
	return name, false
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;").Replace(s)
}
