package profiles

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// The skills-mcp profile (seed 000 §8): get_skill, list_skills and run_script
// are the native tools (their shapes are seed 000's already) with seed 000's
// input schemas; get_asset is read_skill_file answering a whole file in seed
// 000's shape; report_usage and refresh_skills call the usage and catalog
// services.

// maxAssetBytes is seed 000's assets.max_size_bytes default: get_asset
// answers whole files, and refuses larger ones with their size (§12.3).
const maxAssetBytes = 1 << 20

// GetAssetInput is the input of get_asset (seed 000 §8.3).
type GetAssetInput struct {
	SkillPath string `json:"skill_path" jsonschema:"Skill path"`
	File      string `json:"file" jsonschema:"Relative file path within the resource directory"`
}

// GetAssetOutput is the answer of get_asset: the whole file.
type GetAssetOutput struct {
	core.FileContent
}

// RefreshSkillsOutput is the answer of refresh_skills: seed 000 §8.6's git
// mode or local mode shape, chosen by MarshalJSON.
type RefreshSkillsOutput struct {
	Success         bool
	Local           bool
	CommitHash      string
	FilesChanged    int32
	SkillsReindexed int32
	LastSync        string
	Message         string
}

// MarshalJSON writes the shape of the refresh's mode.
func (o RefreshSkillsOutput) MarshalJSON() ([]byte, error) {
	if o.Local {
		return json.Marshal(struct {
			Success         bool   `json:"success"`
			Mode            string `json:"mode"`
			SkillsReindexed int32  `json:"skills_reindexed"`
			Message         string `json:"message"`
		}{o.Success, "local", o.SkillsReindexed, o.Message})
	}
	return json.Marshal(struct {
		Success         bool   `json:"success"`
		CommitHash      string `json:"commit_hash"`
		FilesChanged    int32  `json:"files_changed"`
		SkillsReindexed int32  `json:"skills_reindexed"`
		LastSync        string `json:"last_sync"`
	}{o.Success, o.CommitHash, o.FilesChanged, o.SkillsReindexed, o.LastSync})
}

// skillsMCPTools serves the tools of the skills-mcp profile that the native
// set lacks.
type skillsMCPTools struct {
	*core.Gateway
}

func addSkillsMCPTools(server *mcp.Server, g *core.Gateway) error {
	t := &skillsMCPTools{Gateway: g}
	getTool, err := core.GetSkillTool()
	if err != nil {
		return err
	}
	getTool.Description = "Search skills by context string and return the best match: its content with inherited rules, assets and scripts; " +
		"or ambiguous: true with candidates (call again with a more precise context or a candidate's skill_path); or no_match: true."
	getTool.OutputSchema.(*jsonschema.Schema).Properties["ambiguous"].Description = "Call get_skill again with a candidate's skill_path."
	getTool.InputSchema.(*jsonschema.Schema).Properties["context"].Description = "Free-text task description"
	// Seed 000's get_skill takes the context only (restated is the native
	// profile's addition).
	delete(getTool.InputSchema.(*jsonschema.Schema).Properties, "restated")
	listTool, err := core.ListSkillsTool()
	if err == nil {
		listTool, err = core.WithInputOf[core.ListSkillsInput](listTool)
	}
	if err != nil {
		return err
	}
	listTool.Description = "Browse the skill tree: each skill with its name, path, description, keywords, assetCount, scriptCount and children. Give path for a sub-tree."
	listTool.InputSchema.(*jsonschema.Schema).Properties["path"].Description = `Sub-tree filter (e.g., "ui" or "api/_index")`

	runTool, err := core.RunScriptTool()
	if err != nil {
		return err
	}
	// Seed 000 §8.4's input schema: its descriptions, and args required.
	runIn := runTool.InputSchema.(*jsonschema.Schema)
	core.Describe(runIn, map[string]string{"skill_path": "Skill path", "file": "Script file path", "args": "Named arguments", "cwd": "Working directory"})
	runIn.Required = append(runIn.Required, "args")
	runTool.Description = "Execute a server-side script a skill declares with execution server. Scripts with execution claude: read them with get_asset and run them yourself."

	mcp.AddTool(server, getTool, g.GetSkill)
	mcp.AddTool(server, listTool, func(ctx context.Context, req *mcp.CallToolRequest, in core.ListSkillsInput) (*mcp.CallToolResult, core.ListSkillsOutput, error) {
		res, out, err := g.ListSkills(ctx, req, in)
		seedNodeNames(out.Skills)
		return res, out, err
	})
	mcp.AddTool(server, &mcp.Tool{
		Name:         core.ToolGetAsset,
		Title:        "Get a skill asset",
		Description:  "Retrieve an asset or script file of a skill (or one it inherits): text as content, binary as content_base64 with mime_type.",
		OutputSchema: core.FileContentSchema([]string{"skill_path", "file", "size_bytes", "type"}, nil),
		Annotations:  core.ReadOnly(),
	}, t.getAsset)
	mcp.AddTool(server, runTool, g.RunScript)
	mcp.AddTool(server, &mcp.Tool{
		Name:         core.ToolReportUsage,
		Title:        "Report whether a skill helped",
		Description:  "Collect feedback on skill quality: whether the skill at skill_path was useful, with an optional comment.",
		OutputSchema: core.ReportUsageOutputSchema(),
		Annotations:  &mcp.ToolAnnotations{IdempotentHint: false},
	}, t.reportUsage)
	mcp.AddTool(server, &mcp.Tool{
		Name:        core.ToolRefreshSkills,
		Title:       "Refresh skills",
		Description: "Force a git pull of the skills and reindex them; answers the sync's stats.",
		InputSchema: &jsonschema.Schema{Type: "object"},
		OutputSchema: core.ObjectSchema([]string{"success", "skills_reindexed"}, map[string]string{
			"success": "boolean", "mode": "string", "commit_hash": "string", "files_changed": "integer",
			"skills_reindexed": "integer", "last_sync": "string", "message": "string",
		}),
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true},
	}, t.refreshSkills)
	return nil
}

