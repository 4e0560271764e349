package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// nodeTimeout bounds one run of the Node client.
const nodeTimeout = 3 * time.Minute

// nodeDoc is what node/mcp-client.mjs prints.
type nodeDoc struct {
	Transport  string `json:"transport"`
	ServerInfo *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
	Instructions *string    `json:"instructions"`
	Tools        []nodeTool `json:"tools"`
	List         nodeCall   `json:"list"`
	Branches     []nodeCall `json:"branches"`
	Loads        []nodeCall `json:"loads"`
	Unknown      *nodeCall  `json:"unknown"`
	CloseMs      int        `json:"closeMs"`
}

// nodeTool is one tool of tools/list.
type nodeTool struct {
	Name         string         `json:"name"`
	Description  string         `json:"description"`
	InputSchema  map[string]any `json:"inputSchema"`
	OutputSchema map[string]any `json:"outputSchema"`
}

// nodeCall is one tool call as the Node client saw it.
type nodeCall struct {
	Name              string          `json:"name"`
	Arguments         map[string]any  `json:"arguments"`
	IsError           bool            `json:"isError"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	Text              string          `json:"text"`
	ContentTypes      []string        `json:"contentTypes"`
	Error             string          `json:"error"`
}

// listAnswer is list_skills' structuredContent.
type listAnswer struct {
	Skills    []listNode `json:"skills"`
	Truncated bool       `json:"truncated"`
	Message   string     `json:"message"`
}

type listNode struct {
	Path     string     `json:"path"`
	Children []listNode `json:"children"`
}

// loadAnswer is load_skill's structuredContent (the fields checked here).
type loadAnswer struct {
	Name        string          `json:"name"`
	SkillPath   string          `json:"skill_path"`
	Content     string          `json:"content"`
	Directory   string          `json:"directory"`
	Files       json.RawMessage `json:"files"`
	Frontmatter json.RawMessage `json:"frontmatter"`
	Truncated   bool            `json:"truncated"`
}

// requireNode returns the node command and the client script, or skips
// (fails under CI=true) when node or the pinned packages are missing.
func requireNode(t *testing.T) (node, script string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		missingTool(t, "node is not installed: the MCP end-to-end tests need Node.js and `make npm-deps`")
	}
	dir := filepath.Join(repoRoot(t), "tests", "e2e", "node")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		missingTool(t, "tests/e2e/node/node_modules is missing: run `make npm-deps`")
	}
	return node, filepath.Join(dir, "mcp-client.mjs")
}

// runNode runs the Node client with args and decodes its document. The
// client runs in its own process group: whatever it spawned and left
// behind is reported and killed.
func runNode(t *testing.T, node, script string, args ...string) *nodeDoc {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), nodeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Env = cleanEnv(t)
	cmd.Dir = filepath.Dir(script)
	ownGroup(cmd)
	cmd.Cancel = func() error { killGroup(cmd); return nil }
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if groupAlive(cmd) {
		t.Errorf("node client: a process it started is still running after it exited; killing it")
	}
	killGroup(cmd)
	if err != nil {
		t.Fatalf("node %s: %v\nstderr:\n%s", strings.Join(args, " "), err, tail(stderr.String(), 4000))
	}
	var doc nodeDoc
	if err := json.Unmarshal([]byte(stdout.String()), &doc); err != nil {
		t.Fatalf("node client: decoding its output: %v\nstdout: %s\nstderr:\n%s", err, tail(stdout.String(), 2000), tail(stderr.String(), 4000))
	}
	if t.Failed() {
		t.Logf("node client stderr:\n%s", tail(stderr.String(), 4000))
	}
	return &doc
}

// TestMCPWithNodeSDK drives skills-mcp with the official TypeScript MCP SDK,
// over stdio (the SDK spawns the binary) and over Streamable HTTP (the test
// starts skills-mcp --http), on the demo catalog and on the bench corpus.
func TestMCPWithNodeSDK(t *testing.T) {
	skipShort(t)
	node, script := requireNode(t)
	root := repoRoot(t)
	catalogs := []struct {
		name string
		dir  string
	}{
		{"examples", filepath.Join(root, "examples", "skills")},
		{"bench-corpus", filepath.Join(root, "..", "shared", "bench", "corpus")},
	}
	for _, c := range catalogs {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Stat(c.dir); err != nil {
				t.Skipf("%s is not present: %v", c.dir, err)
			}
			want := catalogPaths(t, c.dir)
			if len(want) == 0 {
				t.Fatalf("catalog %s: the service lists no skill", c.dir)
			}
			// Loads: SKILL.md folders found on disk (5 spread across them),
			// and 2 skills sampled by the client from list_skills (the seed-000
			// files of examples/ among them).
			folders := skillFolders(t, c.dir)
			if c.name == "bench-corpus" {
				if got := len(want); got != len(folders) {
					t.Errorf("catalog: got %d skills, want %d (one per SKILL.md)", got, len(folders))
				}
			}
			loads := spread(folders, 5)
			args := []string{"--sample", "2", "--unknown", "zz-no-such-skill"}
			for _, l := range loads {
				args = append(args, "--load", l)
			}
			for _, b := range topFolders(t, c.dir) {
				args = append(args, "--list-path", b)
			}
			mcp := binary(t, "skills-mcp")

			t.Run("stdio", func(t *testing.T) {
				doc := runNode(t, node, script, append([]string{"--stdio", mcp, "--arg", "--skills-dir", "--arg", c.dir}, args...)...)
				checkNodeDoc(t, doc, want, loads)
				// The SDK ends the server's stdin, waits 2 s, then signals it.
				if doc.CloseMs >= 2000 {
					t.Errorf("closing: took %d ms, want skills-mcp to exit by itself when its stdin closes (< 2000 ms)", doc.CloseMs)
				}
			})
			t.Run("streamable-http", func(t *testing.T) {
				_, addr := startOnFreePort(t, mcp,
					func(addr string) []string { return []string{"--http", addr, "--skills-dir", c.dir} },
					httpReady("/readyz"))
				doc := runNode(t, node, script, append([]string{"--url", "http://" + addr + "/mcp"}, args...)...)
				checkNodeDoc(t, doc, want, loads)
			})
		})
	}
}

// httpReady returns a readiness check: GET path answers 200.
func httpReady(path string) func(ctx context.Context, addr string) error {
	return func(ctx context.Context, addr string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: status %d", path, resp.StatusCode)
		}
		return nil
	}
}

// checkNodeDoc asserts what the Node client got: the server's identity, both
// tools with schemas, the whole catalog through list_skills, each load, and
// an error result for an unknown skill.
func checkNodeDoc(t *testing.T, doc *nodeDoc, want, loads []string) {
	t.Helper()
	if doc.ServerInfo == nil || doc.ServerInfo.Name != "skillsd" || doc.ServerInfo.Version == "" {
		t.Errorf("serverInfo: got %+v, want name skillsd and a version", doc.ServerInfo)
	}
	if doc.Instructions == nil || !strings.Contains(*doc.Instructions, "load_skill") {
		t.Errorf("instructions: got %v, want text naming load_skill", doc.Instructions)
	}
	checkTools(t, doc)

	list := decodeCall[listAnswer](t, doc.List)
	got := paths(list.Skills)
	if list.Truncated {
		// A bounded answer: its message gives the total, and each top-level
		// branch, listed on its own, has all its skills.
		if !strings.Contains(list.Message, fmt.Sprintf("%d skills", len(want))) {
			t.Errorf("list_skills: truncated with message %q, want it to give the total %d", list.Message, len(want))
		}
		t.Logf("list_skills: whole catalog bounded to %d of %d skills (%s); listing each top-level branch", len(got), len(want), list.Message)
		got = nil
		for _, b := range doc.Branches {
			branch := decodeCall[listAnswer](t, b)
			if branch.Truncated && !strings.HasPrefix(branch.Message, "All ") {
				t.Errorf("list_skills %v: skills left out (%s)", b.Arguments, branch.Message)
			}
			got = append(got, paths(branch.Skills)...)
		}
	}
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("list_skills: skill paths differ from the service's tree (-want +got):\n%s", diff)
	}

	if len(doc.Loads) != len(loads)+2 {
		t.Fatalf("load_skill: got %d calls, want %d", len(doc.Loads), len(loads)+2)
	}
	for i, call := range doc.Loads {
		l := decodeCall[loadAnswer](t, call)
		asked, _ := call.Arguments["name"].(string)
		if i < len(loads) && l.SkillPath != asked {
			t.Errorf("load_skill %q: skill_path: got %q, want %q", asked, l.SkillPath, asked)
		}
		if !slices.Contains(want, l.SkillPath) {
			t.Errorf("load_skill %q: skill_path %q is not in the catalog", asked, l.SkillPath)
		}
		// directory is empty for a seed-000 file without a resource folder.
		if strings.TrimSpace(l.Content) == "" || l.Name == "" || (l.Directory != "" && !filepath.IsAbs(l.Directory)) {
			t.Errorf("load_skill %q: got name %q, directory %q, %d bytes of content; want a name, an absolute directory or none, and content", asked, l.Name, l.Directory, len(l.Content))
		}
		if !strings.HasPrefix(string(l.Files), "[") || !strings.HasPrefix(string(l.Frontmatter), "{") {
			t.Errorf("load_skill %q: files %.40s, frontmatter %.40s; want a list and an object", asked, l.Files, l.Frontmatter)
		}
	}

	switch u := doc.Unknown; {
	case u == nil:
		t.Errorf("unknown skill: no call")
	case u.Error != "":
		t.Errorf("unknown skill: protocol error %q, want a tool result with isError", u.Error)
	case !u.IsError || !strings.Contains(u.Text, "zz-no-such-skill"):
		t.Errorf("unknown skill: got isError %v, text %q; want isError true and a text naming it", u.IsError, u.Text)
	}
}

// checkTools asserts both tools are listed with input and output schemas.
func checkTools(t *testing.T, doc *nodeDoc) {
	t.Helper()
	required := map[string]string{"load_skill": "name", "list_skills": ""}
	for name, field := range required {
		i := slices.IndexFunc(doc.Tools, func(x nodeTool) bool { return x.Name == name })
		if i < 0 {
			t.Errorf("tools/list: no %s among %d tools", name, len(doc.Tools))
			continue
		}
		tool := doc.Tools[i]
		if tool.Description == "" || tool.InputSchema["type"] != "object" || tool.OutputSchema["type"] != "object" {
			t.Errorf("tools/list %s: description %q, input schema type %v, output schema type %v; want a description and object schemas",
				name, tool.Description, tool.InputSchema["type"], tool.OutputSchema["type"])
		}
		if field != "" {
			req, _ := tool.InputSchema["required"].([]any)
			if !slices.Contains(req, any(field)) {
				t.Errorf("tools/list %s: input schema requires %v, want %q among them", name, req, field)
			}
		}
	}
}

// decodeCall checks a successful tool call (no protocol error, no isError,
// text content only, the text equal as JSON to structuredContent) and
// decodes its structuredContent.
func decodeCall[T any](t *testing.T, c nodeCall) T {
	t.Helper()
	var out T
	if c.Error != "" || c.IsError {
		t.Errorf("%s %v: got error %q (isError %v, text %q), want a result", c.Name, c.Arguments, c.Error, c.IsError, c.Text)
		return out
	}
	if !slices.Equal(c.ContentTypes, []string{"text"}) {
		t.Errorf("%s %v: content types: got %v, want [text]", c.Name, c.Arguments, c.ContentTypes)
	}
	var structured, text any
	if err := json.Unmarshal(c.StructuredContent, &structured); err != nil || structured == nil {
		t.Errorf("%s %v: structuredContent %.80s: want a JSON object (%v)", c.Name, c.Arguments, c.StructuredContent, err)
		return out
	}
	if err := json.Unmarshal([]byte(c.Text), &text); err != nil {
		t.Errorf("%s %v: text content is not JSON: %v", c.Name, c.Arguments, err)
	} else if diff := cmp.Diff(structured, text); diff != "" {
		t.Errorf("%s %v: text content differs from structuredContent (-structured +text):\n%s", c.Name, c.Arguments, diff)
	}
	if err := json.Unmarshal(c.StructuredContent, &out); err != nil {
		t.Errorf("%s %v: decoding structuredContent: %v", c.Name, c.Arguments, err)
	}
	return out
}

func paths(nodes []listNode) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.Path)
		out = append(out, paths(n.Children)...)
	}
	return out
}

// catalogPaths is every skill path of the catalog in dir, sorted, as an
// in-process service (the library the binaries wrap) gives its tree.
func catalogPaths(t *testing.T, dir string) []string {
	t.Helper()
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{dir}})
	resp, err := skillsv1.NewCatalogServiceClient(conn).GetSkillTree(t.Context(), &skillsv1.GetSkillTreeRequest{})
	if err != nil {
		t.Fatalf("GetSkillTree: %v", err)
	}
	var walk func([]*skillsv1.SkillNode) []string
	walk = func(ns []*skillsv1.SkillNode) []string {
		var out []string
		for _, n := range ns {
			out = append(out, n.GetPath())
			out = append(out, walk(n.GetChildren())...)
		}
		return out
	}
	out := walk(resp.GetSkills())
	slices.Sort(out)
	return out
}

// skillFolders lists the folders under dir holding a SKILL.md, as skill
// paths, sorted.
func skillFolders(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == "SKILL.md" {
			rel, err := filepath.Rel(dir, filepath.Dir(p))
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// topFolders lists the folders directly under dir.
func topFolders(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}

// spread picks n items spread evenly across items (all of them when fewer).
func spread(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, items[i*len(items)/n])
	}
	return out
}
