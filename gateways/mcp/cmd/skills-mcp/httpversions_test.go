package main

import (
	"bufio"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw"
)

// TestHTTPProtocolVersions connects to the binary over Streamable HTTP with
// every protocol version the SDK speaks (2026-07-28 statelessly, through
// server/discover): each is agreed on, and tools and the skills extension
// answer. A version the server does not know falls back to the latest
// version with sessions.
func TestHTTPProtocolVersions(t *testing.T) {
	cmd := command(t, nil, "--skills-dir", writeSkills(t), "--http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`url=(http://\S+/mcp)`)
		sent := false
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil && !sent {
				found <- m[1]
				sent = true
			}
		}
	}()
	var endpoint string
	select {
	case endpoint = <-found:
	case <-time.After(30 * time.Second):
		t.Fatal("skills-mcp did not announce its URL")
	}
	versions := mcp.SupportedProtocolVersions()
	for _, want := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		if !strings.Contains(strings.Join(versions, " "), want) {
			t.Errorf("the SDK does not speak %s", want)
		}
	}
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			client := mcp.NewClient(&mcp.Implementation{Name: "versions-test", Version: "0"}, nil)
			if err := mcp.AddSendingCustomMethod[*mcpgw.ListSkillsParams, *mcpgw.ListSkillsResult](client, mcpgw.MethodSkillsList); err != nil {
				t.Fatal(err)
			}
			cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint}, &mcp.ClientSessionOptions{ProtocolVersion: v})
			if err != nil {
				t.Fatalf("connecting with %s: %v", v, err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != v {
				t.Errorf("negotiated %s, want %s", got, v)
			}
			if _, isErr, text := callJSON[loadAnswer](t, cs, "load_skill", map[string]any{"name": "pdf"}); isErr {
				t.Errorf("load_skill: %s", text)
			}
			res, err := mcp.CallCustomMethod[*mcpgw.ListSkillsParams, *mcpgw.ListSkillsResult](t.Context(), cs, mcpgw.MethodSkillsList, &mcpgw.ListSkillsParams{})
			if err != nil || len(res.Skills) != 3 {
				t.Errorf("skills/list: %+v, %v", res, err)
			}
		})
	}
	// An initialize with a version the server does not know: the answer is
	// the latest version with sessions.
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2099-01-01","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		sb.WriteString(sc.Text())
	}
	if !strings.Contains(sb.String(), `"protocolVersion":"2025-11-25"`) {
		t.Errorf("initialize with 2099-01-01: got %s, want protocolVersion 2025-11-25", sb.String())
	}
}
