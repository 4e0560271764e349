package mcpgw

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// testCatalog is a catalog written into a temporary folder: SKILL.md folders
// in one source, a seed-000 tree in another.
type testCatalog struct {
	skillsDir string // SKILL.md folders
	treeDir   string // seed-000 tree
}

// bigBody returns a markdown body of about n bytes whose lines mix one- and
// two-byte runes, so that a cut at a fixed byte count may fall inside a rune.
func bigBody(title string, n int) string {
	var b strings.Builder
	b.WriteString("# " + title + "\n\n")
	for i := 0; b.Len() < n; i++ {
		b.WriteString("Étape — vérifier la règle numéro ")
		b.WriteString(strings.Repeat("é", i%7))
		b.WriteString(".\n")
	}
	return b.String()
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newTestCatalog(t *testing.T) testCatalog {
	t.Helper()
	root := t.TempDir()
	c := testCatalog{skillsDir: filepath.Join(root, "skills"), treeDir: filepath.Join(root, "tree")}
	files := map[string]string{
		"skills/pdf/SKILL.md":                                 "---\nname: pdf\ndescription: Fill, merge and split PDF files. Use when the task involves PDF forms or documents.\nlicense: MIT\n---\n\n# PDF\n\nUse pypdf to merge files; see reference.md.\n",
		"skills/pdf/reference.md":                             "# pypdf reference\n",
		"skills/pdf/scripts/merge.py":                         "print('merge')\n",
		"skills/brand/SKILL.md":                               "---\nname: Brand-Guidelines\ndescription: Apply the company's colours and fonts to documents and slides.\n---\n\n# Brand\n\nPrimary colour: #123456.\n",
		"skills/big/SKILL.md":                                 "---\nname: big\ndescription: A very long skill used to test truncation.\n---\n\n" + bigBody("Big", 120<<10),
		"skills/medium/SKILL.md":                              "---\nname: medium\ndescription: A skill longer than half the cap, to test truncation of its repeated content.\n---\n\n" + bigBody("Medium", 60<<10),
		"tree/_root.md":                                       "---\nkeywords: [global, rules]\ndescription: Global project rules\n---\n\n# Global Rules\n\n- Write tests for all new code\n",
		"tree/ui/_index.md":                                   "---\nkeywords: [ui, frontend]\ndescription: UI development rules\n---\n\n# UI\n\n- Mobile-first design\n",
		"tree/ui/react/auth.md":                               "---\nkeywords: [react, auth, login]\ndescription: React authentication components and patterns\nassets:\n  - file: assets/AuthProvider.tsx.template\n    description: AuthProvider template\n    type: template\n---\n\n# React Auth\n\nWrap the app root with AuthProvider.\n",
		"tree/ui/react/auth/assets/AuthProvider.tsx.template": "export function AuthProvider() {}\n",
		"tree/ui/huge.md":                                     "---\nkeywords: [huge]\ndescription: A long tree skill that inherits, to test truncation\n---\n\n" + bigBody("Huge", 80<<10),
	}
	for name, content := range files {
		writeFile(t, filepath.Join(root, filepath.FromSlash(name)), content)
	}
	return c
}

// startGateway starts skillsd over the catalog, the MCP server over it, and
// returns a connected client session and the gRPC connection.
func startGateway(t *testing.T, c testCatalog) (*mcp.ClientSession, *grpc.ClientConn) {
	t.Helper()
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{c.skillsDir, c.treeDir}})
	return connectClient(t, conn), conn
}

// connectClient runs New over conn and connects a client to it in memory.
func connectClient(t *testing.T, conn grpc.ClientConnInterface) *mcp.ClientSession {
	t.Helper()
	server, err := New(conn, Options{Version: "1.2.3"})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return connectServer(t, server)
}

