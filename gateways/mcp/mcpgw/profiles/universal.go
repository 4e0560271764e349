package profiles

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// The universal-skills profile (seed 001): one tool, skill, taking a name and
// answering the skill's SKILL.md under a "Loading:" header. Its description
// lists the available skills, as that system's does, but bounded: a catalog
// of thousands of skills would make every tools/list (and every prompt the
// host builds from it) huge.

// universalToolName is seed 001's only tool.
const universalToolName = "skill"

// Bounds of the skill tool's texts, in bytes.
const (
	// universalListBudget bounds the skills listed in the tool's description,
	// so that tools/list stays under 8 KiB (ARCHITECTURE §9).
	universalListBudget = 6 << 10
	// universalDescriptionCut is the longest description shown in that list.
	universalDescriptionCut = 160
	// universalNotFoundBudget bounds the list in the not-found answer.
	universalNotFoundBudget = 16 << 10
)

// UniversalSkillInput is the input of skill (seed 001's SkillToolInput).
type UniversalSkillInput struct {
	Name string `json:"name"`
}

// universalTools serves the universal-skills profile.
type universalTools struct {
	*core.Gateway
	server *mcp.Server

	mu sync.Mutex
	// generation is the catalog generation the description was built for;
	// -1 before the first build.
	generation int64
	// description is the tool's description now.
	description string
}

func addUniversalTools(server *mcp.Server, g *core.Gateway) error {
	t := &universalTools{Gateway: g, server: server, generation: -1, description: universalDescription(nil, 0)}
	mcp.AddTool(server, t.tool(t.description), t.skill)
	// When the catalog changes, rebuild the description now (in the
	// background: listeners return at once): re-adding the tool, when its
	// description changed, tells clients that the tool list changed.
	g.OnCatalogChange(func(ctx context.Context, _ core.CatalogChange) { go t.refresh(ctx) })
	// The description follows the catalog: each tools/list first checks the
	// catalog's generation and rebuilds the description when it changed.
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				t.refresh(ctx)
			}
			return next(ctx, method, req)
		}
	})
	return nil
}

// tool describes skill with the given description.
func (t *universalTools) tool(description string) *mcp.Tool {
	return &mcp.Tool{
		Name:        universalToolName,
		Description: description,
		InputSchema: &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"name": {Type: "string", MinLength: jsonschema.Ptr(1), Description: "Name of the skill to load (case-insensitive)"},
			},
			Required:             []string{"name"},
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		},
		Annotations: core.ReadOnly(),
	}
}

// refresh rebuilds the tool's description when the catalog changed since the
// last build, and adds the tool again when the description changed.
// Failures keep the description as it is (logged).
func (t *universalTools) refresh(ctx context.Context) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, min(t.Timeout, 10*time.Second))
	defer cancel()
	st, err := t.Catalog.GetCatalogStatus(ctx, &skillsv1.GetCatalogStatusRequest{})
	if err != nil {
		t.Log.Warn("universal-skills profile: catalog status", "error", err)
		return
	}
	if st.GetGeneration() == t.generation {
		return
	}
	skills, err := t.ListAllSkills(ctx, &skillsv1.ListSkillsRequest{RoutableOnly: true})
	if err != nil {
		t.Log.Warn("universal-skills profile: listing skills", "error", err)
		return
	}
	t.generation = st.GetGeneration()
	if d := universalDescription(t.bestKnown(ctx, skills), len(skills)); d != t.description {
		t.description = d
		mcp.AddTool(t.server, t.tool(d), t.skill) // the SDK tells the sessions the tool list changed
	}
}

// bestKnown orders the skills to list: core skills (alwaysApply) first, then
// the most served (when the service keeps usage statistics), then catalog order.
func (t *universalTools) bestKnown(ctx context.Context, skills []*skillsv1.Skill) []*skillsv1.Skill {
	served := map[string]int64{}
	if t.Usage != nil {
		if st, err := t.Usage.GetUsageStats(ctx, &skillsv1.GetUsageStatsRequest{TopN: 1000}); err == nil {
			for _, u := range st.GetSkills() {
				served[u.GetSkillPath()] = u.GetServed()
			}
		}
	}
	out := slices.Clone(skills)
	slices.SortStableFunc(out, func(a, b *skillsv1.Skill) int {
		if a.GetAlwaysApply() != b.GetAlwaysApply() {
			if a.GetAlwaysApply() {
				return -1
			}
			return 1
		}
		return cmp.Compare(served[b.GetSkillPath()], served[a.GetSkillPath()])
	})
	return out
}