// seedNodeNames gives each node of a list_skills tree the name seed 000's
// server shows: a seed-000 skill's own file name ("auth" for ui/react/auth),
// where the native tool shows its name for lookups, which is its path
// (ARCHITECTURE §11: a seed-000 skill has no frontmatter name, so its name is
// its path, and only a path is unique; both ui/react/auth and api/auth are
// "auth" here). SKILL.md skills keep their names. path is unchanged.
func seedNodeNames(nodes []core.SkillNode) {
	for i := range nodes {
		n := &nodes[i]
		if n.Name == n.Path {
			n.Name = path.Base(n.Path)
		}
		seedNodeNames(n.Children)
	}
}

// getAsset serves get_asset: the whole file, in seed 000 §8.3's shape.
func (t *skillsMCPTools) getAsset(ctx context.Context, _ *mcp.CallToolRequest, in GetAssetInput) (*mcp.CallToolResult, GetAssetOutput, error) {
	skill, err := core.SkillFileArgs(in.SkillPath, in.File, "skill_path and file are required: the skill's path (as get_skill or list_skills give it) and the asset's file, such as \"assets/template.md\".")
	if err != nil {
		return nil, GetAssetOutput{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	first, data, cut, err := t.ReadWhole(ctx, skill, in.File, maxAssetBytes, false)
	if err != nil {
		return nil, GetAssetOutput{}, t.ToolError(err, skill)
	}
	if cut || first.GetSizeBytes() > maxAssetBytes {
		return nil, GetAssetOutput{}, core.Refuse(fmt.Sprintf("Asset %s of skill %s is %d bytes, larger than the limit of %d bytes (assets.max_size_bytes).",
			first.GetFile(), first.GetSkillPath(), first.GetSizeBytes(), maxAssetBytes))
	}
	return nil, GetAssetOutput{core.NewFileContent(first, data)}, nil
}

// reportUsage serves report_usage, saying what it recorded when the service
// does not.
func (t *skillsMCPTools) reportUsage(ctx context.Context, _ *mcp.CallToolRequest, in core.ReportUsageInput) (*mcp.CallToolResult, core.ReportUsageOutput, error) {
	out, err := t.ReportUsage(ctx, in, "skill_path is required: the path of the skill the feedback is about.")
	if err == nil && out.Message == "" {
		out.Message = "Feedback recorded for " + strings.TrimSpace(in.SkillPath)
	}
	return nil, out, err
}

// refreshSkills serves refresh_skills.
func (t *skillsMCPTools) refreshSkills(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, RefreshSkillsOutput, error) {
	ctx, cancel := context.WithTimeout(ctx, max(t.Timeout, 5*time.Minute))
	defer cancel()
	resp, err := t.Catalog.RefreshSkills(ctx, &skillsv1.RefreshSkillsRequest{})
	if err != nil {
		return nil, RefreshSkillsOutput{}, t.ToolError(err, "")
	}
	out := RefreshSkillsOutput{
		Success:         resp.GetSuccess(),
		Local:           resp.GetMode() == "local" || (resp.GetMode() == "" && resp.GetCommitHash() == ""),
		CommitHash:      resp.GetCommitHash(),
		FilesChanged:    resp.GetFilesChanged(),
		SkillsReindexed: resp.GetSkillsReindexed(),
		Message:         resp.GetMessage(),
	}
	if ts := resp.GetLastSync(); ts != nil && ts.IsValid() {
		out.LastSync = ts.AsTime().UTC().Format("2006-01-02T15:04:05.000Z")
	}
	if out.Local && out.Message == "" {
		out.Message = "Reindexed from local directory (no git sync configured)."
	}
	return nil, out, nil
}
