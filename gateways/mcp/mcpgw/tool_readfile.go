package mcpgw

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// ReadSkillFileInput is the input of read_skill_file.
type ReadSkillFileInput struct {
	SkillPath string `json:"skill_path"`
	File      string `json:"file" jsonschema:"Path in the skill's folder, or of an inherited asset."`
	Offset    int64  `json:"offset,omitempty" jsonschema:"The previous page's next_offset."`
	MaxBytes  int64  `json:"max_bytes,omitempty" jsonschema:"Page size; default 65536."`
}

// ReadSkillFileOutput is the answer of read_skill_file (seed 000 §8.3, with
// seed 004's paging): a page of the file.
type ReadSkillFileOutput struct {
	core.FileContent
	Truncated  bool  `json:"truncated"`
	NextOffset int64 `json:"next_offset,omitempty"`
}

// readSkillFileTool describes read_skill_file. Its schemas are terse and the
// output's is written by hand: tools/list must stay under 8 KiB.
func readSkillFileTool() (*mcp.Tool, error) {
	return core.WithInputOf[ReadSkillFileInput](&mcp.Tool{
		Name:  core.ToolReadSkillFile,
		Title: "Read a skill file",
		Description: "Read a file of a skill: text as content, binary as content_base64. " +
			"If truncated, call again with offset = next_offset.",
		OutputSchema: core.FileContentSchema([]string{"skill_path", "file", "size_bytes", "type", "truncated"},
			map[string]string{"truncated": "boolean", "next_offset": "integer"}),
		Annotations: core.ReadOnly(),
	})
}

// readSkillFile serves read_skill_file.
func (g *gateway) readSkillFile(ctx context.Context, _ *mcp.CallToolRequest, in ReadSkillFileInput) (*mcp.CallToolResult, ReadSkillFileOutput, error) {
	skill, err := core.SkillFileArgs(in.SkillPath, in.File, "skill_path and file are required: the skill's path (as load_skill or list_skills give it) and a file path relative to its folder, such as \"assets/template.md\".")
	if err != nil {
		return nil, ReadSkillFileOutput{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, g.Timeout)
	defer cancel()
	resp, err := g.Files.ReadSkillFile(ctx, &skillsv1.ReadSkillFileRequest{
		SkillPath: skill, File: in.File, Offset: in.Offset, MaxBytes: in.MaxBytes,
	})
	if err != nil {
		return nil, ReadSkillFileOutput{}, g.ToolError(err, skill)
	}
	return nil, readOutput(resp), nil
}

// readOutput converts a ReadSkillFile answer to the read_skill_file answer.
func readOutput(resp *skillsv1.ReadSkillFileResponse) ReadSkillFileOutput {
	data := resp.GetData()
	if !resp.GetBinary() {
		data = []byte(resp.GetText())
	}
	out := ReadSkillFileOutput{FileContent: core.NewFileContent(resp, data), Truncated: resp.GetTruncated()}
	if resp.GetTruncated() {
		out.NextOffset = resp.GetNextOffset()
	}
	return out
}
