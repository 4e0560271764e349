package main

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestAnswering(t *testing.T) {
	h, err := answering([]byte(`{"draw a chart": "{\"query\":\"draw a chart\",\"results\":[]}", "b": "{\"query\":\"b\",\"results\":[{\"name\":\"x\"}]}"}`))
	if err != nil {
		t.Fatal(err)
	}
	for query, want := range map[string]string{
		"draw a chart": `{"query":"draw a chart","results":[]}`,
		"unknown":      `{"query":"b","results":[{"name":"x"}]}`, // the first, in byte order
	} {
		res, _, err := h(t.Context(), nil, input{Query: query})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(res.StructuredContent.(json.RawMessage)); got != want {
			t.Errorf("%q: structured content %s, want %s", query, got, want)
		}
		if got := res.Content[0].(*mcp.TextContent).Text; got != want {
			t.Errorf("%q: text %s, want %s", query, got, want)
		}
	}
	for _, bad := range []string{`{}`, `[]`, `{"q": "not json"}`, `nope`} {
		if _, err := answering([]byte(bad)); err == nil {
			t.Errorf("answering(%s) took it", bad)
		}
	}
}
