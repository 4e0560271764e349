package profiles

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// The skillhub profile (seed 004 §3): progressive disclosure with
// search_skills, load_skill and read_skill_file, and run_skill_command when
// the server enables it (off by default, as in the seed). Errors are JSON-RPC
// errors, as the seed asks: the message starts with the seed's code
// (SKILL_NOT_FOUND, …), and data holds {code, message, …details}.

// SkillHub error codes (seed 004 §3.1) and their JSON-RPC error numbers, in
// the range JSON-RPC leaves to servers.
var skillHubCodes = map[string]int64{
	"SKILL_NOT_FOUND":     -32001,
	"SKILL_DISABLED":      -32002,
	"FILE_NOT_FOUND":      -32003,
	"COMMAND_NOT_ALLOWED": -32004,
	"EXECUTION_TIMEOUT":   -32005,
	"INVALID_PATH":        -32006,
	"COMMANDS_DISABLED":   -32007,
	"FILE_TOO_LARGE":      -32008,
	"UNAVAILABLE":         -32010,
	"INVALID_PARAMS":      jsonrpc.CodeInvalidParams,
	"INTERNAL_ERROR":      jsonrpc.CodeInternalError,
}

// SkillHubSearchInput is the input of search_skills (seed 004 §3.2).
type SkillHubSearchInput struct {
	Query string `json:"query" jsonschema:"What the user wants to do, in natural language."`
}

// SkillHubSearchOutput is the answer of search_skills.
type SkillHubSearchOutput struct {
	Skills []SkillHubHit `json:"skills"`
}

// SkillHubHit is one search_skills hit.
type SkillHubHit struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Score       float64 `json:"score"`
}

// SkillHubLoadInput is the input of load_skill (seed 004 §3.3).
type SkillHubLoadInput struct {
	SkillName string `json:"skill_name" jsonschema:"The skill's name, as search_skills gives it."`
}

// SkillHubLoadOutput is the answer of load_skill.
type SkillHubLoadOutput struct {
	Name         string `json:"name"`
	Instructions string `json:"instructions"`
	Path         string `json:"path"`
}

// SkillHubReadInput is the input of read_skill_file (seed 004 §3.4).
type SkillHubReadInput struct {
	SkillName string `json:"skill_name" jsonschema:"The skill's name."`
	FilePath  string `json:"file_path" jsonschema:"A path relative to the skill's folder, such as templates/invoice.txt."`
}

// SkillHubReadOutput is the answer of read_skill_file.
type SkillHubReadOutput struct {
	Content   string `json:"content"`
	Encoding  string `json:"encoding"`
	Truncated bool   `json:"truncated"`
}

// SkillHubRunInput is the input of run_skill_command (seed 004 §3.5).
type SkillHubRunInput struct {
	SkillName string   `json:"skill_name" jsonschema:"The skill whose folder is the working directory."`
	Command   string   `json:"command" jsonschema:"An allowed command, such as python, uv, node, cat, ls or grep."`
	Args      []string `json:"args,omitempty" jsonschema:"The command's arguments; paths relative to the skill's folder."`
}

// SkillHubRunOutput is the answer of run_skill_command.
type SkillHubRunOutput struct {
	Stdout    string            `json:"stdout"`
	Stderr    string            `json:"stderr"`
	ExitCode  int32             `json:"exit_code"`
	Timeout   bool              `json:"timeout"`
	Truncated SkillHubTruncated `json:"truncated"`
}

// SkillHubTruncated says which output was cut.
type SkillHubTruncated struct {
	Stdout bool `json:"stdout"`
	Stderr bool `json:"stderr"`
}

// skillHubTools serves the skillhub profile.
type skillHubTools struct {
	*core.Gateway
}

