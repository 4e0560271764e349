package core

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// GetSkillInput is the input of get_skill.
type GetSkillInput struct {
	Context string `json:"context" jsonschema:"The task, in free text: a sentence or a short paragraph."`
	// Restated is as for search_skills.
	Restated string `json:"restated,omitempty" jsonschema:"As for search_skills."`
}

// GetSkillOutput is the answer of get_skill: exactly one of seed 000 §8.1's
// three shapes, chosen by MarshalJSON —
//
//	{"no_match": true, "message"}
//	{"ambiguous": true, "candidates": [...], "message"}
//	{"skill_path", "score", "matched_keywords", "content", "assets", "scripts", "inherited_assets", "inherited_scripts"}
//
// The struct's fields are the union of the three; the third is GetSkillMatch.
type GetSkillOutput struct {
	NoMatch    bool                `json:"no_match,omitempty"`
	Ambiguous  bool                `json:"ambiguous,omitempty"`
	Message    string              `json:"message,omitempty"`
	Candidates []GetSkillCandidate `json:"candidates,omitempty"`
	GetSkillMatch
}

// GetSkillMatch is the answer of get_skill when one skill fits. Its lists
// are never nil (matchOutput builds them), so that each is present in the
// answer, [] when empty.
type GetSkillMatch struct {
	SkillPath        string           `json:"skill_path"`
	Score            float64          `json:"score"`
	MatchedKeywords  []string         `json:"matched_keywords"`
	Content          string           `json:"content"`
	Assets           []GetSkillAsset  `json:"assets"`
	Scripts          []GetSkillScript `json:"scripts"`
	InheritedAssets  []GetSkillAsset  `json:"inherited_assets"`
	InheritedScripts []GetSkillScript `json:"inherited_scripts"`
}

// GetSkillCandidate is one skill of an ambiguous get_skill answer.
type GetSkillCandidate struct {
	SkillPath       string   `json:"skill_path"`
	Score           float64  `json:"score"`
	Description     string   `json:"description"`
	MatchedKeywords []string `json:"matched_keywords"`
}

// GetSkillAsset is a file a skill declares as an asset (seed 000 §7.1).
type GetSkillAsset struct {
	File        string `json:"file"`
	Description string `json:"description"`
	Type        string `json:"type"`
	From        string `json:"from,omitempty"`
}

// GetSkillScript is a file a skill declares as a script (seed 000 §7.1).
type GetSkillScript struct {
	File        string              `json:"file"`
	Description string              `json:"description"`
	Execution   string              `json:"execution"`
	Args        []GetSkillScriptArg `json:"args"`
	From        string              `json:"from,omitempty"`
}

// GetSkillScriptArg is one declared argument of a script.
type GetSkillScriptArg struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Required    bool    `json:"required"`
	Default     *string `json:"default,omitempty"`
}

// MarshalJSON writes the shape of the answer's kind, with every list of it
// present ([] when empty).
func (o GetSkillOutput) MarshalJSON() ([]byte, error) {
	switch {
	case o.NoMatch:
		return json.Marshal(struct {
			NoMatch bool   `json:"no_match"`
			Message string `json:"message"`
		}{true, o.Message})
	case o.Ambiguous:
		return json.Marshal(struct {
			Ambiguous  bool                `json:"ambiguous"`
			Candidates []GetSkillCandidate `json:"candidates"`
			Message    string              `json:"message"`
		}{true, NonNilList(o.Candidates), o.Message})
	}
	return json.Marshal(o.GetSkillMatch)
}

// getSkillOutputSchema is the output schema of get_skill: the union of the
// three shapes, written by hand and terse: tools/list must stay under 8 KiB
// with every tool.
func getSkillOutputSchema() *jsonschema.Schema {
	list := func(item *jsonschema.Schema) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "array", Items: item}
	}
	object := func(desc string) *jsonschema.Schema { return &jsonschema.Schema{Type: "object", Description: desc} }
	// Each use needs its own value: schemas form a tree.
	asset := func() *jsonschema.Schema { return &jsonschema.Schema{Ref: "#/$defs/asset"} }
	script := func() *jsonschema.Schema { return &jsonschema.Schema{Ref: "#/$defs/script"} }
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"no_match": {Type: "boolean", Description: "No skill fits: go on without one."},
			// What to do then is in the tool's description.
			"ambiguous":         {Type: "boolean"},
			"message":           {Type: "string"},
			"candidates":        list(object("{skill_path, score, description, matched_keywords}")),
			"skill_path":        {Type: "string"},
			"score":             {Type: "number"},
			"matched_keywords":  list(&jsonschema.Schema{Type: "string"}),
			"content":           {Type: "string", Description: "Follow it: the skill with the rules it inherits."},
			"assets":            list(asset()),
			"scripts":           list(script()),
			"inherited_assets":  list(asset()),
			"inherited_scripts": list(script()),
		},
		Defs: map[string]*jsonschema.Schema{
			"asset":  object("{file, description, type, from?}"),
			"script": object("{file, description, execution: claude|server, args: [{name, description, required, default?}], from?}"),
		},
	}
}

