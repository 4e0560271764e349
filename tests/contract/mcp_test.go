package contract

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw"
)

// mcpSurface calls the MCP gateway's tools (mcpgw over the same gRPC
// connection) through a real go-sdk client session: load_skill, list_skills,
// search_skills and get_skill.
type mcpSurface struct {
	session *mcp.ClientSession
}

func newMCPSurface(t *testing.T, conn *grpc.ClientConn, tr transport) *mcpSurface {
	t.Helper()
	server, err := mcpgw.New(conn, mcpgw.Options{})
	if err != nil {
		t.Fatalf("mcpgw.New: %v", err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "contract-test", Version: "v0.0.0"}, nil)
	var ct mcp.Transport
	switch tr {
	case loopback:
		// Streamable HTTP on loopback, as skills-mcp --http serves it.
		srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
		t.Cleanup(srv.Close)
		ct = &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: srv.Client(), MaxRetries: -1, DisableStandaloneSSE: true}
	default:
		st, cliT := mcp.NewInMemoryTransports()
		ss, err := server.Connect(t.Context(), st, nil)
		if err != nil {
			t.Fatalf("MCP: server connect: %v", err)
		}
		t.Cleanup(func() { _ = ss.Close() })
		ct = cliT
	}
	cs, err := client.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatalf("MCP: client connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return &mcpSurface{session: cs}
}

func (*mcpSurface) name() string { return "mcp" }

// mask keeps what load_skill and list_skills carry: no listing block, no
// declared assets or scripts, no inheritance chain, no per-skill diagnostics,
// files without MIME type and text flag, and errors as isError results with a
// message only (no code, reason or structured suggestions).
func (*mcpSurface) mask(o Outcome) Outcome {
	if l := o.Loaded; l != nil {
		l.Skill, l.File = nil, ""
		l.Assets, l.Scripts, l.InheritedAssets, l.InheritedScripts = nil, nil, nil, nil
		l.InheritanceChain, l.Diagnostics = nil, nil
		for i := range l.Files {
			l.Files[i].MimeType, l.Files[i].Text = "", false
		}
	}
	if m := o.Match; m != nil {
		// get_skill has seed 000's three shapes: each carries its own fields,
		// and none the strategy.
		m.Strategy = ""
		switch m.Outcome {
		case "match":
			m.Message, m.Candidates = "", nil
		default:
			m.SkillPath, m.Score, m.Content = "", 0, ""
			m.MatchedKeywords, m.Assets, m.Scripts, m.InheritedAssets, m.InheritedScripts = nil, nil, nil, nil, nil
			if m.Outcome == "no_match" {
				m.Candidates = nil
			}
		}
	}
	maskFiles(&o)
	if o.Error != nil {
		o.Error = &Failure{Message: o.Error.Message}
	}
	return o
}

// mcpLoad is load_skill's structuredContent (MCP_TOOLS.md).
type mcpLoad struct {
	Name         string         `json:"name"`
	SkillPath    string         `json:"skill_path"`
	Description  string         `json:"description"`
	Instructions string         `json:"instructions"`
	Content      string         `json:"content"`
	Directory    string         `json:"directory"`
	Source       string         `json:"source"`
	LoadedAt     string         `json:"loaded_at"`
	Files        []mcpFile      `json:"files"`
	Frontmatter  map[string]any `json:"frontmatter"`
	Truncated    *bool          `json:"truncated"`
	Message      string         `json:"message"`
}

type mcpFile struct {
	Path      string `json:"path"`
	SizeBytes int64  `json:"size_bytes"`
	Digest    string `json:"digest"`
}

// mcpNode is a SkillNode of list_skills (seed 000 §8.2: camelCase counts).
type mcpNode struct {
	Name        string    `json:"name"`
	Path        string    `json:"path"`
	Description string    `json:"description"`
	Keywords    []string  `json:"keywords"`
	AssetCount  int       `json:"assetCount"`
	ScriptCount int       `json:"scriptCount"`
	Children    []mcpNode `json:"children"`
}

func (m *mcpSurface) load(t *testing.T, ref string) Outcome {
	var out mcpLoad
	if f := m.call(t, "load_skill", map[string]any{"name": ref}, &out); f != nil {
		return Outcome{Error: f}
	}
	if out.Truncated == nil || *out.Truncated {
		t.Errorf("MCP: load_skill %q: truncated: got %v, want false (the fixtures are small)", ref, out.Truncated)
	}
	l := &Loaded{
		Name:         out.Name,
		SkillPath:    out.SkillPath,
		Description:  out.Description,
		Instructions: out.Instructions,
		Content:      out.Content,
		Directory:    out.Directory,
		Source:       out.Source,
		LoadedAt:     normTimeString(t, "loaded_at", out.LoadedAt),
		Frontmatter:  out.Frontmatter,
	}
	if out.Files != nil {
		l.Files = make([]File, 0, len(out.Files))
		for _, f := range out.Files {
			l.Files = append(l.Files, File{Path: f.Path, SizeBytes: f.SizeBytes, Digest: f.Digest})
		}
	}
	return Outcome{Loaded: l}
}

func (m *mcpSurface) tree(t *testing.T, path string) Outcome {
	args := map[string]any{}
	if path != "" {
		args["path"] = path
	}
	var out struct {
		Skills []mcpNode `json:"skills"`
	}
	if f := m.call(t, "list_skills", args, &out); f != nil {
		return Outcome{Error: f}
	}
	return Outcome{Tree: mcpNodes(out.Skills)}
}

