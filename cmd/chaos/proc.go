package main

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// proc is a child process the run starts, kills with -9 and starts again (the database server,
// replicas). Its output is appended to one log file across restarts.
type proc struct {
	mu    sync.Mutex
	cmd   *exec.Cmd
	done  chan struct{}
	cred  *syscall.Credential // the user to run as; nil = this process's
	group bool                // kill9 kills the process's whole group (a server and its children)
}

// launch starts bin with args and env (nil: the run's own environment), output to logPath.
func (p *proc) launch(bin string, args, env []string, logPath string) error {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: p.cred}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); close(done) }()
	p.mu.Lock()
	p.cmd, p.done = cmd, done
	p.mu.Unlock()
	return nil
}

// exited reports whether the last launched process has ended.
func (p *proc) exited() bool {
	p.mu.Lock()
	done := p.done
	p.mu.Unlock()
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// exitedErr is an error naming what when the process has ended, else nil.
func (p *proc) exitedErr(what, logPath string) error {
	if p.exited() {
		return fmt.Errorf("%s exited at start; see %s", what, logPath)
	}
	return nil
}

// kill9 sends SIGKILL and waits until the process is gone.
func (p *proc) kill9() {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	if p.group {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // Setpgid: the group is the process's pid
	} else {
		_ = cmd.Process.Signal(syscall.SIGKILL)
	}
	<-done
}

// stop sends SIGTERM, waits up to grace, then kills.
func (p *proc) stop(grace time.Duration) {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(grace):
		p.kill9()
	}
}
