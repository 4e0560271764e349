package contract

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw"
	"github.com/skillsd/skillsd/gateways/rest/restgw"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// The content scenarios (seed 003: agents and docs) run on gRPC
// (ContentService), REST (GET /v1/agents, GET /v1/agents/{name}, GET
// /v1/docs, POST /v1/docs:get) and MCP through the github-worker profile
// (list_agents, get_agent, list_docs, get_doc: the native tool set has no
// content tools). Each surface's answer becomes a ContentOutcome; all must
// equal testdata/golden/content-<name>.json, written from gRPC.

// ContentOutcome is a surface-neutral answer of a content operation.
type ContentOutcome struct {
	Agents []AgentEntry    `json:"agents,omitzero"`
	Text   *ContentText    `json:"text,omitempty"`
	Docs   map[string]any  `json:"docs,omitempty"`
	Error  *ContentFailure `json:"error,omitempty"`
}

// AgentEntry is one listed agent (REQ-AGENT-001's fields).
type AgentEntry struct {
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	Model        string   `json:"model"`
	AllowedTools []string `json:"allowed_tools"`
}

// ContentText is a get answer: an agent profile (name set) or a page
// (file_path set).
type ContentText struct {
	Name     string `json:"name,omitempty"`
	Path     string `json:"path"`
	Content  string `json:"content"`
	FilePath string `json:"file_path,omitempty"`
	SHA      string `json:"sha"`
}

// ContentFailure is an error in seed 003's vocabulary (REQ-ERR-002).
type ContentFailure struct {
	Code string `json:"code"`
}

// contentSurface performs the content operations on one surface.
type contentSurface interface {
	name() string
	listAgents(t *testing.T) ContentOutcome
	getAgent(t *testing.T, name string) ContentOutcome
	listDocs(t *testing.T) ContentOutcome
	getDoc(t *testing.T, path []string) ContentOutcome
}

type contentScenario struct {
	name  string
	run   func(t *testing.T, s contentSurface) ContentOutcome
	check func(t *testing.T, o ContentOutcome)
}

func contentFixture() string { return filepath.Join("testdata", "content") }

