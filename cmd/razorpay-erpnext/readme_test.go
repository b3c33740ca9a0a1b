package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
)

// The README's walkthrough, run as written: every ```sh block the README marks with
// <!-- walkthrough --> ("Trying `serve` against the simulator", the reconcile try-it, the
// settlement try-it of "For accountants: settlements", the console try-it), in README order,
// in one bash, with its ports swapped for free ones. Each command's output is checked against
// the `#>` lines the README shows under it (a command with none must print nothing), so the
// walkthrough cannot drift from what the binary does.

const walkthroughMarker = "<!-- walkthrough -->"

// readmeUnit is one step of a walkthrough block: the shell text up to the next `#>` lines,
// and those lines (what it prints). A step that starts `./rzp simulate` or `./rzp serve`
// keeps running ("in its own terminal"): it is a step of its own, runs in the background and
// its first lines of output are checked. Starting a command that already runs in the
// background stands for stopping it in its terminal (Ctrl-C) and starting it again.
type readmeUnit struct {
	text       string
	want       []string
	background bool
	line       int // in README.md, for messages
}

// walkthroughSections are the README sections ("## " headings) whose try-its the walkthrough
// must run: a marker taken off one of them fails the test instead of letting it rot.
var walkthroughSections = []string{"Trying `serve` against the simulator", "Reconcile: nothing silently missing",
	"For accountants: settlements", "Console"}

// keepsRunning reports whether a step's first command is one that runs in its own terminal.
func keepsRunning(text string) bool {
	first := strings.TrimSpace(stripComments(text))
	return strings.HasPrefix(first, "./rzp simulate ") || strings.HasPrefix(first, "./rzp serve ")
}

// walkthroughUnits splits the marked blocks of readme into units.
func walkthroughUnits(t *testing.T, readme string) []readmeUnit {
	t.Helper()
	lines := strings.Split(readme, "\n")
	var units []readmeUnit
	section, marked := "", map[string]bool{}
	for i := 0; i < len(lines); i++ {
		if h, ok := strings.CutPrefix(lines[i], "## "); ok {
			section = strings.TrimSpace(h)
		}
		if strings.TrimSpace(lines[i]) != walkthroughMarker {
			continue
		}
		marked[section] = true
		if i+1 >= len(lines) || strings.TrimSpace(lines[i+1]) != "```sh" {
			t.Fatalf("README.md:%d: %s must be followed by a ```sh block", i+1, walkthroughMarker)
		}
		var u readmeUnit
		flush := func() {
			if strings.TrimSpace(stripComments(u.text)) != "" {
				u.background = keepsRunning(u.text)
				units = append(units, u)
			}
			u = readmeUnit{}
		}
		for i += 2; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			l := lines[i]
			if out, ok := strings.CutPrefix(l, "#>"); ok {
				u.want = append(u.want, strings.TrimPrefix(out, " "))
				continue
			}
			if len(u.want) > 0 || (keepsRunning(l) && strings.TrimSpace(stripComments(u.text)) != "") {
				flush()
			}
			if u.text == "" {
				u.line = i + 1
			}
			u.text += l + "\n"
		}
		flush()
	}
	for _, want := range walkthroughSections {
		if !marked[want] {
			t.Fatalf("README.md marks no block of section %q with %s; the try-its of %q are expected", want, walkthroughMarker, walkthroughSections)
		}
	}
	return units
}

