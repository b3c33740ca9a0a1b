package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// coreLayers orders the files of the core (package connector) from the bottom up, as DESIGN.md §4
// reads: a file may use what files of its own layer or a lower one declare, never a higher
// one. A new file must be given its layer here.
var coreLayers = map[string]int{
	// 1. vocabulary and ports (the client edge is connector/edge, the series connector/metrics)
	"status.go": 1, "route.go": 1, "store.go": 1, "ports.go": 1, "settings.go": 1, "failure.go": 1,
	"observer.go": 1, "connector.go": 1, "pause.go": 1, "history.go": 1,
	"wait.go": 1, "lifecycle.go": 1, "lifecycle_diagram.go": 3, "lifecycle_doc.go": 1,
	// the Account whose money is booked, the seam to connector/booking (Booker), and the
	// vocabulary booking shares: bank matches, Integration Requests, the site's precision
	"account.go": 1, "booker.go": 1, "runner.go": 1, "bank.go": 1, "integration.go": 1, "precision.go": 1,
	// plans and outcomes: what a job decides and how it ended
	"plan.go": 1, "outcome.go": 1,
	// 2. shared mechanisms: lock rows held by a process, synthetic events, waits
	"hold.go": 2, "synthetic.go": 2, "wake.go": 2,
	// plans and outcomes: what a dry run prints (the session is connector/explain)
	"explanation.go": 1,
	// 6. New (the booking and the workers wired)
	"new.go": 6,
}

// decls maps a declared name to the file declaring it. Methods are keyed by their name alone
// (a selector's receiver type is not known without type checking); a method name also used as
// a struct field, or declared in two files, is ambiguous and not checked.
type decls struct {
	top, methods map[string]string
	ambiguous    map[string]bool
}

// checkLayers reports every reference from a file of the core to a name declared in a file of
// a higher layer, and every file without a layer.
func checkLayers(dir string, layers map[string]int) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	var problems []string
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return nil, err
		}
		base := filepath.Base(p)
		if _, ok := layers[base]; !ok {
			problems = append(problems, fmt.Sprintf("%s has no layer in internal/shape/layers.go", p))
		}
		files[base] = f
	}
	d := collect(files)
	for name, f := range files {
		problems = append(problems, upward(name, f, d, layers)...)
	}
	for name := range layers {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			problems = append(problems, fmt.Sprintf("%s is in internal/shape/layers.go but does not exist", name))
		}
	}
	sort.Strings(problems)
	return problems, nil
}

func collect(files map[string]*ast.File) decls {
	d := decls{top: map[string]string{}, methods: map[string]string{}, ambiguous: map[string]bool{}}
	for name, f := range files {
		for _, decl := range f.Decls {
			switch x := decl.(type) {
			case *ast.FuncDecl:
				if x.Recv == nil {
					d.top[x.Name.Name] = name
				} else if prev, ok := d.methods[x.Name.Name]; ok && prev != name {
					d.ambiguous[x.Name.Name] = true
				} else {
					d.methods[x.Name.Name] = name
				}
			case *ast.GenDecl:
				for _, spec := range x.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						d.top[s.Name.Name] = name
						fields(s, d.ambiguous)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							d.top[n.Name] = name
						}
					}
				}
			}
		}
	}
	return d
}

// fields marks the field names of a struct type as ambiguous selectors.
func fields(s *ast.TypeSpec, ambiguous map[string]bool) {
	st, ok := s.Type.(*ast.StructType)
	if !ok {
		return
	}
	for _, f := range st.Fields.List {
		for _, n := range f.Names {
			ambiguous[n.Name] = true
		}
	}
}

// upward lists the references of file name to names of a higher layer.
func upward(name string, f *ast.File, d decls, layers map[string]int) []string {
	mine := layers[name]
	imported := map[string]bool{}
	for _, imp := range f.Imports {
		p := strings.Trim(imp.Path.Value, `"`)
		n := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			n = imp.Name.Name
		}
		imported[n] = true
	}
	seen := map[string]bool{}
	var out []string
	check := func(ref, decl string) {
		if l, ok := layers[decl]; ok && l > mine && !seen[ref] {
			seen[ref] = true
			out = append(out, fmt.Sprintf("%s (layer %d) uses %s of %s (layer %d)", name, mine, ref, decl, l))
		}
	}
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && imported[id.Name] && id.Obj == nil {
				return false // pkg.Name of another package
			}
			if file, ok := d.methods[x.Sel.Name]; ok && !d.ambiguous[x.Sel.Name] {
				check("method "+x.Sel.Name, file)
			}
			ast.Inspect(x.X, visit) // the selected name is not a top-level reference
			return false
		case *ast.KeyValueExpr:
			if id, ok := x.Key.(*ast.Ident); ok && d.ambiguous[id.Name] {
				ast.Inspect(x.Value, visit) // a struct field key, not a reference
				return false
			}
		case *ast.Ident:
			if x.Obj != nil && !isTop(f, x.Obj) {
				return true // a local of this file shadows any top-level name
			}
			if file, ok := d.top[x.Name]; ok {
				check(x.Name, file)
			}
		}
		return true
	}
	ast.Inspect(f, visit)
	return out
}

// isTop reports whether obj is declared at the top level of f.
func isTop(f *ast.File, obj *ast.Object) bool {
	return f.Scope.Lookup(obj.Name) == obj
}