// wantContentFile is a fixture file's text.
func wantContentFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(contentFixture(), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var contentScenarios = []contentScenario{
	{
		name: "list-agents",
		run:  func(t *testing.T, s contentSurface) ContentOutcome { return s.listAgents(t) },
		check: func(t *testing.T, o ContentOutcome) {
			want := []AgentEntry{
				{Name: "code-reviewer", Description: "Reviews a diff for bugs, security problems and missing tests.", Model: "sonnet", AllowedTools: []string{"Read", "Grep", "Glob"}},
				{Name: "release-manager", Description: "Prepares a release — changelog, version bump, tag.", AllowedTools: []string{"Bash(git:*)", "Read"}},
				{Name: "scratch", AllowedTools: []string{}},
			}
			if diff := cmp.Diff(want, o.Agents); diff != "" {
				t.Errorf("agents (-want +got):\n%s", diff)
			}
		},
	},
	{
		name: "get-agent",
		run:  func(t *testing.T, s contentSurface) ContentOutcome { return s.getAgent(t, "code-reviewer") },
		check: func(t *testing.T, o ContentOutcome) {
			if o.Text == nil || o.Text.Content != wantContentFile(t, "agents/code-reviewer.md") || o.Text.Path != "agents/code-reviewer.md" || o.Text.Name != "code-reviewer" {
				t.Errorf("get_agent: %+v", o)
			}
		},
	},
	{
		name: "get-agent-without-frontmatter",
		run:  func(t *testing.T, s contentSurface) ContentOutcome { return s.getAgent(t, "scratch") },
		check: func(t *testing.T, o ContentOutcome) {
			if o.Text == nil || o.Text.Name != "scratch" || o.Text.Content != wantContentFile(t, "agents/scratch.md") {
				t.Errorf("get_agent: %+v", o)
			}
		},
	},
	{
		name: "get-agent-not-found",
		run:  func(t *testing.T, s contentSurface) ContentOutcome { return s.getAgent(t, "ghost") },
		check: func(t *testing.T, o ContentOutcome) {
			if o.Error == nil || o.Error.Code != "NOT_FOUND" {
				t.Errorf("want NOT_FOUND, got %+v", o)
			}
		},
	},
	{
		name: "get-agent-traversal",
		run:  func(t *testing.T, s contentSurface) ContentOutcome { return s.getAgent(t, "..secrets") },
		check: func(t *testing.T, o ContentOutcome) {
			if o.Error == nil || o.Error.Code != "INVALID_PATH" {
				t.Errorf("want INVALID_PATH, got %+v", o)
			}
		},
	},
	{
		name: "list-docs",
		run:  func(t *testing.T, s contentSurface) ContentOutcome { return s.listDocs(t) },
		check: func(t *testing.T, o ContentOutcome) {
			want := map[string]any{
				"index":     "The engineering handbook.",
				"guides":    map[string]any{"index": "How we work.", "onboarding": "Your first week.", "deploy": "Deploying"},
				"reference": map[string]any{"index": "Reference material.", "api": "The HTTP API."},
			}
			if diff := cmp.Diff(want, o.Docs); diff != "" {
				t.Errorf("docs tree (-want +got):\n%s", diff)
			}
		},
	},
	{
		name: "get-doc-section-index",
		run:  func(t *testing.T, s contentSurface) ContentOutcome { return s.getDoc(t, []string{"guides"}) },
		check: func(t *testing.T, o ContentOutcome) {
			if o.Text == nil || o.Text.FilePath != "docs/guides/index.md" || o.Text.Content != wantContentFile(t, "docs/guides/index.md") || o.Text.Path != "guides" {
				t.Errorf("get_doc: %+v", o)
			}
		},
	},
	{
		name: "get-doc-mdx",
		run: func(t *testing.T, s contentSurface) ContentOutcome {
			return s.getDoc(t, []string{"guides", "onboarding"})
		},
		check: func(t *testing.T, o ContentOutcome) {
			if o.Text == nil || o.Text.FilePath != "docs/guides/onboarding.mdx" || !strings.Contains(o.Text.Content, "<Steps>") {
				t.Errorf("get_doc: %+v", o)
			}
		},
	},
	{
		name: "get-doc-md-fallback",
		run:  func(t *testing.T, s contentSurface) ContentOutcome { return s.getDoc(t, []string{"reference"}) },
		check: func(t *testing.T, o ContentOutcome) {
			if o.Text == nil || o.Text.FilePath != "docs/reference.md" {
				t.Errorf("get_doc: %+v", o)
			}
		},
	},
	{
		name: "get-doc-not-found",
		run:  func(t *testing.T, s contentSurface) ContentOutcome { return s.getDoc(t, []string{"guides", "nope"}) },
		check: func(t *testing.T, o ContentOutcome) {
			if o.Error == nil || o.Error.Code != "NOT_FOUND" {
				t.Errorf("want NOT_FOUND, got %+v", o)
			}
		},
	},
	{
		name: "get-doc-traversal",
		run:  func(t *testing.T, s contentSurface) ContentOutcome { return s.getDoc(t, []string{"guides", ".."}) },
		check: func(t *testing.T, o ContentOutcome) {
			if o.Error == nil || o.Error.Code != "INVALID_PATH" {
				t.Errorf("want INVALID_PATH, got %+v", o)
			}
		},
	},
	{
		name: "get-doc-backslash",
		run:  func(t *testing.T, s contentSurface) ContentOutcome { return s.getDoc(t, []string{`guides\deploy`}) },
		check: func(t *testing.T, o ContentOutcome) {
			if o.Error == nil || o.Error.Code != "INVALID_PATH" {
				t.Errorf("want INVALID_PATH, got %+v", o)
			}
		},
	},
	{
		name: "get-doc-absolute",
		run:  func(t *testing.T, s contentSurface) ContentOutcome { return s.getDoc(t, []string{"/etc", "passwd"}) },
		check: func(t *testing.T, o ContentOutcome) {
			if o.Error == nil || o.Error.Code != "INVALID_PATH" {
				t.Errorf("want INVALID_PATH, got %+v", o)
			}
		},
	},
}

func TestContentContract(t *testing.T) {
	root, err := filepath.Abs(contentFixture())
	if err != nil {
		t.Fatal(err)
	}
	conn := skillstest.Start(t, skillsd.Options{
		SkillsDirs: []string{catalogDir(t, fixture)},
		AgentsDir:  filepath.Join(root, "agents"),
		DocsDir:    filepath.Join(root, "docs"),
	})
	for _, tr := range []transport{inMemory, loopback} {
		surfaces := []contentSurface{grpcContent{skillsv1.NewContentServiceClient(conn)}, newRESTContent(t, conn, tr), newMCPContent(t, conn, tr)}
		for _, sc := range contentScenarios {
			t.Run(sc.name, func(t *testing.T) {
				var ref ContentOutcome
				for i, s := range surfaces {
					got := roundTrip(t, sc.run(t, s))
					sc.check(t, got)
					if i == 0 {
						ref = got
						golden := "content-" + sc.name
						if *update && tr == inMemory {
							writeContentGolden(t, golden, got)
						}
						if diff := cmp.Diff(readContentGolden(t, golden), got); diff != "" {
							t.Errorf("%s differs from %s (-golden +got):\n%s", s.name(), goldenPath(golden), diff)
						}
						continue
					}
					if diff := cmp.Diff(ref, got); diff != "" {
						t.Errorf("%s differs from gRPC (-grpc +%s):\n%s", s.name(), s.name(), diff)
					}
				}
			})
		}
	}
}

// roundTrip normalises an outcome through JSON (tree values become the same
// Go types on every surface).
func roundTrip(t *testing.T, o ContentOutcome) ContentOutcome {
	t.Helper()
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var out ContentOutcome
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func readContentGolden(t *testing.T, name string) ContentOutcome {
	t.Helper()
	b, err := os.ReadFile(goldenPath(name))
	if err != nil {
		t.Fatalf("reading the golden file (run go test ./contract -update to create it): %v", err)
	}
	var o ContentOutcome
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		t.Fatalf("decoding %s: %v", goldenPath(name), err)
	}
	return o
}

func writeContentGolden(t *testing.T, name string, o ContentOutcome) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(o); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goldenPath(name), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// grpcContent calls ContentService.
type grpcContent struct{ c skillsv1.ContentServiceClient }

func (grpcContent) name() string { return "grpc" }

func grpcContentFailure(err error) ContentOutcome {
	st := status.Convert(err)
	code := strings.ToUpper(st.Code().String())
	switch st.Code() {
	case codes.NotFound:
		code = "NOT_FOUND"
	case codes.InvalidArgument:
		code = "INVALID_ARGUMENT"
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetReason() == "INVALID_PATH" {
			code = "INVALID_PATH"
		}
	}
	return ContentOutcome{Error: &ContentFailure{Code: code}}
}

func (g grpcContent) listAgents(t *testing.T) ContentOutcome {
	resp, err := g.c.ListAgents(t.Context(), &skillsv1.ListAgentsRequest{})
	if err != nil {
		return grpcContentFailure(err)
	}
	out := []AgentEntry{}
	for _, a := range resp.GetAgents() {
		tools := a.GetAllowedTools()
		if tools == nil {
			tools = []string{}
		}
		out = append(out, AgentEntry{Name: a.GetName(), Description: a.GetDescription(), Model: a.GetModel(), AllowedTools: tools})
	}
	return ContentOutcome{Agents: out}
}

func (g grpcContent) getAgent(t *testing.T, name string) ContentOutcome {
	resp, err := g.c.GetAgent(t.Context(), &skillsv1.GetAgentRequest{Name: name})
	if err != nil {
		return grpcContentFailure(err)
	}
	return ContentOutcome{Text: &ContentText{Name: resp.GetName(), Path: resp.GetPath(), Content: resp.GetContent(), SHA: resp.GetSha()}}
}

func (g grpcContent) listDocs(t *testing.T) ContentOutcome {
	resp, err := g.c.ListDocs(t.Context(), &skillsv1.ListDocsRequest{})
	if err != nil {
		return grpcContentFailure(err)
	}
	return ContentOutcome{Docs: resp.GetTree().AsMap()}
}

func (g grpcContent) getDoc(t *testing.T, path []string) ContentOutcome {
	resp, err := g.c.GetDoc(t.Context(), &skillsv1.GetDocRequest{Path: path})
	if err != nil {
		return grpcContentFailure(err)
	}
	return ContentOutcome{Text: &ContentText{Path: resp.GetPath(), Content: resp.GetContent(), FilePath: resp.GetFilePath(), SHA: resp.GetSha()}}
}

// restContent calls the REST routes of ContentService through restgw.
type restContent struct {
	client *http.Client
	base   string
}

func newRESTContent(t *testing.T, conn *grpc.ClientConn, tr transport) *restContent {
	t.Helper()
	h, err := restgw.New(t.Context(), conn, restgw.Options{})
	if err != nil {
		t.Fatalf("restgw.New: %v", err)
	}
	if tr == loopback {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return &restContent{client: srv.Client(), base: srv.URL}
	}
	return &restContent{client: &http.Client{Transport: handlerTransport{h}}, base: "http://rest.test"}
}

func (*restContent) name() string { return "rest" }

// do sends a request and decodes the JSON answer; ok false means an error
// answer, already converted.
func (r *restContent) do(t *testing.T, method, path, body string, into any) (ContentOutcome, bool) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), method, r.base+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := r.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error struct {
				Code    string            `json:"code"`
				Details map[string]string `json:"details"`
			} `json:"error"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
		}
		code := e.Error.Code
		if code != "INVALID_PATH" {
			switch e.Error.Details["grpc_code"] {
			case "NotFound":
				code = "NOT_FOUND"
			case "InvalidArgument":
				code = "INVALID_ARGUMENT"
			}
		}
		wantStatus := map[string]int{"NOT_FOUND": 404, "INVALID_PATH": 400, "INVALID_ARGUMENT": 400}[code]
		if wantStatus != 0 && resp.StatusCode != wantStatus {
			t.Errorf("%s %s: HTTP %d for %s, want %d", method, path, resp.StatusCode, code, wantStatus)
		}
		return ContentOutcome{Error: &ContentFailure{Code: code}}, false
	}
	if err := json.Unmarshal(raw, into); err != nil {
		t.Fatalf("%s %s: %v\n%s", method, path, err, raw)
	}
	return ContentOutcome{}, true
}

func (r *restContent) listAgents(t *testing.T) ContentOutcome {
	var resp struct {
		Agents []struct {
			Name         string   `json:"name"`
			Description  string   `json:"description"`
			Model        string   `json:"model"`
			AllowedTools []string `json:"allowed_tools"`
		} `json:"agents"`
	}
	if o, ok := r.do(t, http.MethodGet, "/v1/agents", "", &resp); !ok {
		return o
	}
	if resp.Agents == nil {
		t.Errorf("GET /v1/agents: agents is null, want a list")
	}
	out := []AgentEntry{}
	for _, a := range resp.Agents {
		if a.AllowedTools == nil {
			t.Errorf("GET /v1/agents: %s: allowed_tools is null, want a list", a.Name)
			a.AllowedTools = []string{}
		}
		out = append(out, AgentEntry(a))
	}
	return ContentOutcome{Agents: out}
}

func (r *restContent) getAgent(t *testing.T, name string) ContentOutcome {
	var resp ContentText
	if o, ok := r.do(t, http.MethodGet, "/v1/agents/"+url.PathEscape(name), "", &resp); !ok {
		return o
	}
	return ContentOutcome{Text: &resp}
}

func (r *restContent) listDocs(t *testing.T) ContentOutcome {
	var resp struct {
		Tree  map[string]any `json:"tree"`
		Pages []any          `json:"pages"`
	}
	if o, ok := r.do(t, http.MethodGet, "/v1/docs", "", &resp); !ok {
		return o
	}
	if len(resp.Pages) == 0 {
		t.Errorf("GET /v1/docs: no pages")
	}
	return ContentOutcome{Docs: resp.Tree}
}

func (r *restContent) getDoc(t *testing.T, path []string) ContentOutcome {
	body, _ := json.Marshal(map[string]any{"path": path})
	var resp ContentText
	if o, ok := r.do(t, http.MethodPost, "/v1/docs:get", string(body), &resp); !ok {
		return o
	}
	return ContentOutcome{Text: &resp}
}

// mcpContent calls the github-worker profile's content tools.
type mcpContent struct{ session *mcp.ClientSession }

func newMCPContent(t *testing.T, conn *grpc.ClientConn, tr transport) *mcpContent {
	t.Helper()
	server, err := mcpgw.New(conn, mcpgw.Options{Profile: mcpgw.ProfileGitHubWorker})
	if err != nil {
		t.Fatalf("mcpgw.New: %v", err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "contract-test", Version: "v0.0.0"}, nil)
	var ct mcp.Transport
	if tr == loopback {
		srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
		t.Cleanup(srv.Close)
		ct = &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: srv.Client(), MaxRetries: -1, DisableStandaloneSSE: true}
	} else {
		st, cliT := mcp.NewInMemoryTransports()
		ss, err := server.Connect(t.Context(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ss.Close() })
		ct = cliT
	}
	cs, err := client.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return &mcpContent{session: cs}
}

func (*mcpContent) name() string { return "mcp" }

// call calls a tool; ok false means an error result, already converted.
func (m *mcpContent) call(t *testing.T, tool string, args map[string]any, into any) (ContentOutcome, bool) {
	t.Helper()
	res, err := m.session.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content items", tool, len(res.Content))
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		var e struct {
			Error struct {
				Code    string         `json:"code"`
				Message string         `json:"message"`
				Details map[string]any `json:"details"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(text), &e); err != nil || e.Error.Message == "" || e.Error.Details == nil {
			t.Errorf("%s: error %q is not {error: {code, message, details}}", tool, text)
		}
		return ContentOutcome{Error: &ContentFailure{Code: e.Error.Code}}, false
	}
	if err := json.Unmarshal([]byte(text), into); err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, text)
	}
	return ContentOutcome{}, true
}

