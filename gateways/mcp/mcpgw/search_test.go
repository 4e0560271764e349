package mcpgw

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// keysOf returns the sorted keys of a JSON object.
func keysOf(t *testing.T, text string) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatalf("decoding %s: %v", text, err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestSearchSkills(t *testing.T) {
	cs, _ := startGateway(t, newTestCatalog(t))
	tests := []struct {
		name      string
		args      map[string]any
		wantFirst string
		wantNone  bool
		maxHits   int
	}{
		{name: "ranked", args: map[string]any{"query": "merge PDF files"}, wantFirst: "pdf"},
		{name: "mode ranked spelled out", args: map[string]any{"query": "merge PDF files", "mode": "ranked"}, wantFirst: "pdf"},
		{name: "all terms", args: map[string]any{"query": "colours fonts", "mode": "all_terms"}, wantFirst: "brand"},
		{name: "limit", args: map[string]any{"query": "skill truncation test", "limit": 1}, maxHits: 1},
		{name: "nothing applies", args: map[string]any{"query": "zebra xylophone quantum"}, wantNone: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, text := callTool(t, cs, "search_skills", tt.args)
			if res.IsError {
				t.Fatalf("search_skills(%v): isError: %s", tt.args, text)
			}
			if diff := cmp.Diff([]string{"query", "results"}, keysOf(t, text)); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
			got := decode[SearchSkillsOutput](t, text)
			if got.Query != tt.args["query"] {
				t.Errorf("query: got %q, want %q", got.Query, tt.args["query"])
			}
			if got.Results == nil {
				t.Fatalf("results: null, want a list")
			}
			if tt.wantNone && len(got.Results) > 0 {
				t.Errorf("results: got %+v, want none", got.Results)
			}
			if tt.wantFirst != "" && (len(got.Results) == 0 || got.Results[0].SkillPath != tt.wantFirst) {
				t.Errorf("results: got %+v, want %s first", got.Results, tt.wantFirst)
			}
			if tt.maxHits > 0 && len(got.Results) > tt.maxHits {
				t.Errorf("results: got %d, want at most %d", len(got.Results), tt.maxHits)
			}
			if len(got.Results) > 0 {
				var hit map[string]json.RawMessage
				var whole struct{ Results []map[string]json.RawMessage }
				_ = json.Unmarshal([]byte(text), &whole)
				hit = whole.Results[0]
				var keys []string
				for k := range hit {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				want := []string{"category", "description", "excerpt", "matched_terms", "name", "score", "skill_path"}
				if diff := cmp.Diff(want, keys); diff != "" {
					t.Errorf("hit keys (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestSearchSkillsErrors(t *testing.T) {
	cs, _ := startGateway(t, newTestCatalog(t))
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{name: "missing query", args: map[string]any{}, want: "query"},
		{name: "blank query", args: map[string]any{"query": "  "}, want: "query is required"},
		{name: "unknown mode", args: map[string]any{"query": "pdf", "mode": "fuzzy"}, want: "mode"},
		{name: "negative limit", args: map[string]any{"query": "pdf", "limit": -2}, want: "limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, text := callTool(t, cs, "search_skills", tt.args)
			if !res.IsError {
				t.Fatalf("search_skills(%v): got %s, want isError", tt.args, text)
			}
			if !strings.Contains(text, tt.want) {
				t.Errorf("search_skills(%v): message %q lacks %q", tt.args, text, tt.want)
			}
		})
	}
}
