package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/services/skills/skillstest"
)

func TestParseArgsAuth(t *testing.T) {
	env := func(k string) string { return map[string]string{"T": "tok"}[k] }
	for _, tc := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"--http", ":0", "--auth", "github"}, ""},
		{[]string{"--http", ":0", "--auth", "token", "--auth-token-env", "T"}, ""},
		{[]string{"--http", ":0", "--auth", "none"}, ""},
		{[]string{"--http", ":0", "--auth", "oauth"}, `--auth "oauth": want none, token`},
		{[]string{"--auth", "github"}, "--auth needs --http"},
		{[]string{"--http", ":0", "--auth", "github", "--auth-token-env", "T"}, "does not go with --auth github"},
		{[]string{"--http", ":0", "--auth-token-env", "UNSET"}, "--auth-token-env UNSET: the variable UNSET is empty or unset"},
	} {
		_, err := parseArgs(tc.args, env, io.Discard)
		if (tc.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("parseArgs(%q): %v, want %q", tc.args, err, tc.wantErr)
		}
	}
}

// Tokens of the fake GitHub below (made up, in real formats).
const (
	ghReader = "ghp_McpReaderMcpReaderMcpReaderMcpRe01"
	ghBlind  = "github_pat_11BLIND000_CannotSeeTheRepositoryCannotSeeTheRepository0000000000"
	ghSAML   = "gho_SamlEnforcedSamlEnforcedSamlEnfor03"
)

