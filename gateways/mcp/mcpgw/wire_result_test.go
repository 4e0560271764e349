package mcpgw

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
)

// sdkEncode encodes a result as the SDK's JSON-RPC layer does (an Encoder
// without HTML escaping).
func sdkEncode(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encoding %T: %v", v, err)
	}
	return buf.Bytes()
}

// decodeJSON decodes data into a generic value.
func decodeJSON(t testing.TB, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, data)
	}
	return v
}

// resultFromWire makes a CallToolResult as a client would decode it from
// JSON: the way to set the fields the SDK keeps unexported (its result type).
func resultFromWire(t testing.TB, wire string) *mcp.CallToolResult {
	t.Helper()
	var r mcp.CallToolResult
	if err := json.Unmarshal([]byte(wire), &r); err != nil {
		t.Fatalf("decoding %s: %v", wire, err)
	}
	return &r
}

// samePlainJSON checks that r converts and that the conversion encodes to
// the same JSON as the SDK's own encoding of r.
func samePlainJSON(t testing.TB, r *mcp.CallToolResult) {
	t.Helper()
	want := decodeJSON(t, sdkEncode(t, r))
	p := asPlain(r)
	if p == nil {
		t.Fatalf("asPlain(%s) = nil, want a plain result", sdkEncode(t, r))
	}
	if diff := cmp.Diff(want, decodeJSON(t, sdkEncode(t, p))); diff != "" {
		t.Errorf("plain and SDK encodings differ (-sdk +plain):\n%s", diff)
	}
}

func TestPlainToolResultSameJSON(t *testing.T) {
	answer := SearchSkillsOutput{Query: "pdf <tables> & \"forms\"", Results: []SearchHit{{
		Name: "pdf", SkillPath: "docs/pdf", Description: "Fill PDF forms.\nLine two\t\x01 <b>", MatchedTerms: []string{"pdf"}, Score: 0.5,
	}}}
	text, err := json.Marshal(answer)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]*mcp.CallToolResult{
		"typed structured content (withOutput)": {
			Content:           []mcp.Content{&mcp.TextContent{Text: string(text)}},
			StructuredContent: answer,
		},
		"raw structured content (the SDK's typed outputs)": {
			Content:           []mcp.Content{&mcp.TextContent{Text: string(text)}},
			StructuredContent: json.RawMessage(text),
		},
		"map structured content": {
			Content:           []mcp.Content{&mcp.TextContent{Text: "{}"}},
			StructuredContent: map[string]any{"a": []any{1.5, "x", nil}},
		},
		"an error": {
			Content: []mcp.Content{&mcp.TextContent{Text: "no skill named \"x\""}},
			IsError: true,
		},
		"empty text":         {Content: []mcp.Content{&mcp.TextContent{}}},
		"no content":         {},
		"empty content list": {Content: []mcp.Content{}},
		"several texts": {Content: []mcp.Content{
			&mcp.TextContent{Text: "one"}, &mcp.TextContent{Text: "two \u2028 \xff"},
		}},
		"result metadata": {
			Meta:    mcp.Meta{"trace": "abc", "n": 2.0},
			Content: []mcp.Content{&mcp.TextContent{Text: "x"}},
		},
		"result type complete (clients of 2026-07-28)": resultFromWire(t,
			`{"content":[{"type":"text","text":"done"}],"structuredContent":{"ok":true},"resultType":"complete"}`),
	}
	for name, r := range cases {
		t.Run(name, func(t *testing.T) { samePlainJSON(t, r) })
	}
}

