package core

import (
	"encoding/base64"
	"maps"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// FileContent is a file of a skill as read_skill_file and get_asset (in the
// skills-mcp profile) answer it: exactly one of Content and ContentBase64 is
// set; MimeType only for binary files; ResolvedFrom only for an inherited
// asset.
type FileContent struct {
	SkillPath     string  `json:"skill_path"`
	File          string  `json:"file"`
	Content       *string `json:"content,omitempty"`
	ContentBase64 *string `json:"content_base64,omitempty"`
	SizeBytes     int64   `json:"size_bytes"`
	Type          string  `json:"type"`
	MimeType      string  `json:"mime_type,omitempty"`
	ResolvedFrom  string  `json:"resolved_from,omitempty"`
}

// FileContentSchema is the output schema of an answer that is a
// FileContent with the extra properties (name to JSON type) of its own;
// required lists the properties every answer has. It is written by hand and
// terse: tools/list must stay under 8 KiB.
func FileContentSchema(required []string, extra map[string]string) *jsonschema.Schema {
	props := map[string]string{
		"skill_path": "string", "file": "string", "content": "string", "content_base64": "string", "size_bytes": "integer",
		"type": "string", "mime_type": "string", "resolved_from": "string",
	}
	maps.Copy(props, extra)
	return ObjectSchema(required, props)
}

// NewFileContent is the file of a ReadSkillFile answer (its first page),
// with data the part of its content to give.
func NewFileContent(resp *skillsv1.ReadSkillFileResponse, data []byte) FileContent {
	out := FileContent{
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

// SkillFileArgs checks the arguments of a call about one file of a skill
// (read_skill_file, get_asset, run_script): it returns the skill path
// trimmed, or the tool error msg when the skill path or the file is missing.
func SkillFileArgs(skillPath, file, msg string) (string, error) {
	skill := strings.TrimSpace(skillPath)
	if skill == "" || file == "" {
		return "", Refuse(msg)
	}
	return skill, nil
}