// connectServer connects a client to server in memory; both sessions close
// with the test.
func connectServer(t testing.TB, server *mcp.Server) *mcp.ClientSession {
	t.Helper()
	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	ss, err := server.Connect(t.Context(), serverTransport, nil)
	if err != nil {
		t.Fatalf("server.Connect: %v", err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpgw-test", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), clientTransport, nil)
	if err != nil {
		t.Fatalf("client.Connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// callTool calls a tool and checks the invariants of every answer: one text
// content; on success, structuredContent equal to that text's JSON and no JSON
// null anywhere. It returns the result and its text.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s, %v): %v", name, args, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("CallTool(%s, %v): got %d content items, want 1", name, args, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("CallTool(%s, %v): content is %T, want text", name, args, res.Content[0])
	}
	if res.IsError {
		return res, text.Text
	}
	var fromText any
	if err := json.Unmarshal([]byte(text.Text), &fromText); err != nil {
		t.Fatalf("CallTool(%s, %v): text content is not JSON: %v", name, args, err)
	}
	if diff := cmp.Diff(res.StructuredContent, fromText); diff != "" {
		t.Errorf("CallTool(%s, %v): structuredContent and text differ (-structured +text):\n%s", name, args, diff)
	}
	if nulls := findNulls(fromText, "$"); len(nulls) > 0 {
		t.Errorf("CallTool(%s, %v): JSON null at %v", name, args, nulls)
	}
	return res, text.Text
}

// findNulls lists the places of JSON null values in v.
func findNulls(v any, at string) []string {
	var out []string
	switch v := v.(type) {
	case nil:
		out = append(out, at)
	case map[string]any:
		for k, e := range v {
			out = append(out, findNulls(e, at+"."+k)...)
		}
	case []any:
		for i, e := range v {
			out = append(out, findNulls(e, at+"["+strconv.Itoa(i)+"]")...)
		}
	}
	return out
}

func decode[T any](t *testing.T, text string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("decoding %T: %v", v, err)
	}
	return v
}

func TestInitialize(t *testing.T) {
	cs, _ := startGateway(t, newTestCatalog(t))
	init := cs.InitializeResult()
	if got, want := init.ServerInfo.Name, "skillsd"; got != want {
		t.Errorf("serverInfo.name: got %q, want %q", got, want)
	}
	if got, want := init.ServerInfo.Version, "1.2.3"; got != want {
		t.Errorf("serverInfo.version: got %q, want %q", got, want)
	}
	served := func(name string) bool {
		return name == core.ToolSearchSkills || name == core.ToolGetSkill || name == core.ToolLoadSkill || name == core.ToolListSkills ||
			name == core.ToolReadSkillFile || name == core.ToolRunScript
	}
	if got, want := init.Instructions, instructions(served); got != want {
		t.Errorf("instructions: got %q, want %q", got, want)
	}
}

func TestInstructions(t *testing.T) {
	tests := []struct {
		name     string
		tools    []string
		want     []string
		dontWant []string
	}{
		{
			name:     "now",
			tools:    []string{core.ToolSearchSkills, core.ToolGetSkill, core.ToolLoadSkill, core.ToolListSkills},
			want:     []string{"1. Find: call search_skills", "restated (search_skills and get_skill take it)", "plain technical English", "not a category", "list_skills", "load_skill"},
			dontWant: []string{"read_skill_file"},
		},
		{
			name:     "without search",
			tools:    []string{core.ToolLoadSkill, core.ToolListSkills},
			want:     []string{"list_skills", "load_skill"},
			dontWant: []string{"search_skills", "read_skill_file", "restated"},
		},
		{
			name:  "with search and files",
			tools: []string{core.ToolSearchSkills, core.ToolLoadSkill, core.ToolListSkills, core.ToolReadSkillFile},
			want:  []string{"search_skills", "list_skills", "load_skill", "read_skill_file"},
		},
		{
			name:     "search only",
			tools:    []string{core.ToolSearchSkills, core.ToolLoadSkill},
			want:     []string{"search_skills", "load_skill", "restated (search_skills takes it)"},
			dontWant: []string{"list_skills", "read_skill_file", "get_skill"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := instructions(func(name string) bool { return slices.Contains(tt.tools, name) })
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("instructions %q: missing %q", got, w)
				}
			}
			for _, w := range tt.dontWant {
				if strings.Contains(got, w) {
					t.Errorf("instructions %q: names %q, which is not served", got, w)
				}
			}
			if len(got) > 1024 {
				t.Errorf("instructions: got %d bytes, want at most 1024", len(got))
			}
		})
	}
}

