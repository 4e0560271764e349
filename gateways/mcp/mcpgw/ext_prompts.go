package mcpgw

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// promptArgument is the one, optional, argument of a skill's prompt: what
// the user wants the skill applied to.
const promptArgument = "arguments"

// argumentsPlaceholder is where a skill's content wants the prompt's
// arguments (the convention of Claude Code's skills and commands).
const argumentsPlaceholder = "$ARGUMENTS"

// skillPrompt describes the prompt of one skill: hosts show it as a slash
// command named after the skill.
func skillPrompt(sk *indexedSkill) *mcp.Prompt {
	hint := sk.argumentHint
	if hint == "" {
		hint = "What to apply the skill to (optional)."
	}
	return &mcp.Prompt{
		Name:        sk.name,
		Title:       sk.name,
		Description: sk.description,
		Arguments:   []*mcp.PromptArgument{{Name: promptArgument, Description: hint}},
	}
}

// getPrompt serves prompts/get: the skill's content (resolved with
// inheritance), with the arguments put in place of $ARGUMENTS or after it.
func (s *surfaces) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	idx := s.loaded()
	if idx == nil {
		var err error
		if idx, err = s.current(ctx); err != nil {
			return nil, err
		}
	}
	sk := idx.prompts[req.Params.Name]
	if sk == nil {
		return nil, invalidParams("unknown prompt %q", req.Params.Name)
	}
	ctx, cancel := context.WithTimeout(ctx, s.g.Timeout)
	defer cancel()
	resp, err := s.g.Catalog.GetSkill(ctx, &skillsv1.GetSkillRequest{SkillPath: sk.path})
	if err != nil {
		if core.IsNotFound(err) {
			return nil, invalidParams("unknown prompt %q", req.Params.Name)
		}
		return nil, s.protocolError(err)
	}
	text := promptText(resp, strings.TrimSpace(req.Params.Arguments[promptArgument]), s.g.Has)
	return &mcp.GetPromptResult{
		Description: sk.description,
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
	}, nil
}

// promptText is the text of a skill's prompt: its content, cut at
// core.MaxTextBytes like load_skill's, with args in place.
func promptText(resp *skillsv1.GetSkillResponse, args string, has func(string) bool) string {
	content := resp.GetContent()
	if strings.TrimSpace(content) == "" {
		content = resp.GetInstructions()
	}
	switch {
	case args == "":
		content = strings.ReplaceAll(content, argumentsPlaceholder, "")
	case strings.Contains(content, argumentsPlaceholder):
		content = strings.ReplaceAll(content, argumentsPlaceholder, args)
	default:
		content = strings.TrimRight(content, "\n") + "\n\nARGUMENTS: " + args + "\n"
	}
	if len(content) > core.MaxTextBytes {
		note := fmt.Sprintf("\n\n[Cut at 96 KiB of %d bytes.", len(content))
		if has(core.ToolLoadSkill) {
			note += fmt.Sprintf(" %s %q gives the skill with the files that hold the rest.", core.ToolLoadSkill, resp.GetSkill().GetSkillPath())
		}
		content = core.CutUTF8(content, core.MaxTextBytes) + note + "]"
	}
	return content
}
