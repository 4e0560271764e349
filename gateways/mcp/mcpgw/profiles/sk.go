package profiles

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// The sk profile (seed 002): skills.list and skills.search, with the names
// skills_list, skills_search and skills_show of the system's later releases.
// Both read the catalog fresh on every call (the service keeps it current);
// search is the seed's: every lower-cased query token must occur in the
// skill's install name, metadata or body, and the score is the number of
// tokens matched.

// Bounds of sk answers.
const (
	skSearchDefault = 10
	skSearchMax     = 25
	// skExcerptChars is the width of a search hit's excerpt.
	skExcerptChars = 160
)

// SkListInput is the input of skills.list.
type SkListInput struct {
	Query       string `json:"query,omitempty"`
	IncludeBody bool   `json:"includeBody,omitempty"`
}

// SkSearchInput is the input of skills.search.
type SkSearchInput struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

// SkShowInput is the input of skills_show.
type SkShowInput struct {
	Name string `json:"name"`
}

// SkMeta is a skill's frontmatter metadata.
type SkMeta struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// SkSkillSummary is one skill of a skills.list answer.
type SkSkillSummary struct {
	InstallName string  `json:"installName"`
	Meta        SkMeta  `json:"meta"`
	SkillPath   string  `json:"skillPath"`
	SkillFile   string  `json:"skillFile"`
	Body        *string `json:"body,omitempty"`
}

// SkListOutput is the answer of skills.list.
type SkListOutput struct {
	Skills []SkSkillSummary `json:"skills"`
}

// SkSearchHit is one hit of skills.search.
type SkSearchHit struct {
	SkSkillSummary
	Score   int    `json:"score"`
	Excerpt string `json:"excerpt"`
}

// SkSearchOutput is the answer of skills.search.
type SkSearchOutput struct {
	Query   string        `json:"query"`
	Limit   int           `json:"limit"`
	Total   int           `json:"total"`
	Results []SkSearchHit `json:"results"`
}

// SkShowOutput is the answer of skills_show.
type SkShowOutput struct {
	Skill SkSkillSummary `json:"skill"`
}

// skTools serves the sk profile.
type skTools struct {
	*core.Gateway
}

