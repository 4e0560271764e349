package mcpgw

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// TestRecoverPanics adds a tool and a prompt that panic to the server New
// returns: the tool answers an isError "internal error", the prompt a JSON-RPC
// internal error, each panic is logged with its stack, and the session and the
// other tools keep working.
func TestRecoverPanics(t *testing.T) {
	c := newTestCatalog(t)
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{c.skillsDir}})
	logs := &panicLog{}
	server, err := New(conn, Options{Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	type in struct {
		X string `json:"x"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "boom"}, func(_ context.Context, _ *mcp.CallToolRequest, x in) (*mcp.CallToolResult, any, error) {
		var none []string
		return nil, none[len(x.X)], nil // a runtime panic: index out of range
	})
	server.AddPrompt(&mcp.Prompt{Name: "boom"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		panic("prompt boom")
	})
	cs := connectServer(t, server)

	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "boom", Arguments: map[string]any{"x": "y"}})
	if err != nil {
		t.Fatalf("tools/call boom: %v", err)
	}
	if !res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != internalErrorText {
		t.Errorf("tools/call boom: got %+v, want an isError result %q", res, internalErrorText)
	}
	panics := logs.take()
	if len(panics) != 1 || !strings.Contains(panics[0], "index out of range [1] with length 0") ||
		!strings.Contains(panics[0], "tool: boom") || !strings.Contains(panics[0], "recover_test.go") {
		t.Errorf("tool panic log: got %q, want one entry with the panic, the tool and a stack", panics)
	}

	_, err = cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "boom"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError || je.Message != internalErrorText {
		t.Errorf("prompts/get boom: got %v, want JSON-RPC error %d %q", err, jsonrpc.CodeInternalError, internalErrorText)
	}
	if panics := logs.take(); len(panics) != 1 || !strings.Contains(panics[0], "prompt boom") {
		t.Errorf("prompt panic log: got %q", panics)
	}

	if err := cs.Ping(t.Context(), nil); err != nil {
		t.Fatalf("ping after the panics: %v", err)
	}
	_, text := callTool(t, cs, core.ToolListSkills, map[string]any{})
	if !strings.Contains(text, "pdf") {
		t.Errorf("list_skills after the panics: got %s, want the catalog", text)
	}
}

// TestResourceNotFoundDataIsJSON reads resources whose URIs hold runes the
// SDK's ResourceNotFoundError cannot encode (found by FuzzSurfaces): each
// answers "Resource not found" with the URI as JSON data, and the connection
// stays open.
func TestResourceNotFoundDataIsJSON(t *testing.T) {
	cs := connectClient(t, skillstest.Start(t, skillsd.Options{SkillsDirs: []string{newTestCatalog(t).skillsDir}}))
	for _, uri := range []string{"\x01df", "skill://pdf/\x01", "skill://pdf/\a\v", "skill://nope/\U0001F600\u00ad", "\xff"} {
		_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Message != "Resource not found" {
			t.Fatalf("resources/read %q: got %v, want Resource not found", uri, err)
		}
		var data struct {
			URI string `json:"uri"`
		}
		if err := json.Unmarshal(je.Data, &data); err != nil || data.URI != strings.ToValidUTF8(uri, "\uFFFD") {
			t.Errorf("resources/read %q: data %s (%v), want the URI", uri, je.Data, err)
		}
		if err := cs.Ping(t.Context(), nil); err != nil {
			t.Fatalf("ping after resources/read %q: %v", uri, err)
		}
	}
}
