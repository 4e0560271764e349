package mcpgw

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

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
	fileContent
	Truncated  bool  `json:"truncated"`
	NextOffset int64 `json:"next_offset,omitempty"`
}

// fileContent is a file of a skill as read_skill_file and get_asset (in the
// skills-mcp profile) answer it: exactly one of Content and ContentBase64 is
// set; MimeType only for binary files; ResolvedFrom only for an inherited
// asset.
type fileContent struct {
	SkillPath     string  `json:"skill_path"`
	File          string  `json:"file"`
	Content       *string `json:"content,omitempty"`
	ContentBase64 *string `json:"content_base64,omitempty"`
	SizeBytes     int64   `json:"size_bytes"`
	Type          string  `json:"type"`
	MimeType      string  `json:"mime_type,omitempty"`
	ResolvedFrom  string  `json:"resolved_from,omitempty"`
}

// newFileContent is the file of a ReadSkillFile answer (its first page),
// with data the part of its content to give.
func newFileContent(resp *skillsv1.ReadSkillFileResponse, data []byte) fileContent {
	out := fileContent{
		SkillPath:    resp.GetSkillPath(),
		File:         resp.GetFile(),
		SizeBytes:    resp.GetSizeBytes(),
		Type:         resp.GetType(),
		ResolvedFrom: resp.GetResolvedFrom(),
	}
	if resp.GetBinary() {
		b64 := base64.StdEncoding.EncodeToString(data)
		out.ContentBase64 = &b64
		out.MimeType = resp.GetMimeType() // seed 000 §8.3 gives it for binary files
	} else {
		text := string(data)
		out.Content = &text
	}
	return out
}

// readSkillFileTool describes read_skill_file. Its schemas are terse and the
// output's is written by hand: tools/list must stay under 8 KiB.
func readSkillFileTool() (*mcp.Tool, error) {
	in, err := jsonschema.For[ReadSkillFileInput](nil)
	if err != nil {
		return nil, fmt.Errorf("read_skill_file input schema: %w", err)
	}
	return &mcp.Tool{
		Name:  toolReadSkillFile,
		Title: "Read a skill file",
		Description: "Read a file of a skill: text as content, binary as content_base64. " +
			"If truncated, call again with offset = next_offset.",
		InputSchema: in,
		OutputSchema: objectSchema([]string{"skill_path", "file", "size_bytes", "type", "truncated"}, map[string]string{
			"skill_path": "string", "file": "string", "content": "string", "content_base64": "string", "size_bytes": "integer",
			"type": "string", "mime_type": "string", "resolved_from": "string", "truncated": "boolean", "next_offset": "integer",
		}),
		Annotations: readOnly(),
	}, nil
}

// objectSchema is the schema of an object whose properties have the given
// JSON types, the required ones listed.
func objectSchema(required []string, props map[string]string) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Required: required, Properties: map[string]*jsonschema.Schema{}}
	for name, typ := range props {
		s.Properties[name] = &jsonschema.Schema{Type: typ}
	}
	return s
}

// readSkillFile serves read_skill_file.
func (g *gateway) readSkillFile(ctx context.Context, _ *mcp.CallToolRequest, in ReadSkillFileInput) (*mcp.CallToolResult, ReadSkillFileOutput, error) {
	skill := strings.TrimSpace(in.SkillPath)
	if skill == "" || in.File == "" {
		return nil, ReadSkillFileOutput{}, &toolError{msg: "skill_path and file are required: the skill's path (as load_skill or list_skills give it) and a file path relative to its folder, such as \"assets/template.md\"."}
	}
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	resp, err := g.files.ReadSkillFile(ctx, &skillsv1.ReadSkillFileRequest{
		SkillPath: skill, File: in.File, Offset: in.Offset, MaxBytes: in.MaxBytes,
	})
	if err != nil {
		return nil, ReadSkillFileOutput{}, g.toolError(err, skill)
	}
	return nil, readOutput(resp), nil
}

// readOutput converts a ReadSkillFile answer to the read_skill_file answer.
func readOutput(resp *skillsv1.ReadSkillFileResponse) ReadSkillFileOutput {
	data := resp.GetData()
	if !resp.GetBinary() {
		data = []byte(resp.GetText())
	}
	out := ReadSkillFileOutput{fileContent: newFileContent(resp, data), Truncated: resp.GetTruncated()}
	if resp.GetTruncated() {
		out.NextOffset = resp.GetNextOffset()
	}
	return out
}
