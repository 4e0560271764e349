package catalog

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/skillsd/skillsd/services/skills/internal/skill"
)

// TestSeverityTableCoversCodes: every diagnostic code constant of this
// package and of package source (Code… = "…") is in the one severity table
// (skill.SeverityFor), so that no code's severity is left to the place that
// reports it.
func TestSeverityTableCoversCodes(t *testing.T) {
	n := 0
	for _, dir := range []string{".", "../source"} {
		names, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.CONST {
					continue
				}
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if !strings.HasPrefix(name.Name, "Code") || i >= len(vs.Values) {
							continue
						}
						lit, ok := vs.Values[i].(*ast.BasicLit)
						if !ok || lit.Kind != token.STRING {
							continue // an alias of another package's code
						}
						code, _ := strconv.Unquote(lit.Value)
						n++
						if _, ok := skill.SeverityFor(code); !ok {
							t.Errorf("%s/%s = %q is not in the severity table (internal/skill/severity.go, docs/diagnostics.md)", dir, name.Name, code)
						}
					}
				}
			}
		}
	}
	if n < 20 {
		t.Errorf("found %d code constants only", n)
	}
}

// TestSeveritiesAsAnAuthorSeesThem (issue 18): invalid YAML, a missing
// description and a bad name cost the skill its routing or its hosts, so
// they are errors; a catalog built from them says so, and counts the skill
// files it does not serve.
func TestSeveritiesAsAnAuthorSeesThem(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"ok/SKILL.md":           folderSkill("ok", "Fine.", "x"),
		"yaml/SKILL.md":         "---\nname: yaml\ndescription: [unclosed\n---\nbody\n",
		"nodesc/SKILL.md":       "---\nname: nodesc\n---\nbody\n",
		"Bad Name/SKILL.md":     folderSkill("Bad Name", "Capitals and a space.", "x"),
		"other/skill.md":        folderSkill("other", "Misnamed file.", "x"),
		"long/SKILL.md":         folderSkill("long", strings.Repeat("d", 1100), "x"),
		"dup/a/SKILL.md":        folderSkill("same", "One.", "x"),
		"dup/b/SKILL.md":        folderSkill("same", "Two.", "x"),
		"scripts/SKILL.md":      "---\nname: scripts\ndescription: Runs.\nscripts:\n  - file: run.sh\n    description: x\n    execution: server\n---\nx\n",
		"mismatch/SKILL.md":     folderSkill("other-name", "Name differs.", "x"),
		"big/SKILL.md":          strings.Repeat("x", 2<<20),
		"inherit/SKILL.md":      "---\nname: inherit\ndescription: Inherit.\ninherit: nope\n---\nx\n",
		"utf/SKILL.md":          "---\nname: utf\ndescription: Bytes.\n---\n\xff\n",
		"dupkey/SKILL.md":       "---\nname: dupkey\ndescription: One.\ndescription: Two.\n---\nx\n",
		"unterminated/SKILL.md": "---\nname: unterminated\ndescription: Never closed.\nbody\n",
	})
	snap := build(t, localRoot("t", dir))
	want := map[string]skill.Severity{
		"frontmatter-invalid":       skill.SeverityError,
		"not-routable":              skill.SeverityError,
		"name-invalid":              skill.SeverityError,
		"skill-file-name":           skill.SeverityError,
		"description-long":          skill.SeverityWarning,
		"name-duplicate":            skill.SeverityWarning,
		"declared-file-missing":     skill.SeverityError,
		"name-mismatch":             skill.SeverityWarning,
		"skill-file-too-large":      skill.SeverityError,
		"inherit-type":              skill.SeverityError,
		"invalid-utf8":              skill.SeverityWarning,
		"frontmatter-duplicate-key": skill.SeverityWarning,
		"frontmatter-unterminated":  skill.SeverityError,
	}
	got := map[string]skill.Severity{}
	for _, d := range snap.Diagnostics() {
		got[d.Code] = d.Severity
	}
	for code, sev := range want {
		if got[code] != sev {
			t.Errorf("%s: severity %v, want %v (all: %v)", code, got[code], sev, got)
		}
	}
	// skill.md and the file over the size limit are found and not served.
	if st := snap.Stats(); st.NotServed != 2 {
		t.Errorf("NotServed = %d, want 2", st.NotServed)
	}
}
