package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a child process the benchmark started: the daemon, a simulator, the floor server or
// a reconcile. Each runs as its own process so that its memory figures are its own.
type proc struct {
	name string
	cmd  *exec.Cmd
	tail *tailLines
	done chan struct{} // closed when the process has exited
	err  error         // its exit error, once done

	stopRSS chan struct{}
	rssDone chan struct{}
	maxRSS  int // KiB, the largest VmRSS sampled while it ran

	stopOnce sync.Once
	stopErr  error
}

// startTimeout bounds how long a child may take to say it is ready (migrations on a busy
// machine, seeding a simulator).
const startTimeout = 2 * time.Minute

// startProc starts bin with args and env (added to the benchmark's own environment) and waits
// until ready accepts a line of its output (stdout or stderr), returning what ready extracted
// (e.g. the address it listens on). Output goes on being read (the last lines are kept for
// error messages) and VmRSS is sampled every 50 ms until the process exits.
func startProc(ctx context.Context, name, bin string, args, env []string, ready func(line string) (string, bool)) (*proc, string, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlive the benchmark
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	p := &proc{name: name, cmd: cmd, tail: &tailLines{max: 40}, done: make(chan struct{}),
		stopRSS: make(chan struct{}), rssDone: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		return nil, "", fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		p.err = cmd.Wait()
		pw.Close()
		close(p.done)
	}()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			p.tail.add(line)
			if !sent {
				if v, ok := ready(line); ok {
					found <- v
					sent = true
				}
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	go p.sampleRSS()
	select {
	case v := <-found:
		return p, v, nil
	case <-p.done:
		return nil, "", fmt.Errorf("%s exited before it was ready (%v):\n%s", name, p.err, p.tail)
	case <-time.After(startTimeout):
	case <-ctx.Done():
	}
	p.kill()
	return nil, "", fmt.Errorf("%s not ready after %v:\n%s", name, startTimeout, p.tail)
}

// sampleRSS records the largest VmRSS of the process until it exits or stop is called.
func (p *proc) sampleRSS() {
	defer close(p.rssDone)
	path := fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid)
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		if kib := procKiB(path, "VmRSS"); kib > p.maxRSS {
			p.maxRSS = kib
		}
		select {
		case <-t.C:
		case <-p.stopRSS:
			return
		case <-p.done:
			return
		}
	}
}

// Memory is a child's memory in MiB: PeakMiB is the kernel's high-water mark of its resident
// set (VmHWM of /proc/PID/status, read while it still runs, before it is told to stop),
// SampledMaxMiB the largest VmRSS seen every 50 ms.
type Memory struct {
	PeakMiB       float64 `json:"peak_rss_mib"`
	SampledMaxMiB float64 `json:"sampled_max_rss_mib"`
}

// memory reads the process's memory figures now.
func (p *proc) memory() Memory {
	hwm := procKiB(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid), "VmHWM")
	return Memory{PeakMiB: round3(float64(hwm) / 1024), SampledMaxMiB: round3(float64(p.maxRSS) / 1024)}
}

// stop asks the process to end (SIGTERM), waits up to 30 s, then kills it; only this child,
// by its pid. Its error is returned when it exited otherwise than by the signal. Safe to call
// again: later calls return the first result.
func (p *proc) stop() error { return p.stopWithin(30*time.Second, true) }

// stopWithin is stop with a grace of its own; when late is false a process still running
// after grace is killed without an error (its figures were taken already).
func (p *proc) stopWithin(grace time.Duration, late bool) error {
	p.stopOnce.Do(func() { p.stopErr = p.terminate(grace, late) })
	return p.stopErr
}

func (p *proc) terminate(grace time.Duration, late bool) error {
	close(p.stopRSS)
	<-p.rssDone
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		p.kill()
		if !late {
			return nil
		}
		return fmt.Errorf("%s did not stop within %v of SIGTERM; killed:\n%s", p.name, grace, p.tail)
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) && ee.Exited() && ee.ExitCode() != 0 {
		return fmt.Errorf("%s exited with %d:\n%s", p.name, ee.ExitCode(), p.tail)
	}
	return nil
}

func (p *proc) kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

// tailLines keeps the last max lines written to it.
type tailLines struct {
	mu    sync.Mutex
	max   int
	lines []string
}

func (t *tailLines) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > t.max {
		t.lines = t.lines[len(t.lines)-t.max:]
	}
}

func (t *tailLines) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}

// buildDaemon builds ./cmd/razorpay-erpnext of the module the benchmark runs in into dir.
func buildDaemon(ctx context.Context, dir string) (string, error) {
	root, err := moduleRoot(ctx)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "razorpay-erpnext")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/razorpay-erpnext")
	build.Dir = root
	if msg, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/razorpay-erpnext: %v\n%s", err, msg)
	}
	return bin, nil
}
