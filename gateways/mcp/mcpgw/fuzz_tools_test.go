package mcpgw

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// These fuzz targets drive the whole gateway, in process, over the in-memory
// transport, against a real embedded skillsd on a small catalog: every tool of
// every profile with fuzzed arguments (FuzzToolCalls), and resources,
// prompts, completion and the skills extension with fuzzed URIs and names
// (FuzzSurfaces). Each answer must be a result, an isError result or a
// JSON-RPC error with a message that leaks nothing of the server's machine,
// no handler may panic (recoverPanics would hide it: its log fails the test),
// and the session must still answer a ping afterwards.

// panicLog is a slog.Handler that keeps the panics recoverPanics logs.
type panicLog struct {
	mu     sync.Mutex
	panics []string
}

func (*panicLog) Enabled(context.Context, slog.Level) bool { return true }
func (p *panicLog) WithAttrs([]slog.Attr) slog.Handler     { return p }
func (p *panicLog) WithGroup(string) slog.Handler          { return p }

func (p *panicLog) Handle(_ context.Context, r slog.Record) error {
	if r.Level < slog.LevelError || !strings.Contains(r.Message, "panicked") {
		return nil
	}
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, "\n%s: %v", a.Key, a.Value)
		return true
	})
	p.mu.Lock()
	p.panics = append(p.panics, b.String())
	p.mu.Unlock()
	return nil
}

// take returns and forgets the panics logged so far.
func (p *panicLog) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.panics
	p.panics = nil
	return out
}

// fuzzTool is one tool of one profile's session.
type fuzzTool struct {
	profile string
	cs      *mcp.ClientSession
	tool    *mcp.Tool
}

// fuzzEnv is the gateway the fuzz targets talk to.
type fuzzEnv struct {
	panics   *panicLog
	sessions map[string]*mcp.ClientSession // by profile
	tools    []fuzzTool                    // every tool of every profile, in a stable order
	// secrets are texts of the server's machine no error may show: its
	// temporary folders (the catalog, home, cwd) and the test's working
	// directory (where the server's sources are).
	secrets []string
	// foreign are, by profile, the tool names of the other profiles that its
	// errors must not name (profile_names_test.go).
	foreign map[string]map[string]bool
}

