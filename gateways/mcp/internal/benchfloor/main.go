// Command benchfloor is the floor of scripts/bench-startup.py: the smallest
// MCP server skills-mcp could be, built from the same module versions (this
// module's go.mod, so the same go-sdk). It serves eight tools on stdio, named
// like skills-mcp's native tools, with typed input and output (so the SDK
// infers, validates and encodes them as it does skills-mcp's), each doing
// nothing. Its start-up, first call, memory and per-call latency are what the
// SDK, the Go runtime and the process cost on this machine; skills-mcp's
// figures are reported as ratios to them.
//
// With -answers FILE (a JSON object from query to answer: the JSON text of a
// search_skills answer), its search_skills answers each query with that
// answer instead, as skills-mcp encodes one (the same JSON as structured
// content and as text; FILE's first answer for a query it does not hold):
// what the SDK costs to deliver skills-mcp's own answers, with no search
// behind them.
//
// Usage: benchfloor [-answers FILE] (stdio; exits when stdin closes)
package main

import (
	"context"
	"encoding/json"
	"flag"
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

// answering returns a search_skills handler that answers each query with
// its answer in answers (a JSON object from query to answer), else the
// first answer.
func answering(answers []byte) (mcp.ToolHandlerFor[input, any], error) {
	var byQuery map[string]string
	if err := json.Unmarshal(answers, &byQuery); err != nil {
		return nil, err
	}
	var first string
	for _, a := range byQuery {
		if first == "" || a < first {
			first = a // deterministic
		}
		if !json.Valid([]byte(a)) {
			return nil, fmt.Errorf("an answer is not JSON: %.80s", a)
		}
	}
	if len(byQuery) == 0 {
		return nil, fmt.Errorf("no answers")
	}
	return func(_ context.Context, _ *mcp.CallToolRequest, in input) (*mcp.CallToolResult, any, error) {
		a, ok := byQuery[in.Query]
		if !ok {
			a = first
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: a}},
			StructuredContent: json.RawMessage(a),
		}, nil, nil
	}, nil
}

func main() {
	answers := flag.String("answers", "", "a JSON object from query to search_skills answer, for search_skills to give")
	flag.Parse()
	server := mcp.NewServer(&mcp.Implementation{Name: "benchfloor", Version: "0"}, nil)
	for _, name := range tools {
		if name == "search_skills" && *answers != "" {
			data, err := os.ReadFile(*answers)
			if err != nil {
				fmt.Fprintln(os.Stderr, "benchfloor:", err)
				os.Exit(2)
			}
			h, err := answering(data)
			if err != nil {
				fmt.Fprintf(os.Stderr, "benchfloor: -answers %s: %v\n", *answers, err)
				os.Exit(2)
			}
			mcp.AddTool(server, &mcp.Tool{Name: name, Description: "Gives skills-mcp's answer (the benchmark floor)."}, h)
			continue
		}
		mcp.AddTool(server, &mcp.Tool{Name: name, Description: "Does nothing (the benchmark floor)."}, noop)
	}
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "benchfloor:", err)
		os.Exit(1)
	}
}
