package main

import (
	"bufio"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// idTransport sends X-Request-Id with every request.
type idTransport struct{ id string }

func (t idTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Request-Id", t.id)
	return http.DefaultTransport.RoundTrip(r)
}

// TestRequestIDReachesSkillsd: the X-Request-Id of an MCP request over HTTP
// reaches the remote skillsd's access line.
func TestRequestIDReachesSkillsd(t *testing.T) {
	logs := &syncBuffer{}
	srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{writeSkills(t)}, Cwd: t.TempDir(), Home: t.TempDir(),
		AccessLog: true, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(t.Context(), lis) }()
	cmd := command(t, nil, "--server", lis.Addr().String(), "--http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	urlRE := regexp.MustCompile(`url=(http://\S+/mcp)`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := urlRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	var endpoint string
	select {
	case endpoint = <-found:
	case <-time.After(30 * time.Second):
		t.Fatal("skills-mcp did not announce its URL")
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "skills-mcp-test", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: idTransport{"mcp-req-5"}}}, nil)
	if err != nil {
		t.Fatalf("connecting over HTTP: %v", err)
	}
	defer cs.Close()
	if _, isErr, text := callJSON[struct{ Skills []skillNode }](t, cs, "list_skills", nil); isErr {
		t.Fatalf("list_skills: %s", text)
	}
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(logs.String(), "request_id=mcp-req-5"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("skillsd's log has no request_id=mcp-req-5:\n%s", logs.String())
		}
	}
}
