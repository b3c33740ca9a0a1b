package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// coverage prints the statement coverage of each package under root from its own tests and
// returns how many are below minCoverage. Without a profile it runs
// `go test -count=1 -coverprofile` itself, and reads the suiteOfCore packages from a run of
// the core's tests (coreSuite).
func coverage(w io.Writer, root, profile string) (int, error) {
	ran := profile == ""
	if ran {
		dir, err := os.MkdirTemp("", "shape")
		if err != nil {
			return 0, err
		}
		defer os.RemoveAll(dir)
		profile = filepath.Join(dir, "cover.out")
		cmd := exec.Command("go", "test", "-count=1", "-coverprofile="+profile, "./"+root+"/...")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return 0, fmt.Errorf("go test -cover ./%s/...: %w", root, err)
		}
	}
	per, err := readProfile(profile)
	if err != nil {
		return 0, err
	}
	if ran {
		if err := coreSuite(per, root); err != nil {
			return 0, err
		}
	}
	var pkgs []string
	for p := range per {
		if rel := relPkg(p); rel == root || strings.HasPrefix(rel, root+"/") {
			pkgs = append(pkgs, p)
		}
	}
	sort.Strings(pkgs)
	fmt.Fprintf(w, "\ncoverage of each package under %s/ from its own tests (at least %.0f %%):\n", root, minCoverage)
	low := 0
	for _, p := range pkgs {
		if strings.Contains(p+"/", "/internal/") { // test helpers of the core's tests, not code of its own
			continue
		}
		c := per[p]
		pct := 100 * float64(c[1]) / float64(max(c[0], 1))
		mark := "ok  "
		if pct < minCoverage {
			mark, low = "FAIL", low+1
		}
		fmt.Fprintf(w, "  %s %-28s %5.1f %% of %d statements\n", mark, relPkg(p), pct, c[0])
	}
	if len(pkgs) == 0 {
		return 1, fmt.Errorf("no coverage for ./%s/... in %s", root, profile)
	}
	return low, nil
}

// suiteOfCore are the packages around the core whose tests are the core's booking suite
// (package connector_test): it drives them end to end through the worker and explain, as it did
// when their code was in package connector, so their coverage is that of ./connector's tests.
var suiteOfCore = []string{"connector/kernel", "connector/settlement", "connector/booking",
	"connector/edge", "connector/explain", "connector/metrics", "connector/wire", "connector/worker"}

// coreSuite replaces, in per, the coverage of the suiteOfCore packages under root with that of
// a run of ./root's tests instrumenting them (go test -coverpkg).
func coreSuite(per map[string][2]int, root string) error {
	var pkgs []string
	for _, p := range suiteOfCore {
		if strings.HasPrefix(p, root+"/") {
			if _, err := os.Stat(p); err == nil {
				pkgs = append(pkgs, "./"+p)
			}
		}
	}
	if len(pkgs) == 0 {
		return nil
	}
	dir, err := os.MkdirTemp("", "shape")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	profile := filepath.Join(dir, "core.out")
	cmd := exec.Command("go", "test", "-count=1", "-coverprofile="+profile, "-coverpkg="+strings.Join(pkgs, ","), "./"+root)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go test -coverpkg ./%s: %w", root, err)
	}
	core, err := readProfile(profile)
	if err != nil {
		return err
	}
	for p, c := range core {
		per[p] = c
	}
	return nil
}

const module = "github.com/razorpay-erpnext/razorpay-erpnext/"

func relPkg(p string) string { return strings.TrimPrefix(p, module) }

var blockLine = regexp.MustCompile(`^(.+)/[^/]+\.go:\S+ (\d+) (\d+)$`)

// readProfile sums statements and covered statements per package of a coverage profile; a
// block listed twice (profiles of several runs) counts once, covered if any run covered it.
func readProfile(path string) (map[string][2]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	type block struct {
		pkg   string
		stmts int
		hit   bool
	}
	blocks := map[string]*block{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := blockLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		key := strings.SplitN(sc.Text(), " ", 2)[0]
		stmts, _ := strconv.Atoi(m[2])
		count, _ := strconv.Atoi(m[3])
		b := blocks[key]
		if b == nil {
			b = &block{pkg: m[1], stmts: stmts}
			blocks[key] = b
		}
		b.hit = b.hit || count > 0
	}
	out := map[string][2]int{}
	for _, b := range blocks {
		c := out[b.pkg]
		c[0] += b.stmts
		if b.hit {
			c[1] += b.stmts
		}
		out[b.pkg] = c
	}
	return out, sc.Err()
}
