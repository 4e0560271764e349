package mcpgw

import (
	"strings"
	"testing"
)

// TestVocabularyAliases: the words of the other tools and of REST are
// accepted where they can mean one argument only (issue 18: search took
// query and match context, load_skill name and the others skill_path).
func TestVocabularyAliases(t *testing.T) {
	cs, _ := startGateway(t, newTestCatalog(t))
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string // in the answer
	}{
		{"load_skill", map[string]any{"skill_path": "pdf"}, `"skill_path":"pdf"`},
		{"load_skill", map[string]any{"path": "ui/react/auth"}, `"skill_path":"ui/react/auth"`},
		{"search_skills", map[string]any{"context": "merge pdf files"}, `"skill_path":"pdf"`},
		{"get_skill", map[string]any{"query": "merge pdf forms and documents"}, `"skill_path":"pdf"`},
		{"read_skill_file", map[string]any{"name": "pdf", "file": "reference.md"}, "pypdf reference"},
		{"read_skill_file", map[string]any{"skill": "pdf", "file_path": "reference.md"}, "pypdf reference"},
		{"list_skills", map[string]any{"skill_path": "ui"}, `"ui/react/auth"`},
	} {
		res, text := callTool(t, cs, tc.tool, tc.args)
		if res.IsError || !strings.Contains(text, tc.want) && !strings.Contains(strings.ReplaceAll(text, " ", ""), tc.want) {
			t.Errorf("%s %v: error %v, %.300s; want %s", tc.tool, tc.args, res.IsError, text, tc.want)
		}
	}
	// run_script's script is file (REST's word): the call reaches the
	// script's validation, which speaks of the skill's declared scripts.
	res, text := callTool(t, cs, "run_script", map[string]any{"skill_path": "pdf", "script": "scripts/nope.sh"})
	if !res.IsError || strings.Contains(text, "unknown argument") || !strings.Contains(text, "nope.sh") {
		t.Errorf("run_script with script: %s", text)
	}
}

// TestVocabularyUnknownArguments: an unknown argument is an error naming
// it, the tool, what it takes and the closest name; an argument given
// twice (name and alias) too. tools/list is unchanged by the aliases.
func TestVocabularyUnknownArguments(t *testing.T) {
	cs, _ := startGateway(t, newTestCatalog(t))
	for _, tc := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"load_skill", map[string]any{"nmae": "pdf"}, []string{`unknown argument "nmae" for load_skill`, `did you mean "name"?`, "load_skill takes name", "path or skill or skill_path for name"}},
		{"search_skills", map[string]any{"query": "pdf", "limt": 3}, []string{`unknown argument "limt"`, `did you mean "limit"?`, "search_skills takes query, restated, limit, mode, category, tags"}},
		{"run_script", map[string]any{"skill_path": "pdf", "scirpt": "x.sh"}, []string{`unknown argument "scirpt"`, `did you mean "script", that is "file"?`}},
		{"refresh_skills", map[string]any{"force": true}, []string{`unknown argument "force" for refresh_skills: refresh_skills takes no arguments`}},
		{"load_skill", map[string]any{"name": "pdf", "skill_path": "pdf"}, []string{`give "name" or its alias "skill_path", not both`}},
		{"get_skill", map[string]any{"context": "pdf", "zzzzzz": 1}, []string{`unknown argument "zzzzzz" for get_skill: get_skill takes context, restated`}},
	} {
		res, text := callTool(t, cs, tc.tool, tc.args)
		if !res.IsError {
			t.Errorf("%s %v: answered %.200s", tc.tool, tc.args, text)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s %v: %q lacks %q", tc.tool, tc.args, text, w)
			}
		}
	}
}
