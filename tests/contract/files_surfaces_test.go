package contract

import (
	"encoding/base64"
	"net/url"
	"strconv"
	"testing"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// The read and runScript operations of each surface.

func (g *grpcSurface) read(t *testing.T, q ReadQuery) Outcome {
	resp, err := g.files.ReadSkillFile(t.Context(), &skillsv1.ReadSkillFileRequest{
		SkillPath: q.Skill, File: q.File, Offset: q.Offset, MaxBytes: q.MaxBytes,
	})
	if err != nil {
		return Outcome{Error: grpcFailure(t, err)}
	}
	f := &FileRead{
		SkillPath: resp.GetSkillPath(), File: resp.GetFile(), SizeBytes: resp.GetSizeBytes(), Type: resp.GetType(),
		MimeType: resp.GetMimeType(), ResolvedFrom: resp.GetResolvedFrom(), Truncated: resp.GetTruncated(),
		NextOffset: resp.GetNextOffset(), Digest: resp.GetDigest(),
	}
	if resp.GetBinary() {
		b := base64.StdEncoding.EncodeToString(resp.GetData())
		f.DataBase64 = &b
	} else {
		text := resp.GetText()
		f.Text = &text
	}
	return Outcome{File: f}
}

func (g *grpcSurface) runScript(t *testing.T, q RunQuery) Outcome {
	resp, err := g.scripts.RunScript(t.Context(), &skillsv1.RunScriptRequest{
		SkillPath: q.Skill, File: q.File, Args: q.Args, Cwd: q.Cwd,
	})
	if err != nil {
		return Outcome{Error: grpcFailure(t, err)}
	}
	if resp.GetDurationMs() < 0 {
		t.Errorf("gRPC: duration_ms: got %d", resp.GetDurationMs())
	}
	return Outcome{Run: &ScriptRun{
		Success: resp.GetSuccess(), ExitCode: int(resp.GetExitCode()), Stdout: resp.GetStdout(), Stderr: resp.GetStderr(),
		Script: resp.GetScript(), TimedOut: resp.GetTimedOut(),
		StdoutTruncated: resp.GetStdoutTruncated(), StderrTruncated: resp.GetStderrTruncated(),
	}}
}

// restFileRead is the JSON of GET /v1/files/{skill_path=**}.
type restFileRead struct {
	SkillPath    string    `json:"skill_path"`
	File         string    `json:"file"`
	Text         string    `json:"text"`
	Data         string    `json:"data"`
	Binary       bool      `json:"binary"`
	SizeBytes    jsonInt64 `json:"size_bytes"`
	Type         string    `json:"type"`
	MimeType     string    `json:"mime_type"`
	ResolvedFrom string    `json:"resolved_from"`
	Truncated    bool      `json:"truncated"`
	NextOffset   jsonInt64 `json:"next_offset"`
	Digest       string    `json:"digest"`
}

func (r *restSurface) read(t *testing.T, q ReadQuery) Outcome {
	v := url.Values{"file": {q.File}}
	if q.Offset != 0 {
		v.Set("offset", strconv.FormatInt(q.Offset, 10))
	}
	if q.MaxBytes != 0 {
		v.Set("max_bytes", strconv.FormatInt(q.MaxBytes, 10))
	}
	target := "/v1/files/" + escapeSegments(q.Skill) + "?" + v.Encode()
	var resp restFileRead
	if f := r.get(t, target, &resp); f != nil {
		return Outcome{Error: f}
	}
	f := &FileRead{
		SkillPath: resp.SkillPath, File: resp.File, SizeBytes: int64(resp.SizeBytes), Type: resp.Type,
		MimeType: resp.MimeType, ResolvedFrom: resp.ResolvedFrom, Truncated: resp.Truncated,
		NextOffset: int64(resp.NextOffset), Digest: resp.Digest,
	}
	if resp.Binary {
		if _, err := base64.StdEncoding.DecodeString(resp.Data); err != nil {
			t.Errorf("REST: data is not base64: %v", err)
		}
		f.DataBase64 = &resp.Data
	} else {
		f.Text = &resp.Text
	}
	return Outcome{File: f}
}

// escapeSegments escapes each segment of a skill path, keeping the slashes.
func escapeSegments(p string) string {
	u := skillURLPath(p)
	return u[len("/v1/skills/"):]
}

func (r *restSurface) runScript(t *testing.T, q RunQuery) Outcome {
	body := map[string]any{"skill_path": q.Skill, "file": q.File, "args": q.Args, "cwd": q.Cwd}
	var resp struct {
		Success         bool      `json:"success"`
		ExitCode        int       `json:"exit_code"`
		Stdout          string    `json:"stdout"`
		Stderr          string    `json:"stderr"`
		DurationMs      jsonInt64 `json:"duration_ms"`
		Script          string    `json:"script"`
		TimedOut        bool      `json:"timed_out"`
		StdoutTruncated bool      `json:"stdout_truncated"`
		StderrTruncated bool      `json:"stderr_truncated"`
	}
	if f := r.post(t, "/v1/scripts:run", body, &resp); f != nil {
		return Outcome{Error: f}
	}
	if resp.DurationMs < 0 {
		t.Errorf("REST: duration_ms: got %d", resp.DurationMs)
	}
	return Outcome{Run: &ScriptRun{
		Success: resp.Success, ExitCode: resp.ExitCode, Stdout: resp.Stdout, Stderr: resp.Stderr, Script: resp.Script,
		TimedOut: resp.TimedOut, StdoutTruncated: resp.StdoutTruncated, StderrTruncated: resp.StderrTruncated,
	}}
}

// mcpFileRead is read_skill_file's structuredContent (MCP_TOOLS.md).
type mcpFileRead struct {
	SkillPath     string  `json:"skill_path"`
	File          string  `json:"file"`
	Content       *string `json:"content"`
	ContentBase64 *string `json:"content_base64"`
	SizeBytes     int64   `json:"size_bytes"`
	Type          string  `json:"type"`
	MimeType      string  `json:"mime_type"`
	ResolvedFrom  string  `json:"resolved_from"`
	Truncated     *bool   `json:"truncated"`
	NextOffset    *int64  `json:"next_offset"`
}

func (m *mcpSurface) read(t *testing.T, q ReadQuery) Outcome {
	args := map[string]any{"skill_path": q.Skill, "file": q.File}
	if q.Offset != 0 {
		args["offset"] = q.Offset
	}
	if q.MaxBytes != 0 {
		args["max_bytes"] = q.MaxBytes
	}
	var out mcpFileRead
	if f := m.call(t, "read_skill_file", args, &out); f != nil {
		return Outcome{Error: f}
	}
	if (out.Content == nil) == (out.ContentBase64 == nil) {
		t.Errorf("MCP: read_skill_file: want exactly one of content and content_base64")
	}
	if out.Truncated == nil {
		t.Errorf("MCP: read_skill_file: truncated is missing")
	}
	f := &FileRead{
		SkillPath: out.SkillPath, File: out.File, Text: out.Content, DataBase64: out.ContentBase64,
		SizeBytes: out.SizeBytes, Type: out.Type, MimeType: out.MimeType, ResolvedFrom: out.ResolvedFrom,
		Truncated: out.Truncated != nil && *out.Truncated,
	}
	if out.NextOffset != nil {
		if !f.Truncated {
			t.Errorf("MCP: read_skill_file: next_offset without truncated")
		}
		f.NextOffset = *out.NextOffset
	}
	return Outcome{File: f}
}

func (m *mcpSurface) runScript(t *testing.T, q RunQuery) Outcome {
	args := map[string]any{"skill_path": q.Skill, "file": q.File}
	if q.Args != nil {
		args["args"] = q.Args
	}
	if q.Cwd != "" {
		args["cwd"] = q.Cwd
	}
	var out struct {
		Success    *bool   `json:"success"`
		ExitCode   *int    `json:"exit_code"`
		Stdout     *string `json:"stdout"`
		Stderr     *string `json:"stderr"`
		DurationMs *int64  `json:"duration_ms"`
		Script     *string `json:"script"`
	}
	if f := m.call(t, "run_script", args, &out); f != nil {
		return Outcome{Error: f}
	}
	if out.Success == nil || out.ExitCode == nil || out.Stdout == nil || out.Stderr == nil || out.DurationMs == nil || out.Script == nil {
		t.Fatalf("MCP: run_script: a field of seed 000's shape is missing: %+v", out)
	}
	if *out.DurationMs < 0 {
		t.Errorf("MCP: duration_ms: got %d", *out.DurationMs)
	}
	return Outcome{Run: &ScriptRun{Success: *out.Success, ExitCode: *out.ExitCode, Stdout: *out.Stdout, Stderr: *out.Stderr, Script: *out.Script}}
}
