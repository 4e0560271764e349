// Command benchfloor is the floor of scripts/bench-startup.py: the smallest
// MCP server skills-mcp could be, built from the same module versions (this
// module's go.mod, so the same go-sdk). It serves eight tools on stdio, named
// like skills-mcp's native tools, with typed input and output (so the SDK
// infers, validates and encodes them as it does skills-mcp's), each doing
// nothing. Its start-up, first call, memory and per-call latency are what the
// SDK, the Go runtime and the process cost on this machine; skills-mcp's
// figures are reported as ratios to them.
//
// Usage: benchfloor (stdio; exits when stdin closes)
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// input accepts the arguments the benchmark sends to any tool.
type input struct {
	Query    string `json:"query,omitempty" jsonschema:"what to look for"`
	Restated string `json:"restated,omitempty" jsonschema:"the need restated"`
	Name     string `json:"name,omitempty" jsonschema:"a skill name"`
	Path     string `json:"path,omitempty" jsonschema:"a file path"`
	Limit    int    `json:"limit,omitempty" jsonschema:"how many results"`
}

// output is every tool's structured answer.
type output struct {
	OK bool `json:"ok"`
}

func noop(context.Context, *mcp.CallToolRequest, input) (*mcp.CallToolResult, output, error) {
	return nil, output{OK: true}, nil
}

// tools are skills-mcp's native tool names.
var tools = []string{
	"search_skills", "get_skill", "load_skill", "list_skills",
	"read_skill_file", "run_script", "report_usage", "refresh_skills",
}

func main() {
	server := mcp.NewServer(&mcp.Implementation{Name: "benchfloor", Version: "0"}, nil)
	for _, name := range tools {
		mcp.AddTool(server, &mcp.Tool{Name: name, Description: "Does nothing (the benchmark floor)."}, noop)
	}
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "benchfloor:", err)
		os.Exit(1)
	}
}
