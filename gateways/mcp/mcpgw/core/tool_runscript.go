package core

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// RunTimeout bounds a call that runs something in the service's sandbox (a
// script, a command). The service ends each run at its own time limit (at
// most 24 hours); this bound only guards against a service that never
// answers.
const RunTimeout = 25 * time.Hour

// RunScriptInput is the input of run_script.
type RunScriptInput struct {
	SkillPath string            `json:"skill_path"`
	File      string            `json:"file" jsonschema:"A script declared with execution server."`
	Args      map[string]string `json:"args,omitempty" jsonschema:"Named arguments, as declared."`
	Cwd       string            `json:"cwd,omitempty" jsonschema:"Folder relative to the skill's; default the skill's."`
}

// RunScriptOutput is the answer of run_script (seed 000 §8.4).
type RunScriptOutput struct {
	Success    bool   `json:"success"`
	ExitCode   int32  `json:"exit_code"`
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	DurationMs int64  `json:"duration_ms"`
	Script     string `json:"script"`
	// IsolationMissing has one line per kernel protection the run lacked,
	// "name: why" (see skills.v1.ScriptIsolation); empty when the kernel
	// confined it fully.
	IsolationMissing []string `json:"isolation_missing"`
}

// RunScriptTool describes run_script. Its schemas are terse and the output's
// is written by hand: tools/list must stay under 8 KiB.
func RunScriptTool() (*mcp.Tool, error) {
	return WithInputOf[RunScriptInput](&mcp.Tool{
		Name:  ToolRunScript,
		Title: "Run a skill script",
		Description: "Run on the server a script a skill declares with execution server. " +
			"For execution claude, read the script and run it yourself.",
		OutputSchema: ObjectSchema([]string{"success", "exit_code", "stdout", "stderr", "duration_ms", "script", "isolation_missing"}, map[string]string{
			"success": "boolean", "exit_code": "integer", "stdout": "string", "stderr": "string", "duration_ms": "integer", "script": "string",
			"isolation_missing": "array",
		}),
		// Not read-only, and not a closed world: a script may do anything.
		Annotations: &mcp.ToolAnnotations{},
	})
}

// RunScript serves run_script. A script that runs and fails is an answer
// (success false), not a tool error; a request the service refuses is a tool
// error naming the failed check.
func (g *Gateway) RunScript(ctx context.Context, _ *mcp.CallToolRequest, in RunScriptInput) (*mcp.CallToolResult, RunScriptOutput, error) {
	skill, err := SkillFileArgs(in.SkillPath, in.File, "skill_path and file are required: the skill's path and the script's file as the skill declares it, such as \"scripts/check.sh\".")
	if err != nil {
		return nil, RunScriptOutput{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, RunTimeout)
	defer cancel()
	resp, err := g.Scripts.RunScript(ctx, &skillsv1.RunScriptRequest{SkillPath: skill, File: in.File, Args: in.Args, Cwd: in.Cwd})
	if err != nil {
		return nil, RunScriptOutput{}, g.ToolError(err, skill)
	}
	return nil, RunScriptOutput{
		Success:          resp.GetSuccess(),
		ExitCode:         resp.GetExitCode(),
		Stdout:           resp.GetStdout(),
		Stderr:           resp.GetStderr(),
		DurationMs:       resp.GetDurationMs(),
		Script:           resp.GetScript(),
		IsolationMissing: append([]string{}, resp.GetIsolation().GetDetail()...),
	}, nil
}
