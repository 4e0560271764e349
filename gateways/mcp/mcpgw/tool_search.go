package mcpgw

import (
	"context"
	"fmt"
	"math"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// Search modes of search_skills.
const (
	modeRanked   = "ranked"
	modeAllTerms = "all_terms"
)

// searchModes maps search_skills' modes to the RPC's; none is ranked.
var searchModes = map[string]skillsv1.SearchMode{
	"":           skillsv1.SearchMode_SEARCH_MODE_RANKED,
	modeRanked:   skillsv1.SearchMode_SEARCH_MODE_RANKED,
	modeAllTerms: skillsv1.SearchMode_SEARCH_MODE_ALL_TERMS,
}

// SearchSkillsInput is the input of search_skills.
type SearchSkillsInput struct {
	Query string `json:"query" jsonschema:"The task or skill you need, in a few words."`
	// Restated is the calling model's restatement of the need (the name is
	// pinned by MCP_TOOLS.md); blank means none.
	Restated string   `json:"restated,omitempty" jsonschema:"The same need in plain technical English, naming the technologies and concepts it implies; not a category."`
	Limit    int      `json:"limit,omitempty" jsonschema:"1 to 50; default 10."`
	Mode     string   `json:"mode,omitempty" jsonschema:"all_terms: only skills containing every word."`
	Category string   `json:"category,omitempty"`
	Tags     []string `json:"tags,omitempty" jsonschema:"Only skills with all these tags."`
}

// SearchSkillsOutput is the answer of search_skills.
type SearchSkillsOutput struct {
	Query   string      `json:"query"`
	Results []SearchHit `json:"results"`
}

// SearchHit is one result of search_skills. Its fields are in the order of
// their JSON names: the answer is encoded once (encodedOnceTool), with its keys
// in the order a validating round trip through a map would give them.
type SearchHit struct {
	Category    string `json:"category"`
	Description string `json:"description"`
	Excerpt     string `json:"excerpt"`
	// MatchedRestated is true when the restatement, not the query, matched
	// best: matched_terms and excerpt are then the restatement's.
	MatchedRestated bool     `json:"matched_restated,omitempty"`
	MatchedTerms    []string `json:"matched_terms"`
	Name            string   `json:"name"`
	Score           float64  `json:"score"`
	SkillPath       string   `json:"skill_path"`
}

// searchSkillsTool describes search_skills. Its schemas are terse, and the
// output's is written by hand: tools/list must stay under 8 KiB with every tool.
func searchSkillsTool() (*mcp.Tool, error) {
	in, err := jsonschema.For[SearchSkillsInput](nil)
	if err != nil {
		return nil, fmt.Errorf("search_skills input schema: %w", err)
	}
	in.Properties["mode"].Enum = []any{modeRanked, modeAllTerms}
	core.ArraysNotNull(in)
	str := func() *jsonschema.Schema { return &jsonschema.Schema{Type: "string"} }
	out := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"query": str(),
			"results": {Type: "array", Items: &jsonschema.Schema{
				Type: "object",
				Properties: map[string]*jsonschema.Schema{
					"name": str(), "skill_path": str(), "description": str(), "category": str(), "excerpt": str(),
					"score":            {Type: "number"},
					"matched_terms":    {Type: "array", Items: str()},
					"matched_restated": {Type: "boolean"},
				},
			}},
		},
	}
	return &mcp.Tool{
		Name:  core.ToolSearchSkills,
		Title: "Search skills",
		Description: "Find skills for a task, best first; pass the skill_path of the one that fits to load_skill. " +
			"No results: no skill applies, go on without one. Also pass restated.",
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  core.ReadOnly(),
	}, nil
}

// searchSkills serves search_skills, the hot path of routing. It is
// registered with encodedOnceTool, as the other native tools are: its
// answer is encoded once instead of being marshaled, validated against the
// output schema and marshaled again on every call; tests check it against
// the schema (TestSearchSkillsOutputMatchesSchema).
func (g *gateway) searchSkills(ctx context.Context, _ *mcp.CallToolRequest, in SearchSkillsInput) (*mcp.CallToolResult, SearchSkillsOutput, error) {
	// The service is the one validator of a search (query, limit, mode): its
	// InvalidArgument comes back through toolError. The input schema has
	// already refused a missing query and a mode it does not list.
	mode, ok := searchModes[in.Mode]
	if !ok {
		mode = skillsv1.SearchMode(-1) // not a mode: the service says so
	}
	ctx, cancel := context.WithTimeout(ctx, g.Timeout)
	defer cancel()
	resp, err := g.Routing.SearchSkills(ctx, &skillsv1.SearchSkillsRequest{
		Query:    in.Query,
		Restated: core.RestatedList(in.Restated),
		Limit:    int32(min(max(in.Limit, math.MinInt32), math.MaxInt32)),
		Mode:     mode,
		Category: in.Category,
		Tags:     in.Tags,
	})
	if err != nil {
		return nil, SearchSkillsOutput{}, g.ToolError(err, "")
	}
	out := SearchSkillsOutput{Query: resp.GetQuery(), Results: make([]SearchHit, 0, len(resp.GetResults()))}
	for _, h := range resp.GetResults() {
		out.Results = append(out.Results, SearchHit{
			Name:            h.GetName(),
			SkillPath:       h.GetSkillPath(),
			Description:     h.GetDescription(),
			Category:        h.GetCategory(),
			Score:           h.GetScore(),
			Excerpt:         h.GetExcerpt(),
			MatchedTerms:    core.NonNilList(h.GetMatchedTerms()),
			MatchedRestated: h.GetPhrasing() > 0,
		})
	}
	return nil, out, nil
}
