package mcpgw

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/profiles"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// ownToolNames are the tools a profile serves (all its optional ones on).
func ownToolNames(profile string) []string {
	if profile == ProfileNative {
		return []string{core.ToolSearchSkills, core.ToolGetSkill, core.ToolLoadSkill, core.ToolListSkills, core.ToolReadSkillFile, core.ToolRunScript, core.ToolReportUsage, core.ToolRefreshSkills}
	}
	return profiles.ToolNames(profile, true)
}

// foreignToolNames returns, by profile, the names of the tools of every
// other profile that it does not serve itself. The universal-skills
// profile's one tool, "skill", is an English word every message uses: it is
// left out.
func foreignToolNames() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, profile := range Profiles() {
		out[profile] = map[string]bool{}
		for _, other := range Profiles() {
			for _, n := range ownToolNames(other) {
				if n != "skill" && !slices.Contains(ownToolNames(profile), n) {
					out[profile][n] = true
				}
			}
		}
	}
	return out
}

// nameScenario is one set of values a tool is called with: each property of
// its input schema gets the value of its role (skill, file, args, command),
// or, with wrongTypes, a number whatever its type.
type nameScenario struct {
	name       string
	skill      string
	file       string
	args       map[string]string
	command    string
	wrongTypes bool
	empty      bool
	unknown    bool // an argument the tool does not take
}

// nameScenarios are calls that make the tools answer errors of every kind:
// missing arguments, an unknown skill, path traversals, a script the agent
// must run itself, a script without its required arguments, a missing file,
// an undeclared script, a command the server refuses, wrong types.
var nameScenarios = []nameScenario{
	{name: "nothing", empty: true},
	{name: "unknown skill", skill: "no-such-skill-zz", file: "notes.md", command: "ls"},
	{name: "traversal", skill: "ui/react/auth", file: "../../../etc/passwd"},
	{name: "encoded traversal", skill: "ui/react/auth", file: "%2e%2e/%2e%2e/etc/passwd"},
	{name: "absolute", skill: "ui/react/auth", file: "/etc/passwd"},
	{name: "execution claude", skill: "ui/react/auth", file: "scripts/scaffold-auth.sh", args: map[string]string{"project_dir": "/tmp/x"}},
	{name: "missing arguments", skill: "ui/react/auth", file: "scripts/validate-auth-config.ts", args: map[string]string{}},
	{name: "missing file", skill: "ui/react/auth", file: "assets/nope.txt"},
	{name: "undeclared script", skill: "pdf", file: "scripts/merge.py", args: map[string]string{"x": "y"}, command: "rm -rf /"},
	{name: "seed-000 parent", skill: "ui/react/_index", file: "assets/missing.tsx.template"},
	{name: "wrong types", wrongTypes: true},
	{name: "unknown argument", unknown: true},
}

// roleOf is the role of an input property, by its name.
func roleOf(prop string) string {
	switch prop {
	case "skill_path", "skill_name", "name", "skill", "context", "query", "restated", "path", "skillPath":
		return "skill"
	case "file", "file_path", "filePath":
		return "file"
	case "args":
		return "args"
	case "command":
		return "command"
	}
	return ""
}

