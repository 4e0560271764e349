package skill

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSeed000Tree(t *testing.T) {
	root := sharedDir(t, "fixtures/seed000-tree")
	type want struct {
		priority    int
		inherit     bool
		keywords    int
		assets      []Asset
		scripts     []Script
		description string
	}
	wants := map[string]want{
		"_root.md":            {priority: 0, inherit: true, keywords: 3, description: "Global project rules applied to all skills"},
		"api/_index.md":       {priority: 0, inherit: true, keywords: 5, description: "API and backend development rules"},
		"api/auth.md":         {priority: 5, inherit: true, keywords: 6, description: "API authentication with JWT middleware"},
		"no-inherit.md":       {priority: 0, inherit: false, keywords: 3, description: "A standalone skill that does not inherit from parents"},
		"ui/_index.md":        {priority: 0, inherit: true, keywords: 4, description: "UI and frontend development rules"},
		"ui/react/testing.md": {priority: 5, inherit: true, keywords: 7, description: "React component testing rules and patterns"},
		"ui/react/_index.md": {
			priority: 5, inherit: true, keywords: 5, description: "React development rules and patterns",
			assets:  []Asset{{File: "assets/component-base.tsx.template", Description: "Base component template", Type: "template"}},
			scripts: []Script{{File: "scripts/lint-component.sh", Description: "Lint a React component", Execution: "claude"}},
		},
		"ui/react/auth.md": {
			priority: 10, inherit: true, keywords: 6, description: "React authentication components and patterns",
			assets: []Asset{
				{File: "assets/AuthProvider.tsx.template", Description: "Template for AuthProvider React component", Type: "template"},
				{File: "assets/auth-config.example.ts", Description: "Example auth configuration", Type: "example"},
			},
			scripts: []Script{
				{
					File: "scripts/scaffold-auth.sh", Description: "Generate auth project structure", Execution: "claude",
					Args: []Arg{
						{Name: "project_dir", Description: "Project root directory", Required: true},
						{Name: "provider", Description: "Auth provider type (firebase|auth0|custom)", Required: false, Default: ptr("custom")},
					},
				},
				{
					File: "scripts/validate-auth-config.ts", Description: "Validate auth configuration", Execution: "server",
					Args: []Arg{{Name: "config_path", Description: "Path to auth config file", Required: true}},
				},
			},
		},
	}
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		w, ok := wants[rel]
		if !ok {
			t.Errorf("%s: unexpected fixture; add it to the test", rel)
			return nil
		}
		seen++
		t.Run(rel, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			doc, diags := Parse(rel, data)
			if len(diags) != 0 {
				t.Errorf("diagnostics: got %v, want none", diags)
			}
			f := doc.Frontmatter
			if !doc.HasFrontmatter || f.Description != w.description {
				t.Errorf("description: got %q (frontmatter %t), want %q", f.Description, doc.HasFrontmatter, w.description)
			}
			if f.Priority != w.priority || f.Inherit != w.inherit || len(f.Keywords) != w.keywords {
				t.Errorf("got priority %d, inherit %t, %d keywords; want %d, %t, %d",
					f.Priority, f.Inherit, len(f.Keywords), w.priority, w.inherit, w.keywords)
			}
			if diff := cmp.Diff(w.assets, f.Assets); diff != "" {
				t.Errorf("Assets (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(w.scripts, f.Scripts); diff != "" {
				t.Errorf("Scripts (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(doc.Body, "\n# ") {
				t.Errorf("body: got %.20q…, want it to start with the heading", doc.Body)
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != len(wants) {
		t.Errorf("fixtures: got %d, want %d", seen, len(wants))
	}
}

// TestMalformed runs the 20 broken SKILL.md files collected from real
// repositories (shared/bench/malformed, see its INDEX.tsv).
func TestMalformed(t *testing.T) {
	dir := sharedDir(t, "bench/malformed")
	index, err := os.ReadFile(filepath.Join(dir, "INDEX.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for i, line := range strings.Split(strings.TrimSpace(string(index)), "\n") {
		if i > 0 {
			files = append(files, strings.SplitN(line, "\t", 2)[0])
		}
	}
	if len(files) != 20 {
		t.Fatalf("INDEX.tsv lists %d files, want 20", len(files))
	}

	repaired := []string{"frontmatter-repaired"}
	wantCodes := map[string][]string{
		"01": {"frontmatter-missing"}, "02": {"frontmatter-missing"}, "03": {"frontmatter-missing"},
		"04": {"frontmatter-missing"}, "05": {"frontmatter-missing"}, "06": {"frontmatter-missing"},
		"07": nil, "08": nil, // no name: the catalog reports it
		"09": nil, "10": nil, // no description: the catalog reports it
		"11": repaired, "12": repaired, "13": repaired, "14": repaired, "15": repaired,
		"16": repaired, "17": repaired, "18": repaired, "19": repaired, "20": repaired,
	}
	usable := 0
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			doc, diags := Parse(name, data)
			want, ok := wantCodes[name[:2]]
			if !ok {
				t.Fatalf("no expectation for %s", name)
			}
			if got := codes(diags); !cmp.Equal(got, want) {
				t.Errorf("codes: got %q, want %q (%v)", got, want, diags)
			}
			if doc == nil {
				t.Fatal("document: got nil")
			}
			if doc.Frontmatter.Description != "" {
				usable++
			}
			if len(want) == 0 || want[0] != "frontmatter-repaired" {
				return
			}
			// The repaired description is the text of line 3 exactly as written.
			if diags[0].Line != 3 {
				t.Errorf("line: got %d, want 3", diags[0].Line)
			}
			written := ""
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 1<<20)
			for i := 1; sc.Scan(); i++ {
				if i == 3 {
					written = strings.TrimSpace(strings.TrimPrefix(sc.Text(), "description:"))
					break
				}
			}
			if doc.Frontmatter.Description != written {
				t.Errorf("description:\ngot  %q\nwant %q", doc.Frontmatter.Description, written)
			}
			if doc.Frontmatter.Name == "" {
				t.Error("name: got empty, want the frontmatter's name")
			}
			if _, err := json.Marshal(doc.Frontmatter.Raw); err != nil {
				t.Errorf("json.Marshal(Raw): %v", err)
			}
		})
	}
	// 07, 08 (no name) and the ten repaired files.
	if want := 12; usable != want {
		t.Errorf("files with a usable description: got %d, want %d", usable, want)
	}
	t.Logf("%d of %d malformed files have a usable description", usable, len(files))
}
