package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// logReport is what the scan of every process's output found.
type logReport struct {
	Files       int `json:"files"`
	Lines       int `json:"lines"`
	ErrorLines  int `json:"error_lines"`
	Panics      int `json:"panics"`
	SecretLines int `json:"secret_lines"`
	// Retries after a 429 (ERPNext asking to slow down) that spent an attempt (issue 10
	// defect 1: a 429 should spend none; see countAttemptsOn429), and the highest attempt
	// number any event outcome line showed.
	AttemptsSpentOn429 int      `json:"attempts_spent_on_429"`
	MaxAttempt         int      `json:"max_attempt"`
	SecretsFound       []string `json:"secrets_found"` // which secret, file and line number; never the value

	// Waits of an event for another worker's claim on the same payment, in seconds until the
	// holder's fence (issue 10 defect 2: a waiter should run again once the holder is done,
	// not at the fence, server_timeout + fence_margin after the holder's claim).
	FenceWaits       int     `json:"waits_for_holder_fence"`
	FenceWaitMedianS float64 `json:"waits_for_holder_fence_median_s"`
	FenceWaitMaxS    float64 `json:"waits_for_holder_fence_max_s"`

	outcomes   []outcomeLine
	fenceWaits []float64
}

// panicLine matches what the Go runtime prints for a panic or a fatal error.
var panicLine = regexp.MustCompile(`^(panic: |fatal error: |goroutine \d+ \[running\]:)`)

// scanLogs reads every *.log file in dir: counts lines at error level, Go panics, and lines
// holding any secret value (by name, file and line; the value is never repeated).
func scanLogs(dir string, secretValues map[string]string) (logReport, error) {
	rep := logReport{SecretsFound: []string{}}
	files, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil {
		return rep, err
	}
	for _, f := range files {
		if filepath.Base(f) == "mariadb.log" {
			continue // the database server's own log: not the connector's
		}
		if err := scanLog(f, secretValues, &rep); err != nil {
			return rep, err
		}
	}
	rep.AttemptsSpentOn429 = countAttemptsOn429(rep.outcomes)
	if n := len(rep.fenceWaits); n > 0 {
		sort.Float64s(rep.fenceWaits)
		rep.FenceWaits, rep.FenceWaitMedianS, rep.FenceWaitMaxS = n, rep.fenceWaits[n/2], rep.fenceWaits[n-1]
	}
	return rep, nil
}

func scanLog(path string, secretValues map[string]string, rep *logReport) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	rep.Files++
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		rep.Lines++
		if strings.Contains(line, `"level":"error"`) {
			rep.ErrorLines++
		}
		if panicLine.MatchString(line) {
			rep.Panics++
		}
		if strings.Contains(line, `"message":"event outcome"`) {
			outcome(line, rep.Files, n, rep)
		}
		for name, v := range secretValues {
			if v != "" && strings.Contains(line, v) {
				rep.SecretLines++
				if len(rep.SecretsFound) < 20 {
					rep.SecretsFound = append(rep.SecretsFound, fmt.Sprintf("%s in %s:%d", name, filepath.Base(path), n))
				}
			}
		}
	}
	return sc.Err()
}

// holderFence finds the fence a waiting event sleeps until ("waiting: pay_… is being booked by
// another worker until 2026-12-01T20:36:48Z").
var holderFence = regexp.MustCompile(`is being booked by another worker until (\S+)`)

// outcomeLine is one "event outcome" log line, in the order it was written.
type outcomeLine struct {
	Time, EventID string
	File, Line    int
	Attempt       int
	After429      bool
}

// outcome reads one "event outcome" log line: attempt number, status and reason.
func outcome(line string, file, n int, rep *logReport) {
	var o struct {
		Time    string `json:"time"`
		EventID string `json:"event_id"`
		Attempt int    `json:"attempt"`
		Status  string `json:"status"`
		Reason  string `json:"reason"`
	}
	if json.Unmarshal([]byte(line), &o) != nil {
		return
	}
	rep.MaxAttempt = max(rep.MaxAttempt, o.Attempt)
	if m := holderFence.FindStringSubmatch(o.Reason); m != nil {
		at, err1 := time.Parse(time.RFC3339, o.Time)
		until, err2 := time.Parse(time.RFC3339, m[1])
		if err1 == nil && err2 == nil {
			rep.fenceWaits = append(rep.fenceWaits, until.Sub(at).Seconds())
		}
	}
	rep.outcomes = append(rep.outcomes, outcomeLine{Time: o.Time, EventID: o.EventID, File: file, Line: n, Attempt: o.Attempt,
		After429: o.Status == "pending" && strings.Contains(o.Reason, " 429 ")})
}

// countAttemptsOn429 counts the retries after a 429 that spent an attempt: the event's next
// outcome line has a higher attempt number. Lines are ordered by time (seconds), then file and
// line, so an event moving between replicas within one second may be misordered: a close
// estimate, not an exact count.
func countAttemptsOn429(lines []outcomeLine) int {
	sort.SliceStable(lines, func(i, j int) bool {
		a, b := lines[i], lines[j]
		if a.Time != b.Time {
			return a.Time < b.Time
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	last := map[string]outcomeLine{}
	n := 0
	for _, l := range lines {
		if p, ok := last[l.EventID]; ok && p.After429 && l.Attempt > p.Attempt {
			n++
		}
		last[l.EventID] = l
	}
	return n
}
