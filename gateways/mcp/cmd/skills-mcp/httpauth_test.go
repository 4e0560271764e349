package main

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/services/skills/edge"
)

func TestParseArgsAuthTokenEnv(t *testing.T) {
	o, err := parseArgs([]string{"--http", "127.0.0.1:0", "--auth-token-env", "TOK"}, func(k string) string { return map[string]string{"TOK": "t"}[k] }, io.Discard)
	if err != nil || o.guard.TokensEnv != "TOK" || o.httpAddr != "127.0.0.1:0" {
		t.Errorf("--http with --auth-token-env: got %+v, %v", o, err)
	}
	_, err = parseArgs([]string{"--auth-token-env", "TOK"}, func(string) string { return "" }, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--auth-token-env needs --http") {
		t.Errorf("--auth-token-env alone: got %v, want a usage error", err)
	}
}

// TestHTTPRefusal checks the guard of /mcp with static tokens: the
// JSON-RPC refusal, the challenge, and that the token never shows.
func TestHTTPRefusal(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		o    options
	}{
		{"skills-mcp's own variable", map[string]string{authEnvDefault: "tok-123"}, options{}},
		{"a named variable", map[string]string{"MY_TOK": "tok-123"}, options{guard: edge.Flags{TokensEnv: "MY_TOK", TokensFlag: "auth-token-env"}}},
		{"rotation", map[string]string{"MY_TOK": "old-tok, tok-123"}, options{guard: edge.Flags{TokensEnv: "MY_TOK", TokensFlag: "auth-token-env"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := remoteGuard(tc.o, func(k string) string { return tc.env[k] }, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			if g.Mode() != edge.ModeToken {
				t.Fatalf("mode %s, want token", g.Mode())
			}
			srv := httptest.NewServer(g.HTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "" {
					t.Error("the caller's Authorization reached the handler")
				}
				_, _ = io.WriteString(w, "inside")
			}), edge.HTTPOptions{Refuse: mcpRefusal}))
			t.Cleanup(srv.Close)
			tests := []struct {
				auth string
				want int
			}{
				{"", http.StatusUnauthorized},
				{"Bearer", http.StatusUnauthorized},
				{"Bearer wrong", http.StatusUnauthorized},
				{"Bearer tok-1234", http.StatusUnauthorized},
				{"Basic tok-123", http.StatusUnauthorized},
				{"Bearer tok-123", http.StatusOK},
				{"bearer tok-123", http.StatusOK},
			}
			for _, tt := range tests {
				req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL, nil)
				if tt.auth != "" {
					req.Header.Set("Authorization", tt.auth)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tt.want {
					t.Errorf("Authorization %q: got %d %s, want %d", tt.auth, resp.StatusCode, body, tt.want)
				}
				if tt.want != http.StatusUnauthorized {
					continue
				}
				if !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("Authorization %q: WWW-Authenticate %q, want a Bearer challenge", tt.auth, resp.Header.Get("WWW-Authenticate"))
				}
				var rpc struct {
					JSONRPC string `json:"jsonrpc"`
					Error   struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}
				if err := json.Unmarshal(body, &rpc); err != nil || rpc.JSONRPC != "2.0" || rpc.Error.Code != -32001 || !strings.Contains(rpc.Error.Message, "unauthorized") {
					t.Errorf("Authorization %q: body %s, want a JSON-RPC error -32001", tt.auth, body)
				}
				if strings.Contains(string(body), "tok-123") {
					t.Errorf("Authorization %q: the 401 body leaks the token: %s", tt.auth, body)
				}
			}
		})
	}
}

// bearerTransport adds a bearer token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPBearerAuth runs the binary with --http and a token: MCP clients
// without the token are refused, with it they work; /healthz stays open,
// and a request with a foreign Host header is refused (DNS rebinding).
func TestHTTPBearerAuth(t *testing.T) {
	cmd := command(t, []string{"MCP_TOK=good-token"}, "--skills-dir", writeSkills(t), "--http", "127.0.0.1:0", "--auth-token-env", "MCP_TOK")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	endpoint := ""
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`url=(http://\S+/mcp)`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil && endpoint == "" {
				found <- m[1]
			}
		}
	}()
	select {
	case endpoint = <-found:
	case <-time.After(30 * time.Second):
		t.Fatal("skills-mcp did not announce its URL")
	}

	resp, err := http.Get(strings.TrimSuffix(endpoint, "/mcp") + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz with auth on: got %d, want 200", resp.StatusCode)
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "auth-test", Version: "0"}, nil)
	if cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}, nil); err == nil {
		_ = cs.Close()
		t.Error("connecting without a token: succeeded, want a refusal")
	}
	bad := &http.Client{Transport: bearerTransport{"bad-token"}}
	if cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: bad, MaxRetries: -1}, nil); err == nil {
		_ = cs.Close()
		t.Error("connecting with a wrong token: succeeded, want a refusal")
	}
	good := &http.Client{Transport: bearerTransport{"good-token"}}
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: good}, nil)
	if err != nil {
		t.Fatalf("connecting with the token: %v", err)
	}
	defer cs.Close()
	if _, isErr, text := callJSON[loadAnswer](t, cs, "load_skill", map[string]any{"name": "pdf"}); isErr {
		t.Errorf("load_skill with the token: %s", text)
	}

	// DNS rebinding: a loopback request naming another host is refused, token or not.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, endpoint,
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Host = "evil.example.com"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err = good.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("request with Host evil.example.com: got %d, want 403", resp.StatusCode)
	}
}
