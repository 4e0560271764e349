package mcpgw

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// TestGetSkill checks the three answers of get_skill, exactly seed 000
// §8.1's shapes, over the seed-000 tree alone (keyword strategy).
func TestGetSkill(t *testing.T) {
	c := newTestCatalog(t)
	cs := connectClient(t, skillstest.Start(t, skillsd.Options{SkillsDirs: []string{c.treeDir}}))

	t.Run("match", func(t *testing.T) {
		res, text := callTool(t, cs, "get_skill", map[string]any{"context": "Build a React login component"})
		if res.IsError {
			t.Fatalf("get_skill: isError: %s", text)
		}
		want := []string{"assets", "content", "inherited_assets", "inherited_scripts", "matched_keywords", "score", "scripts", "skill_path"}
		if diff := cmp.Diff(want, keysOf(t, text)); diff != "" {
			t.Errorf("keys (-want +got):\n%s", diff)
		}
		var got struct {
			SkillPath        string            `json:"skill_path"`
			Score            float64           `json:"score"`
			MatchedKeywords  []string          `json:"matched_keywords"`
			Content          string            `json:"content"`
			Assets           []json.RawMessage `json:"assets"`
			Scripts          []json.RawMessage `json:"scripts"`
			InheritedAssets  []json.RawMessage `json:"inherited_assets"`
			InheritedScripts []json.RawMessage `json:"inherited_scripts"`
		}
		if err := json.Unmarshal([]byte(text), &got); err != nil {
			t.Fatal(err)
		}
		if got.SkillPath != "ui/react/auth" || got.Score < 0.66 || got.Score > 0.67 {
			t.Errorf("got %s with score %v, want ui/react/auth with 2/3", got.SkillPath, got.Score)
		}
		if diff := cmp.Diff([]string{"react", "login"}, got.MatchedKeywords); diff != "" {
			t.Errorf("matched_keywords (-want +got):\n%s", diff)
		}
		for _, w := range []string{"=== GLOBAL RULES (from _root.md) ===", "=== UI > REACT > AUTH (from ui/react/auth.md) ===", "Wrap the app root"} {
			if !strings.Contains(got.Content, w) {
				t.Errorf("content lacks %q:\n%s", w, got.Content)
			}
		}
		if len(got.Assets) != 1 || len(got.Scripts) != 0 || len(got.InheritedAssets) != 0 || len(got.InheritedScripts) != 0 {
			t.Errorf("got %d assets, %d scripts, %d inherited assets, %d inherited scripts; want 1, 0, 0, 0", len(got.Assets), len(got.Scripts), len(got.InheritedAssets), len(got.InheritedScripts))
		}
		if len(got.Assets) == 1 {
			if diff := cmp.Diff([]string{"description", "file", "type"}, keysOf(t, string(got.Assets[0]))); diff != "" {
				t.Errorf("own asset keys (no from) (-want +got):\n%s", diff)
			}
		}
	})

	t.Run("ambiguous", func(t *testing.T) {
		res, text := callTool(t, cs, "get_skill", map[string]any{"context": "global frontend"})
		if res.IsError {
			t.Fatalf("get_skill: isError: %s", text)
		}
		if diff := cmp.Diff([]string{"ambiguous", "candidates", "message"}, keysOf(t, text)); diff != "" {
			t.Errorf("keys (-want +got):\n%s", diff)
		}
		var got struct {
			Ambiguous  bool                     `json:"ambiguous"`
			Candidates []core.GetSkillCandidate `json:"candidates"`
			Message    string                   `json:"message"`
		}
		if err := json.Unmarshal([]byte(text), &got); err != nil {
			t.Fatal(err)
		}
		want := []core.GetSkillCandidate{
			{SkillPath: "_root", Score: 0.5, Description: "Global project rules", MatchedKeywords: []string{"global"}},
			{SkillPath: "ui/_index", Score: 0.5, Description: "UI development rules", MatchedKeywords: []string{"frontend"}},
		}
		if diff := cmp.Diff(want, got.Candidates); diff != "" {
			t.Errorf("candidates (-want +got):\n%s", diff)
		}
		if !got.Ambiguous || got.Message != "Multiple skills match. Specify your need or pick a skill_path." {
			t.Errorf("got ambiguous %v message %q, want true and seed 000's message", got.Ambiguous, got.Message)
		}
	})

	t.Run("no match", func(t *testing.T) {
		res, text := callTool(t, cs, "get_skill", map[string]any{"context": "bake sourdough bread"})
		if res.IsError {
			t.Fatalf("get_skill: isError: %s", text)
		}
		var got any
		if err := json.Unmarshal([]byte(text), &got); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"no_match": true, "message": "No skill matches the given context."}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("answer (-want +got):\n%s", diff)
		}
	})

	t.Run("errors", func(t *testing.T) {
		for _, args := range []map[string]any{{}, {"context": " \n "}} {
			res, text := callTool(t, cs, "get_skill", args)
			if !res.IsError || !strings.Contains(text, "context") {
				t.Errorf("get_skill(%v): got isError %v, %q; want an error about context", args, res.IsError, text)
			}
		}
	})
}

// TestGetSkillRestated: get_skill decides on the context fused with its
// restatement, in both strategies, and answers in seed 000's shapes.
func TestGetSkillRestated(t *testing.T) {
	c := newTestCatalog(t)
	get := func(t *testing.T, cs *mcp.ClientSession, args map[string]any) map[string]any {
		t.Helper()
		res, text := callTool(t, cs, "get_skill", args)
		if res.IsError {
			t.Fatalf("get_skill(%v): isError: %s", args, text)
		}
		return decode[map[string]any](t, text)
	}
	t.Run("ranked", func(t *testing.T) {
		cs, _ := startGateway(t, c)
		context := "stitch these scanned handouts into one"
		if got := get(t, cs, map[string]any{"context": context}); got["no_match"] != true {
			t.Fatalf("alone: got %v, want no_match (fixture changed?)", got)
		}
		if got := get(t, cs, map[string]any{"context": context, "restated": ""}); got["no_match"] != true {
			t.Errorf("blank restated: got %v, want no_match", got)
		}
		got := get(t, cs, map[string]any{"context": context, "restated": "merge PDF files with pypdf"})
		if got["skill_path"] != "pdf" || !strings.Contains(got["content"].(string), "pypdf") {
			t.Errorf("restated: got %v, want pdf with its content", got["skill_path"])
		}
		if _, ok := got["phrasing"]; ok {
			t.Errorf("restated: the answer has a phrasing key; seed 000's shape has none")
		}
	})
	t.Run("keyword", func(t *testing.T) {
		cs := connectClient(t, skillstest.Start(t, skillsd.Options{SkillsDirs: []string{c.treeDir}}))
		context := "a sign-in screen for our web app"
		if got := get(t, cs, map[string]any{"context": context}); got["no_match"] != true {
			t.Fatalf("alone: got %v, want no_match (fixture changed?)", got)
		}
		got := get(t, cs, map[string]any{"context": context, "restated": "React login component with auth"})
		if got["skill_path"] != "ui/react/auth" {
			t.Errorf("restated: got %v, want ui/react/auth", got)
		}
	})
}