// newFuzzEnv starts one skillsd over a small catalog (skills, a seed-000
// tree, agents and docs) and one gateway per profile over it.
func newFuzzEnv(f *testing.F) *fuzzEnv {
	f.Helper()
	c := newFuzzCatalog(f)
	agents, docs := filepath.Join(filepath.Dir(c.skillsDir), "agents"), filepath.Join(filepath.Dir(c.skillsDir), "docs")
	writeFileTB(f, filepath.Join(agents, "reviewer.md"), "---\nname: reviewer\ndescription: Reviews code.\nmodel: sonnet\n---\n\nReview the diff.\n")
	writeFileTB(f, filepath.Join(docs, "index.md"), "---\ndescription: Home\n---\n\n# Docs\n")
	writeFileTB(f, filepath.Join(docs, "guide", "setup.md"), "---\ndescription: Setup\n---\n\n# Setup\n")
	conn := skillstest.Start(f, skillsd.Options{
		SkillsDirs: []string{c.skillsDir, c.treeDir}, AgentsDir: agents, DocsDir: docs, NoWatch: true,
		Logger: slog.New(slog.DiscardHandler),
	})
	env := &fuzzEnv{panics: &panicLog{}, sessions: map[string]*mcp.ClientSession{}, foreign: foreignToolNames()}
	wd, err := os.Getwd()
	if err != nil {
		f.Fatal(err)
	}
	env.secrets = []string{filepath.Dir(filepath.Dir(c.skillsDir)), wd, filepath.Dir(wd)}
	if home, err := os.UserHomeDir(); err == nil && len(home) > 1 {
		env.secrets = append(env.secrets, home+"/")
	}
	for _, profile := range Profiles() {
		server, err := New(conn, Options{Version: "fuzz", Profile: profile, RunSkillCommand: true,
			Logger: slog.New(env.panics), CallTimeout: 10 * time.Second})
		if err != nil {
			f.Fatalf("New(%s): %v", profile, err)
		}
		st, ct := mcp.NewInMemoryTransports()
		ss, err := server.Connect(f.Context(), st, nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Cleanup(func() { _ = ss.Close() })
		client := mcp.NewClient(&mcp.Implementation{Name: "fuzz", Version: "0"}, nil)
		for _, err := range []error{
			mcp.AddSendingCustomMethod[*ListSkillsParams, *ListSkillsResult](client, MethodSkillsList),
			mcp.AddSendingCustomMethod[*GetSkillParams, *GetSkillResult](client, MethodSkillsGet),
			mcp.AddSendingCustomMethod[*ReadDirectoryParams, *ReadDirectoryResult](client, MethodDirectoryRead),
		} {
			if err != nil {
				f.Fatal(err)
			}
		}
		cs, err := client.Connect(f.Context(), ct, nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Cleanup(func() { _ = cs.Close() })
		env.sessions[profile] = cs
		list, err := cs.ListTools(f.Context(), nil)
		if err != nil {
			f.Fatalf("tools/list (%s): %v", profile, err)
		}
		slices.SortFunc(list.Tools, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
		for _, tool := range list.Tools {
			env.tools = append(env.tools, fuzzTool{profile: profile, cs: cs, tool: tool})
		}
	}
	return env
}

// newFuzzCatalog is newTestCatalog's catalog, smaller (no truncation bodies),
// with a script and a nested skill folder.
func newFuzzCatalog(tb testing.TB) testCatalog {
	root := tb.TempDir()
	c := testCatalog{skillsDir: filepath.Join(root, "skills"), treeDir: filepath.Join(root, "tree")}
	for name, content := range map[string]string{
		"skills/pdf/SKILL.md":         "---\nname: pdf\ndescription: Fill, merge and split PDF files.\n---\n\n# PDF\n\nSee reference.md.\n",
		"skills/pdf/reference.md":     "# pypdf reference\n",
		"skills/pdf/scripts/merge.py": "print('merge')\n",
		"skills/brand/SKILL.md":       "---\nname: Brand-Guidelines\ndescription: Apply the company's colours (c#é) to documents.\nargument-hint: <doc>\n---\n\n# Brand\n",
		"tree/_root.md":               "---\nkeywords: [global, rules]\ndescription: Global project rules\n---\n\n# Global Rules\n",
		"tree/ui/react/auth.md":       "---\nkeywords: [react, auth]\ndescription: React authentication\n---\n\n# React Auth\n",
	} {
		writeFileTB(tb, filepath.Join(root, filepath.FromSlash(name)), content)
	}
	return c
}

func writeFileTB(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// hugeText is the length of a "huge" fuzz string: four times the largest
// bound any tool argument has (a search query's 16 KiB), so that every bound
// is crossed, and no larger — each of these calls is encoded and decoded
// several times on its way, which the race detector makes slow.
const hugeText = 64 << 10

// hostile derives the string a fuzz case sends from s and the mode's bits:
// as is, as a traversal, absolute, with a NUL, or huge.
func hostile(s string, mode uint8) string {
	switch (mode >> 2) & 7 {
	case 1:
		s = "../../" + s
	case 2:
		s = "/" + s
	case 3:
		s = s + "\x00/../SKILL.md"
	case 4:
		s = "pdf/" + s
	case 5:
		if s == "" {
			s = "é"
		}
		s = strings.Repeat(s, max(1, hugeText/len(s)))
	}
	return s
}

// schemaType is the first JSON type a schema allows.
func schemaType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		for _, e := range t {
			if e, ok := e.(string); ok && e != "null" {
				return e
			}
		}
	}
	return ""
}

// fuzzValue is a value of the schema's type made of s and n; with wrong set,
// one of another type.
func fuzzValue(schema map[string]any, s string, n int64, wrong bool) any {
	typ := schemaType(schema)
	if wrong {
		switch typ {
		case "string":
			return n
		case "integer", "number", "boolean":
			return s
		default:
			return s
		}
	}
	switch typ {
	case "integer":
		return n
	case "number":
		return float64(n) / 3
	case "boolean":
		return n%2 == 0
	case "array":
		items, _ := schema["items"].(map[string]any)
		return []any{fuzzValue(items, s, n, false), fuzzValue(items, s, -n, false)}
	case "object":
		return map[string]any{s: s}
	}
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 && n%2 == 0 {
		return enum[uint64(n)%uint64(len(enum))]
	}
	return s
}

// fuzzArguments builds a tool's arguments from the fuzz input: the shape of
// its input schema with hostile values (all properties, required ones only,
// or wrong types), or the raw bytes when they are JSON.
func fuzzArguments(tool *mcp.Tool, mode uint8, s string, n int64, raw []byte) any {
	if mode%4 == 3 {
		if json.Valid(raw) {
			return json.RawMessage(raw)
		}
		return map[string]any{string(raw): s}
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
	s = hostile(s, mode)
	args := map[string]any{}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	for i, name := range names {
		if mode%4 == 1 && !slices.Contains(required, name) {
			continue
		}
		ps, _ := props[name].(map[string]any)
		wrong := mode%4 == 2 && (n>>uint(i%63))&1 == 1
		args[name] = fuzzValue(ps, s, n, wrong)
	}
	return args
}

// leakMarks are texts of Go internals no answer may show unless the request
// holds them.
var leakMarks = []string{"goroutine ", ".go:", "runtime error", "panic", "nil pointer", "index out of range", "rpc error: code =", "desc = "}

// checkMessage fails when an error message is empty or shows what it must
// not. request is the JSON of the request, whose texts an error may echo.
func (env *fuzzEnv) checkMessage(t *testing.T, profile, what, msg, request string) {
	t.Helper()
	for _, name := range foreignNames(msg, env.foreign[profile]) {
		if !strings.Contains(request, name) {
			t.Fatalf("%s: error names %s, not a tool of the %s profile: %s", what, name, profile, msg)
		}
	}
	if strings.TrimSpace(msg) == "" {
		t.Fatalf("%s: error with an empty message", what)
	}
	if msg == internalErrorText {
		t.Fatalf("%s: answered %q (a handler panicked)", what, msg)
	}
	for _, secret := range env.secrets {
		if strings.Contains(msg, secret) && !strings.Contains(request, secret) {
			t.Fatalf("%s: error shows the server's path %q: %s", what, secret, msg)
		}
	}
	lower, lowerReq := strings.ToLower(msg), strings.ToLower(request)
	for _, mark := range leakMarks {
		if strings.Contains(lower, mark) && !strings.Contains(lowerReq, mark) {
			t.Fatalf("%s: error shows Go internals (%q): %s", what, mark, msg)
		}
	}
}

// checkAnswer checks one answer (result or error) and that the session still
// works.
func (env *fuzzEnv) checkAnswer(t *testing.T, profile string, cs *mcp.ClientSession, what, request string, res *mcp.CallToolResult, err error) {
	t.Helper()
	if panics := env.panics.take(); len(panics) > 0 {
		t.Fatalf("%s: a handler panicked:\n%s", what, strings.Join(panics, "\n"))
	}
	switch {
	case err != nil:
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			env.checkMessage(t, profile, what, je.Message, request)
			break
		}
		// The skillhub profile answers seed 004's codes; two of them
		// (-32003 FILE_NOT_FOUND, -32004 COMMAND_NOT_ALLOWED) are the codes
		// the go-sdk's jsonrpc2 uses for a closing connection, so a Go
		// client reports them as ErrConnectionClosed, keeping only the
		// message. The ping below shows the session is in fact alive.
		_, msg, _ := strings.Cut(err.Error(), `calling "tools/call": `)
		if !errors.Is(err, mcp.ErrConnectionClosed) || !(strings.HasPrefix(msg, "FILE_NOT_FOUND: ") || strings.HasPrefix(msg, "COMMAND_NOT_ALLOWED: ")) {
			t.Fatalf("%s: not a JSON-RPC error: %v", what, err)
		}
		env.checkMessage(t, profile, what, msg, request)
	case res != nil && res.IsError:
		if len(res.Content) == 0 {
			t.Fatalf("%s: isError result without content", what)
		}
		text, ok := res.Content[0].(*mcp.TextContent)
		if !ok {
			t.Fatalf("%s: isError content is %T, want text", what, res.Content[0])
		}
		env.checkMessage(t, profile, what, text.Text, request)
	case res != nil && len(res.Content) == 0 && res.StructuredContent == nil:
		t.Fatalf("%s: empty result", what)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatalf("%s: session unusable afterwards: ping: %v", what, err)
	}
}

func FuzzToolCalls(f *testing.F) {
	env := newFuzzEnv(f)
	// One seed per tool with a plain value, then hostile ones spread over the
	// tools.
	for i := range env.tools {
		f.Add(uint16(i), uint8(0), "pdf", int64(1), []byte(`{}`))
	}
	hostiles := []string{"", "c#é", "../../../../etc/passwd", "/etc/passwd", "pdf/../../x", "pdf/\x00", "\xff\xfe",
		"skill://pdf/SKILL.md", "C:\\Windows\\win.ini", "%2e%2e/%2e%2e", "ui/react/auth", "Brand-Guidelines", "*", "ü", "\u2028"}
	for i, s := range hostiles {
		for mode := range uint8(24) {
			f.Add(uint16(i*7+int(mode)), mode, s, int64(-1)<<uint(mode%64), []byte(`{"name":`+fmt.Sprintf("%q", s)+`,"limit":-1}`))
		}
	}
	f.Add(uint16(0), uint8(3), "", int64(0), []byte(`[1,2]`))
	f.Add(uint16(1), uint8(3), "", int64(0), []byte(`null`))
	f.Add(uint16(2), uint8(0), "x", int64(1<<62), []byte(`{}`))
	f.Fuzz(func(t *testing.T, toolIndex uint16, mode uint8, s string, n int64, raw []byte) {
		ft := env.tools[int(toolIndex)%len(env.tools)]
		args := fuzzArguments(ft.tool, mode, s, n, raw)
		request, _ := json.Marshal(args)
		what := fmt.Sprintf("%s %s(%.200s)", ft.profile, ft.tool.Name, request)
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		res, err := ft.cs.CallTool(ctx, &mcp.CallToolParams{Name: ft.tool.Name, Arguments: args})
		env.checkAnswer(t, ft.profile, ft.cs, what, string(request), res, err)
	})
}

// surfaceCalls are the requests FuzzSurfaces makes of a URI or name and an
// argument.
var surfaceCalls = []struct {
	name string
	call func(ctx context.Context, cs *mcp.ClientSession, uri, arg string) error
}{
	{"resources/read", func(ctx context.Context, cs *mcp.ClientSession, uri, _ string) error {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		return err
	}},
	{"prompts/get", func(ctx context.Context, cs *mcp.ClientSession, name, arg string) error {
		_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: map[string]string{promptArgument: arg, arg: arg}})
		return err
	}},
	{"completion/complete prompt", func(ctx context.Context, cs *mcp.ClientSession, name, arg string) error {
		_, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: name},
			Argument: mcp.CompleteParamsArgument{Name: promptArgument, Value: arg}})
		return err
	}},
	{"completion/complete resource", func(ctx context.Context, cs *mcp.ClientSession, uri, arg string) error {
		_, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: uri},
			Argument: mcp.CompleteParamsArgument{Name: "path", Value: arg}})
		return err
	}},
	{MethodSkillsList, func(ctx context.Context, cs *mcp.ClientSession, cursor, _ string) error {
		_, err := mcp.CallCustomMethod[*ListSkillsParams, *ListSkillsResult](ctx, cs, MethodSkillsList, &ListSkillsParams{Cursor: cursor})
		return err
	}},
	{MethodSkillsGet, func(ctx context.Context, cs *mcp.ClientSession, uri, _ string) error {
		_, err := mcp.CallCustomMethod[*GetSkillParams, *GetSkillResult](ctx, cs, MethodSkillsGet, &GetSkillParams{URI: uri})
		return err
	}},
	{MethodDirectoryRead, func(ctx context.Context, cs *mcp.ClientSession, uri, cursor string) error {
		_, err := mcp.CallCustomMethod[*ReadDirectoryParams, *ReadDirectoryResult](ctx, cs, MethodDirectoryRead, &ReadDirectoryParams{URI: uri, Cursor: cursor})
		return err
	}},
	{"resources/list", func(ctx context.Context, cs *mcp.ClientSession, cursor, _ string) error {
		_, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		return err
	}},
	{"prompts/list", func(ctx context.Context, cs *mcp.ClientSession, cursor, _ string) error {
		_, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
		return err
	}},
}