// universalDescription is the skill tool's description: how to use it, then
// the skills, as many as fit in universalListBudget; total is the number of
// skills in the catalog.
func universalDescription(skills []*skillsv1.Skill, total int) string {
	var b strings.Builder
	b.WriteString("Load a skill into the conversation: expert instructions for a kind of task.\n\n")
	b.WriteString("<skills_instructions>\n")
	b.WriteString("Before a task, look for a skill below whose description fits it. If one does, call this tool with its name ")
	b.WriteString("(only the name; case does not matter) and follow the instructions it answers, using its base directory for the files they mention. ")
	b.WriteString("Only load skills that exist; do not load the same skill twice in a row.\n")
	b.WriteString("</skills_instructions>\n\n<available_skills>\n")
	listed := 0
	used := 0
	for _, s := range skills {
		entry := fmt.Sprintf("<skill>\n<name>%s</name>\n<description>%s</description>\n</skill>\n",
			s.GetName(), shortDescription(s.GetDescription(), universalDescriptionCut))
		if used+len(entry) > universalListBudget {
			break
		}
		b.WriteString(entry)
		used += len(entry)
		listed++
	}
	b.WriteString("</available_skills>")
	if total > listed {
		fmt.Fprintf(&b, "\n\n%d more skills are not listed here, to keep this description short. "+
			"To find one, call this tool with your best guess of its name: when there is no such skill, the answer lists the closest names.", total-listed)
	}
	return b.String()
}

// skill serves the skill tool: seed 001's two answers, both plain text.
func (t *universalTools) skill(ctx context.Context, _ *mcp.CallToolRequest, in UniversalSkillInput) (*mcp.CallToolResult, any, error) {
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return nil, nil, core.Refuse("Skill name cannot be empty")
	}
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	resp, err := t.Catalog.GetSkill(ctx, &skillsv1.GetSkillRequest{SkillPath: name})
	if core.IsNotFound(err) {
		return t.notFound(ctx, name, err)
	}
	if err != nil {
		return nil, nil, t.ToolError(err, name)
	}
	content := t.rawSkillFile(ctx, resp)
	text := fmt.Sprintf("Loading: %s\nBase directory: %s\n\n%s", resp.GetSkill().GetName(), resp.GetDirectory(), content)
	return core.TextResult(core.CapContent(text, resp.GetSkill().GetSkillPath(), t.Has)), nil, nil
}

// rawSkillFile is the skill's file as it is on disk, frontmatter included
// (seed 001's content), or its body when the file cannot be read whole.
func (t *universalTools) rawSkillFile(ctx context.Context, resp *skillsv1.GetSkillResponse) string {
	file := strings.ReplaceAll(resp.GetFile(), `\`, "/")
	dir := strings.ReplaceAll(resp.GetDirectory(), `\`, "/")
	if file != "" && dir != "" && strings.HasPrefix(file, dir+"/") {
		rel := strings.TrimPrefix(file, dir+"/")
		if _, data, cut, err := t.ReadWhole(ctx, resp.GetSkill().GetSkillPath(), rel, core.MaxTextBytes, false); err == nil && !cut {
			return string(data)
		}
	} else if path.Base(file) == "SKILL.md" {
		if _, data, cut, err := t.ReadWhole(ctx, resp.GetSkill().GetSkillPath(), "SKILL.md", core.MaxTextBytes, false); err == nil && !cut {
			return string(data)
		}
	}
	return resp.GetInstructions()
}

// notFound is seed 001's not-found answer: the skills, with their
// descriptions, closest names first, bounded.
func (t *universalTools) notFound(ctx context.Context, name string, cause error) (*mcp.CallToolResult, any, error) {
	skills, err := t.ListAllSkills(ctx, &skillsv1.ListSkillsRequest{})
	if err != nil {
		return nil, nil, t.ToolError(err, name)
	}
	meta := core.Classify(cause).Meta
	first := map[string]int{}
	for i, s := range core.SplitList(meta["suggestions"]) {
		first[strings.ToLower(s)] = i + 1
	}
	rank := func(s *skillsv1.Skill) int {
		for _, k := range []string{s.GetName(), s.GetSkillPath()} {
			if r, ok := first[strings.ToLower(k)]; ok {
				return r
			}
		}
		return len(first) + 1
	}
	slices.SortStableFunc(skills, func(a, b *skillsv1.Skill) int { return cmp.Compare(rank(a), rank(b)) })
	var b strings.Builder
	fmt.Fprintf(&b, "Skill '%s' not found.\n\nAvailable skills:", name)
	listed := 0
	for _, s := range skills {
		line := fmt.Sprintf("\n- %s (%s)", s.GetName(), strings.Join(strings.Fields(s.GetDescription()), " "))
		if b.Len()+len(line) > universalNotFoundBudget {
			break
		}
		b.WriteString(line)
		listed++
	}
	if rest := len(skills) - listed; rest > 0 {
		fmt.Fprintf(&b, "\n... and %d more (closest names first).", rest)
	}
	return core.TextResult(b.String()), nil, nil
}
