package browsertest

import (
	"encoding/json"
	"fmt"
	"time"
)

// request is one line to the driver (see driver/main.go for each field's meaning).
type request struct {
	Op         string `json:"op"`
	Steps      []Step `json:"steps,omitempty"`
	Selector   string `json:"selector,omitempty"`
	Expr       string `json:"expr,omitempty"`
	IntervalMS int64  `json:"interval_ms,omitempty"`
	PollMS     int64  `json:"poll_ms,omitempty"`
	Quality    int    `json:"quality,omitempty"`
	TimeoutMS  int64  `json:"timeout_ms"`
}

// Step is one browser action of Browser.Do; build it with Navigate, WaitVisible, SendKeys,
// Submit, Click or EmulateViewport. Selectors are CSS selectors ("#replay", "table.events").
type Step struct {
	Kind     string  `json:"kind"`
	Selector string  `json:"selector,omitempty"`
	URL      string  `json:"url,omitempty"`
	Keys     string  `json:"keys,omitempty"`
	Width    int64   `json:"width,omitempty"`
	Height   int64   `json:"height,omitempty"`
	Scale    float64 `json:"scale,omitempty"`
}

// Navigate opens url and waits for its load event.
func Navigate(url string) Step { return Step{Kind: "navigate", URL: url} }

// WaitVisible waits until the first element matching sel is visible.
func WaitVisible(sel string) Step { return Step{Kind: "wait_visible", Selector: sel} }

// SendKeys types keys into the first element matching sel.
func SendKeys(sel, keys string) Step { return Step{Kind: "send_keys", Selector: sel, Keys: keys} }

// Submit submits the form of the first element matching sel.
func Submit(sel string) Step { return Step{Kind: "submit", Selector: sel} }

// Click clicks the first element matching sel.
func Click(sel string) Step { return Step{Kind: "click", Selector: sel} }

// EmulateViewport sets the viewport to width × height CSS pixels at scale device pixels each.
func EmulateViewport(width, height int64, scale float64) Step {
	return Step{Kind: "viewport", Width: width, Height: height, Scale: scale}
}

// call sends one request bounded by timeout and returns its reply.
func (b *Browser) call(req request, timeout time.Duration) (reply, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dead != nil {
		return reply{}, b.dead
	}
	req.TimeoutMS = timeout.Milliseconds()
	line, err := json.Marshal(req)
	if err != nil {
		return reply{}, err
	}
	if _, err := b.in.Write(append(line, '\n')); err != nil {
		b.dead = fmt.Errorf("the browser driver exited: %w", err)
		return reply{}, b.dead
	}
	return b.read(timeout + replySlack)
}

// Do runs steps in order within timeout.
func (b *Browser) Do(timeout time.Duration, steps ...Step) error {
	_, err := b.call(request{Op: "do", Steps: steps}, timeout)
	return err
}

// Text is the text of the first element matching sel (waiting for one within timeout).
func (b *Browser) Text(timeout time.Duration, sel string) (string, error) {
	return decode[string](b.call(request{Op: "text", Selector: sel}, timeout))
}

// Location is the page's address.
func (b *Browser) Location(timeout time.Duration) (string, error) {
	return decode[string](b.call(request{Op: "location"}, timeout))
}

// Poll evaluates the JavaScript predicate every interval until it is truthy, for at most
// poll; an error when it is not by then (a reload by the page's own script is survived).
func (b *Browser) Poll(timeout time.Duration, predicate string, interval, poll time.Duration) error {
	_, err := b.call(request{Op: "poll", Expr: predicate, IntervalMS: interval.Milliseconds(), PollMS: poll.Milliseconds()}, timeout)
	return err
}

// Screenshot is a full-page PNG at quality (0–100).
func (b *Browser) Screenshot(timeout time.Duration, quality int) ([]byte, error) {
	r, err := b.call(request{Op: "screenshot", Quality: quality}, timeout)
	return r.PNG, err
}

// Eval evaluates the JavaScript expression in the page and decodes its value (JSON) into T;
// an error when it is null or undefined.
func Eval[T any](b *Browser, timeout time.Duration, expr string) (T, error) {
	return decode[T](b.call(request{Op: "eval", Expr: expr}, timeout))
}

func decode[T any](r reply, err error) (T, error) {
	var v T
	if err != nil {
		return v, err
	}
	if len(r.Value) == 0 || string(r.Value) == "null" {
		return v, fmt.Errorf("the script's value is null or undefined")
	}
	err = json.Unmarshal(r.Value, &v)
	return v, err
}
