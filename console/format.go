package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// pageTemplate is one page: the layout plus the page's own template.
type pageTemplate struct{ t *template.Template }

func (p *pageTemplate) execute(w io.Writer, f frame) error {
	return p.t.ExecuteTemplate(w, "layout", f)
}

// pageNames are the templates/<name>.html pages; each is parsed with templates/layout.html.
var pageNames = []string{"login", "off", "error", "today", "events", "event", "reconcile", "check"}

// parsePages parses every page with the layout and the template functions.
func (c *Console) parsePages() map[string]*pageTemplate {
	pages := map[string]*pageTemplate{}
	for _, name := range pageNames {
		t := template.Must(template.New("layout").Funcs(c.funcMap()).ParseFS(templateFS,
			"templates/layout.html", "templates/partials.html", "templates/"+name+".html"))
		pages[name] = &pageTemplate{t: t}
	}
	return pages
}

// funcMap are the template functions: pure formatting, plus times in the console's location
// and links into ERPNext Desk.
func (c *Console) funcMap() template.FuncMap {
	return template.FuncMap{
		"when":        c.localTime,
		"day":         func(t time.Time) string { return t.In(c.o.Location).Format("Mon 02 Jan") },
		"ago":         func(t time.Time) string { return formatDuration(c.o.Now().Sub(t)) },
		"desk":        func(doctype, name string) string { return c.o.ERPNextURL + deskPath(doctype, name) },
		"money":       razorpay.MoneyDisplay,
		"pretty":      prettyJSON,
		"statusClass": statusClass,
		"shorten":     shorten,
		"reasonLabel": reasonLabel,
		"duration":    formatDuration,
		"deskPath":    deskPath,
		"plural":      plural,
		"sub":         func(a, b int) int { return a - b },
		"add":         func(a, b int) int { return a + b },
	}
}

// reasonLabel heads an event's reason by what it says for the event's status: how a finished
// event ended, why one is parked, dismissed or dead, what a waiting one waits for.
func reasonLabel(status string) string {
	switch status {
	case "done", "duplicate", "skipped":
		return "Outcome"
	case "parked":
		return "Why it is parked"
	case "dismissed":
		return "Why it was dismissed"
	case "dead":
		return "Why it was given up (the last failure)"
	}
	return "Where it stands" // pending, processing: a failure it will be tried again after, or a replay
}

// prettyJSON indents a JSON body; a body that is not JSON is shown as text.
func prettyJSON(body []byte) string {
	var out bytes.Buffer
	if json.Indent(&out, body, "", "  ") == nil {
		return out.String()
	}
	return strings.ToValidUTF8(string(body), "�")
}

// statusClass is the CSS class of an inbox status badge.
func statusClass(status string) string {
	switch status {
	case "done":
		return "st-done"
	case "parked", "dead":
		return "st-attention"
	case "pending", "processing":
		return "st-busy"
	}
	return "st-quiet"
}

// shorten cuts s to n characters on one line.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > n {
		return string([]rune(s)[:n-1]) + "…"
	}
	return s
}

// formatDuration writes an age the way people say it: "45s", "12m", "3h 05m", "2d 4h".
func formatDuration(d time.Duration) string {
	switch {
	case d < 0:
		d = 0
		fallthrough
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh %02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	return fmt.Sprintf("%dd %dh", int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour))
}

// deskPath is the path of a document in ERPNext Desk: /app/<doctype as a slug>/<name>, e.g.
// "/app/payment-entry/ACC-PAY-2026-00001" (Frappe's route for a form).
func deskPath(doctype, name string) string {
	slug := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(doctype)), " ", "-")
	return "/app/" + url.PathEscape(slug) + "/" + url.PathEscape(name)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// localTime formats t in the console's location: "2026-03-14 15:04:05 IST".
func (c *Console) localTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.In(c.o.Location).Format("2006-01-02 15:04:05 MST")
}
