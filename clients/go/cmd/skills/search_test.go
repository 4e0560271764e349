package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type jsonHit struct {
	Path         string   `json:"skill_path"`
	Name         string   `json:"name"`
	Score        float64  `json:"score"`
	MatchedTerms []string `json:"matched_terms"`
}

func TestSearch(t *testing.T) {
	dir := catalog(t)
	t.Setenv("COLUMNS", "100")
	r := runCLI(t, "search", "--skills-dir", dir, "merge", "PDF", "documents")
	r.want(t, 0)
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "SCORE") || strings.Fields(lines[1])[1] != "pdf" {
		t.Fatalf("want a SCORE PATH DESCRIPTION table with pdf first:\n%s", r.stdout)
	}
	for _, l := range lines {
		if n := len([]rune(l)); n > 100 {
			t.Errorf("line of %d runes, want at most 100: %q", n, l)
		}
	}
}

func TestSearchJSON(t *testing.T) {
	dir := catalog(t)
	tests := []struct {
		name      string
		args      []string
		wantFirst string
		wantOnly  []string
		wantNone  bool
	}{
		{name: "ranked", args: []string{"merge pdf documents"}, wantFirst: "pdf"},
		{name: "limit", args: []string{"--limit", "1", "documents"}},
		{name: "all terms", args: []string{"--all-terms", "word documents"}, wantOnly: []string{"docx"}},
		{name: "nothing applies", args: []string{"zebra xylophone quantum"}, wantNone: true},
		{name: "restated", args: []string{"--restated", "merge PDF files", "stitch my scanned handouts together"}, wantFirst: "pdf"},
		{name: "restated, nothing applies", args: []string{"--restated", "zebra quantum", "zebra xylophone quantum"}, wantNone: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, append([]string{"--skills-dir", dir, "search", "--json"}, tt.args...)...)
			r.want(t, 0)
			var hits []jsonHit
			if err := json.Unmarshal([]byte(r.stdout), &hits); err != nil {
				t.Fatalf("output is not a JSON array of hits: %v\n%s", err, r.stdout)
			}
			if hits == nil {
				t.Fatalf("got null, want an array")
			}
			var paths []string
			for _, h := range hits {
				paths = append(paths, h.Path)
				if h.MatchedTerms == nil {
					t.Errorf("hit %s: matched_terms null", h.Path)
				}
			}
			if tt.wantFirst != "" && (len(paths) == 0 || paths[0] != tt.wantFirst) {
				t.Errorf("got %v, want %s first", paths, tt.wantFirst)
			}
			if tt.wantOnly != nil {
				if diff := cmp.Diff(tt.wantOnly, paths); diff != "" {
					t.Errorf("paths (-want +got):\n%s", diff)
				}
			}
			if tt.wantNone && len(paths) > 0 {
				t.Errorf("got %v, want none", paths)
			}
			if tt.name == "limit" && len(paths) > 1 {
				t.Errorf("got %d hits, want at most 1", len(paths))
			}
		})
	}
}

func TestSearchNothing(t *testing.T) {
	r := runCLI(t, "search", "--skills-dir", catalog(t), "zebra", "xylophone", "quantum")
	r.want(t, 0)
	if r.stdout != "" || !strings.Contains(r.stderr, "no skill applies") {
		t.Errorf("stdout %q stderr %q, want nothing and a note on stderr", r.stdout, r.stderr)
	}
}

func TestSearchUsage(t *testing.T) {
	dir := catalog(t)
	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"search", "--skills-dir", dir}, "give a query"},
		{[]string{"search", "--limit", "-1", "pdf"}, "--limit"},
		{[]string{"search", "--limit", "51", "pdf"}, "--limit"},
	} {
		r := runCLI(t, tt.args...)
		r.want(t, 2)
		if !strings.Contains(r.stderr, tt.stderr) {
			t.Errorf("%v: stderr %q, want %q", tt.args, r.stderr, tt.stderr)
		}
	}
}
