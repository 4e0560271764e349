package mcpgw

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// toolReportUsage is the name of report_usage (MCP_TOOLS.md, seed 000 §8.5).
// Its input and output types, ReportUsageInput and ReportUsageOutput, are
// shared with the skills-mcp profile.
const toolReportUsage = "report_usage"

// reportUsageTool describes the native report_usage.
func reportUsageTool() (*mcp.Tool, error) {
	in, err := jsonschema.For[ReportUsageInput](nil)
	if err != nil {
		return nil, fmt.Errorf("report_usage input schema: %w", err)
	}
	for name, desc := range map[string]string{
		"skill_path": "The skill's path (or name).",
		"useful":     "Did it help with the task?",
		"comment":    "What was missing, wrong or good.",
	} {
		if p := in.Properties[name]; p != nil {
			p.Description = desc
		}
	}
	return &mcp.Tool{
		Name:        toolReportUsage,
		Title:       "Report skill feedback",
		Description: "After using a skill, say whether it helped; its maintainers read the comments.",
		InputSchema: in,
		OutputSchema: objectSchema([]string{"recorded", "message"}, map[string]string{
			"recorded": "boolean", "message": "string",
		}),
		// Records something, so not read-only; never destroys anything.
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(false)},
	}, nil
}

// addReportUsage adds the native report_usage, calling UsageService.ReportUsage
// over conn.
func (g *gateway) addReportUsage(server *mcp.Server, conn grpc.ClientConnInterface) error {
	tool, err := reportUsageTool()
	if err != nil {
		return err
	}
	client := skillsv1.NewUsageServiceClient(conn)
	mcp.AddTool(server, trimForBudget(tool), func(ctx context.Context, _ *mcp.CallToolRequest, in ReportUsageInput) (*mcp.CallToolResult, ReportUsageOutput, error) {
		return g.reportFeedback(ctx, client, in)
	})
	return nil
}

// reportFeedback serves report_usage. Analytics being off on the server is an
// answer (recorded false, with why), not a tool error.
func (g *gateway) reportFeedback(ctx context.Context, client skillsv1.UsageServiceClient, in ReportUsageInput) (*mcp.CallToolResult, ReportUsageOutput, error) {
	skill := strings.TrimSpace(in.SkillPath)
	if skill == "" {
		return nil, ReportUsageOutput{}, &toolError{msg: "skill_path is required: the path of the skill the feedback is about, as search_skills or load_skill gave it."}
	}
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	resp, err := client.ReportUsage(ctx, &skillsv1.ReportUsageRequest{SkillPath: skill, Useful: in.Useful, Comment: in.Comment})
	if err != nil {
		return nil, ReportUsageOutput{}, g.toolError(err, skill)
	}
	return nil, ReportUsageOutput{Recorded: resp.GetRecorded(), Message: resp.GetMessage()}, nil
}
