package skill

import (
	"go/ast"
	goparser "go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestSeverityTableCoversParserCodes: every code this package's parser
// reports is in the severity table. Codes reach the parser's methods
// through a parameter named code; the test finds each method with one and
// every string literal passed in its place.
func TestSeverityTableCoversParserCodes(t *testing.T) {
	files := parseSources(t, ".")
	codeArg := map[string]int{} // method name → index of its code parameter
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil {
				continue
			}
			i := 0
			for _, field := range fn.Type.Params.List {
				for _, name := range field.Names {
					if name.Name == "code" {
						codeArg[fn.Name.Name] = i
					}
					i++
				}
			}
		}
	}
	if len(codeArg) < 3 {
		t.Fatalf("found the code parameter of %d methods only: %v", len(codeArg), codeArg)
	}
	found := map[string]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			i, ok := codeArg[sel.Sel.Name]
			if !ok || i >= len(call.Args) {
				return true
			}
			if lit, ok := call.Args[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				code, _ := strconv.Unquote(lit.Value)
				found[code] = true
			}
			return true
		})
	}
	if len(found) < 20 {
		t.Fatalf("found %d codes only: %v", len(found), slices.Sorted(maps.Keys(found)))
	}
	for code := range found {
		if _, ok := SeverityFor(code); !ok {
			t.Errorf("the parser reports %q, which the severity table (severity.go) does not list", code)
		}
	}
}

// TestSeverityTableMatchesDocs: docs/diagnostics.md lists exactly the
// table's codes, with the same severities.
func TestSeverityTableMatchesDocs(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "docs", "diagnostics.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\| (error|warning|info) \\|")
	documented := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		if _, dup := documented[m[1]]; dup {
			t.Errorf("docs/diagnostics.md lists %s twice", m[1])
		}
		documented[m[1]] = m[2]
	}
	for code, sev := range Severities() {
		switch got, ok := documented[code]; {
		case !ok:
			t.Errorf("docs/diagnostics.md does not list %s (%s)", code, sev)
		case got != sev.String():
			t.Errorf("docs/diagnostics.md says %s is %s; the table says %s", code, got, sev)
		}
	}
	for code := range documented {
		if _, ok := SeverityFor(code); !ok {
			t.Errorf("docs/diagnostics.md lists %s, which the table does not", code)
		}
	}
}

// parseSources parses the non-test Go files of dir.
func parseSources(t *testing.T, dir string) []*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := goparser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}
