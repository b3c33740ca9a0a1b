package main

import (
	"go/ast"
	"go/parser"
	"go/token"
)

type measured struct {
	name  string
	lines int
}

type sizes struct{ files, funcs []measured }

// measure counts the lines of every file and of every function (from its doc-less "func" line
// to its closing brace, both included).
func measure(files []string) (sizes, error) {
	var s sizes
	fset := token.NewFileSet()
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return s, err
		}
		s.files = append(s.files, measured{path, fset.File(f.Pos()).LineCount()})
		ast.Inspect(f, func(n ast.Node) bool {
			var name string
			var body *ast.BlockStmt
			var start token.Pos
			switch d := n.(type) {
			case *ast.FuncDecl:
				name, body, start = funcName(d), d.Body, d.Type.Pos()
			case *ast.FuncLit:
				name, body, start = "func literal", d.Body, d.Type.Pos()
			}
			if body == nil {
				return true
			}
			lines := fset.Position(body.End()).Line - fset.Position(start).Line + 1
			s.funcs = append(s.funcs, measured{fset.Position(start).String() + " " + name, lines})
			return true
		})
	}
	return s, nil
}

func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return "(" + id.Name + ")." + d.Name.Name
	}
	return d.Name.Name
}
