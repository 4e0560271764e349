package mcpgw

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
)

// reportUsageTool describes the native report_usage (MCP_TOOLS.md, seed 000
// §8.5). Its input and output types, ReportUsageInput and ReportUsageOutput,
// and the call are package core's, shared with the skills-mcp profile.
func reportUsageTool() (*mcp.Tool, error) {
	t, err := core.WithInputOf[core.ReportUsageInput](&mcp.Tool{
		Name:         core.ToolReportUsage,
		Title:        "Report skill feedback",
		Description:  "After using a skill, say whether it helped; its maintainers read the comments.",
		OutputSchema: core.ReportUsageOutputSchema(),
		// Records something, so not read-only; never destroys anything.
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(false)},
	})
	if err != nil {
		return nil, err
	}
	core.Describe(t.InputSchema.(*jsonschema.Schema), map[string]string{
		"skill_path": "The skill's path (or name).",
		"useful":     "Did it help with the task?",
		"comment":    "What was missing, wrong or good.",
	})
	return t, nil
}

// addReportUsage adds the native report_usage, calling UsageService.ReportUsage.
func (g *gateway) addReportUsage(server *mcp.Server) error {
	tool, err := reportUsageTool()
	if err != nil {
		return err
	}
	mcp.AddTool(server, trimForBudget(tool), func(ctx context.Context, _ *mcp.CallToolRequest, in core.ReportUsageInput) (*mcp.CallToolResult, core.ReportUsageOutput, error) {
		out, err := g.ReportUsage(ctx, in, "skill_path is required: the path of the skill the feedback is about, as search_skills or load_skill gave it.")
		return nil, out, err
	})
	return nil
}