func TestToolsListGolden(t *testing.T) {
	cs, _ := startGateway(t, newTestCatalog(t))
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	wire, err := json.Marshal(res.Tools)
	if err != nil {
		t.Fatal(err)
	}
	if len(wire) >= toolsListBudget {
		t.Errorf("tools/list: got %d bytes, want less than 8 KiB", len(wire))
	}
	var got bytes.Buffer
	if err := json.Indent(&got, wire, "", "  "); err != nil {
		t.Fatal(err)
	}
	got.WriteByte('\n')
	golden := filepath.Join("testdata", "tools_list.golden.json")
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("tools/list differs from %s (-want +got); review, then rerun with -update:\n%s", golden, diff)
	}
}

func TestLoadSkill(t *testing.T) {
	c := newTestCatalog(t)
	cs, _ := startGateway(t, c)
	tests := []struct {
		name          string
		arg           string
		wantPath      string
		wantName      string
		wantDir       string
		wantFiles     []string // a subset of the listed files
		wantInContent []string
		inherits      bool
	}{
		{
			name:          "by path",
			arg:           "pdf",
			wantPath:      "pdf",
			wantName:      "pdf",
			wantDir:       filepath.Join(c.skillsDir, "pdf"),
			wantFiles:     []string{"reference.md", "scripts/merge.py"},
			wantInContent: []string{"Use pypdf to merge files"},
		},
		{
			name:          "by name, case-insensitive",
			arg:           "BRAND-guidelines",
			wantPath:      "brand",
			wantName:      "Brand-Guidelines",
			wantDir:       filepath.Join(c.skillsDir, "brand"),
			wantInContent: []string{"Primary colour"},
		},
		{
			name:          "by path, with surrounding spaces",
			arg:           "  pdf ",
			wantPath:      "pdf",
			wantName:      "pdf",
			wantDir:       filepath.Join(c.skillsDir, "pdf"),
			wantInContent: []string{"Use pypdf"},
		},
		{
			name:          "tree skill with inheritance",
			arg:           "ui/react/auth",
			wantPath:      "ui/react/auth",
			wantName:      "ui/react/auth",
			wantDir:       filepath.Join(c.treeDir, "ui", "react", "auth"),
			wantFiles:     []string{"assets/AuthProvider.tsx.template"},
			wantInContent: []string{"Write tests for all new code", "Mobile-first design", "Wrap the app root with AuthProvider", "==="},
			inherits:      true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, text := callTool(t, cs, "load_skill", map[string]any{"name": tt.arg})
			if res.IsError {
				t.Fatalf("load_skill(%q): isError: %s", tt.arg, text)
			}
			got := decode[LoadSkillOutput](t, text)
			if got.SkillPath != tt.wantPath || got.Name != tt.wantName {
				t.Errorf("load_skill(%q): got skill_path %q name %q, want %q %q", tt.arg, got.SkillPath, got.Name, tt.wantPath, tt.wantName)
			}
			if got.Description == "" {
				t.Errorf("load_skill(%q): empty description", tt.arg)
			}
			if got.Directory != tt.wantDir {
				t.Errorf("load_skill(%q): got directory %q, want %q", tt.arg, got.Directory, tt.wantDir)
			}
			if got.Source == "" {
				t.Errorf("load_skill(%q): empty source", tt.arg)
			}
			if ts, err := time.Parse(time.RFC3339, got.LoadedAt); err != nil || time.Since(ts) > time.Hour {
				t.Errorf("load_skill(%q): got loaded_at %q, want a recent RFC 3339 time (%v)", tt.arg, got.LoadedAt, err)
			}
			for _, w := range tt.wantInContent {
				if !strings.Contains(got.Content, w) {
					t.Errorf("load_skill(%q): content lacks %q:\n%s", tt.arg, w, got.Content)
				}
			}
			if got.Instructions == "" || strings.HasPrefix(got.Instructions, "---") {
				t.Errorf("load_skill(%q): got instructions %q, want the body without frontmatter", tt.arg, got.Instructions)
			}
			if inherits := strings.TrimSpace(got.Content) != strings.TrimSpace(got.Instructions); inherits != tt.inherits {
				t.Errorf("load_skill(%q): content differs from instructions: %v, want %v", tt.arg, inherits, tt.inherits)
			}
			files := map[string]SkillFile{}
			for _, f := range got.Files {
				files[f.Path] = f
			}
			for _, w := range tt.wantFiles {
				f, ok := files[w]
				if !ok {
					t.Errorf("load_skill(%q): files lack %q: %+v", tt.arg, w, got.Files)
					continue
				}
				if f.SizeBytes <= 0 || !strings.HasPrefix(f.Digest, "sha256:") {
					t.Errorf("load_skill(%q): file %q: got size %d digest %q", tt.arg, w, f.SizeBytes, f.Digest)
				}
			}
			if len(got.Frontmatter) == 0 {
				t.Errorf("load_skill(%q): empty frontmatter", tt.arg)
			}
			if got.Truncated || got.Message != "" {
				t.Errorf("load_skill(%q): got truncated %v message %q, want false and none", tt.arg, got.Truncated, got.Message)
			}
		})
	}

	t.Run("frontmatter verbatim", func(t *testing.T) {
		_, text := callTool(t, cs, "load_skill", map[string]any{"name": "pdf"})
		got := decode[LoadSkillOutput](t, text).Frontmatter
		want := map[string]any{
			"name":        "pdf",
			"description": "Fill, merge and split PDF files. Use when the task involves PDF forms or documents.",
			"license":     "MIT",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("frontmatter (-want +got):\n%s", diff)
		}
	})
}

