package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLayersReportOnlyUpwardReferences(t *testing.T) {
	got, err := checkLayers(filepath.Join("testdata", "core"), map[string]int{"low.go": 1, "mid.go": 2, "top.go": 3, "gone.go": 3})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"gone.go is in internal/shape/layers.go but does not exist",
		"low.go (layer 1) uses High of top.go (layer 3)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestLayersNeedEveryFile(t *testing.T) {
	got, err := checkLayers(filepath.Join("testdata", "core"), map[string]int{"low.go": 1, "mid.go": 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || !strings.Contains(strings.Join(got, "\n"), "top.go has no layer") {
		t.Errorf("problems %q: want top.go reported without a layer", got)
	}
}

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
