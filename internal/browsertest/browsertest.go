// Package browsertest starts Debian's Chromium headless for tests that drive the console in a
// real browser. The browser is run by the driver command of the nested module ./driver
// (chromedp, kept out of the daemon's module graph); New builds that command with the go tool,
// starts it and talks to it over its stdin and stdout. Without a browser the test is skipped on
// a developer machine (and under -short) and fails under CI (CI set), so the browser tests
// never go silently untested there; `.ci/run` installs chromium with apt when it is missing.
package browsertest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

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

// startTimeout bounds building the driver and starting the browser: generous, for a loaded
// machine (the first build compiles chromedp).
const startTimeout = 5 * time.Minute

// replySlack is how long past a request's own timeout the driver may take to answer before the
// request fails (the driver bounds each request itself; this catches a driver that hangs).
const replySlack = 30 * time.Second

// Browser is one headless browser tab run by the driver process. Its methods send one request
// each and wait for the answer; they are safe for one goroutine at a time (a mutex orders
// concurrent calls).
type Browser struct {
	mu    sync.Mutex
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
	dead  error
	stopC chan struct{}
}

// New builds the driver, starts a headless browser with a fresh profile and returns its tab,
// stopped when t ends. No browser on PATH skips t (fails it under CI); a driver that does not
// build or a browser that does not start fails t.
func New(t *testing.T) *Browser {
	t.Helper()
	testtime.Long(t, "drives headless Chromium")
	path := ExecPath()
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no chromium on PATH under CI: the browser tests must run (.ci/run installs it with apt-get install chromium)")
		}
		t.Skip("no chromium on PATH (apt-get install chromium): browser test skipped")
	}
	bin, err := buildDriver()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-chromium", path, "-profile", t.TempDir())
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the browser driver: %v", err)
	}
	b := &Browser{cmd: cmd, in: in, out: bufio.NewScanner(out), stopC: make(chan struct{})}
	b.out.Buffer(make([]byte, 64<<10), 64<<20)
	t.Cleanup(b.stop)
	if _, err := b.read(startTimeout); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	return b
}

var built struct {
	once sync.Once
	bin  string
	err  error
}

// buildDriver builds ./driver once per test process into a temporary directory.
func buildDriver() (string, error) {
	built.once.Do(func() {
		_, file, _, ok := runtime.Caller(0)
		if !ok {
			built.err = errors.New("browsertest: cannot find its own source directory")
			return
		}
		dir, err := os.MkdirTemp("", "browsertest-driver-")
		if err != nil {
			built.err = err
			return
		}
		built.bin = filepath.Join(dir, "driver")
		cmd := exec.Command("go", "build", "-o", built.bin, ".")
		cmd.Dir = filepath.Join(filepath.Dir(file), "driver")
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("build the browser driver in %s: %v\n%s", cmd.Dir, err, out)
		}
	})
	return built.bin, built.err
}

// stop closes the driver's stdin (it stops the browser and exits) and waits for it.
func (b *Browser) stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	_ = b.in.Close()
	done := make(chan struct{})
	go func() {
		_ = b.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(replySlack):
		_ = b.cmd.Process.Kill()
		<-done
	}
}

// reply is the driver's answer to one request (see driver/main.go).
type reply struct {
	Err   string          `json:"err,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
	PNG   []byte          `json:"png,omitempty"`
}

// read waits up to timeout for the driver's next reply; a driver that does not answer in time
// is killed and every later request fails.
func (b *Browser) read(timeout time.Duration) (reply, error) {
	if b.dead != nil {
		return reply{}, b.dead
	}
	got := make(chan error, 1)
	var line []byte
	go func() {
		if !b.out.Scan() {
			err := b.out.Err()
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			got <- fmt.Errorf("the browser driver exited: %w", err)
			return
		}
		line = append([]byte(nil), b.out.Bytes()...)
		got <- nil
	}()
	select {
	case err := <-got:
		if err != nil {
			b.dead = err
			return reply{}, err
		}
	case <-time.After(timeout):
		_ = b.cmd.Process.Kill()
		<-got
		b.dead = fmt.Errorf("the browser driver did not answer within %s", timeout)
		return reply{}, b.dead
	}
	var r reply
	if err := json.Unmarshal(line, &r); err != nil {
		return reply{}, fmt.Errorf("the browser driver's answer %q: %w", line, err)
	}
	if r.Err != "" {
		return r, errors.New(r.Err)
	}
	return r, nil
}