// scenarioArgs fills a tool's input schema with the scenario's values.
func scenarioArgs(tool *mcp.Tool, sc nameScenario) map[string]any {
	args := map[string]any{}
	if sc.empty {
		return args
	}
	if sc.unknown {
		args["zz_unknown"] = 1
		return args
	}
	schema, _ := tool.InputSchema.(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	var required []string
	if r, ok := schema["required"].([]any); ok {
		for _, e := range r {
			if e, ok := e.(string); ok {
				required = append(required, e)
			}
		}
	}
	for name, p := range props {
		ps, _ := p.(map[string]any)
		if sc.wrongTypes {
			args[name] = 42
			continue
		}
		switch roleOf(name) {
		case "skill":
			args[name] = sc.skill
		case "file":
			args[name] = sc.file
		case "args":
			if sc.args != nil {
				if schemaType(ps) == "array" {
					args[name] = []any{}
				} else {
					args[name] = sc.args
				}
			}
		case "command":
			args[name] = sc.command
		default:
			if !slices.Contains(required, name) {
				continue
			}
			switch schemaType(ps) {
			case "boolean":
				args[name] = false
			case "integer", "number":
				args[name] = 1
			case "array":
				args[name] = []any{}
			case "object":
				args[name] = map[string]any{}
			default:
				args[name] = "x"
			}
		}
	}
	return args
}

// identifier matches the words of a text that could be tool names:
// snake_case and dotted names.
var identifier = regexp.MustCompile(`[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*`)

// foreignNames returns the names of tools of other surfaces that text uses.
func foreignNames(text string, foreign map[string]bool) []string {
	var out []string
	for _, w := range identifier.FindAllString(text, -1) {
		w = strings.TrimRight(w, ".")
		if foreign[w] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// TestProfilesSpeakTheirOwnToolNames drives every tool of every profile with
// calls that produce errors of every kind (nameScenarios), and scans every
// answer (error messages, notes and message fields alike), the tool
// descriptions and the instructions, for the names of tools the profile does
// not serve: a model of a skills-mcp host told to call read_skill_file
// cannot. The universal-skills profile's one tool, "skill", is an English
// word every message uses, so it is left out of the scan. Before issue 17 the
// skills-mcp profile's refusal of an execution: claude script named
// read_skill_file.
func TestProfilesSpeakTheirOwnToolNames(t *testing.T) {
	root := t.TempDir()
	treeDir := seed000Tree(t)
	c := newFuzzCatalog(t)
	agents, docs := filepath.Join(root, "agents"), filepath.Join(root, "docs")
	writeFileTB(t, filepath.Join(agents, "reviewer.md"), "---\nname: reviewer\ndescription: Reviews code.\nmodel: sonnet\n---\n\nReview the diff.\n")
	writeFileTB(t, filepath.Join(docs, "index.md"), "---\ndescription: Home\n---\n\n# Docs\n")
	conn := skillstest.Start(t, skillsd.Options{
		SkillsDirs: []string{c.skillsDir, treeDir}, AgentsDir: agents, DocsDir: docs, NoWatch: true,
		Logger: slog.New(slog.DiscardHandler),
	})

	foreignByProfile := foreignToolNames()
	for _, profile := range Profiles() {
		t.Run(profile, func(t *testing.T) {
			foreign := foreignByProfile[profile]
			server, err := New(conn, Options{Version: "names", Profile: profile, RunSkillCommand: true, CallTimeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			cs, _ := connectNoted(t, server, "2025-06-18")
			check := func(what, text string) {
				t.Helper()
				if bad := foreignNames(text, foreign); len(bad) > 0 {
					t.Errorf("%s names %v, not tools of the %s profile: %s", what, bad, profile, text)
				}
			}
			check("instructions", cs.InitializeResult().Instructions)
			list, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var served []string
			for _, tool := range list.Tools {
				served = append(served, tool.Name)
				check("description of "+tool.Name, tool.Description)
				schema, _ := json.Marshal([]any{tool.InputSchema, tool.OutputSchema})
				check("schemas of "+tool.Name, string(schema))
			}
			sort.Strings(served)
			want := ownToolNames(profile)
			sort.Strings(want)
			if !slices.Equal(served, want) {
				t.Fatalf("tools/list: %v; the test knows %v", served, want)
			}
			errorsSeen := map[string]int{}
			for _, tool := range list.Tools {
				for _, sc := range nameScenarios {
					args := scenarioArgs(tool, sc)
					what := fmt.Sprintf("%s(%s)", tool.Name, sc.name)
					res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool.Name, Arguments: args})
					for _, text := range answerTexts(res, err) {
						check(what, text)
					}
					if err != nil || res.IsError {
						errorsSeen[tool.Name]++
					}
				}
			}
			for _, tool := range list.Tools {
				schema, _ := tool.InputSchema.(map[string]any)
				props, _ := schema["properties"].(map[string]any)
				if errorsSeen[tool.Name] == 0 && len(props) > 0 {
					t.Errorf("%s answered no error to any scenario: the scan proves nothing for it", tool.Name)
				}
			}
			// Errors of the surfaces every profile serves.
			for _, call := range surfaceCalls {
				for _, arg := range []string{"skill://no-such/SKILL.md", "no-such-prompt", "skill://../x"} {
					err := call.call(t.Context(), cs, arg, arg)
					for _, text := range answerTexts(nil, err) {
						check(call.name, text)
					}
				}
			}
		})
	}
}

// answerTexts returns the texts of an answer: the message of a protocol
// error, or every text content and the structured content of a result.
func answerTexts(res *mcp.CallToolResult, err error) []string {
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			return []string{je.Message}
		}
		return []string{err.Error()}
	}
	if res == nil {
		return nil
	}
	var out []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		out = append(out, string(b))
	}
	return out
}

