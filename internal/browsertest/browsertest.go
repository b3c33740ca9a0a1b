// Package browsertest starts Debian's Chromium headless for tests that drive the console in a
// real browser through chromedp. Without a browser the test is skipped on a developer machine
// (and under -short) and fails under CI (CI set), so the browser tests never go silently
// untested there; `.ci/run` installs chromium with apt when it is missing.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
)

// Candidates are the browser executables looked for on PATH, in order.
var Candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// ExecPath returns the first browser found on PATH, or "".
func ExecPath() string {
	for _, name := range Candidates {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// New starts a headless browser with a fresh profile and returns a chromedp context for one
// tab, cancelled (and the browser stopped) when t ends. The flags keep Chromium off the
// network on its own (no background networking, component updates, sync or QUIC: this
// machine's closed network refuses those connections) and let it run as root (no sandbox).
func New(t *testing.T) context.Context {
	t.Helper()
	testtime.Long(t, "drives headless Chromium")
	path := ExecPath()
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no chromium on PATH under CI: the browser tests must run (.ci/run installs it with apt-get install chromium)")
		}
		t.Skip("no chromium on PATH (apt-get install chromium): browser test skipped")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(t.TempDir()),
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
	// The first Do starts the browser, which lives as long as that call's context, so the
	// context gets no deadline; the start is bounded by a timer instead (generous: the machine
	// may be loaded).
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx) }()
	timer := time.NewTimer(90 * time.Second)
	defer timer.Stop()
	select {
	case err := <-started:
		if err != nil {
			cancelTab()
			cancelAlloc()
			t.Fatalf("start %s: %v", path, err)
		}
	case <-timer.C:
		cancelTab()
		cancelAlloc()
		t.Fatalf("start %s: no DevTools connection within 90 s", path)
	}
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	return ctx
}