func TestLoadSkillErrors(t *testing.T) {
	cs, _ := startGateway(t, newTestCatalog(t))
	tests := []struct {
		name     string
		args     any
		want     []string
		dontWant []string
	}{
		{
			name: "unknown name with suggestions",
			args: map[string]any{"name": "pfd"},
			want: []string{"Skill 'pfd' not found.", "Did you mean: pdf", "Use search_skills to find a skill for the task, or list_skills to see all skills."},
		},
		{
			name: "unknown path",
			args: map[string]any{"name": "no/such/skill-at-all"},
			want: []string{"Skill 'no/such/skill-at-all' not found.", "list_skills"},
		},
		{
			name:     "empty name",
			args:     map[string]any{"name": ""},
			want:     []string{"name is required", "search_skills", "list_skills"},
			dontWant: []string{"read_skill_file"},
		},
		{
			name: "blank name",
			args: map[string]any{"name": " \t "},
			want: []string{"name is required"},
		},
		{
			name: "missing name",
			args: map[string]any{},
			want: []string{"name"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, text := callTool(t, cs, "load_skill", tt.args)
			if !res.IsError {
				t.Fatalf("load_skill(%v): got a result, want isError: %s", tt.args, text)
			}
			if res.StructuredContent != nil {
				t.Errorf("load_skill(%v): error result has structuredContent %v", tt.args, res.StructuredContent)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("load_skill(%v): message %q lacks %q", tt.args, text, w)
				}
			}
			for _, w := range tt.dontWant {
				if strings.Contains(text, w) {
					t.Errorf("load_skill(%v): message %q has %q", tt.args, text, w)
				}
			}
		})
	}
}

func TestLoadSkillTruncation(t *testing.T) {
	cs, _ := startGateway(t, newTestCatalog(t))
	tests := []struct {
		name             string
		skill            string
		wantInstrWhole   bool
		wantMessageParts []string
	}{
		{
			name:             "body over the cap",
			skill:            "big",
			wantMessageParts: []string{"under 96 KiB", "instructions holds the first", "SKILL.md", "read_skill_file"},
		},
		{
			name:             "content repeats a body over half the cap",
			skill:            "medium",
			wantInstrWhole:   true,
			wantMessageParts: []string{"content holds the first", "content equals instructions"},
		},
		{
			name:             "inherited content over the cap",
			skill:            "ui/huge",
			wantInstrWhole:   true,
			wantMessageParts: []string{"content holds the first", "_root, ui/_index", "load_skill"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, text := callTool(t, cs, "load_skill", map[string]any{"name": tt.skill})
			if res.IsError {
				t.Fatalf("load_skill(%q): isError: %s", tt.skill, text)
			}
			got := decode[LoadSkillOutput](t, text)
			if !got.Truncated {
				t.Errorf("load_skill(%q): got truncated false, want true", tt.skill)
			}
			if n := len(got.Instructions) + len(got.Content); n > core.MaxTextBytes || n < core.MaxTextBytes-4 {
				t.Errorf("load_skill(%q): got %d bytes of text, want just under %d", tt.skill, n, core.MaxTextBytes)
			}
			if !utf8.ValidString(got.Instructions) || !utf8.ValidString(got.Content) {
				t.Errorf("load_skill(%q): text cut inside a UTF-8 sequence", tt.skill)
			}
			if whole := !strings.Contains(got.Message, "instructions holds the first"); whole != tt.wantInstrWhole {
				t.Errorf("load_skill(%q): instructions whole: got %v, want %v", tt.skill, whole, tt.wantInstrWhole)
			}
			for _, w := range tt.wantMessageParts {
				if !strings.Contains(got.Message, w) {
					t.Errorf("load_skill(%q): message %q lacks %q", tt.skill, got.Message, w)
				}
			}
			if len(text) > 120<<10 {
				t.Errorf("load_skill(%q): answer text is %d bytes, want the JSON of at most 96 KiB of text", tt.skill, len(text))
			}
		})
	}
}

