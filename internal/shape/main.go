// Command shape checks the shape of the code and prints what it measured: no function over 70
// lines and no file over 400 anywhere in the module (test files aside; simulators, commands
// and the nested browser driver included); and each package under connector/ is covered at
// least 80 % by its own tests. The layers are not its business: the packages are, and the
// compiler and imports_test.go keep their imports pointing down. It exits 1 when a limit is broken.
//
//	go run ./internal/shape                       # measure, running go test -cover itself
//	go run ./internal/shape -coverprofile c.out   # read coverage from an existing profile
//	go run ./internal/shape -cover=false          # sizes only
//
// Run it from the module root.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Limits of the gate: lines a function, lines a file, test coverage in percent.
const (
	maxFuncLines = 70
	maxFileLines = 400
	minCoverage  = 80.0
)

func main() {
	root := flag.String("root", "connector", "directory whose packages' coverage is checked")
	module := flag.String("sizes", ".", "directory whose files and functions are measured (the module)")
	cover := flag.Bool("cover", true, "measure the coverage of each package (go test -cover)")
	profile := flag.String("coverprofile", "", "read coverage from this profile (go test -coverprofile) instead of running the tests")
	flag.Parse()
	if err := run(os.Stdout, *module, *root, *cover, *profile); err != nil {
		fmt.Fprintln(os.Stderr, "shape:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, module, root string, cover bool, profile string) error {
	files, err := sourceFiles(module)
	if err != nil {
		return err
	}
	broken := 0
	sizes, err := measure(files)
	if err != nil {
		return err
	}
	broken += report(w, sizes)
	if cover {
		n, err := coverage(w, root, profile)
		if err != nil {
			return err
		}
		broken += n
	}
	if broken > 0 {
		return fmt.Errorf("%d limit(s) broken", broken)
	}
	fmt.Fprintln(w, "\nshape: ok")
	return nil
}

// sourceFiles lists the non-test Go files under root, sorted.
func sourceFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			out = append(out, path)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// report prints the size check and returns the number of limits broken.
func report(w io.Writer, s sizes) int {
	broken := 0
	fmt.Fprintf(w, "sizes: %d files, %d functions; limits %d lines a function, %d a file\n", len(s.files), len(s.funcs), maxFuncLines, maxFileLines)
	sort.Slice(s.files, func(i, j int) bool { return s.files[i].lines > s.files[j].lines })
	sort.Slice(s.funcs, func(i, j int) bool { return s.funcs[i].lines > s.funcs[j].lines })
	for _, f := range s.files {
		if f.lines > maxFileLines {
			fmt.Fprintf(w, "  FAIL file %s: %d lines\n", f.name, f.lines)
			broken++
		}
	}
	for _, f := range s.funcs {
		if f.lines > maxFuncLines {
			fmt.Fprintf(w, "  FAIL func %s: %d lines\n", f.name, f.lines)
			broken++
		}
	}
	if len(s.files) > 0 && len(s.funcs) > 0 {
		fmt.Fprintf(w, "  largest file %s (%d lines), largest function %s (%d lines)\n", s.files[0].name, s.files[0].lines, s.funcs[0].name, s.funcs[0].lines)
	}
	return broken
}
