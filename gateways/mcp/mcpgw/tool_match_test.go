package mcpgw

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
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
			Ambiguous  bool                `json:"ambiguous"`
			Candidates []GetSkillCandidate `json:"candidates"`
			Message    string              `json:"message"`
		}
		if err := json.Unmarshal([]byte(text), &got); err != nil {
			t.Fatal(err)
		}
		want := []GetSkillCandidate{
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

func TestMatchOutput(t *testing.T) {
	def := "custom"
	tests := []struct {
		name string
		resp *skillsv1.MatchSkillResponse
		want string
	}{
		{
			name: "no match",
			resp: &skillsv1.MatchSkillResponse{Outcome: skillsv1.MatchOutcome_MATCH_OUTCOME_NO_MATCH, Message: "No skill matches the given context.", Strategy: "keyword"},
			want: `{"no_match":true,"message":"No skill matches the given context."}`,
		},
		{
			name: "ambiguous",
			resp: &skillsv1.MatchSkillResponse{
				Outcome: skillsv1.MatchOutcome_MATCH_OUTCOME_AMBIGUOUS, Message: "m",
				Candidates: []*skillsv1.MatchCandidate{{SkillPath: "a", Score: 0.55, Description: "A"}},
			},
			want: `{"ambiguous":true,"candidates":[{"skill_path":"a","score":0.55,"description":"A","matched_keywords":[]}],"message":"m"}`,
		},
		{
			name: "match with inherited entries",
			resp: &skillsv1.MatchSkillResponse{
				Outcome: skillsv1.MatchOutcome_MATCH_OUTCOME_MATCH, SkillPath: "ui/react/auth", Score: 0.875,
				MatchedKeywords: []string{"react"}, Content: "c",
				Scripts: []*skillsv1.Script{{File: "scripts/s.sh", Description: "d", Execution: "claude", Args: []*skillsv1.ScriptArg{
					{Name: "dir", Description: "x", Required: true}, {Name: "provider", Description: "y", Default: &def},
				}}},
				InheritedAssets: []*skillsv1.Asset{{File: "assets/b.tsx", Description: "d", Type: "template", From: "ui/react/_index"}},
			},
			want: `{"skill_path":"ui/react/auth","score":0.875,"matched_keywords":["react"],"content":"c","assets":[],` +
				`"scripts":[{"file":"scripts/s.sh","description":"d","execution":"claude","args":[{"name":"dir","description":"x","required":true},{"name":"provider","description":"y","required":false,"default":"custom"}]}],` +
				`"inherited_assets":[{"file":"assets/b.tsx","description":"d","type":"template","from":"ui/react/_index"}],"inherited_scripts":[]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(matchOutput(tt.resp, func(string) bool { return true }))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestCapContent(t *testing.T) {
	small := "short"
	all := func(string) bool { return true }
	if got := capContent(small, "x", all); got != small {
		t.Errorf("capContent(small): got %q", got)
	}
	big := strings.Repeat("é", maxTextBytes)
	got := capContent(big, "ui/huge", all)
	if len(got) > maxTextBytes || !strings.Contains(got, `load_skill with name "ui/huge"`) || !strings.HasPrefix(got, "éé") {
		t.Errorf("capContent(big): got %d bytes ending %q", len(got), got[len(got)-120:])
	}
	// Without load_skill (the skills-mcp and universal-skills profiles),
	// the note names no tool.
	got = capContent(big, "ui/huge", func(name string) bool { return name != toolLoadSkill })
	if len(got) > maxTextBytes || strings.Contains(got, "load_skill") || !strings.HasSuffix(got, fmt.Sprintf("[Content cut at 96 KiB of %d bytes.]", len(big))) {
		t.Errorf("capContent(big) without load_skill: got %d bytes ending %q", len(got), got[len(got)-120:])
	}
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
