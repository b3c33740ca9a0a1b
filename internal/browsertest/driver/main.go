// Command driver is the console's browser tests' Chromium: it starts Debian's Chromium headless
// through chromedp and runs the steps package browsertest (in the daemon's module) sends it,
// one JSON request a line on stdin, one JSON reply a line on stdout. It is a module of its own
// so that chromedp stays out of the daemon's module graph; browsertest builds and starts it.
//
// The first reply says whether the browser started ({"err": "..."} when not). Every request
// after it is run under its own timeout; stdin closing (the test ended) stops the browser.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/chromedp/chromedp"
)

// request is one line on stdin. Op is "do" (run Steps), "text" (the text of the first element
// matching Selector), "eval" (Expr's value as JSON), "poll" (until Expr is truthy, every
// IntervalMS, for at most PollMS), "location" (the page's address) or "screenshot" (a
// full-page PNG at Quality). TimeoutMS bounds the whole request.
type request struct {
	Op         string `json:"op"`
	Steps      []step `json:"steps,omitempty"`
	Selector   string `json:"selector,omitempty"`
	Expr       string `json:"expr,omitempty"`
	IntervalMS int64  `json:"interval_ms,omitempty"`
	PollMS     int64  `json:"poll_ms,omitempty"`
	Quality    int    `json:"quality,omitempty"`
	TimeoutMS  int64  `json:"timeout_ms"`
}

// step is one browser action of a "do" request. Kind is "navigate" (URL), "wait_visible",
// "send_keys" (Keys), "submit", "click" (Selector, a CSS selector) or "viewport" (Width and
// Height in CSS pixels at Scale device pixels per CSS pixel).
type step struct {
	Kind     string  `json:"kind"`
	Selector string  `json:"selector,omitempty"`
	URL      string  `json:"url,omitempty"`
	Keys     string  `json:"keys,omitempty"`
	Width    int64   `json:"width,omitempty"`
	Height   int64   `json:"height,omitempty"`
	Scale    float64 `json:"scale,omitempty"`
}

// reply is one line on stdout: Err is "" on success; Value is the JSON of an eval, the text or
// the location as a JSON string; PNG is a screenshot.
type reply struct {
	Err   string          `json:"err,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
	PNG   []byte          `json:"png,omitempty"`
}

// startTimeout bounds the browser's start: generous, for a loaded machine.
const startTimeout = 90 * time.Second

func main() {
	chromium := flag.String("chromium", "", "the browser executable")
	profile := flag.String("profile", "", "a fresh, empty profile directory")
	flag.Parse()
	out := json.NewEncoder(os.Stdout)
	ctx, stop, err := start(*chromium, *profile)
	if err != nil {
		_ = out.Encode(reply{Err: err.Error()})
		os.Exit(1)
	}
	defer stop()
	if err := out.Encode(reply{}); err != nil {
		return
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 16<<20)
	for in.Scan() {
		var req request
		rep := reply{}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			rep.Err = "bad request: " + err.Error()
		} else {
			rep = serve(ctx, req)
		}
		if err := out.Encode(rep); err != nil {
			return
		}
	}
}

// start starts the browser with a fresh profile and returns a chromedp context for one tab.
// The flags keep Chromium off the network on its own (no background networking, component
// updates, sync or QUIC: a closed network refuses those connections) and let it run as root
// (no sandbox).
func start(path, profile string) (context.Context, func(), error) {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(profile),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("no-proxy-server", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("safebrowsing-disable-auto-update", true),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	stop := func() {
		cancelTab()
		cancelAlloc()
	}
	// The first Do starts the browser, which lives as long as that call's context, so the
	// context gets no deadline; the start is bounded by a timer instead.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx) }()
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case err := <-started:
		if err != nil {
			stop()
			return nil, nil, fmt.Errorf("start %s: %w", path, err)
		}
	case <-timer.C:
		stop()
		return nil, nil, fmt.Errorf("start %s: no DevTools connection within %s", path, startTimeout)
	}
	return ctx, stop, nil
}

// serve runs one request under its timeout.
func serve(ctx context.Context, req request) reply {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(req.TimeoutMS)*time.Millisecond)
	defer cancel()
	var rep reply
	var err error
	switch req.Op {
	case "do":
		err = runSteps(ctx, req.Steps)
	case "text":
		var s string
		if s, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(req.Selector))); err == nil {
			rep.Value, err = json.Marshal(s)
		}
	case "eval":
		rep.Value, err = chromedp.Run(ctx, chromedp.Evaluate[[]byte](req.Expr))
	case "poll":
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](req.Expr, chromedp.WithPollingInterval(time.Duration(req.IntervalMS)*time.Millisecond),
			chromedp.WithPollingTimeout(time.Duration(req.PollMS)*time.Millisecond)))
	case "location":
		var s string
		if s, err = chromedp.Run(ctx, chromedp.Location()); err == nil {
			rep.Value, err = json.Marshal(s)
		}
	case "screenshot":
		rep.PNG, err = chromedp.Run(ctx, chromedp.FullScreenshot(req.Quality))
	default:
		err = fmt.Errorf("unknown op %q", req.Op)
	}
	if err != nil {
		rep.Err = err.Error()
	}
	return rep
}

// runSteps runs the steps of a "do" request as one chromedp.Do.
func runSteps(ctx context.Context, steps []step) error {
	actions := make([]chromedp.Action[chromedp.Void], 0, len(steps))
	for _, s := range steps {
		sel := chromedp.CSS(s.Selector)
		switch s.Kind {
		case "navigate":
			actions = append(actions, chromedp.Navigate(s.URL))
		case "wait_visible":
			actions = append(actions, chromedp.WaitVisible(sel))
		case "send_keys":
			actions = append(actions, chromedp.SendKeys(sel, s.Keys))
		case "submit":
			actions = append(actions, chromedp.Submit(sel))
		case "click":
			actions = append(actions, chromedp.Click(sel))
		case "viewport":
			actions = append(actions, chromedp.EmulateViewport(s.Width, s.Height, chromedp.EmulateScale(s.Scale)))
		default:
			return errors.New("unknown step " + s.Kind)
		}
	}
	return chromedp.Do(ctx, actions...)
}