func (m *mcpSurface) search(t *testing.T, q SearchQuery) Outcome {
	args := map[string]any{"query": q.Query}
	if q.Limit != 0 {
		args["limit"] = q.Limit
	}
	if q.AllTerms {
		args["mode"] = "all_terms"
	}
	if q.Category != "" {
		args["category"] = q.Category
	}
	if len(q.Tags) > 0 {
		args["tags"] = q.Tags
	}
	if q.Restated != "" {
		args["restated"] = q.Restated
	}
	var out struct {
		Query   string `json:"query"`
		Results []struct {
			SearchHit
			MatchedRestated *bool `json:"matched_restated"`
		} `json:"results"`
	}
	if f := m.call(t, "search_skills", args, &out); f != nil {
		return Outcome{Error: f}
	}
	s := &Searched{Query: out.Query, Results: make([]SearchHit, 0, len(out.Results))}
	for _, h := range out.Results {
		hit := h.SearchHit
		switch {
		case h.MatchedRestated == nil:
		case *h.MatchedRestated:
			hit.Phrasing = 1
		default:
			t.Errorf("MCP: search_skills: matched_restated present but false; it is sent only when true")
		}
		s.Results = append(s.Results, hit)
	}
	return Outcome{Search: s}
}

// mcpMatch is get_skill's structuredContent: the union of seed 000 §8.1's
// three shapes.
type mcpMatch struct {
	NoMatch          *bool            `json:"no_match"`
	Ambiguous        *bool            `json:"ambiguous"`
	Message          string           `json:"message"`
	Candidates       []MatchCandidate `json:"candidates"`
	SkillPath        string           `json:"skill_path"`
	Score            float64          `json:"score"`
	MatchedKeywords  []string         `json:"matched_keywords"`
	Content          string           `json:"content"`
	Assets           []Asset          `json:"assets"`
	Scripts          []Script         `json:"scripts"`
	InheritedAssets  []Asset          `json:"inherited_assets"`
	InheritedScripts []Script         `json:"inherited_scripts"`
}

func (m *mcpSurface) match(t *testing.T, context string) Outcome {
	return m.matchRestated(t, context, "")
}

func (m *mcpSurface) matchRestated(t *testing.T, context, restated string) Outcome {
	args := map[string]any{"context": context}
	if restated != "" {
		args["restated"] = restated
	}
	var out mcpMatch
	if f := m.call(t, "get_skill", args, &out); f != nil {
		return Outcome{Error: f}
	}
	r := &Matched{
		Message: out.Message, Candidates: out.Candidates, SkillPath: out.SkillPath, Score: out.Score,
		MatchedKeywords: out.MatchedKeywords, Content: out.Content, Assets: out.Assets, Scripts: out.Scripts,
		InheritedAssets: out.InheritedAssets, InheritedScripts: out.InheritedScripts,
	}
	switch {
	case out.NoMatch != nil && *out.NoMatch:
		r.Outcome = "no_match"
	case out.Ambiguous != nil && *out.Ambiguous:
		r.Outcome = "ambiguous"
	default:
		r.Outcome = "match"
	}
	if (out.NoMatch != nil && !*out.NoMatch) || (out.Ambiguous != nil && !*out.Ambiguous) {
		t.Errorf("MCP: get_skill %q: no_match or ambiguous present but false; seed 000 sends them only when true", context)
	}
	return Outcome{Match: r}
}

func mcpNodes(in []mcpNode) []Node {
	if in == nil {
		return nil
	}
	out := make([]Node, 0, len(in))
	for _, n := range in {
		out = append(out, Node{
			Name: n.Name, Path: n.Path, Description: n.Description, Keywords: n.Keywords,
			AssetCount: n.AssetCount, ScriptCount: n.ScriptCount, Children: mcpNodes(n.Children),
		})
	}
	return out
}

// call calls a tool. A protocol error fails the test; a tool error
// (isError) becomes a Failure holding its text. A success must carry
// structuredContent and one text content holding the same JSON; it is
// decoded into v.
func (m *mcpSurface) call(t *testing.T, tool string, args map[string]any, v any) *Failure {
	t.Helper()
	res, err := m.session.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("MCP: %s %v: protocol error: %v", tool, args, err)
	}
	text := textOf(t, tool, res)
	if res.IsError {
		if res.StructuredContent != nil {
			t.Errorf("MCP: %s %v: an error result carries structuredContent %v", tool, args, res.StructuredContent)
		}
		return &Failure{Message: text}
	}
	if res.StructuredContent == nil {
		t.Fatalf("MCP: %s %v: no structuredContent", tool, args)
	}
	// The client decoded structuredContent into maps and slices; a JSON null
	// stays nil there, so encoding it again keeps null apart from [].
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatalf("MCP: %s: re-encoding structuredContent: %v", tool, err)
	}
	var fromText any
	if err := json.Unmarshal([]byte(text), &fromText); err != nil {
		t.Errorf("MCP: %s %v: text content is not JSON: %v", tool, args, err)
	} else if diff := cmp.Diff(res.StructuredContent, fromText); diff != "" {
		t.Errorf("MCP: %s %v: text content differs from structuredContent (-structured +text):\n%s", tool, args, diff)
	}
	if err := json.Unmarshal(structured, v); err != nil {
		t.Fatalf("MCP: %s: decoding structuredContent %s: %v", tool, clip(structured), err)
	}
	return nil
}

// textOf returns the one text content of a tool result.
func textOf(t *testing.T, tool string, res *mcp.CallToolResult) string {
	t.Helper()
	var texts []string
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Errorf("MCP: %s: content of type %T, want text only", tool, c)
			continue
		}
		texts = append(texts, tc.Text)
	}
	if len(texts) != 1 {
		t.Fatalf("MCP: %s: got %d text contents, want 1", tool, len(texts))
	}
	return strings.TrimSpace(texts[0])
}
