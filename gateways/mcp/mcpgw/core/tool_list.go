package core

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// ListSkillsInput is the input of list_skills.
type ListSkillsInput struct {
	Path string `json:"path,omitempty" jsonschema:"One branch: a folder (like \"ui\") or a skill path (like \"ui/_index\"); leave out for the whole catalog."`
}

// ListSkillsOutput is the answer of list_skills (seed 000 §8.2). Truncated and
// Message are added only when the answer had to be bounded.
type ListSkillsOutput struct {
	Skills    []SkillNode `json:"skills" jsonschema:"The top-level skills of the tree, sorted by path."`
	Truncated bool        `json:"truncated,omitempty" jsonschema:"True when the tree was too large for one answer: descriptions were shortened or skills left out; message says how to see the rest."`
	Message   string      `json:"message,omitempty" jsonschema:"Present when truncated: what was left out and how to list one branch at a time."`
}

// maxListBytes bounds a list_skills answer, like load_skill's text (ARCHITECTURE
// §11). Hosts cap tool output (Claude Code at about 25k tokens), and a catalog
// of hundreds of skills is larger than that: past the bound, descriptions are
// shortened, then skills are left out.
const maxListBytes = 96 << 10

// descriptionCuts are the lengths descriptions are cut to, in turn, while the
// whole tree does not fit.
var descriptionCuts = []int{120, 60}

// SkillNode is one skill of the tree, with the skills that inherit from it.
// Its JSON names are seed 000's (camelCase).
type SkillNode struct {
	Name        string      `json:"name" jsonschema:"The skill's name."`
	Path        string      `json:"path" jsonschema:"The skill's path in the catalog; pass it to load_skill."`
	Description string      `json:"description" jsonschema:"What the skill does and when to use it."`
	Keywords    []string    `json:"keywords" jsonschema:"The skill's routing keywords; often empty."`
	AssetCount  int         `json:"assetCount" jsonschema:"How many asset files the skill declares."`
	ScriptCount int         `json:"scriptCount" jsonschema:"How many scripts the skill declares."`
	Children    []SkillNode `json:"children" jsonschema:"The skills that inherit from this one, sorted by path."`
}

// ListSkillsTool describes list_skills. Its output schema is built here
// rather than by mcp.AddTool because SkillNode is recursive (the inferrer
// refuses cycles).
func ListSkillsTool() (*mcp.Tool, error) {
	opts := &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[[]SkillNode](): {Type: "array", Items: &jsonschema.Schema{Ref: "#/$defs/SkillNode"}},
	}}
	node, err := OutputSchemaOf[SkillNode](opts)
	if err != nil {
		return nil, fmt.Errorf("SkillNode schema: %w", err)
	}
	out, err := OutputSchemaOf[ListSkillsOutput](opts)
	if err != nil {
		return nil, fmt.Errorf("list_skills output schema: %w", err)
	}
	out.Defs = map[string]*jsonschema.Schema{"SkillNode": node}
	return &mcp.Tool{
		Name:  ToolListSkills,
		Title: "List skills",
		Description: "Browse the skill catalog as a tree: each skill's name, path, description, keywords, " +
			"asset and script counts, and children (the skills that inherit from it). Give path for one branch.",
		OutputSchema: out,
		Annotations:  ReadOnly(),
	}, nil
}

// ListSkills serves list_skills.
func (g *Gateway) ListSkills(ctx context.Context, _ *mcp.CallToolRequest, in ListSkillsInput) (*mcp.CallToolResult, ListSkillsOutput, error) {
	path := strings.Trim(strings.TrimSpace(in.Path), "/")
	ctx, cancel := context.WithTimeout(ctx, g.Timeout)
	defer cancel()
	resp, err := g.Catalog.GetSkillTree(ctx, &skillsv1.GetSkillTreeRequest{Path: path})
	if err != nil {
		return nil, ListSkillsOutput{}, g.ToolError(err, path)
	}
	return nil, bound(nodes(resp.GetSkills()), maxListBytes, g.Has), nil
}

// bound returns the tree as the answer, shortened to fit in limit bytes of JSON:
// first descriptions are cut to descriptionCuts characters, then, walking the
// tree in order, skills past the limit are left out (a parent is kept whenever
// one of its children is). has says which tools its message may name.
func bound(tree []SkillNode, limit int, has func(string) bool) ListSkillsOutput {
	total := countNodes(tree)
	if size(tree) <= limit {
		return ListSkillsOutput{Skills: tree}
	}
	for _, n := range descriptionCuts {
		shorten(tree, n)
		if size(tree) <= limit {
			return ListSkillsOutput{Skills: tree, Truncated: true, Message: JoinSentences(fmt.Sprintf(
				"All %d skills are listed, with descriptions shortened to fit.", total), fullDescriptionHint(has))}
		}
	}
	budget := limit - 512 // room for the message and the envelope
	kept := keep(tree, &budget)
	return ListSkillsOutput{Skills: kept, Truncated: true, Message: fmt.Sprintf(
		"Showing %d of %d skills (descriptions shortened) to keep this answer small. "+
			"Call list_skills with path set to a folder or skill path to list one branch.", countNodes(kept), total)}
}

// fullDescriptionHint says which tool gives a skill's full description, in
// the server's own tool names.
func fullDescriptionHint(has func(string) bool) string {
	switch {
	case has(ToolLoadSkill):
		return "load_skill gives a skill's full description."
	case has(ToolGetSkill):
		return "get_skill with a skill's path as context gives its full content."
	}
	return ""
}

// keep returns the nodes of tree, in order, while their JSON fits in budget.
func keep(tree []SkillNode, budget *int) []SkillNode {
	out := make([]SkillNode, 0, len(tree))
	for _, n := range tree {
		self := n
		self.Children = []SkillNode{}
		cost := size(self) + 2
		if cost > *budget {
			break
		}
		*budget -= cost
		self.Children = keep(n.Children, budget)
		out = append(out, self)
	}
	return out
}

// shorten cuts every description of tree to at most n characters (CutWords).
func shorten(tree []SkillNode, n int) {
	for i := range tree {
		tree[i].Description = CutWords(tree[i].Description, n)
		shorten(tree[i].Children, n)
	}
}

func countNodes(tree []SkillNode) int {
	n := len(tree)
	for _, c := range tree {
		n += countNodes(c.Children)
	}
	return n
}

func size(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

// nodes converts tree nodes, giving empty lists rather than nil ones.
func nodes(in []*skillsv1.SkillNode) []SkillNode {
	out := make([]SkillNode, 0, len(in))
	for _, n := range in {
		out = append(out, SkillNode{
			Name:        n.GetName(),
			Path:        n.GetPath(),
			Description: n.GetDescription(),
			Keywords:    append(make([]string, 0, len(n.GetKeywords())), n.GetKeywords()...),
			AssetCount:  int(n.GetAssetCount()),
			ScriptCount: int(n.GetScriptCount()),
			Children:    nodes(n.GetChildren()),
		})
	}
	return out
}
