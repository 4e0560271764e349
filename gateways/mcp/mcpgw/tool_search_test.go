package mcpgw

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// keysOf returns the sorted keys of a JSON object.
func keysOf(t *testing.T, text string) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatalf("decoding %s: %v", text, err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestSearchSkills(t *testing.T) {
	cs, _ := startGateway(t, newTestCatalog(t))
	tests := []struct {
		name      string
		args      map[string]any
		wantFirst string
		wantNone  bool
		maxHits   int
	}{
		{name: "ranked", args: map[string]any{"query": "merge PDF files"}, wantFirst: "pdf"},
		{name: "mode ranked spelled out", args: map[string]any{"query": "merge PDF files", "mode": "ranked"}, wantFirst: "pdf"},
		{name: "all terms", args: map[string]any{"query": "colours fonts", "mode": "all_terms"}, wantFirst: "brand"},
		{name: "limit", args: map[string]any{"query": "skill truncation test", "limit": 1}, maxHits: 1},
		{name: "nothing applies", args: map[string]any{"query": "zebra xylophone quantum"}, wantNone: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, text := callTool(t, cs, "search_skills", tt.args)
			if res.IsError {
				t.Fatalf("search_skills(%v): isError: %s", tt.args, text)
			}
			if diff := cmp.Diff([]string{"query", "results"}, keysOf(t, text)); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
			got := decode[SearchSkillsOutput](t, text)
			if got.Query != tt.args["query"] {
				t.Errorf("query: got %q, want %q", got.Query, tt.args["query"])
			}
			if got.Results == nil {
				t.Fatalf("results: null, want a list")
			}
			if tt.wantNone && len(got.Results) > 0 {
				t.Errorf("results: got %+v, want none", got.Results)
			}
			if tt.wantFirst != "" && (len(got.Results) == 0 || got.Results[0].SkillPath != tt.wantFirst) {
				t.Errorf("results: got %+v, want %s first", got.Results, tt.wantFirst)
			}
			if tt.maxHits > 0 && len(got.Results) > tt.maxHits {
				t.Errorf("results: got %d, want at most %d", len(got.Results), tt.maxHits)
			}
			if len(got.Results) > 0 {
				var hit map[string]json.RawMessage
				var whole struct{ Results []map[string]json.RawMessage }
				_ = json.Unmarshal([]byte(text), &whole)
				hit = whole.Results[0]
				var keys []string
				for k := range hit {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				want := []string{"category", "description", "excerpt", "matched_terms", "name", "score", "skill_path"}
				if diff := cmp.Diff(want, keys); diff != "" {
					t.Errorf("hit keys (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestSearchSkillsErrors: the service is the one validator of a search. A
// bad query or limit reaches it once, and its InvalidArgument is what the
// model reads, through the gateway's one error mapping; what the input
// schema refuses (a missing query, a mode it does not list) never leaves
// the gateway.
func TestSearchSkillsErrors(t *testing.T) {
	c := newTestCatalog(t)
	conn := &countingConn{
		ClientConnInterface: skillstest.Start(t, skillsd.Options{SkillsDirs: []string{c.skillsDir, c.treeDir}}),
		calls:               map[string]int{},
		errs:                map[string]error{},
	}
	cs := connectClient(t, conn)
	const method = skillsv1.RoutingService_SearchSkills_FullMethodName
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		service bool // the service answers, not the input schema
	}{
		{name: "missing query", args: map[string]any{}, want: "query"},
		{name: "blank query", args: map[string]any{"query": "  "}, want: "query is required", service: true},
		{name: "unknown mode", args: map[string]any{"query": "pdf", "mode": "fuzzy"}, want: "mode"},
		{name: "negative limit", args: map[string]any{"query": "pdf", "limit": -2}, want: "limit", service: true},
		{name: "limit beyond int32", args: map[string]any{"query": "pdf", "limit": -(1 << 40)}, want: "limit", service: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn.mu.Lock()
			before := conn.calls[method]
			delete(conn.errs, method)
			conn.mu.Unlock()
			res, text := callTool(t, cs, "search_skills", tt.args)
			if !res.IsError {
				t.Fatalf("search_skills(%v): got %s, want isError", tt.args, text)
			}
			if !strings.Contains(text, tt.want) {
				t.Errorf("search_skills(%v): message %q lacks %q", tt.args, text, tt.want)
			}
			conn.mu.Lock()
			calls, err := conn.calls[method]-before, conn.errs[method]
			conn.mu.Unlock()
			if !tt.service {
				if calls != 0 {
					t.Errorf("search_skills(%v): %d SearchSkills calls, want the schema to answer", tt.args, calls)
				}
				return
			}
			if calls != 1 || status.Code(err) != codes.InvalidArgument {
				t.Fatalf("search_skills(%v): %d SearchSkills calls, last error %v; want one, InvalidArgument", tt.args, calls, err)
			}
			if want := core.JoinSentences(core.Sentence(status.Convert(err).Message()), "Correct the arguments and call the tool again."); text != want {
				t.Errorf("search_skills(%v): %q, want the service's answer %q", tt.args, text, want)
			}
		})
	}
}

// TestSearchSkillsRestated: restated is passed to the service and fused
// there; a hit found through it says so; what search_skills returns is what
// SearchSkills returns over gRPC, hit for hit.
func TestSearchSkillsRestated(t *testing.T) {
	cs, conn := startGateway(t, newTestCatalog(t))
	query := "stitch these scanned handouts into one"
	search := func(args map[string]any) SearchSkillsOutput {
		t.Helper()
		res, text := callTool(t, cs, "search_skills", args)
		if res.IsError {
			t.Fatalf("search_skills(%v): isError: %s", args, text)
		}
		return decode[SearchSkillsOutput](t, text)
	}
	if got := search(map[string]any{"query": query}); len(got.Results) != 0 {
		t.Fatalf("alone: got %+v, want none (fixture changed?)", got.Results)
	}
	if got := search(map[string]any{"query": query, "restated": "  "}); len(got.Results) != 0 {
		t.Errorf("blank restated: got %+v, want it ignored", got.Results)
	}
	got := search(map[string]any{"query": query, "restated": "merge PDF files with pypdf"})
	if len(got.Results) == 0 || got.Results[0].SkillPath != "pdf" || !got.Results[0].MatchedRestated ||
		!slices.Contains(got.Results[0].MatchedTerms, "pypdf") {
		t.Fatalf("restated: got %+v, want pdf matched by the restatement", got.Results)
	}
	plain := search(map[string]any{"query": "merge PDF files"})
	if len(plain.Results) == 0 || plain.Results[0].MatchedRestated {
		t.Errorf("alone: got %+v, want matched_restated absent", plain.Results)
	}
	_, text := callTool(t, cs, "search_skills", map[string]any{"query": "merge PDF files"})
	if strings.Contains(text, "matched_restated") {
		t.Errorf("a query alone: %s, want no matched_restated key", text)
	}

	routing := skillsv1.NewRoutingServiceClient(conn)
	for _, c := range []struct{ query, restated string }{
		{query, "merge PDF files with pypdf"},
		{"apply our colours to the slides", "brand guidelines: company colours and fonts for documents and slides"},
		{"merge PDF files", "PDF forms"},
		{"zebra xylophone quantum", "animal music physics"},
	} {
		mcpOut := search(map[string]any{"query": c.query, "restated": c.restated, "limit": 5})
		resp, err := routing.SearchSkills(t.Context(), &skillsv1.SearchSkillsRequest{Query: c.query, Restated: []string{c.restated}, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]SearchHit, 0, len(resp.GetResults()))
		for _, h := range resp.GetResults() {
			want = append(want, SearchHit{Name: h.GetName(), SkillPath: h.GetSkillPath(), Description: h.GetDescription(),
				Category: h.GetCategory(), Score: h.GetScore(), Excerpt: h.GetExcerpt(),
				MatchedTerms: core.NonNilList(h.GetMatchedTerms()), MatchedRestated: h.GetPhrasing() > 0})
		}
		if diff := cmp.Diff(want, mcpOut.Results); diff != "" {
			t.Errorf("%q + %q: search_skills differs from SearchSkills (-grpc +mcp):\n%s", c.query, c.restated, diff)
		}
	}
}

func TestSearchSkillsRestatedErrors(t *testing.T) {
	cs, _ := startGateway(t, newTestCatalog(t))
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"query": "pdf", "restated": strings.Repeat("pdf ", 5000)}, "restated"},
		{map[string]any{"query": "pdf", "restated": "merge PDF files", "mode": "all_terms"}, "ranked"},
		{map[string]any{"query": "pdf", "restated": 3}, "restated"},
	} {
		res, text := callTool(t, cs, "search_skills", tt.args)
		if !res.IsError || !strings.Contains(text, tt.want) {
			t.Errorf("search_skills(%.80v): got %q, want an error naming %q", tt.args, text, tt.want)
		}
	}
}

// TestSkillHubSearchBlankQuery: the skillhub profile's search_skills leaves
// the blank query to the service too: one SearchSkills call, answered with
// seed 004's INVALID_PARAMS.
func TestSkillHubSearchBlankQuery(t *testing.T) {
	c := newTestCatalog(t)
	conn := &countingConn{
		ClientConnInterface: skillstest.Start(t, skillsd.Options{SkillsDirs: []string{c.skillsDir, c.treeDir}}),
		calls:               map[string]int{},
	}
	server, err := New(conn, Options{Profile: ProfileSkillHub})
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := connectNoted(t, server, "2025-06-18")
	_, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search_skills", Arguments: map[string]any{"query": "   "}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.HasPrefix(je.Message, "INVALID_PARAMS: query is required") {
		t.Fatalf("search_skills(blank): %v, want INVALID_PARAMS naming the query", err)
	}
	conn.mu.Lock()
	defer conn.mu.Unlock()
	if n := conn.calls[skillsv1.RoutingService_SearchSkills_FullMethodName]; n != 1 {
		t.Errorf("SearchSkills calls: %d, want 1 (the service validates)", n)
	}
}

// TestSearchSkillsOutputMatchesSchema: search_skills encodes its answer once
// and the SDK does not check it against the output schema on each call, so
// this test does, over answers of every shape (hits and none, ranked, all
// terms, restated, filtered, limited): each validates against the schema
// tools/list advertises, and is byte for byte what the SDK's validating
// round trip (through a map, keys sorted) would have sent.
func TestSearchSkillsOutputMatchesSchema(t *testing.T) {
	cs, _ := startGateway(t, newTestCatalog(t))
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var schema *jsonschema.Schema
	for _, tool := range tools.Tools {
		if tool.Name == "search_skills" {
			data, err := json.Marshal(tool.OutputSchema)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &schema); err != nil {
				t.Fatal(err)
			}
		}
	}
	if schema == nil {
		t.Fatal("tools/list advertises no output schema for search_skills")
	}
	// Every property is required here, so that an answer missing a field
	// fails; matched_restated is left out when false.
	for _, s := range []*jsonschema.Schema{schema, schema.Properties["results"].Items} {
		s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
		s.Required = nil
		for k := range s.Properties {
			if k != "matched_restated" {
				s.Required = append(s.Required, k)
			}
		}
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	hits := 0
	for _, args := range []map[string]any{
		{"query": "merge PDF files"},
		{"query": "merge PDF files", "restated": "combine several PDF documents into one with pypdf"},
		{"query": "zebra xylophone quantum", "restated": "brand colours for slides"},
		{"query": "colours fonts", "mode": "all_terms"},
		{"query": "skill truncation test", "limit": 2},
		{"query": "react login", "tags": []string{"none-such"}},
		{"query": "zebra xylophone quantum"},
		{"query": "<script>&\"quotes\" ünïcödé 日本語"},
	} {
		res, text := callTool(t, cs, "search_skills", args)
		if res.IsError {
			t.Fatalf("search_skills(%v): %s", args, text)
		}
		var v any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			t.Fatal(err)
		}
		if err := resolved.Validate(v); err != nil {
			t.Errorf("search_skills(%v): the answer does not match the output schema: %v\n%s", args, err, text)
		}
		roundTrip, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if string(roundTrip) != text {
			t.Errorf("search_skills(%v): the answer is not what a round trip through the schema check sends:\n got %s\nwant %s", args, text, roundTrip)
		}
		hits += len(v.(map[string]any)["results"].([]any))
	}
	if hits == 0 {
		t.Fatal("no query found a skill: the answers' hits were never checked")
	}
}
