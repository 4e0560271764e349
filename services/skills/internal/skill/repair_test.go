package skill

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseRepair(t *testing.T) {
	tests := []struct {
		name      string
		yaml      string
		wantCodes []string
		wantLines []int
		// check inspects the result when the frontmatter is usable.
		check func(t *testing.T, f *Frontmatter)
	}{
		{
			name:      "colon in a description",
			yaml:      joinLines("name: x", "description: Use when: the user asks"),
			wantCodes: []string{"frontmatter-repaired"},
			wantLines: []int{3},
			check:     wantDescription("Use when: the user asks"),
		},
		{
			name:      "value ending with a colon",
			yaml:      joinLines("description: Steps: first, then:", "name: y"),
			wantCodes: []string{"frontmatter-repaired"},
			wantLines: []int{2},
			check:     wantDescription("Steps: first, then:"),
		},
		{
			name:      "value starting with @",
			yaml:      "description: @Observable patterns\n",
			wantCodes: []string{"frontmatter-repaired"},
			wantLines: []int{2},
			check:     wantDescription("@Observable patterns"),
		},
		{
			name:      "value starting with a backquote",
			yaml:      "description: `make` helpers\n",
			wantCodes: []string{"frontmatter-repaired"},
			wantLines: []int{2},
			check:     wantDescription("`make` helpers"),
		},
		{
			name:      "value starting with %",
			yaml:      "description: %d formats\n",
			wantCodes: []string{"frontmatter-repaired"},
			wantLines: []int{2},
			check:     wantDescription("%d formats"),
		},
		{
			name:      "quoted text followed by more text",
			yaml:      `description: "Fast" search for logs` + "\n",
			wantCodes: []string{"frontmatter-repaired"},
			wantLines: []int{2},
			check:     wantDescription(`"Fast" search for logs`),
		},
		{
			name:      "brackets followed by more text",
			yaml:      "description: [WIP] Use when: x\n",
			wantCodes: []string{"frontmatter-repaired"},
			wantLines: []int{2},
			check:     wantDescription("[WIP] Use when: x"),
		},
		{
			name:      "quotes and backslashes survive",
			yaml:      `description: Say "hi": C:\temp\ ok` + "\n",
			wantCodes: []string{"frontmatter-repaired"},
			check:     wantDescription(`Say "hi": C:\temp\ ok`),
		},
		{
			name:      "continuation lines are folded",
			yaml:      joinLines("description: Review code.", "  Use when: the user asks", "  for a review.", "name: z"),
			wantCodes: []string{"frontmatter-repaired"},
			wantLines: []int{2},
			check: func(t *testing.T, f *Frontmatter) {
				wantDescription("Review code. Use when: the user asks for a review.")(t, f)
				if f.Name != "z" || f.KeyLines["name"] != 5 {
					t.Errorf("name: got %q on line %d, want %q on line 5", f.Name, f.KeyLines["name"], "z")
				}
			},
		},
		{
			name:      "a blank line in a continuation is a newline",
			yaml:      joinLines("description: One: a", "", "  Two"),
			wantCodes: []string{"frontmatter-repaired"},
			check:     wantDescription("One: a\nTwo"),
		},
		{
			name:      "nested mapping value",
			yaml:      joinLines("metadata:", "  summary: Use when: x", "  author: me"),
			wantCodes: []string{"frontmatter-repaired"},
			wantLines: []int{3},
			check: func(t *testing.T, f *Frontmatter) {
				want := map[string]any{"summary": "Use when: x", "author": "me"}
				if diff := cmp.Diff(want, f.Metadata); diff != "" {
					t.Errorf("Metadata (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "mapping inside a list",
			yaml: joinLines(
				"assets:",
				"  - file: a.md",
				"    description: Note: read first",
				"  - file: b.md",
			),
			wantCodes: []string{"frontmatter-repaired"},
			wantLines: []int{4},
			check: func(t *testing.T, f *Frontmatter) {
				want := []Asset{{File: "a.md", Description: "Note: read first", Type: "other"}, {File: "b.md", Type: "other"}}
				if diff := cmp.Diff(want, f.Assets); diff != "" {
					t.Errorf("Assets (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:      "list item",
			yaml:      joinLines("keywords:", "  - @angular/core", "  - react"),
			wantCodes: []string{"frontmatter-repaired"},
			wantLines: []int{3},
			check: func(t *testing.T, f *Frontmatter) {
				if want := []string{"@angular/core", "react"}; !cmp.Equal(f.Keywords, want) {
					t.Errorf("keywords: got %q, want %q", f.Keywords, want)
				}
			},
		},
		{
			name:      "several repairs",
			yaml:      joinLines("name: a", "description: b: c", "license: see: LICENSE", "compatibility: ok"),
			wantCodes: []string{"frontmatter-repaired", "frontmatter-repaired"},
			wantLines: []int{3, 4},
			check: func(t *testing.T, f *Frontmatter) {
				if f.Description != "b: c" || f.License != "see: LICENSE" || f.Compatibility != "ok" {
					t.Errorf("got description %q, license %q, compatibility %q", f.Description, f.License, f.Compatibility)
				}
			},
		},
		{
			name: "block scalars are left alone",
			yaml: joinLines(
				"description: |",
				"  Use when: anything",
				"    - even this: here",
				"name: a: b",
			),
			wantCodes: []string{"frontmatter-repaired"},
			wantLines: []int{5},
			check: func(t *testing.T, f *Frontmatter) {
				wantDescription("Use when: anything\n  - even this: here")(t, f)
				if f.Name != "a: b" {
					t.Errorf("name: got %q, want %q", f.Name, "a: b")
				}
			},
		},
		{
			name: "multi-line quoted and flow values are left alone",
			yaml: joinLines(
				`description: "starts here`,
				`  key: value: inside"`,
				"tags: [a,",
				"  b: c]",
				"name: x: y",
			),
			// The flow list holds a one-pair mapping, as YAML reads it.
			wantCodes: []string{"tags-type", "frontmatter-repaired"},
			wantLines: []int{5, 6},
			check: func(t *testing.T, f *Frontmatter) {
				wantDescription("starts here key: value: inside")(t, f)
				if f.Name != "x: y" {
					t.Errorf("name: got %q, want %q", f.Name, "x: y")
				}
			},
		},
		{
			name:      "aliases are left alone",
			yaml:      joinLines("a: &v 1", "b: *v", "c: d: e"),
			wantCodes: []string{"frontmatter-repaired"},
			wantLines: []int{4},
			check: func(t *testing.T, f *Frontmatter) {
				want := map[string]any{"a": 1, "b": 1, "c": "d: e"}
				if diff := cmp.Diff(want, f.Raw); diff != "" {
					t.Errorf("Raw (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:      "ambiguous: a continuation that looks like a key",
			yaml:      joinLines("name: x", "description: Does things: well", "  author: me"),
			wantCodes: []string{"frontmatter-invalid"},
			wantLines: []int{3},
		},
		{
			name:      "ambiguous: a continuation that looks like a list item",
			yaml:      joinLines("description: Steps: a", "  - b"),
			wantCodes: []string{"frontmatter-invalid"},
		},
		{
			name:      "not a quoting problem",
			yaml:      joinLines("name: x", "metadata:", "\tauthor: me: too"),
			wantCodes: []string{"frontmatter-invalid"},
			wantLines: []int{4},
		},
		{
			name:      "a repair that does not fix everything is not used",
			yaml:      joinLines("description: a: b", "list: [unclosed"),
			wantCodes: []string{"frontmatter-invalid"},
			wantLines: []int{2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, diags := Parse("SKILL.md", frontmatterDoc(tt.yaml))
			if got := codes(diags); !cmp.Equal(got, tt.wantCodes) {
				t.Fatalf("codes: got %q, want %q (%v)", got, tt.wantCodes, diags)
			}
			if tt.wantLines != nil {
				var lines []int
				for _, d := range diags {
					lines = append(lines, d.Line)
				}
				if !cmp.Equal(lines, tt.wantLines) {
					t.Errorf("lines: got %v, want %v", lines, tt.wantLines)
				}
			}
			for _, d := range diags {
				if d.Code == "frontmatter-repaired" && !strings.Contains(d.Message, "quote it") {
					t.Errorf("message: got %q, want advice to quote the value", d.Message)
				}
			}
			if wantFM := tt.check != nil; doc.HasFrontmatter != wantFM {
				t.Fatalf("HasFrontmatter: got %t, want %t", doc.HasFrontmatter, wantFM)
			}
			if tt.check != nil {
				tt.check(t, &doc.Frontmatter)
			}
		})
	}
}

func wantDescription(want string) func(*testing.T, *Frontmatter) {
	return func(t *testing.T, f *Frontmatter) {
		t.Helper()
		if f.Description != want {
			t.Errorf("description: got %q, want %q", f.Description, want)
		}
	}
}

func TestRepairKeepsLineNumbers(t *testing.T) {
	in := joinLines("a: 1", "description: x: y", "  more: text?", "  and more", "b: 2")
	out, reps := repairFrontmatter(strings.Replace(in, "  more: text?", "  more text: ok", 1))
	if len(reps) != 1 {
		t.Fatalf("repairs: got %v, want one", reps)
	}
	if got, want := strings.Count(out, "\n"), strings.Count(in, "\n"); got != want {
		t.Errorf("line count: got %d, want %d", got, want)
	}
	want := joinLines("a: 1", `description: "x: y more text: ok and more"`, "", "", "b: 2")
	if out != want {
		t.Errorf("repaired text:\ngot  %q\nwant %q", out, want)
	}
}

func TestRepairNothingToDo(t *testing.T) {
	for _, in := range []string{
		"",
		joinLines("name: x", "description: fine"),
		joinLines("tags: [a, b]", "desc: 'quoted: fine'", "other: |", "  a: b: c"),
		joinLines("# comment: with colon", "k: v # comment: with colon"),
	} {
		if out, reps := repairFrontmatter(in); out != "" || reps != nil {
			t.Errorf("repairFrontmatter(%q): got (%q, %v), want nothing", in, out, reps)
		}
	}
}
