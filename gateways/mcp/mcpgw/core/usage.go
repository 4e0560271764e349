package core

import (
	"context"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// ReportUsageInput is the input of report_usage (seed 000 §8.5), in the
// native tool set and in the skills-mcp profile.
type ReportUsageInput struct {
	SkillPath string `json:"skill_path"`
	Useful    bool   `json:"useful"`
	Comment   string `json:"comment,omitempty"`
}

// ReportUsageOutput is the answer of report_usage.
type ReportUsageOutput struct {
	Recorded bool   `json:"recorded"`
	Message  string `json:"message"`
}

// ReportUsageOutputSchema is the output schema of report_usage.
func ReportUsageOutputSchema() *jsonschema.Schema {
	return ObjectSchema([]string{"recorded", "message"}, map[string]string{"recorded": "boolean", "message": "string"})
}

// ReportUsage records feedback on a skill (report_usage); required is the
// tool error for a blank skill path. Analytics being off on the server is an
// answer (recorded false, with why), not a tool error.
func (g *Gateway) ReportUsage(ctx context.Context, in ReportUsageInput, required string) (ReportUsageOutput, error) {
	skill := strings.TrimSpace(in.SkillPath)
	if skill == "" {
		return ReportUsageOutput{}, Refuse(required)
	}
	ctx, cancel := context.WithTimeout(ctx, g.Timeout)
	defer cancel()
	resp, err := g.Usage.ReportUsage(ctx, &skillsv1.ReportUsageRequest{SkillPath: skill, Useful: in.Useful, Comment: in.Comment})
	if err != nil {
		return ReportUsageOutput{}, g.ToolError(err, skill)
	}
	return ReportUsageOutput{Recorded: resp.GetRecorded(), Message: resp.GetMessage()}, nil
}