// fakeGitHub answers GET /api/v3/repos/{owner}/{repo} (a GitHub Enterprise
// base path) on 127.0.0.1 in GitHub's shapes.
func fakeGitHub(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		if r.URL.Path != "/api/v3/repos/octo-org/skills" {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}`)
			return
		}
		switch strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") {
		case ghReader:
			_, _ = io.WriteString(w, `{"id":1296269,"name":"skills","full_name":"octo-org/skills","private":true,"owner":{"login":"octo-org","type":"Organization"},"default_branch":"main","permissions":{"admin":false,"maintain":false,"push":false,"triage":false,"pull":true}}`)
		case ghBlind:
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest/repos/repos#get-a-repository","status":"404"}`)
		case ghSAML:
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"message":"Resource protected by organization SAML enforcement. You must grant your Personal Access token access to this organization.","documentation_url":"https://docs.github.com/articles/authenticating-to-a-github-organization-with-saml-single-sign-on/","status":"403"}`)
		default:
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest","status":"401"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// withBearer adds an Authorization header to every request.
type withBearer struct{ value string }

func (b withBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", b.value)
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPGitHubAuth runs skills-mcp --http --auth github with the
// github-worker profile against a fake GitHub: no or bad tokens get 401
// before anything runs, tokens GitHub refuses get 403, a good token lists and
// reads agents and docs over Streamable HTTP and the legacy SSE transport,
// and no token ends up in the log or the state folder.
func TestHTTPGitHubAuth(t *testing.T) {
	gh := fakeGitHub(t)
	content := t.TempDir()
	for name, body := range map[string]string{
		"agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews diffs\nmodel: sonnet\ntools: Read, Grep\n---\nReview carefully.\n",
	} {
		p := filepath.Join(content, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Docs from a git repository, so that the state folder holds a clone.
	docsRepo := skillstest.NewGitRepo(t)
	docsRepo.Commit("docs", map[string]string{
		"handbook/index.md":         "---\ndescription: Home\n---\n# Home\n",
		"handbook/guides/setup.mdx": "---\ndescription: Setup\n---\nRun it.\n",
	})
	state := t.TempDir()
	cmd := command(t, []string{
		"SKILLSD_HOME=" + state, "LOG_LEVEL=debug",
		"GITHUB_API_URL=" + gh.URL + "/api/v3", "GITHUB_AUTH_REPOS=octo-org/skills",
		"AGENTS_DIR=" + filepath.Join(content, "agents"), "DOCS_REPO=" + docsRepo.URL(), "DOCS_PATH=handbook",
	}, "--skills-dir", writeSkills(t), "--http", "127.0.0.1:0", "--auth", "github", "--profile", "github-worker")
	stderrPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var logs syncBuffer
	urlRE := regexp.MustCompile(`url=(http://\S+/mcp)`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderrPipe)
		for sc.Scan() {
			_, _ = logs.Write([]byte(sc.Text() + "\n"))
			if m := urlRE.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	var endpoint string
	select {
	case endpoint = <-found:
	case <-time.After(30 * time.Second):
		t.Fatalf("skills-mcp did not announce its URL:\n%s", logs.String())
	}
	base := strings.TrimSuffix(endpoint, "/mcp")
	enc := func(tok string) string { return "Bearer " + base64.RawURLEncoding.EncodeToString([]byte(tok)) }
	waitHealthy(t, base)

	// Refused before anything runs, on both MCP endpoints.
	initBody := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	for _, tc := range []struct {
		path, auth string
		status     int
		code       string
	}{
		{"/mcp", "", 401, "UNAUTHORIZED"},
		{"/mcp", "Bearer %%%not-base64%%%", 401, "UNAUTHORIZED"},
		{"/mcp", enc("glpat-not-a-github-token"), 401, "UNAUTHORIZED"},
		{"/mcp", enc("ghp_RevokedRevokedRevokedRevokedRevo99"), 401, "UNAUTHORIZED"},
		{"/mcp", enc(ghSAML), 403, "FORBIDDEN"},
		{"/mcp", enc(ghBlind), 403, "NOT_FOUND"},
		{"/sse", "", 401, "UNAUTHORIZED"},
		{"/sse", enc(ghBlind), 403, "NOT_FOUND"},
	} {
		method := http.MethodPost
		if tc.path == "/sse" {
			method = http.MethodGet
		}
		req, _ := http.NewRequestWithContext(t.Context(), method, base+tc.path, strings.NewReader(initBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error struct {
				Code    string         `json:"code"`
				Details map[string]any `json:"details"`
			} `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || body.Error.Code != tc.code {
			t.Errorf("%s %s with %q: %d %q, want %d %q", method, tc.path, tc.auth, resp.StatusCode, body.Error.Code, tc.status, tc.code)
		}
	}

	httpClient := &http.Client{Transport: withBearer{enc(ghReader)}}
	client := mcp.NewClient(&mcp.Implementation{Name: "skills-mcp-test", Version: "0"}, nil)
	for _, tr := range []mcp.Transport{
		&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: httpClient},
		&mcp.SSEClientTransport{Endpoint: base + "/sse", HTTPClient: httpClient},
	} {
		cs, err := client.Connect(t.Context(), tr, nil)
		if err != nil {
			t.Fatalf("connecting with %T: %v", tr, err)
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_agents", Arguments: map[string]any{}})
		if err != nil || res.IsError || len(res.Content) == 0 {
			t.Fatalf("list_agents over %T: %+v, %v", tr, res, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !strings.Contains(text, `"reviewer"`) || !strings.Contains(text, `"sonnet"`) {
			t.Errorf("list_agents over %T: %s", tr, text)
		}
		res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_doc", Arguments: map[string]any{"path": []string{"guides", "setup"}}})
		if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "handbook/guides/setup.mdx") {
			t.Errorf("get_doc over %T: %+v, %v", tr, res, err)
		}
		_ = cs.Close()
	}

	// No token, plain or encoded, in the log or anywhere in the state folder.
	time.Sleep(100 * time.Millisecond) // let the last log lines arrive
	secrets := []string{ghReader, ghBlind, ghSAML}
	for _, s := range append([]string(nil), secrets...) {
		secrets = append(secrets, base64.RawURLEncoding.EncodeToString([]byte(s)))
	}
	if !strings.Contains(logs.String(), "request refused") {
		t.Errorf("the log does not show the refusals:\n%s", logs.String())
	}
	for _, s := range secrets {
		if strings.Contains(logs.String(), s) {
			t.Errorf("the log holds a token (%s…)", s[:8])
		}
	}
	files := 0
	_ = filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		files++
		data, _ := os.ReadFile(p)
		for _, s := range secrets {
			if strings.Contains(string(data), s) {
				t.Errorf("%s holds a token (%s…)", p, s[:8])
			}
		}
		return nil
	})
	if files == 0 {
		t.Errorf("the state folder is empty: the docs repository was not cloned into it")
	}
}