// TestPlainToolResultLeavesOthers checks that answers plainToolResult cannot
// carry are left to the SDK.
func TestPlainToolResultLeavesOthers(t *testing.T) {
	cases := map[string]*mcp.CallToolResult{
		"an image": {Content: []mcp.Content{&mcp.ImageContent{Data: []byte{1}, MIMEType: "image/png"}}},
		"text and an image": {Content: []mcp.Content{
			&mcp.TextContent{Text: "x"}, &mcp.ImageContent{Data: []byte{1}, MIMEType: "image/png"},
		}},
		"annotated text": {Content: []mcp.Content{&mcp.TextContent{Text: "x", Annotations: &mcp.Annotations{Priority: 1}}}},
		"text metadata":  {Content: []mcp.Content{&mcp.TextContent{Text: "x", Meta: mcp.Meta{"a": "b"}}}},
		"a nil item":     {Content: []mcp.Content{(*mcp.TextContent)(nil)}},
		"input requests": {InputRequests: mcp.InputRequestMap{"r1": &mcp.ElicitParams{Message: "which one?"}}},
		"input required": resultFromWire(t, `{"content":[],"resultType":"input_required"}`),
	}
	for name, r := range cases {
		if p := asPlain(r); p != nil {
			t.Errorf("%s: asPlain = %s, want nil (left to the SDK)", name, sdkEncode(t, p))
		}
	}
}

// FuzzPlainToolResult checks that a converted text answer encodes to the
// same JSON as the SDK's, for any text and structured content.
func FuzzPlainToolResult(f *testing.F) {
	f.Add("plain", `{"a":1}`, false)
	f.Add("<html> & \"quotes\" \u2028", `{"s":"\u003c\ud83d\ude00"}`, true)
	f.Add("\xff\xfe\x00", `[1,2,{"x":null}]`, false)
	f.Add("", `not json`, false)
	f.Fuzz(func(t *testing.T, text, structured string, isError bool) {
		r := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError}
		var v any
		if json.Unmarshal([]byte(structured), &v) == nil {
			r.StructuredContent = v
		}
		samePlainJSON(t, r)
		if json.Valid([]byte(structured)) {
			r.StructuredContent = json.RawMessage(structured)
			samePlainJSON(t, r)
		}
	})
}

// TestSearchAnswerIsPlain checks, through a client session (which speaks
// the newest protocol, so that the SDK sets a result type), that
// search_skills' answers reach the client whole through plainToolResults.
func TestSearchAnswerIsPlain(t *testing.T) {
	cs, _ := startGateway(t, newTestCatalog(t))
	res, text := callTool(t, cs, "search_skills", map[string]any{"query": "merge pdf files"})
	if res.IsError || !strings.Contains(text, `"name":"pdf"`) {
		t.Fatalf("search_skills = %s, want the pdf skill", text)
	}
	if res.NeedsInput() {
		t.Error("the answer reads as needing input")
	}
}

// BenchmarkToolResultEncoding encodes a search_skills answer of ten hits
// as the SDK's JSON-RPC layer does: the SDK's CallToolResult with the
// answer as json.RawMessage (as before plainToolResults), and the plain
// result.
func BenchmarkToolResultEncoding(b *testing.B) {
	answer := SearchSkillsOutput{Query: "extract tables from a pdf"}
	for i := range 10 {
		answer.Results = append(answer.Results, SearchHit{
			Name: "skill-" + strings.Repeat("x", i), SkillPath: "group/skill", Score: 0.9,
			Description: strings.Repeat("Converts documents into readable HTML, keeping \"tables\" and charts. ", 8),
			Excerpt:     strings.Repeat("Converts documents into readable HTML… ", 4), MatchedTerms: []string{"extract", "tables", "pdf"},
		})
	}
	b.Run("sdk", func(b *testing.B) {
		for b.Loop() {
			text, _ := json.Marshal(answer)
			sdkEncode(b, &mcp.CallToolResult{
				Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}, StructuredContent: json.RawMessage(text),
			})
		}
	})
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			r, err := withOutput(nil, answer)
			if err != nil {
				b.Fatal(err)
			}
			sdkEncode(b, asPlain(r))
		}
	})
}

