package core

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

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
	if got := CapContent(small, "x", all); got != small {
		t.Errorf("CapContent(small): got %q", got)
	}
	big := strings.Repeat("é", MaxTextBytes)
	got := CapContent(big, "ui/huge", all)
	if len(got) > MaxTextBytes || !strings.Contains(got, `load_skill with name "ui/huge"`) || !strings.HasPrefix(got, "éé") {
		t.Errorf("CapContent(big): got %d bytes ending %q", len(got), got[len(got)-120:])
	}
	// Without load_skill (the skills-mcp and universal-skills profiles),
	// the note names no tool.
	got = CapContent(big, "ui/huge", func(name string) bool { return name != ToolLoadSkill })
	if len(got) > MaxTextBytes || strings.Contains(got, "load_skill") || !strings.HasSuffix(got, fmt.Sprintf("[Content cut at 96 KiB of %d bytes.]", len(big))) {
		t.Errorf("CapContent(big) without load_skill: got %d bytes ending %q", len(got), got[len(got)-120:])
	}
}