// stripComments drops whole-line shell comments (the explanations between commands).
func stripComments(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

var (
	readmeTime  = regexp.MustCompile(`\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?Z?`)
	readmeYear  = regexp.MustCompile(`\b(ACC-[A-Z]+)-\d{4}-`)
	readmeSpace = regexp.MustCompile(`[ \t]+`)
)

// normalize makes one line comparable: times and the year in document names are what the
// README cannot know; column widths depend on them.
func normalize(l string) string {
	l = strings.TrimRight(l, " \t\r")
	l = readmeTime.ReplaceAllString(l, "<time>")
	l = readmeYear.ReplaceAllString(l, "$1-<year>-")
	return readmeSpace.ReplaceAllString(strings.TrimSpace(l), " ")
}

// outputMatches reports whether got (the command's output lines) is what want shows: line by
// line after normalize, "…" inside a line standing for any text, a line of only "…" for any
// number of lines. With prefix, got may go on after want (a server still logging).
func outputMatches(want, got []string, prefix bool) bool {
	if prefix {
		want = append(append([]string(nil), want...), "…")
	}
	res := make([]*regexp.Regexp, len(want))
	for i, w := range want {
		w = normalize(w)
		if w == "…" {
			continue
		}
		parts := strings.Split(w, "…")
		for j := range parts {
			parts[j] = regexp.QuoteMeta(parts[j])
		}
		res[i] = regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
	}
	for len(got) > 0 && strings.TrimSpace(got[len(got)-1]) == "" {
		got = got[:len(got)-1]
	}
	var match func(wi, gi int) bool
	match = func(wi, gi int) bool {
		if wi == len(want) {
			return gi == len(got)
		}
		if res[wi] == nil {
			for k := gi; k <= len(got); k++ {
				if match(wi+1, k) {
					return true
				}
			}
			return false
		}
		return gi < len(got) && res[wi].MatchString(normalize(got[gi])) && match(wi+1, gi+1)
	}
	return match(0, 0)
}

func TestOutputMatches(t *testing.T) {
	t.Parallel()
	got := []string{"reconcile 2026-11-29T22:15:48Z → 2026-12-01T22:15:48Z (dry run)", "  payments   1   0", "", "would queue (1):",
		"  pay_P1WzhSlVO1RE4h INR 500.00 created 2026-12-01T22:15:48Z", ""}
	for _, c := range []struct {
		want   []string
		prefix bool
		ok     bool
	}{
		{[]string{"reconcile 2027-01-01T00:00:00Z → 2027-01-03T00:00:00Z (dry run)", "…", "would queue (1):", "  pay_… INR 500.00 created 2026-12-01T10:00:00Z"}, false, true},
		{[]string{"reconcile … (dry run)", "payments 1 0", "", "would queue (1):", "pay_… INR 500.00 created …"}, false, true},
		{[]string{"reconcile … (dry run)"}, false, false},
		{[]string{"reconcile … (dry run)"}, true, true},
		{[]string{"…", "would queue (2):", "…"}, false, false},
		{[]string{"reconcile … (dry run)", "…", "pay_… INR 5.00 created …"}, false, false},
	} {
		if got := outputMatches(c.want, got, c.prefix); got != c.ok {
			t.Errorf("outputMatches(%q, prefix %v) = %v, want %v", c.want, c.prefix, got, c.ok)
		}
	}
	if n := normalize("ACC-SINV-2027-00003  done"); n != "ACC-SINV-<year>-00003 done" {
		t.Errorf("normalize: %q", n)
	}
}

// readmeTools are what the walkthrough runs besides the binary it builds.
var readmeTools = []string{"bash", "curl", "openssl", "sed", "grep", "sort", "go"}

// readmePorts are the README's loopback addresses; the test uses free ones instead, in the
// commands, the copied config.example.yaml and the outputs alike.
var readmePorts = []string{"127.0.0.1:18000", "127.0.0.1:8080", "127.0.0.1:9090", "127.0.0.1:8001"}

func TestREADMEWalkthrough(t *testing.T) {
	testtime.Long(t, "the README walkthrough builds the binary and runs the simulators and serve as processes")
	t.Parallel()
	for _, tool := range readmeTools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not on PATH under CI: the README walkthrough must run", tool)
			}
			t.Skipf("%s is not on PATH: README walkthrough skipped", tool)
		}
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	swap, ports := freePorts(t)
	dir := checkoutCopy(t, root, swap)
	sh := startShell(t, dir)
	for _, u := range walkthroughUnits(t, string(readme)) {
		text, want := swap.Replace(u.text), make([]string, len(u.want))
		for i, w := range u.want {
			want[i] = swap.Replace(w)
		}
		var got []string
		if u.background {
			got = sh.background(text, func(lines []string) bool { return outputMatches(want, lines, true) })
		} else {
			got = sh.run(text)
		}
		t.Logf("README.md:%d printed:\n%s", u.line, strings.Join(got, "\n"))
		if !outputMatches(want, got, u.background) {
			t.Fatalf("README.md:%d:\n%s\nprinted:\n%s\nREADME shows:\n%s\n(ports here: %v)", u.line, u.text,
				strings.Join(got, "\n"), strings.Join(u.want, "\n"), ports)
		}
	}
}

// freePorts maps each README address to a free loopback port; the string says which.
func freePorts(t *testing.T) (*strings.Replacer, string) {
	t.Helper()
	var pairs []string
	for _, addr := range readmePorts {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, addr, l.Addr().String())
		l.Close()
	}
	return strings.NewReplacer(pairs...), fmt.Sprint(pairs)
}

// checkoutCopy is a folder that looks like the checkout to the walkthrough's commands: every
// top-level entry of root linked, except config.example.yaml, copied with its ports swapped.
func checkoutCopy(t *testing.T, root string, swap *strings.Replacer) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case name == "config.example.yaml":
			raw, err := os.ReadFile(filepath.Join(root, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(swap.Replace(string(raw))), 0o644); err != nil {
				t.Fatal(err)
			}
		case name == "config.yaml", name == "rzp", isSQLiteFile(name), name == ".git":
			// What the walkthrough writes is left out: a user who ran it in the checkout (its
			// serve may still be running, holding the database's -wal and -shm) must not
			// turn this test red by sharing those files with it.
		default:
			if err := os.Symlink(filepath.Join(root, name), filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// isSQLiteFile reports whether name is an SQLite database or one of its companions (the
// write-ahead log, the shared-memory index, a rollback journal).
func isSQLiteFile(name string) bool {
	for _, suffix := range []string{".db", ".db-wal", ".db-shm", ".db-journal"} {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

// unitTimeout bounds one step: the first builds the binary on a busy machine.
const unitTimeout = 5 * time.Minute

func (s *readmeShell) String() string { return fmt.Sprintf("bash in %s", s.dir) }