// TestNativeOutputsMatchSchemas checks the answers of the tools registered
// with encodedOnceTool, whose outputs the SDK no longer checks on each call,
// against their full output schemas (required fields and no unknown ones,
// which tools/list leaves out: tool_budget.go).
func TestNativeOutputsMatchSchemas(t *testing.T) {
	described, err := describeTools(core.GetSkillTool, loadSkillTool, core.ListSkillsTool, readSkillFileTool, core.RunScriptTool)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range described {
		s, ok := tool.OutputSchema.(*jsonschema.Schema)
		if !ok {
			t.Fatalf("%s: output schema %T", tool.Name, tool.OutputSchema)
		}
		if schemas[tool.Name], err = s.Resolve(nil); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
	}
	c := newTestCatalog(t)
	writeFile(t, filepath.Join(c.treeDir, "ops.md"), "---\nkeywords: [ops]\ndescription: Operations\nscripts:\n  - file: scripts/hello.sh\n    execution: server\n---\n# Ops\n")
	writeFile(t, filepath.Join(c.treeDir, "ops", "scripts", "hello.sh"), "echo \"hello <world> & \\\"you\\\"\"\n")
	cs, _ := startGateway(t, c)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"get_skill", map[string]any{"context": "merge pdf files with pypdf"}},
		{"get_skill", map[string]any{"context": "react login components", "restated": "authentication in a React app"}},
		{"get_skill", map[string]any{"context": "zebra xylophone quantum"}},
		{"get_skill", map[string]any{"context": "rules"}},
		{"load_skill", map[string]any{"name": "pdf"}},
		{"load_skill", map[string]any{"name": "ui/react/auth"}},
		{"load_skill", map[string]any{"name": "big"}},
		{"list_skills", map[string]any{}},
		{"list_skills", map[string]any{"path": "ui"}},
		{"read_skill_file", map[string]any{"skill_path": "pdf", "file": "reference.md"}},
		{"read_skill_file", map[string]any{"skill_path": "big", "file": "SKILL.md", "offset": 10, "max_bytes": 100}},
		{"read_skill_file", map[string]any{"skill_path": "ui/react/auth", "file": "assets/AuthProvider.tsx.template"}},
		{"run_script", map[string]any{"skill_path": "ops", "file": "scripts/hello.sh"}},
	}
	seen := map[string]bool{}
	for _, call := range calls {
		res, text := callTool(t, cs, call.tool, call.args)
		if res.IsError {
			if call.tool == "run_script" && runtime.GOOS == "windows" {
				continue
			}
			t.Fatalf("%s(%v): %s", call.tool, call.args, text)
		}
		seen[call.tool] = true
		v := res.StructuredContent
		if err := schemas[call.tool].Validate(&v); err != nil {
			t.Errorf("%s(%v): the answer does not match the output schema: %v\n%.400s", call.tool, call.args, err, text)
		}
	}
	for name := range schemas {
		if !seen[name] && !(name == "run_script" && runtime.GOOS == "windows") {
			t.Errorf("no answer of %s was checked", name)
		}
	}
}

// TestEncodedOnceToolKeepsContent checks encodedOnceTool with a handler that
// returns content of its own beside its output, as the SDK takes it: the
// content kept, the output as structured content; and with none, the
// output's JSON as text.
func TestEncodedOnceToolKeepsContent(t *testing.T) {
	type out struct {
		N int    `json:"n"`
		S string `json:"s"`
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	schema, err := jsonschema.For[out](nil)
	if err != nil {
		t.Fatal(err)
	}
	encodedOnceTool(s, &mcp.Tool{Name: "own", OutputSchema: schema}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, out, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "my own words"}}}, out{N: 1, S: "<a>"}, nil
	})
	encodedOnceTool(s, &mcp.Tool{Name: "plain", OutputSchema: schema}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, out, error) {
		return nil, out{N: 2, S: "b"}, nil
	})
	s.AddReceivingMiddleware(plainToolResults)
	cs := connectServer(t, s)
	for tool, want := range map[string][2]string{
		"own":   {"my own words", `{"n":1,"s":"<a>"}`},
		"plain": {`{"n":2,"s":"b"}`, `{"n":2,"s":"b"}`},
	} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != want[0] {
			t.Errorf("%s: content %v, want the text %q", tool, res.Content, want[0])
		}
		if diff := cmp.Diff(decodeJSON(t, []byte(want[1])), res.StructuredContent); diff != "" {
			t.Errorf("%s: structured content (-want +got):\n%s", tool, diff)
		}
	}
}
