package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMeasureCountsLinesOfFilesAndFunctions(t *testing.T) {
	s, err := measure([]string{filepath.Join("testdata", "core", "low.go")})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.files) != 1 || s.files[0].lines != 15 {
		t.Errorf("files %+v: want low.go with 15 lines", s.files)
	}
	lines := map[string]int{}
	for _, f := range s.funcs {
		lines[f.name[strings.LastIndex(f.name, " ")+1:]] = f.lines
	}
	if lines["helper"] != 4 || lines["Low"] != 1 || lines["(thing).value"] != 1 {
		t.Errorf("function lengths %v", lines)
	}
}

func TestCoverageFromAProfile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.out")
	profile := "mode: set\n" +
		module + "connector/a.go:1.1,2.2 3 1\n" +
		module + "connector/a.go:3.1,4.2 1 0\n" +
		module + "connector/a.go:3.1,4.2 1 1\n" + // the same block from another run: covered
		module + "connector/store/b.go:1.1,2.2 4 0\n" +
		module + "connector/store/b.go:3.1,4.2 1 1\n" +
		module + "mapping/c.go:1.1,2.2 9 0\n"
	if err := os.WriteFile(p, []byte(profile), 0o600); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	low, err := coverage(&out, "connector", p)
	if err != nil {
		t.Fatal(err)
	}
	if low != 1 || !strings.Contains(out.String(), "ok   connector                    100.0 % of 4 statements") ||
		!strings.Contains(out.String(), "FAIL connector/store               20.0 % of 5 statements") || strings.Contains(out.String(), "mapping") {
		t.Errorf("low %d, report:\n%s", low, out.String())
	}
}
