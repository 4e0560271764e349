package mcpgw

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// plainToolResults is a receiving middleware that hands the go-sdk each
// tools/call answer made only of text (every answer of skills-mcp's tools,
// errors included) as a plainToolResult: the same JSON, encoded by
// reflection alone.
//
// The SDK (v1.8.0) encodes a CallToolResult through its MarshalJSON, each
// content item through its own, and a json.RawMessage as it is; encoding/json
// then re-scans (compacts) what each MarshalJSON returned, byte by byte, at
// every level. A search_skills answer (about 7.5 KB, sent as text and as
// structured content) was scanned three times this way, about 200 µs a
// call, more than the search itself (BenchmarkToolResultEncoding), and a
// fourth time by the SDK's stdio writer (StdioTransport).
//
// An answer is converted only when its content is text without annotations
// or metadata, and its other fields (the envelope, read by encoding the
// answer without its content) are ones plainToolResult carries; any other
// answer is left to the SDK. TestPlainToolResultSameJSON and
// FuzzPlainToolResult check that the two encodings decode alike.
func plainToolResults(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || method != "tools/call" {
			return res, err
		}
		if ctr, ok := res.(*mcp.CallToolResult); ok && ctr != nil {
			if plain := asPlain(ctr); plain != nil {
				return plain, nil
			}
		}
		return res, err
	}
}

// plainToolResult is a CallToolResult whose content is text, with no
// MarshalJSON of its own or of its parts.
type plainToolResult struct {
	mcp.ResultBase             // _meta
	Content        []plainText `json:"content"`
	// StructuredContent is the answer's own: a value is encoded by
	// reflection, a json.RawMessage (the SDK's typed outputs) scanned once.
	StructuredContent any  `json:"structuredContent,omitempty"`
	IsError           bool `json:"isError,omitempty"`
	// ResultType is the SDK's (set for clients of 2026-07-28 and later).
	ResultType string `json:"resultType,omitempty"`
}

// plainText is a text content item with no annotations or metadata.
type plainText struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

// envelope is what a CallToolResult with neither content nor structured
// content may encode to for asPlain to convert it; any other field makes
// the decoding fail (DisallowUnknownFields).
type envelope struct {
	Content    json.RawMessage `json:"content"`
	IsError    bool            `json:"isError"`
	Meta       json.RawMessage `json:"_meta"`
	ResultType string          `json:"resultType"`
}

// asPlain returns r as a plainToolResult, or nil when it cannot be one.
func asPlain(r *mcp.CallToolResult) *plainToolResult {
	if r.NeedsInput() || r.InputRequests != nil {
		return nil // the SDK's multi-round-trip answers
	}
	p := &plainToolResult{StructuredContent: r.StructuredContent, IsError: r.IsError}
	p.Meta = r.Meta
	if r.Content != nil {
		p.Content = make([]plainText, len(r.Content))
		for i, c := range r.Content {
			t, ok := c.(*mcp.TextContent)
			if !ok || t == nil || t.Meta != nil || t.Annotations != nil {
				return nil
			}
			p.Content[i] = plainText{Type: "text", Text: t.Text}
		}
	}
	// The fields the SDK keeps unexported (the result type) or may add come
	// out in the encoding of a copy without its content.
	bare := *r
	bare.Content, bare.StructuredContent = nil, nil
	data, err := json.Marshal(&bare)
	if err != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var env envelope
	if dec.Decode(&env) != nil || string(env.Content) != "null" || env.IsError != r.IsError {
		return nil
	}
	p.ResultType = env.ResultType
	return p
}

// encodedOnceTool registers a tool whose handler answers a typed output
// (or nil and an error) as one whose output is encoded once as JSON text
// (withOutput), instead of the SDK's way for typed outputs: marshal it,
// decode it into maps to check it against the output schema, marshal it
// again, and send that JSON as it is (scanned again, plainToolResults)
// beside its text. A load_skill answer holds up to 96 KiB twice. The tool
// is registered with Out = any and its output schema written out, which
// the SDK then advertises but does not apply to each answer: the tool must
// carry one, and TestNativeOutputsMatchSchemas (and, for search_skills,
// TestSearchSkillsOutputMatchesSchema) check answers against it. (The
// text's keys follow the Go types' fields, where the SDK's round trip
// through maps sorted them.)
func encodedOnceTool[In, Out any](server *mcp.Server, tool *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	if tool.OutputSchema == nil {
		panic("mcpgw: " + tool.Name + " has no output schema")
	}
	mcp.AddTool(server, tool, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		res, out, err := h(ctx, req, in)
		if err != nil {
			return nil, nil, err
		}
		res, err = withOutput(res, out)
		return res, nil, err
	})
}

// withOutput sets out as res's structured content (res nil: a new result)
// and, when res has no content of its own, its JSON as the text, as the SDK
// does for typed outputs. The structured content is out itself: the SDK
// encodes it by reflection when it sends the answer (plainToolResults),
// which costs less than scanning the text's JSON again would.
func withOutput(res *mcp.CallToolResult, out any) (*mcp.CallToolResult, error) {
	if res == nil {
		res = &mcp.CallToolResult{}
	}
	res.StructuredContent = out
	if res.Content == nil {
		data, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("marshaling output: %w", err)
		}
		res.Content = []mcp.Content{&mcp.TextContent{Text: string(data)}}
	}
	return res, nil
}
