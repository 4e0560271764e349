package mcpgw

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	"github.com/skillsd/skillsd/services/skills/vocabulary"
)

// toolArgs is the vocabulary of one native tool's arguments: the names of
// its input schema, and the aliases of package vocabulary, accepted in
// their place in decoding only: tools/list shows the pinned names alone, and
// stays in its budget (tool_budget.go). docs/mcp.md lists them.
type toolArgs struct {
	names   []string          // the schema's properties, in the input type's order
	aliases map[string]string // alias → name
}

// nativeVocabulary is the vocabulary of every native tool, from its input
// type's JSON names.
func nativeVocabulary() map[string]toolArgs {
	inputs := map[string]reflect.Type{
		core.ToolSearchSkills:  reflect.TypeFor[SearchSkillsInput](),
		core.ToolGetSkill:      reflect.TypeFor[core.GetSkillInput](),
		core.ToolLoadSkill:     reflect.TypeFor[LoadSkillInput](),
		core.ToolListSkills:    reflect.TypeFor[core.ListSkillsInput](),
		core.ToolReadSkillFile: reflect.TypeFor[ReadSkillFileInput](),
		core.ToolRunScript:     reflect.TypeFor[core.RunScriptInput](),
		core.ToolRefreshSkills: reflect.TypeFor[RefreshInput](),
		core.ToolReportUsage:   reflect.TypeFor[core.ReportUsageInput](),
	}
	out := make(map[string]toolArgs, len(inputs))
	for tool, t := range inputs {
		var names []string
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if name != "" && name != "-" {
				names = append(names, name)
			}
		}
		out[tool] = toolArgs{names: names, aliases: vocabulary.Aliases(tool)}
	}
	return out
}

// vocabularyMiddleware is a receiving middleware for tools/call of the tools
// in vocab: it renames aliases to the pinned names before the SDK validates
// the arguments against the input schema, and answers an unknown argument
// (or an argument given twice, by its name and an alias) with a tool error
// that names it and lists the expected ones. The SDK alone refuses an
// unknown argument too (the schemas say additionalProperties: false), but
// its message names neither the tool nor what it takes.
func vocabularyMiddleware(vocab map[string]toolArgs) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, ok := req.(*mcp.CallToolRequest)
			if method != "tools/call" || !ok || call.Params == nil {
				return next(ctx, method, req)
			}
			args, ok := vocab[call.Params.Name]
			if !ok {
				return next(ctx, method, req)
			}
			fixed, msg := args.normalize(call.Params.Name, call.Params.Arguments)
			if msg != "" {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
			}
			call.Params.Arguments = fixed
			return next(ctx, method, req)
		}
	}
}

// normalize renames the aliases of raw, a JSON object of arguments; msg
// says what is wrong when an argument is unknown or given twice. Anything
// but an object is left to the SDK's validation.
func (a toolArgs) normalize(tool string, raw json.RawMessage) (json.RawMessage, string) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return raw, ""
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &obj); err != nil {
		return raw, ""
	}
	req := vocabulary.Request{Names: a.names, Aliases: a.aliases, Noun: "argument", Where: "for " + tool, Taker: tool}
	renamed, problem := req.Normalize(obj, nil)
	if problem != nil {
		return nil, problem.Message
	}
	if !renamed {
		return raw, ""
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return raw, ""
	}
	return out, ""
}
