package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// treeCatalog is a seed-000 tree alone: every skill declares keywords, so
// match uses seed 000's keyword matcher.
func treeCatalog(t *testing.T) string {
	t.Helper()
	return makeFiles(t, map[string]string{
		"_root.md":                          "---\nkeywords: [global, rules]\ndescription: Rules for every task.\n---\nAlways be careful.\n",
		"ui/_index.md":                      "---\nkeywords: [ui, frontend]\ndescription: Rules for user interfaces.\n---\nUse the design system.\n",
		"ui/react/auth.md":                  "---\nkeywords: [react, auth, login]\ndescription: Login and session handling in React apps.\nassets:\n  - file: assets/Provider.tsx\n    description: Provider template\n    type: template\n---\nUse the auth hook.\n",
		"ui/react/auth/assets/Provider.tsx": "export {}\n",
	})
}

func TestMatch(t *testing.T) {
	dir := treeCatalog(t)
	tests := []struct {
		name     string
		args     []string
		contains []string
	}{
		{
			name:     "match",
			args:     []string{"match", "build", "a", "React", "login", "form"},
			contains: []string{"Match:       ui/react/auth\n", "Score:       0.667 (keyword)", "Matched:     react, login", "Assets:      assets/Provider.tsx", "Always be careful.", "Use the auth hook."},
		},
		{
			name:     "ambiguous",
			args:     []string{"match", "global frontend"},
			contains: []string{"Multiple skills match. Specify your need or pick a skill_path. (keyword)", "SCORE", "_root", "ui/_index", "Rules for user interfaces."},
		},
		{
			name:     "no match",
			args:     []string{"match", "bake bread"},
			contains: []string{"No skill matches the given context. (keyword)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, append(tt.args, "--skills-dir", dir)...)
			r.want(t, 0)
			for _, w := range tt.contains {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
				}
			}
		})
	}
}

func TestMatchJSON(t *testing.T) {
	r := runCLI(t, "match", "--json", "--skills-dir", treeCatalog(t), "react login")
	r.want(t, 0)
	var got struct {
		Outcome         string   `json:"outcome"`
		SkillPath       string   `json:"skill_path"`
		MatchedKeywords []string `json:"matched_keywords"`
		Strategy        string   `json:"strategy"`
		Candidates      []any    `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, r.stdout)
	}
	if got.Outcome != "MATCH_OUTCOME_MATCH" || got.SkillPath != "ui/react/auth" || got.Strategy != "keyword" || got.Candidates == nil {
		t.Errorf("got %+v, want a keyword match of ui/react/auth with candidates []", got)
	}
}

func TestMatchRestated(t *testing.T) {
	dir := catalog(t)
	task := "stitch my scanned handouts together"
	r := runCLI(t, "match", "--json", "--skills-dir", dir, task)
	r.want(t, 0)
	if !strings.Contains(r.stdout, "MATCH_OUTCOME_NO_MATCH") {
		t.Fatalf("alone: got %s, want no match (fixture changed?)", r.stdout)
	}
	r = runCLI(t, "match", "--json", "--skills-dir", dir, "--restated", "merge PDF files", task)
	r.want(t, 0)
	var got struct {
		Outcome   string `json:"outcome"`
		SkillPath string `json:"skill_path"`
		Phrasing  int    `json:"phrasing"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, r.stdout)
	}
	if got.Outcome != "MATCH_OUTCOME_MATCH" || got.SkillPath != "pdf" || got.Phrasing != 1 {
		t.Errorf("got %+v, want pdf matched through the restatement", got)
	}
	r = runCLI(t, "match", "--skills-dir", dir, "--restated", "a", "--restated", "b", "--restated", "c", "--restated", "d", task)
	r.want(t, 1)
	if !strings.Contains(r.stderr, "at most 3") {
		t.Errorf("four restatements: stderr %q, want the limit named", r.stderr)
	}
}

func TestMatchUsage(t *testing.T) {
	r := runCLI(t, "match", "--skills-dir", treeCatalog(t))
	r.want(t, 2)
	if !strings.Contains(r.stderr, "describe the task") {
		t.Errorf("stderr %q, want a usage error", r.stderr)
	}
}