func TestCapText(t *testing.T) {
	tests := []struct {
		name                string
		instructions        string
		content             string
		limit               int
		wantInstr, wantCont string
		wantCut             bool
	}{
		{name: "fits", instructions: "abc", content: "abc", limit: 6, wantInstr: "abc", wantCont: "abc"},
		{name: "content cut", instructions: "abc", content: "xyz", limit: 5, wantInstr: "abc", wantCont: "xy", wantCut: true},
		{name: "instructions cut", instructions: "abcdef", content: "xyz", limit: 4, wantInstr: "abcd", wantCont: "", wantCut: true},
		{name: "not inside a rune", instructions: "aé", content: "", limit: 2, wantInstr: "a", wantCont: "", wantCut: true},
		{name: "not inside a rune, content", instructions: "a", content: "日本", limit: 5, wantInstr: "a", wantCont: "日", wantCut: true},
		{name: "empty", limit: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i, c, cut := capText(tt.instructions, tt.content, tt.limit)
			if i != tt.wantInstr || c != tt.wantCont || cut != tt.wantCut {
				t.Errorf("capText(%q, %q, %d): got %q, %q, %v; want %q, %q, %v",
					tt.instructions, tt.content, tt.limit, i, c, cut, tt.wantInstr, tt.wantCont, tt.wantCut)
			}
		})
	}
}

func TestTruncationMessageNamesReadSkillFile(t *testing.T) {
	body := strings.Repeat("x", 100)
	resp := &skillsv1.GetSkillResponse{
		Skill:        &skillsv1.Skill{SkillPath: "big", Name: "big"},
		Instructions: body,
		Content:      body,
		Directory:    "/skills/big",
		File:         "/skills/big/SKILL.md",
		Files:        []*skillsv1.SkillFile{{Path: "SKILL.md", SizeBytes: 140}},
	}
	has := func(name string) bool { return name == core.ToolReadSkillFile }
	got := truncationMessage(resp, body[:60], "", has)
	want := `Read the rest with read_skill_file (skill_path "big", file "SKILL.md", offset 100)`
	if !strings.Contains(got, want) {
		t.Errorf("truncationMessage: got %q, want it to contain %q", got, want)
	}
}