func addSkillHubTools(server *mcp.Server, g *core.Gateway, runCommand bool) error {
	t := &skillHubTools{Gateway: g}
	// mcp.AddTool infers each input schema from the input type; that of
	// run_skill_command is inferred below, to say its args are never null.
	str := func() *jsonschema.Schema { return &jsonschema.Schema{Type: "string"} }
	core.AddReadOnly(server, core.ToolSearchSkills,
		"Find skills for what the user wants to do, from a natural-language query. Answers {skills: [{name, description, score}]}, best first (score 0..1).",
		&jsonschema.Schema{Type: "object", Required: []string{"skills"}, Properties: map[string]*jsonschema.Schema{
			"skills": {Type: "array", Items: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
				"name": str(), "description": str(), "score": {Type: "number"},
			}}},
		}},
		t.search)
	core.AddReadOnly(server, core.ToolLoadSkill,
		"Load a skill's instructions (SKILL.md without its frontmatter) and the absolute path of its folder, for resolving the relative paths the instructions use.",
		core.ObjectSchema([]string{"name", "instructions", "path"}, map[string]string{"name": "string", "instructions": "string", "path": "string"}),
		t.load)
	core.AddReadOnly(server, core.ToolReadSkillFile,
		"Read a file of a skill's folder (templates, examples, references) by a path relative to the folder. Large files are cut (truncated: true).",
		core.ObjectSchema([]string{"content", "encoding", "truncated"}, map[string]string{"content": "string", "encoding": "string", "truncated": "boolean"}),
		t.read)
	if runCommand {
		runIn, err := jsonschema.For[SkillHubRunInput](nil)
		if err != nil {
			return err
		}
		core.ArraysNotNull(runIn)
		mcp.AddTool(server, &mcp.Tool{
			Name:        "run_skill_command",
			Description: "Run an allowed command (no shell) with the skill's folder as working directory; answers stdout, stderr, exit_code, timeout and truncated. Prefer running skill commands yourself from load_skill's path when you have a shell.",
			InputSchema: runIn,
			OutputSchema: &jsonschema.Schema{Type: "object", Required: []string{"stdout", "stderr", "exit_code", "timeout", "truncated"}, Properties: map[string]*jsonschema.Schema{
				"stdout": str(), "stderr": str(), "exit_code": {Type: "integer"}, "timeout": {Type: "boolean"},
				"truncated": core.ObjectSchema([]string{"stdout", "stderr"}, map[string]string{"stdout": "boolean", "stderr": "boolean"}),
			}},
			Annotations: &mcp.ToolAnnotations{},
		}, t.run)
	}
	return nil
}

// hubError is the one mapping of errors to seed 004's JSON-RPC errors.
func (t *skillHubTools) hubError(err error, skill string) error {
	code := "INTERNAL_ERROR"
	switch f := core.Classify(err); {
	case f.Reason != "" && skillHubCodes[f.Reason] != 0:
		code = f.Reason
	case f.Is(skillsv1.ErrorReason_ERROR_REASON_SKILL_QUARANTINED):
		code = "SKILL_DISABLED" // seed 004 has no quarantine; the message says why
	case f.Kind == core.KindNotFound:
		code = "SKILL_NOT_FOUND"
	case f.Kind == core.KindInvalid:
		code = "INVALID_PARAMS"
	case f.Kind == core.KindTimeout:
		code = "EXECUTION_TIMEOUT"
	case f.Kind == core.KindUnavailable:
		code = "UNAVAILABLE"
	}
	has := t.Has
	if code == "FILE_NOT_FOUND" {
		has = func(string) bool { return false } // load_skill lists no files here
	}
	msg := core.ErrorMessage(err, skill, has)
	if code == "INTERNAL_ERROR" || code == "UNAVAILABLE" {
		t.Log.Warn("skillhub tool call failed", "skill", skill, "error", err)
	}
	return hubErr(code, msg, map[string]any{"skill_name": skill})
}

// hubErr builds a seed 004 error.
func hubErr(code, msg string, details map[string]any) *jsonrpc.Error {
	data := map[string]any{"code": code, "message": msg}
	for k, v := range details {
		if v != "" {
			data[k] = v
		}
	}
	raw, _ := json.Marshal(data)
	return &jsonrpc.Error{Code: skillHubCodes[code], Message: code + ": " + msg, Data: raw}
}

// search serves search_skills.
func (t *skillHubTools) search(ctx context.Context, _ *mcp.CallToolRequest, in SkillHubSearchInput) (*mcp.CallToolResult, SkillHubSearchOutput, error) {
	// trim and collapse spaces (§3.2); the service refuses a blank query
	// (INVALID_PARAMS through hubError).
	query := strings.Join(strings.Fields(in.Query), " ")
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	resp, err := t.Routing.SearchSkills(ctx, &skillsv1.SearchSkillsRequest{Query: query, Mode: skillsv1.SearchMode_SEARCH_MODE_RANKED})
	if err != nil {
		return nil, SkillHubSearchOutput{}, t.hubError(err, "")
	}
	out := SkillHubSearchOutput{Skills: make([]SkillHubHit, 0, len(resp.GetResults()))}
	for _, h := range resp.GetResults() {
		out.Skills = append(out.Skills, SkillHubHit{Name: h.GetName(), Description: h.GetDescription(), Score: min(max(h.GetScore(), 0), 1)})
	}
	return nil, out, nil
}