// GetSkillTool describes get_skill.
func GetSkillTool() (*mcp.Tool, error) {
	return WithInputOf[GetSkillInput](&mcp.Tool{
		Name:  ToolGetSkill,
		Title: "Get the skill for a task",
		Description: "Match a task to one skill and load it in one call: its content with inherited rules, assets and scripts; " +
			"or ambiguous: true with candidates (pick one, then load_skill); or no_match: true.",
		OutputSchema: getSkillOutputSchema(),
		Annotations:  ReadOnly(),
	})
}

// GetSkill serves get_skill.
func (g *Gateway) GetSkill(ctx context.Context, _ *mcp.CallToolRequest, in GetSkillInput) (*mcp.CallToolResult, GetSkillOutput, error) {
	if strings.TrimSpace(in.Context) == "" {
		return nil, GetSkillOutput{}, Refuse("context is required: describe the task to find a skill for.")
	}
	ctx, cancel := context.WithTimeout(ctx, g.Timeout)
	defer cancel()
	resp, err := g.Routing.MatchSkill(ctx, &skillsv1.MatchSkillRequest{Context: in.Context, Restated: RestatedList(in.Restated)})
	if err != nil {
		return nil, GetSkillOutput{}, g.ToolError(err, "")
	}
	return nil, matchOutput(resp, g.Has), nil
}

// matchOutput converts a MatchSkill answer to the get_skill answer; has
// says which tools its notes may name.
func matchOutput(resp *skillsv1.MatchSkillResponse, has func(string) bool) GetSkillOutput {
	switch resp.GetOutcome() {
	case skillsv1.MatchOutcome_MATCH_OUTCOME_MATCH:
		return GetSkillOutput{GetSkillMatch: GetSkillMatch{
			SkillPath:        resp.GetSkillPath(),
			Score:            resp.GetScore(),
			MatchedKeywords:  NonNilList(resp.GetMatchedKeywords()),
			Content:          CapContent(resp.GetContent(), resp.GetSkillPath(), has),
			Assets:           matchAssets(resp.GetAssets()),
			Scripts:          matchScripts(resp.GetScripts()),
			InheritedAssets:  matchAssets(resp.GetInheritedAssets()),
			InheritedScripts: matchScripts(resp.GetInheritedScripts()),
		}}
	case skillsv1.MatchOutcome_MATCH_OUTCOME_AMBIGUOUS:
		out := GetSkillOutput{Ambiguous: true, Message: resp.GetMessage(), Candidates: make([]GetSkillCandidate, 0, len(resp.GetCandidates()))}
		for _, c := range resp.GetCandidates() {
			out.Candidates = append(out.Candidates, GetSkillCandidate{
				SkillPath:       c.GetSkillPath(),
				Score:           c.GetScore(),
				Description:     c.GetDescription(),
				MatchedKeywords: NonNilList(c.GetMatchedKeywords()),
			})
		}
		return out
	}
	return GetSkillOutput{NoMatch: true, Message: resp.GetMessage()}
}

func matchAssets(in []*skillsv1.Asset) []GetSkillAsset {
	out := make([]GetSkillAsset, 0, len(in))
	for _, a := range in {
		out = append(out, GetSkillAsset{File: a.GetFile(), Description: a.GetDescription(), Type: a.GetType(), From: a.GetFrom()})
	}
	return out
}

func matchScripts(in []*skillsv1.Script) []GetSkillScript {
	out := make([]GetSkillScript, 0, len(in))
	for _, s := range in {
		sc := GetSkillScript{File: s.GetFile(), Description: s.GetDescription(), Execution: s.GetExecution(), From: s.GetFrom(), Args: make([]GetSkillScriptArg, 0, len(s.GetArgs()))}
		for _, a := range s.GetArgs() {
			sc.Args = append(sc.Args, GetSkillScriptArg{Name: a.GetName(), Description: a.GetDescription(), Required: a.GetRequired(), Default: a.Default})
		}
		out = append(out, sc)
	}
	return out
}