func TestListSkills(t *testing.T) {
	cs, conn := startGateway(t, newTestCatalog(t))
	listed, err := skillsv1.NewCatalogServiceClient(conn).ListSkills(t.Context(), &skillsv1.ListSkillsRequest{PageSize: 1000})
	if err != nil {
		t.Fatalf("ListSkills: %v", err)
	}
	tests := []struct {
		name      string
		args      map[string]any
		wantCount int      // nodes, counted recursively
		wantPaths []string // some paths that must appear somewhere
		wantTop   []string // the top-level paths, when set
	}{
		{
			name:      "whole catalog",
			args:      map[string]any{},
			wantCount: int(listed.GetTotalSize()),
			wantPaths: []string{"pdf", "brand", "big", "medium", "_root", "ui/_index", "ui/react/auth", "ui/huge"},
		},
		{
			name:      "sub-tree by folder",
			args:      map[string]any{"path": "ui"},
			wantPaths: []string{"ui/react/auth", "ui/huge"},
		},
		{
			name:      "sub-tree by folder, trailing slash",
			args:      map[string]any{"path": "ui/"},
			wantPaths: []string{"ui/react/auth", "ui/huge"},
		},
		{
			name:      "sub-tree by skill path",
			args:      map[string]any{"path": "ui/_index"},
			wantCount: 3,
			wantTop:   []string{"ui/_index"},
			wantPaths: []string{"ui/react/auth", "ui/huge"},
		},
		{
			name:    "unknown branch",
			args:    map[string]any{"path": "no/such/branch"},
			wantTop: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, text := callTool(t, cs, "list_skills", tt.args)
			if res.IsError {
				t.Fatalf("list_skills(%v): isError: %s", tt.args, text)
			}
			got := decode[core.ListSkillsOutput](t, text)
			paths := map[string]core.SkillNode{}
			var walk func([]core.SkillNode)
			walk = func(ns []core.SkillNode) {
				for _, n := range ns {
					paths[n.Path] = n
					walk(n.Children)
				}
			}
			walk(got.Skills)
			if tt.wantCount > 0 && len(paths) != tt.wantCount {
				t.Errorf("list_skills(%v): got %d nodes, want %d", tt.args, len(paths), tt.wantCount)
			}
			for _, p := range tt.wantPaths {
				if _, ok := paths[p]; !ok {
					t.Errorf("list_skills(%v): no node %q in %s", tt.args, p, text)
				}
			}
			if tt.wantTop != nil {
				top := []string{}
				for _, n := range got.Skills {
					top = append(top, n.Path)
				}
				if diff := cmp.Diff(tt.wantTop, top); diff != "" {
					t.Errorf("list_skills(%v): top-level paths (-want +got):\n%s", tt.args, diff)
				}
			}
			if sub, ok := tt.args["path"].(string); ok {
				prefix := strings.Trim(sub, "/")
				for p := range paths {
					if p != prefix && !strings.HasPrefix(p, prefix+"/") && !strings.HasPrefix(p, path.Dir(prefix)+"/") {
						t.Errorf("list_skills(%v): node %q is outside the sub-tree", tt.args, p)
					}
				}
			}
		})
	}

	t.Run("invalid path", func(t *testing.T) {
		res, text := callTool(t, cs, "list_skills", map[string]any{"path": `ui\react`})
		if !res.IsError || !strings.Contains(text, "Correct the arguments") {
			t.Errorf("list_skills(`ui\\react`): got isError %v, %q; want an invalid-argument error", res.IsError, text)
		}
	})

	t.Run("node fields", func(t *testing.T) {
		_, text := callTool(t, cs, "list_skills", map[string]any{})
		var raw map[string]any
		if err := json.Unmarshal([]byte(text), &raw); err != nil {
			t.Fatal(err)
		}
		find := func(path string) map[string]any {
			var walk func([]any) map[string]any
			walk = func(ns []any) map[string]any {
				for _, n := range ns {
					m := n.(map[string]any)
					if m["path"] == path {
						return m
					}
					if f := walk(m["children"].([]any)); f != nil {
						return f
					}
				}
				return nil
			}
			return walk(raw["skills"].([]any))
		}
		auth := find("ui/react/auth")
		want := map[string]any{
			"name":        "ui/react/auth",
			"path":        "ui/react/auth",
			"description": "React authentication components and patterns",
			"keywords":    []any{"react", "auth", "login"},
			"assetCount":  float64(1),
			"scriptCount": float64(0),
			"children":    []any{},
		}
		if diff := cmp.Diff(want, auth); diff != "" {
			t.Errorf("node ui/react/auth (-want +got):\n%s", diff)
		}
		pdf := find("pdf")
		if kw, ok := pdf["keywords"].([]any); !ok || len(kw) != 0 {
			t.Errorf("node pdf: got keywords %#v, want []", pdf["keywords"])
		}
	})
}

func TestEmptyCatalog(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "does-not-exist")
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{missing}})
	cs := connectClient(t, conn)
	res, text := callTool(t, cs, "list_skills", map[string]any{})
	if res.IsError {
		t.Fatalf("list_skills: isError: %s", text)
	}
	if got, want := text, `{"skills":[]}`; got != want {
		t.Errorf("list_skills on an empty catalog: got %s, want %s", got, want)
	}
	res, text = callTool(t, cs, "load_skill", map[string]any{"name": "pdf"})
	if !res.IsError || !strings.Contains(text, "Skill 'pdf' not found.") {
		t.Errorf("load_skill on an empty catalog: got isError %v, %q; want a not-found error", res.IsError, text)
	}
}