func (m *mcpContent) listAgents(t *testing.T) ContentOutcome {
	var resp []struct {
		Name         string   `json:"name"`
		Description  *string  `json:"description"`
		Model        *string  `json:"model"`
		AllowedTools []string `json:"allowedTools"`
	}
	if o, ok := m.call(t, "list_agents", map[string]any{}, &resp); !ok {
		return o
	}
	out := []AgentEntry{}
	for _, a := range resp {
		e := AgentEntry{Name: a.Name, AllowedTools: a.AllowedTools}
		if a.Description != nil {
			e.Description = *a.Description
		}
		if a.Model != nil {
			e.Model = *a.Model
		}
		out = append(out, e)
	}
	return ContentOutcome{Agents: out}
}

func (m *mcpContent) getAgent(t *testing.T, name string) ContentOutcome {
	var resp ContentText
	if o, ok := m.call(t, "get_agent", map[string]any{"name": name}, &resp); !ok {
		return o
	}
	return ContentOutcome{Text: &resp}
}

func (m *mcpContent) listDocs(t *testing.T) ContentOutcome {
	var tree map[string]any
	if o, ok := m.call(t, "list_docs", map[string]any{}, &tree); !ok {
		return o
	}
	return ContentOutcome{Docs: tree}
}

func (m *mcpContent) getDoc(t *testing.T, path []string) ContentOutcome {
	var resp struct {
		Path     string `json:"path"`
		Content  string `json:"content"`
		FilePath string `json:"filePath"`
		SHA      string `json:"sha"`
	}
	if o, ok := m.call(t, "get_doc", map[string]any{"path": path}, &resp); !ok {
		return o
	}
	return ContentOutcome{Text: &ContentText{Path: resp.Path, Content: resp.Content, FilePath: resp.FilePath, SHA: resp.SHA}}
}
