package mcpgw

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// refreshTimeout bounds a refresh_skills call: a git fetch of a large
// repository may take longer than an ordinary call.
const refreshTimeout = 5 * time.Minute

// RefreshInput is the input of refresh_skills: none.
type RefreshInput struct{}

// RefreshOutput is the answer of the native refresh_skills, in seed 000 §8.6's
// git-mode shape (commit_hash, files_changed, skills_reindexed, last_sync) or
// local-mode shape (mode "local", skills_reindexed, message). Mode is always
// given ("git" or "local"); a refresh refused because another one runs is
// {"success": false, "mode", "message"}.
type RefreshOutput struct {
	Success         bool   `json:"success"`
	Mode            string `json:"mode"`
	CommitHash      string `json:"commit_hash,omitempty"`
	FilesChanged    *int32 `json:"files_changed,omitempty"`
	SkillsReindexed *int32 `json:"skills_reindexed,omitempty"`
	LastSync        string `json:"last_sync,omitempty"`
	Message         string `json:"message,omitempty"`
}

// refreshSkillsTool describes refresh_skills.
func refreshSkillsTool() *mcp.Tool {
	return &mcp.Tool{
		Name:        core.ToolRefreshSkills,
		Title:       "Refresh skills",
		Description: "Pull the skill repositories and reload the catalog now (it also refreshes by itself).",
		InputSchema: core.ObjectSchema(nil, nil),
		// Only the fields every answer has: tools/list must stay under 8 KiB.
		OutputSchema: core.ObjectSchema([]string{"success", "mode"}, map[string]string{"success": "boolean", "mode": "string"}),
		Annotations:  &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: new(false)},
	}
}

// refreshSkills serves refresh_skills.
func (g *gateway) refreshSkills(ctx context.Context, _ *mcp.CallToolRequest, _ RefreshInput) (*mcp.CallToolResult, RefreshOutput, error) {
	ctx, cancel := context.WithTimeout(ctx, refreshTimeout)
	defer cancel()
	resp, err := g.Catalog.RefreshSkills(ctx, &skillsv1.RefreshSkillsRequest{})
	if err != nil {
		return nil, RefreshOutput{}, g.ToolError(err, "")
	}
	return nil, refreshOutput(resp), nil
}

// refreshOutput converts the service's answer into the seed's shapes.
func refreshOutput(resp *skillsv1.RefreshSkillsResponse) RefreshOutput {
	out := RefreshOutput{Success: resp.GetSuccess(), Mode: resp.GetMode(), Message: resp.GetMessage()}
	if out.Mode == "" {
		out.Mode = "local"
	}
	if !resp.GetSuccess() && len(resp.GetSources()) == 0 {
		// Refused (another refresh was running): the service reports no
		// sources, and there is nothing else to say.
		return out
	}
	n := resp.GetSkillsReindexed()
	out.SkillsReindexed = &n
	if out.Mode == "git" {
		out.CommitHash = resp.GetCommitHash()
		fc := resp.GetFilesChanged()
		out.FilesChanged = &fc
		if ts := resp.GetLastSync(); ts != nil {
			out.LastSync = ts.AsTime().UTC().Format("2006-01-02T15:04:05.000Z")
		}
	}
	if out.Message == "" {
		out.Message = fmt.Sprintf("Reindexed %d skills.", n)
	}
	return out
}
