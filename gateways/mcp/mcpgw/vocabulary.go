package mcpgw

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolArgs is the vocabulary of one native tool's arguments: the names of
// its input schema, and aliases accepted in their place. Aliases are decoded
// only: tools/list shows the pinned names alone, and stays in its budget
// (budget.go). docs/mcp.md lists them.
type toolArgs struct {
	names   []string          // the schema's properties, in the input type's order
	aliases map[string]string // alias → name
}

// nativeAliases are the alternatives a model or a person reaches for, each
// naming one argument only: the words of the other tools (search takes
// query, match takes context; load_skill takes name, the others skill_path)
// and of REST (run_script's script). An alias that could mean two
// arguments of a tool is not one (read_skill_file's "path" could be the
// skill's or the file's).
var nativeAliases = map[string]map[string]string{
	toolSearchSkills:  {"context": "query", "task": "query", "restatement": "restated"},
	toolGetSkill:      {"query": "context", "task": "context", "restatement": "restated"},
	toolLoadSkill:     {"skill_path": "name", "path": "name", "skill": "name"},
	toolListSkills:    {"skill_path": "path"},
	toolReadSkillFile: {"name": "skill_path", "skill": "skill_path", "file_path": "file"},
	toolRunScript:     {"name": "skill_path", "skill": "skill_path", "script": "file", "arguments": "args"},
	toolReportUsage:   {"name": "skill_path", "skill": "skill_path"},
}

// nativeVocabulary is the vocabulary of every native tool, from its input
// type's JSON names.
func nativeVocabulary() map[string]toolArgs {
	inputs := map[string]reflect.Type{
		toolSearchSkills:  reflect.TypeFor[SearchSkillsInput](),
		toolGetSkill:      reflect.TypeFor[GetSkillInput](),
		toolLoadSkill:     reflect.TypeFor[LoadSkillInput](),
		toolListSkills:    reflect.TypeFor[ListSkillsInput](),
		toolReadSkillFile: reflect.TypeFor[ReadSkillFileInput](),
		toolRunScript:     reflect.TypeFor[RunScriptInput](),
		toolRefreshSkills: reflect.TypeFor[RefreshInput](),
		toolReportUsage:   reflect.TypeFor[ReportUsageInput](),
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
		out[tool] = toolArgs{names: names, aliases: nativeAliases[tool]}
	}
	return out
}

// vocabulary is a receiving middleware for tools/call of the tools in vocab:
// it renames aliases to the pinned names before the SDK validates the
// arguments against the input schema, and answers an unknown argument (or
// an argument given twice, by its name and an alias) with a tool error that
// names it and lists the expected ones. The SDK alone refuses an unknown
// argument too (the schemas say additionalProperties: false), but its
// message names neither the tool nor what it takes.
func vocabulary(vocab map[string]toolArgs) mcp.Middleware {
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
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	renamed := false
	for _, k := range keys {
		if slices.Contains(a.names, k) {
			continue
		}
		name, ok := a.aliases[k]
		if !ok {
			return nil, a.unknown(tool, k)
		}
		if _, both := obj[name]; both {
			return nil, fmt.Sprintf("%s takes %s once: give %q or its alias %q, not both", tool, name, name, k)
		}
		obj[name] = obj[k]
		delete(obj, k)
		renamed = true
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

// unknown is the message for an unknown argument k.
func (a toolArgs) unknown(tool, k string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown argument %q for %s", clipText(k, 60), tool)
	known := append(slices.Clone(a.names), sortedKeys(a.aliases)...)
	if s := closest(k, known); s != "" {
		if name, ok := a.aliases[s]; ok {
			fmt.Fprintf(&b, " (did you mean %q, that is %q?)", s, name)
		} else {
			fmt.Fprintf(&b, " (did you mean %q?)", s)
		}
	}
	if len(a.names) == 0 {
		fmt.Fprintf(&b, ": %s takes no arguments", tool)
		return b.String()
	}
	fmt.Fprintf(&b, ": %s takes %s", tool, strings.Join(a.names, ", "))
	if len(a.aliases) > 0 {
		byName := map[string][]string{}
		for _, alias := range sortedKeys(a.aliases) {
			byName[a.aliases[alias]] = append(byName[a.aliases[alias]], alias)
		}
		var also []string
		for _, name := range a.names {
			if al := byName[name]; len(al) > 0 {
				also = append(also, strings.Join(al, " or ")+" for "+name)
			}
		}
		fmt.Fprintf(&b, " (also accepted: %s)", strings.Join(also, "; "))
	}
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// closest is the candidate within a small edit distance of s ("" for none).
func closest(s string, candidates []string) string {
	best, bestD := "", len(s)+1
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(s), c); d < bestD {
			best, bestD = c, d
		}
	}
	if bestD > max(2, len(s)/3) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
