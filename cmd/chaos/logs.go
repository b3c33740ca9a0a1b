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
	// Retries after a 429 (ERPNext asking to slow down) that spent an attempt (a 429 should
	// spend none; see countAttemptsOn429), and the highest attempt number any event outcome
	// line showed.
	AttemptsSpentOn429 int      `json:"attempts_spent_on_429"`
	MaxAttempt         int      `json:"max_attempt"`
	SecretsFound       []string `json:"secrets_found"` // which secret, file and line number; never the value

	// Waits of an event for another worker's claim on the same payment or lock on the same
	// invoice, and how long each lasted: from its outcome line to the start of the event's next
	// run (its next outcome line's time less its took_ms; log times are whole seconds). A waiter
	// runs again once the holder is done; only a holder killed, or one whose write is ambiguous,
	// keeps it until the holder's fence (server_timeout + fence_margin after the claim):
	// FenceWaits counts those.
	HolderWaits       int     `json:"waits_for_holder"`
	HolderWaitMedianS float64 `json:"waits_for_holder_median_s"`
	HolderWaitMaxS    float64 `json:"waits_for_holder_max_s"`
	FenceWaits        int     `json:"waits_for_holder_fence"`

	outcomes []outcomeLine
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
		if b := filepath.Base(f); b == "mariadb.log" || b == "postgres.log" {
			continue // the database server's own log: not the connector's
		}
		if err := scanLog(f, secretValues, &rep); err != nil {
			return rep, err
		}
	}
	sortOutcomes(rep.outcomes)
	rep.AttemptsSpentOn429 = countAttemptsOn429(rep.outcomes)
	measureHolderWaits(&rep)
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

// holderWait finds a wait for another worker, and the holder's fence when it names one
// ("waiting: pay_… is being booked by another worker (claim fenced until 2026-12-01T20:36:48Z)",
// "waiting for the lock on Sales Invoice …").
var holderWait = regexp.MustCompile(`is being booked by another worker \(claim fenced until (\S+)\)|^waiting for the lock on `)

// outcomeLine is one "event outcome" log line, in the order it was written. Fence is the
// holder's fence of a wait for another worker ("" when the line is no such wait or names none).
type outcomeLine struct {
	Time, EventID string
	File, Line    int
	Attempt       int
	TookMS        int64
	After429      bool
	HolderWait    bool
	Fence         string
}

// outcome reads one "event outcome" log line: attempt number, status and reason.
func outcome(line string, file, n int, rep *logReport) {
	var o struct {
		Time    string `json:"time"`
		EventID string `json:"event_id"`
		Attempt int    `json:"attempt"`
		TookMS  int64  `json:"took_ms"`
		Status  string `json:"status"`
		Reason  string `json:"reason"`
	}
	if json.Unmarshal([]byte(line), &o) != nil {
		return
	}
	rep.MaxAttempt = max(rep.MaxAttempt, o.Attempt)
	l := outcomeLine{Time: o.Time, EventID: o.EventID, File: file, Line: n, Attempt: o.Attempt, TookMS: o.TookMS,
		After429: o.Status == "pending" && strings.Contains(o.Reason, " 429 ")}
	if m := holderWait.FindStringSubmatch(o.Reason); m != nil && o.Status == "pending" {
		l.HolderWait, l.Fence = true, m[1]
	}
	rep.outcomes = append(rep.outcomes, l)
}

// sortOutcomes orders outcome lines by time (whole seconds), then by attempt number (an
// event's attempts only grow, so its lines on two replicas within one second keep their order),
// a wait after a 429 before any other line of the same attempt (it spends none, so it came
// first), then file and line.
func sortOutcomes(lines []outcomeLine) {
	sort.SliceStable(lines, func(i, j int) bool {
		a, b := lines[i], lines[j]
		if a.Time != b.Time {
			return a.Time < b.Time
		}
		if a.Attempt != b.Attempt {
			return a.Attempt < b.Attempt
		}
		if a.After429 != b.After429 {
			return a.After429
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
}

// measureHolderWaits sets the HolderWait figures from lines in order: each wait for another
// worker lasts until the event's next run starts (its next outcome line less the run's
// took_ms, which leaves out a run blocked on a rate-limit pause; a waiter made duplicate by the
// holder's booking has no next line: it is counted, not measured); it reached the holder's
// fence when that run did not start before the fence (to the second).
func measureHolderWaits(rep *logReport) {
	var waits []float64
	open := map[string]outcomeLine{}
	for _, l := range rep.outcomes {
		if w, ok := open[l.EventID]; ok {
			delete(open, l.EventID)
			at, err1 := time.Parse(time.RFC3339, w.Time)
			next, err2 := time.Parse(time.RFC3339, l.Time)
			next = next.Add(-time.Duration(l.TookMS) * time.Millisecond).Truncate(time.Second)
			if err1 == nil && err2 == nil {
				waits = append(waits, next.Sub(at).Seconds())
				if fence, err := time.Parse(time.RFC3339, w.Fence); err == nil && !next.Before(fence.Truncate(time.Second)) {
					rep.FenceWaits++
				}
			}
		}
		if l.HolderWait {
			rep.HolderWaits++
			open[l.EventID] = l
		}
	}
	if n := len(waits); n > 0 {
		sort.Float64s(waits)
		rep.HolderWaitMedianS, rep.HolderWaitMaxS = waits[n/2], waits[n-1]
	}
}

// countAttemptsOn429 counts the retries after a 429 that spent an attempt: the event's next
// outcome line (lines in sortOutcomes order) has a higher attempt number.
func countAttemptsOn429(lines []outcomeLine) int {
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