func addSkTools(server *mcp.Server, g *core.Gateway) error {
	t := &skTools{Gateway: g}
	str := func(desc string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: desc} }
	listIn := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"query":       str("Optional substring filter applied to install name, meta.name, or description"),
			"includeBody": {Type: "boolean", Description: "Include the SKILL.md body (minus YAML front-matter) in the structured payload"},
		},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
	searchIn := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"query": {Type: "string", Description: "Keywords to match (all whitespace-separated tokens must be present)", MinLength: jsonschema.Ptr(1)},
			"limit": {Type: "integer", Description: "Maximum number of hits", Minimum: jsonschema.Ptr(1.0), Maximum: jsonschema.Ptr(float64(skSearchMax)),
				Default: []byte(fmt.Sprint(skSearchDefault))},
		},
		Required:             []string{"query"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
	showIn := &jsonschema.Schema{
		Type:                 "object",
		Properties:           map[string]*jsonschema.Schema{"name": {Type: "string", Description: "The skill's install name (its folder), meta.name or path", MinLength: jsonschema.Ptr(1)}},
		Required:             []string{"name"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
	summary := func() *jsonschema.Schema {
		return &jsonschema.Schema{Type: "object", Description: "{installName, meta: {name, description}, skillPath, skillFile, body?}"}
	}
	listOut := &jsonschema.Schema{Type: "object", Required: []string{"skills"},
		Properties: map[string]*jsonschema.Schema{"skills": {Type: "array", Items: summary()}}}
	searchOut := &jsonschema.Schema{Type: "object", Required: []string{"query", "limit", "total", "results"},
		Properties: map[string]*jsonschema.Schema{
			"query": {Type: "string"}, "limit": {Type: "integer"}, "total": {Type: "integer"},
			"results": {Type: "array", Items: &jsonschema.Schema{Type: "object", Description: "a skill summary with score (tokens matched) and excerpt"}},
		}}
	showOut := &jsonschema.Schema{Type: "object", Required: []string{"skill"}, Properties: map[string]*jsonschema.Schema{"skill": summary()}}

	const (
		listDesc   = "List every skill (SKILL.md) with its install name, metadata and paths; query filters by substring, includeBody adds the SKILL.md bodies."
		searchDesc = "Search skills by keywords across install name, metadata and SKILL.md body: every token must be present. Hits carry score (tokens matched) and an excerpt."
	)
	for _, name := range []string{"skills.list", "skills_list"} {
		mcp.AddTool(server, &mcp.Tool{Name: name, Description: listDesc, InputSchema: listIn, OutputSchema: listOut, Annotations: core.ReadOnly()}, t.list)
	}
	for _, name := range []string{"skills.search", "skills_search"} {
		mcp.AddTool(server, &mcp.Tool{Name: name, Description: searchDesc, InputSchema: searchIn, OutputSchema: searchOut, Annotations: core.ReadOnly()}, t.search)
	}
	mcp.AddTool(server, &mcp.Tool{
		Name:        "skills_show",
		Description: "Show one skill: its metadata, paths and SKILL.md body.",
		InputSchema: showIn, OutputSchema: showOut, Annotations: core.ReadOnly(),
	}, t.show)
	return nil
}

// skSummary converts a listed skill.
func skSummary(s *skillsv1.Skill, withBody bool) SkSkillSummary {
	p := s.GetSkillPath()
	file := p + "/SKILL.md"
	if s.GetLayout() == skillsv1.Layout_LAYOUT_TREE {
		file = p + ".md"
	}
	out := SkSkillSummary{
		InstallName: path.Base(p),
		Meta:        SkMeta{Name: s.GetName(), Description: s.GetDescription()},
		SkillPath:   p,
		SkillFile:   file,
	}
	if withBody {
		b := s.GetBody()
		out.Body = &b
	}
	return out
}

// list serves skills.list.
func (t *skTools) list(ctx context.Context, _ *mcp.CallToolRequest, in SkListInput) (*mcp.CallToolResult, SkListOutput, error) {
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	skills, err := t.ListAllSkills(ctx, &skillsv1.ListSkillsRequest{IncludeBody: in.IncludeBody})
	if err != nil {
		return nil, SkListOutput{}, t.ToolError(err, "")
	}
	q := strings.ToLower(strings.TrimSpace(in.Query))
	out := SkListOutput{Skills: []SkSkillSummary{}}
	for _, s := range skills {
		sum := skSummary(s, in.IncludeBody)
		if q != "" && !strings.Contains(strings.ToLower(sum.InstallName), q) &&
			!strings.Contains(strings.ToLower(sum.Meta.Name), q) && !strings.Contains(strings.ToLower(sum.Meta.Description), q) {
			continue
		}
		out.Skills = append(out.Skills, sum)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d skill%s matched", len(out.Skills), plural(len(out.Skills)))
	if q != "" {
		fmt.Fprintf(&b, " %q", in.Query)
	}
	b.WriteString(".")
	for _, s := range out.Skills {
		fmt.Fprintf(&b, "\n- %s: %s", s.InstallName, shortDescription(s.Meta.Description, 120))
	}
	return core.TextResult(b.String()), out, nil
}

// search serves skills.search.
func (t *skTools) search(ctx context.Context, _ *mcp.CallToolRequest, in SkSearchInput) (*mcp.CallToolResult, SkSearchOutput, error) {
	tokens := strings.Fields(strings.ToLower(in.Query))
	if len(tokens) == 0 {
		return nil, SkSearchOutput{}, core.Refuse("query is required: give one or more keywords; every one must be present in a hit.")
	}
	limit := in.Limit
	if limit == 0 {
		limit = skSearchDefault
	}
	if limit < 1 || limit > skSearchMax {
		return nil, SkSearchOutput{}, core.Refuse(fmt.Sprintf("limit must be 1 to %d (got %d).", skSearchMax, in.Limit))
	}
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	skills, err := t.ListAllSkills(ctx, &skillsv1.ListSkillsRequest{IncludeBody: true})
	if err != nil {
		return nil, SkSearchOutput{}, t.ToolError(err, "")
	}
	var hits []SkSearchHit
	for _, s := range skills {
		if h, ok := skMatch(s, tokens); ok {
			hits = append(hits, h)
		}
	}
	slices.SortStableFunc(hits, func(a, b SkSearchHit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.InstallName, b.InstallName), cmp.Compare(a.SkillPath, b.SkillPath))
	})
	out := SkSearchOutput{Query: in.Query, Limit: limit, Total: len(hits), Results: []SkSearchHit{}}
	if len(hits) > limit {
		hits = hits[:limit]
	}
	out.Results = append(out.Results, hits...)
	var b strings.Builder
	fmt.Fprintf(&b, "%d hit%s for %q", out.Total, plural(out.Total), in.Query)
	if out.Total > len(out.Results) {
		fmt.Fprintf(&b, " (showing %d)", len(out.Results))
	}
	b.WriteString(".")
	for _, h := range out.Results {
		fmt.Fprintf(&b, "\n- %s (score %d): %s", h.InstallName, h.Score, h.Excerpt)
	}
	return core.TextResult(b.String()), out, nil
}

// skMatch applies seed 002's search to one skill: every token must occur in
// the install name, metadata or body (lower-cased); the score is the number
// of tokens matched.
func skMatch(s *skillsv1.Skill, tokens []string) (SkSearchHit, bool) {
	sum := skSummary(s, false)
	hay := strings.ToLower(strings.Join([]string{sum.InstallName, sum.Meta.Name, sum.Meta.Description, s.GetBody()}, "\n"))
	for _, t := range tokens {
		if !strings.Contains(hay, t) {
			return SkSearchHit{}, false
		}
	}
	return SkSearchHit{SkSkillSummary: sum, Score: len(tokens), Excerpt: skExcerpt(sum.Meta.Description+"\n"+s.GetBody(), tokens[0])}, true
}

// skExcerpt is a window of about skExcerptChars characters of text around the
// first occurrence of token (case-insensitive), on one line; the start of
// text when token does not occur in it.
func skExcerpt(text, token string) string {
	runes := []rune(strings.Join(strings.Fields(text), " "))
	lower := make([]rune, len(runes))
	for i, r := range runes {
		lower[i] = unicode.ToLower(r)
	}
	at := runeIndex(lower, []rune(token))
	start := max(0, min(at-skExcerptChars/3, len(runes)-skExcerptChars))
	end := min(len(runes), start+skExcerptChars)
	// Cut at word boundaries when one is near, never past the match.
	if start > 0 {
		for i := start; i < min(start+20, at); i++ {
			if runes[i-1] == ' ' {
				start = i
				break
			}
		}
	}
	if end < len(runes) {
		for i := end; i > max(end-20, at+1); i-- {
			if runes[i] == ' ' {
				end = i
				break
			}
		}
	}
	out := strings.TrimSpace(string(runes[start:end]))
	if start > 0 {
		out = "…" + out
	}
	if end < len(runes) {
		out += "…"
	}
	return out
}

// runeIndex is the index of the first occurrence of sub in s, or 0.
func runeIndex(s, sub []rune) int {
	if len(sub) == 0 {
		return 0
	}
	for i := 0; i+len(sub) <= len(s); i++ {
		if slices.Equal(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return 0
}

// show serves skills_show.
func (t *skTools) show(ctx context.Context, _ *mcp.CallToolRequest, in SkShowInput) (*mcp.CallToolResult, SkShowOutput, error) {
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return nil, SkShowOutput{}, core.Refuse("name is required: a skill's install name, meta.name or path (skills.list lists them).")
	}
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	skills, err := t.ListAllSkills(ctx, &skillsv1.ListSkillsRequest{IncludeBody: true})
	if err != nil {
		return nil, SkShowOutput{}, t.ToolError(err, name)
	}
	var found *skillsv1.Skill
	for _, pass := range []func(*skillsv1.Skill) bool{
		func(s *skillsv1.Skill) bool { return s.GetSkillPath() == name },
		func(s *skillsv1.Skill) bool { return strings.EqualFold(path.Base(s.GetSkillPath()), name) },
		func(s *skillsv1.Skill) bool { return strings.EqualFold(s.GetName(), name) },
	} {
		if i := slices.IndexFunc(skills, pass); i >= 0 {
			found = skills[i]
			break
		}
	}
	if found == nil {
		return nil, SkShowOutput{}, core.Refuse(fmt.Sprintf("No skill named %q: skills.list lists the install names, skills.search finds skills by keyword.", name))
	}
	out := SkShowOutput{Skill: skSummary(found, true)}
	return core.TextResult(fmt.Sprintf("%s (%s)\n%s\n\n%s", out.Skill.InstallName, out.Skill.SkillFile, out.Skill.Meta.Description, *out.Skill.Body)), out, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
