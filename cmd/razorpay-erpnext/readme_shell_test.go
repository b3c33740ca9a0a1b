package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
)

// readmeShell is one bash that runs the walkthrough's steps in order, as a person types them
// into their terminals: variables and functions a step defines stay for the next. Its output
// (stdout and stderr together) is read step by step up to a marker the test prints after
// each step.
type readmeShell struct {
	t     *testing.T
	dir   string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	steps int
	bg    int               // background steps started
	procs map[string]string // command of a background step → its pid file, while it may run
}

// startShell starts bash in dir with a clean environment: PATH, HOME, TMPDIR and the Go
// toolchain's variables, nothing the walkthrough does not export itself.
func startShell(t *testing.T, dir string) *readmeShell {
	t.Helper()
	cmd := exec.Command("bash", "--noprofile", "--norc")
	cmd.Dir = dir
	cmd.Env = []string{"LC_ALL=C.UTF-8", "TERM=dumb"}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "PATH" || k == "HOME" || k == "TMPDIR" || strings.HasPrefix(k, "GO") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout.(io.Writer)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &readmeShell{t: t, dir: dir, cmd: cmd, stdin: stdin, lines: make(chan string, 1024), procs: map[string]string{}}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	s.write("exec 2>&1\n")
	t.Cleanup(s.stop)
	return s
}

func (s *readmeShell) write(text string) {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, text); err != nil {
		s.t.Fatalf("write to bash: %v", err)
	}
}

// run runs one step (stdin from /dev/null, so no command eats the steps after it) and
// returns what it printed.
func (s *readmeShell) run(text string) []string {
	s.t.Helper()
	s.steps++
	marker := fmt.Sprintf("@@readme-step-%d@@", s.steps)
	s.write("{\n" + text + "\n} </dev/null\nprintf '\\n%s\\n' '" + marker + "'\n")
	var out []string
	deadline := time.After(unitTimeout)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("bash ended during the step:\n%s\nit printed:\n%s", text, strings.Join(out, "\n"))
			}
			if l == marker {
				if n := len(out); n > 0 && out[n-1] == "" {
					out = out[:n-1] // the newline printed before the marker
				}
				return out
			}
			out = append(out, l)
		case <-deadline:
			s.t.Fatalf("the step did not finish within %s:\n%s\nit printed so far:\n%s", unitTimeout, text, strings.Join(out, "\n"))
		}
	}
}

// background starts a step that keeps running (a simulator, the daemon) with its output in a
// log file, as in a terminal of its own, and returns its output once done accepts it, the
// process ended, or testtime.Bound passed. When the same command runs already, it is stopped
// first, as a person presses Ctrl-C in its terminal before starting it again (SIGTERM by its
// pid: bash starts background commands with SIGINT ignored), and waited for.
func (s *readmeShell) background(text string, done func([]string) bool) []string {
	s.t.Helper()
	command := strings.TrimSpace(stripComments(text))
	if pidFile, ok := s.procs[command]; ok {
		s.run(fmt.Sprintf("kill -TERM \"$(cat %s)\" 2>/dev/null; true", pidFile))
		if !testtime.Poll(testtime.Bound, func() bool { return !s.alive(pidFile) }) {
			s.t.Fatalf("%s did not stop within %s of SIGTERM, to be started again", command, testtime.Bound)
		}
		s.run("rm -f " + pidFile) // stop() at the end must not signal a pid the system reuses
	}
	s.bg++
	log := filepath.Join(s.dir, fmt.Sprintf("step-%d.log", s.bg))
	s.procs[command] = log + ".pid"
	s.run(fmt.Sprintf("%s </dev/null >%s 2>&1 &\necho $! >%s.pid", command, log, log))
	var lines []string
	testtime.Poll(testtime.Bound, func() bool {
		raw, _ := os.ReadFile(log)
		lines = strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
		return done(lines) || !s.alive(log+".pid")
	})
	return lines
}

// alive reports whether the process whose pid is in file still runs (kill -0 through bash
// would race the steps; /proc is enough on Linux, and elsewhere it is assumed alive). A
// zombie bash has not reaped yet has ended.
func (s *readmeShell) alive(file string) bool {
	pid, err := os.ReadFile(file)
	if err != nil {
		return true
	}
	if _, err := os.Stat("/proc"); err != nil {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strings.TrimSpace(string(pid)) + "/stat")
	if err != nil {
		return false
	}
	// "pid (comm) state …": the state follows the last ')'.
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// stop ends the background processes the walkthrough started (SIGTERM, each by its pid, then
// bash waits for them), then bash itself.
func (s *readmeShell) stop() {
	_, _ = io.WriteString(s.stdin, "for f in step-*.log.pid; do [ -f \"$f\" ] && kill -TERM \"$(cat \"$f\")\" 2>/dev/null; done; wait; exit\n")
	_ = s.stdin.Close()
	done := make(chan error, 1)
	go func() {
		for range s.lines {
		}
		done <- s.cmd.Wait()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		s.t.Errorf("the walkthrough's processes did not stop within a minute of SIGTERM; killing them")
		for i := 1; i <= s.bg; i++ {
			if pid, err := os.ReadFile(filepath.Join(s.dir, fmt.Sprintf("step-%d.log.pid", i))); err == nil {
				_ = exec.Command("kill", "-KILL", strings.TrimSpace(string(pid))).Run()
			}
		}
		_ = s.cmd.Process.Kill()
		<-done
	}
}