// TestProfileScriptRefusalNamesOwnReadTool: the refusal of an execution:
// claude script tells the model how to read it with the profile's own tool
// (the example), and the missing-arguments error lists every missing
// argument and says they are required.
func TestProfileScriptRefusalNamesOwnReadTool(t *testing.T) {
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{seed000Tree(t)}, NoWatch: true})
	for profile, read := range map[string]string{ProfileNative: core.ToolReadSkillFile, ProfileSkillsMCP: core.ToolGetAsset} {
		server, err := New(conn, Options{Profile: profile})
		if err != nil {
			t.Fatal(err)
		}
		cs, _ := connectNoted(t, server, "2025-06-18")
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: core.ToolRunScript, Arguments: map[string]any{
			"skill_path": "ui/react/auth", "file": "scripts/scaffold-auth.sh", "args": map[string]string{"project_dir": "/tmp/x"},
		}})
		if err != nil || !res.IsError {
			t.Fatalf("%s: run_script of an execution: claude script: %v %+v", profile, err, res)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		wantIn := fmt.Sprintf(`%s gives the script (skill_path "ui/react/auth", file "scripts/scaffold-auth.sh")`, read)
		if !strings.Contains(text, wantIn) || !strings.Contains(text, "bash") || !strings.Contains(text, "SKILL_ARG_PROJECT_DIR") {
			t.Errorf("%s: refusal %q; want it to say %q", profile, text, wantIn)
		}
	}
}

// seed000Tree copies the seed-000 reference tree (the repository's copy of
// the shared fixture) to a temporary folder and returns it.
func seed000Tree(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tree")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "..", "services", "skills", "internal", "catalog", "testdata", "seed000-tree"))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestSeed000ReferenceTreeNative runs the seed-000 reference tree's
// traversal, missing-argument and feedback cases through the native tools
// (seed 000 §8.3–8.5, §12.1), with no configuration at all: a path out of
// the skill's folder is refused as a "path traversal", a script called
// without its required argument gets an error listing it as required, and
// report_usage records the feedback (the local store is on by default). Its
// list_skills names seed-000 skills by their paths (their names for
// lookups), while the skills-mcp profile shows each file's own name, as
// seed 000's server does.
func TestSeed000ReferenceTreeNative(t *testing.T) {
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{seed000Tree(t)}, NoWatch: true})
	native, err := New(conn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := connectNoted(t, native, "2025-06-18")
	for _, file := range []string{"../../_root.md", "../auth.md", "/etc/passwd", "assets/../../../_root.md", "%2e%2e/_root.md"} {
		for _, tool := range []string{core.ToolReadSkillFile, core.ToolRunScript} {
			args := map[string]any{"skill_path": "ui/react/auth", "file": file}
			if tool == core.ToolRunScript {
				args["args"] = map[string]string{}
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
			if err != nil || !res.IsError {
				t.Fatalf("%s %q: %v %+v; want a tool error", tool, file, err, res)
			}
			if text := usageText(res); !strings.Contains(text, "path traversal") || !strings.Contains(text, "skill's folder") {
				t.Errorf("%s %q: %q; want it called a path traversal, with how to name a file", tool, file, text)
			}
		}
	}

	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: core.ToolRunScript, Arguments: map[string]any{
		"skill_path": "ui/react/auth", "file": "scripts/validate-auth-config.ts", "args": map[string]string{}}})
	if err != nil || !res.IsError {
		t.Fatalf("run_script without config_path: %v %+v", err, res)
	}
	if text := usageText(res); !strings.Contains(text, "missing required argument") || !strings.Contains(text, "config_path (Path to auth config file)") ||
		!strings.Contains(text, "It is required") {
		t.Errorf("run_script without config_path: %q; want the missing argument listed as required", text)
	}

	_, text := callTool(t, cs, core.ToolReportUsage, map[string]any{"skill_path": "ui/react/auth", "useful": true, "comment": "clear"})
	var out core.ReportUsageOutput
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatal(err)
	}
	if !out.Recorded || out.Message != "Feedback recorded for ui/react/auth" {
		t.Errorf("report_usage = %+v; want seed 000's {recorded: true, message: Feedback recorded for ui/react/auth}", out)
	}

	names := func(cs *mcp.ClientSession) map[string]string {
		_, text := callTool(t, cs, core.ToolListSkills, map[string]any{})
		var out core.ListSkillsOutput
		if err := json.Unmarshal([]byte(text), &out); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		var walk func([]core.SkillNode)
		walk = func(ns []core.SkillNode) {
			for _, n := range ns {
				got[n.Path] = n.Name
				walk(n.Children)
			}
		}
		walk(out.Skills)
		return got
	}
	if got := names(cs); got["ui/react/auth"] != "ui/react/auth" || got["api/auth"] != "api/auth" || got["_root"] != "_root" {
		t.Errorf("native list_skills names %v; want each seed-000 skill named by its path", got)
	}
	seed, err := New(conn, Options{Profile: ProfileSkillsMCP})
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := connectNoted(t, seed, "2025-06-18")
	want := map[string]string{"_root": "_root", "ui/_index": "_index", "ui/react/_index": "_index", "ui/react/auth": "auth",
		"ui/react/testing": "testing", "api/_index": "_index", "api/auth": "auth", "no-inherit": "no-inherit"}
	if got := names(scs); !maps.Equal(got, want) {
		t.Errorf("skills-mcp list_skills names %v; want seed 000's %v", got, want)
	}
}