// load serves load_skill.
func (t *skillHubTools) load(ctx context.Context, _ *mcp.CallToolRequest, in SkillHubLoadInput) (*mcp.CallToolResult, SkillHubLoadOutput, error) {
	name := strings.TrimSpace(in.SkillName)
	if name == "" {
		return nil, SkillHubLoadOutput{}, hubErr("INVALID_PARAMS", "skill_name is required.", nil)
	}
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	resp, err := t.Catalog.GetSkill(ctx, &skillsv1.GetSkillRequest{SkillPath: name})
	if err != nil {
		return nil, SkillHubLoadOutput{}, t.hubError(err, name)
	}
	return nil, SkillHubLoadOutput{
		Name:         resp.GetSkill().GetName(),
		Instructions: core.CapContent(resp.GetInstructions(), resp.GetSkill().GetSkillPath(), t.Has),
		Path:         resp.GetDirectory(),
	}, nil
}

// read serves read_skill_file: one page of MAX_FILE_BYTES from the start.
func (t *skillHubTools) read(ctx context.Context, _ *mcp.CallToolRequest, in SkillHubReadInput) (*mcp.CallToolResult, SkillHubReadOutput, error) {
	name := strings.TrimSpace(in.SkillName)
	if name == "" || in.FilePath == "" {
		return nil, SkillHubReadOutput{}, hubErr("INVALID_PARAMS", "skill_name and file_path are required.", nil)
	}
	if isAbsolute(in.FilePath) {
		return nil, SkillHubReadOutput{}, hubErr("INVALID_PATH",
			fmt.Sprintf("file_path %q is absolute: give a path relative to the skill's folder, such as templates/invoice.txt.", in.FilePath),
			map[string]any{"skill_name": name, "file_path": in.FilePath})
	}
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	resp, err := t.Files.ReadSkillFile(ctx, &skillsv1.ReadSkillFileRequest{SkillPath: name, File: in.FilePath})
	if err != nil {
		return nil, SkillHubReadOutput{}, t.hubError(err, name)
	}
	out := SkillHubReadOutput{Content: resp.GetText(), Encoding: "utf-8", Truncated: resp.GetTruncated()}
	if resp.GetBinary() {
		out.Content, out.Encoding = base64.StdEncoding.EncodeToString(resp.GetData()), "base64"
	}
	return nil, out, nil
}

// isAbsolute reports an absolute path on any OS: /x, \x, C:\x, C:/x.
func isAbsolute(p string) bool {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '/' || p[2] == '\\') && ((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z'))
}

// run serves run_skill_command through the service's sandbox.
func (t *skillHubTools) run(ctx context.Context, _ *mcp.CallToolRequest, in SkillHubRunInput) (*mcp.CallToolResult, SkillHubRunOutput, error) {
	name := strings.TrimSpace(in.SkillName)
	if name == "" || strings.TrimSpace(in.Command) == "" {
		return nil, SkillHubRunOutput{}, hubErr("INVALID_PARAMS", "skill_name and command are required.", nil)
	}
	ctx, cancel := context.WithTimeout(ctx, core.RunTimeout)
	defer cancel()
	resp, err := t.Scripts.RunCommand(ctx, &skillsv1.RunCommandRequest{SkillPath: name, Command: strings.TrimSpace(in.Command), Args: in.Args})
	if err != nil {
		return nil, SkillHubRunOutput{}, t.hubError(err, name)
	}
	return nil, SkillHubRunOutput{
		Stdout:    resp.GetStdout(),
		Stderr:    resp.GetStderr(),
		ExitCode:  resp.GetExitCode(),
		Timeout:   resp.GetTimedOut(),
		Truncated: SkillHubTruncated{Stdout: resp.GetStdoutTruncated(), Stderr: resp.GetStderrTruncated()},
	}, nil
}