func FuzzSurfaces(f *testing.F) {
	env := newFuzzEnv(f)
	uris := []string{"skill://pdf/SKILL.md", "skill://pdf/scripts/merge.py", "skill://pdf/", "skill://pdf", "skill://",
		"skill://pdf/../../../etc/passwd", "skill://%2e%2e/x", "skill://pdf/%00", "skill://a/b%2F..%2Fc",
		"skill:///etc/passwd", "file:///etc/passwd", "skill://ui/react/auth/SKILL.md", "skill://Brand-Guidelines/SKILL.md",
		"pdf", "brand", "c#é", "skill://pdf/\xff", "", "skill://" + strings.Repeat("a/", 4096)}
	for i, u := range uris {
		f.Add(uint8(i), u, "pdf")
		f.Add(uint8(i+1), u, "../")
	}
	f.Fuzz(func(t *testing.T, which uint8, uri, arg string) {
		sc := surfaceCalls[int(which)%len(surfaceCalls)]
		profile := Profiles()[int(which/16)%len(Profiles())]
		cs := env.sessions[profile]
		request, _ := json.Marshal([]string{uri, arg})
		what := fmt.Sprintf("%s %s(%.200s)", profile, sc.name, request)
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		err := sc.call(ctx, cs, uri, arg)
		env.checkAnswer(t, profile, cs, what, string(request), nil, err)
	})
}
