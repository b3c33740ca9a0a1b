package erpnextsim

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
)

// srvMsg is one entry of _server_messages (spec §2.2).
type srvMsg struct {
	message, title string
	indicator      string // "red" for throws; empty for plain msgprints
	throw          bool   // adds raise_exception 1 and a __frappe_exc_id
	alert          bool   // msgprint(alert=True): adds "alert": 1 (R09's "Splitting …" message)
}

// fErr is a Frappe error answer: status, exc_type and the keys the recordings
// show for that kind of failure (spec §2.2, recorded README differences 3-5).
type fErr struct {
	status    int
	excType   string
	module    string // Python module of the exception class, "frappe.exceptions" by default
	exception string // the "exception" line; built from module, excType and the first message when empty
	msgs      []srvMsg
	noExc     bool   // omit exception and exc (404s, create denial)
	excSource bool   // "_exc_source": "erpnext (app)" — raised inside ERPNext code
	errMsg    string // _error_message
	bare      bool   // "exception" is the class alone, no ": message"
	onlyType  bool   // body is {"exc_type": …} alone (route misses)
	headers   map[string]string
}

func (e *fErr) Error() string { return e.excType + ": " + e.firstMessage() }

func (e *fErr) firstMessage() string {
	if len(e.msgs) > 0 {
		return e.msgs[0].message
	}
	return ""
}

// throw is frappe.throw(msg): 417 ValidationError unless changed.
func throw(msg string) *fErr {
	return &fErr{status: http.StatusExpectationFailed, excType: "ValidationError",
		msgs: []srvMsg{{message: msg, title: "Message", indicator: "red", throw: true}}}
}

// erpThrow is a throw raised from ERPNext code (adds _exc_source).
func erpThrow(msg string) *fErr {
	e := throw(msg)
	e.excSource = true
	return e
}

func (e *fErr) as(excType string) *fErr { e.excType = excType; return e }

func (e *fErr) withTitle(t string) *fErr {
	for i := range e.msgs {
		e.msgs[i].title = t
	}
	return e
}

// silent is an exception raised without a message (no _server_messages), the
// text only in "exception" (README difference 3).
func silent(status int, excType, msg string) *fErr {
	return &fErr{status: status, excType: excType, exception: "frappe.exceptions." + excType + ": " + msg}
}

func notFound(doctype, name string) *fErr {
	e := throw(fmt.Sprintf("%s %s not found", doctype, name)).as("DoesNotExistError")
	e.status = http.StatusNotFound
	e.noExc = true
	return e
}

func routeMiss() *fErr {
	return &fErr{status: http.StatusNotFound, excType: "DoesNotExistError", onlyType: true}
}

func serverError(excType, exception string) *fErr {
	return &fErr{status: http.StatusInternalServerError, excType: excType, exception: exception}
}

// notModelled answers requests for real Frappe features the simulator does not
// implement yet, so a test fails loudly instead of passing against a fake.
func notModelled(what string) *fErr {
	e := throw("erpnextsim: " + what + " is not modelled yet").as("NotImplementedError")
	e.status = http.StatusNotImplemented
	e.module = "builtins"
	return e
}

// permissionDenied builds the 403 bodies of recordings 01-*, 29-*: the role
// message as a plain msgprint, plus _error_message on list and create.
func permissionDenied(user, doctype, action string) *fErr {
	msg := fmt.Sprintf("User <strong>%s</strong> does not have doctype access via role permission for document <strong>%s</strong>", user, doctype)
	e := &fErr{status: http.StatusForbidden, excType: "PermissionError", bare: true}
	switch action {
	case "read":
		msg += fmt.Sprintf("<br>User <strong>%s</strong> does not have access to this document", user)
	case "list":
		e.errMsg = "No permission for " + doctype
	case "create":
		e.errMsg = "No permission for " + doctype
		e.noExc = true
	}
	e.msgs = []srvMsg{{message: msg, title: "Message"}}
	return e
}

func excID() string {
	b := make([]byte, 28)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// body renders the error as the compact JSON Frappe sends.
func (e *fErr) body() string {
	if e.onlyType {
		return pyJSON(obj{{"exc_type", e.excType}}, false)
	}
	var o obj
	module := e.module
	if module == "" {
		module = "frappe.exceptions"
	}
	exception := e.exception
	if exception == "" {
		exception = module + "." + e.excType
		if !e.bare && e.firstMessage() != "" {
			exception += ": " + e.firstMessage()
		}
	}
	if !e.noExc {
		o = append(o, kv{"exception", exception})
	}
	o = append(o, kv{"exc_type", e.excType})
	if e.excSource && !e.noExc {
		o = append(o, kv{"_exc_source", "erpnext (app)"})
	}
	if !e.noExc {
		tb := "Traceback (most recent call last):\n  File \"apps/frappe/frappe/app.py\", line 115, in application\n" +
			"    response = frappe.api.handle(request)\n  File \"erpnextsim\", line 1, in simulated\n" + exception + "\n"
		o = append(o, kv{"exc", pyJSON([]string{tb}, true)})
	}
	if len(e.msgs) > 0 {
		o = append(o, kv{"_server_messages", e.messagesJSON()})
	}
	if e.errMsg != "" {
		o = append(o, kv{"_error_message", e.errMsg})
	}
	return pyJSON(o, false)
}

// messagesJSON encodes msgs as _server_messages: a JSON list of JSON-encoded objects (§2.2).
func (e *fErr) messagesJSON() string {
	var list []string
	for _, m := range e.msgs {
		mo := obj{{"message", m.message}, {"title", m.title}}
		if m.indicator != "" {
			mo = append(mo, kv{"indicator", m.indicator})
		}
		if m.alert {
			mo = append(mo, kv{"alert", 1})
		}
		if m.throw {
			mo = append(mo, kv{"raise_exception", 1}, kv{"__frappe_exc_id", excID()})
		}
		list = append(list, pyJSON(mo, true))
	}
	return pyJSON(list, true)
}

// gatewayPage is the HTML an nginx in front of gunicorn answers with on
// 502/503/504 (spec §8.2): not JSON, nothing a client can parse.
func gatewayPage(status int) string {
	text := http.StatusText(status)
	return fmt.Sprintf("<html>\r\n<head><title>%d %s</title></head>\r\n<body>\r\n<center><h1>%d %s</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
		status, text, status, text)
}

// stripTags is used to build texts that Frappe shows without markup.
func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}
