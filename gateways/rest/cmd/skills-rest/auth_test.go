package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGitHubAuth runs skills-rest --auth github against a fake GitHub on
// 127.0.0.1 (GitHub's answer shapes): agents and docs are served to a token
// that can read the repository, and refused with seed 003's error shape
// otherwise; /healthz stays open.
func TestGitHubAuth(t *testing.T) {
	const reader, blind = "ghp_RestReaderRestReaderRestReaderRest01", "ghp_RestBlindRestBlindRestBlindRestBl02"
	gh := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		switch tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "); {
		case tok == reader && r.URL.Path == "/repos/octo-org/skills":
			_, _ = io.WriteString(w, `{"id":1,"name":"skills","full_name":"octo-org/skills","private":true,"permissions":{"admin":false,"maintain":false,"push":false,"triage":false,"pull":true}}`)
		case tok == blind:
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest/repos/repos#get-a-repository","status":"404"}`)
		default:
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest","status":"401"}`)
		}
	}))
	t.Cleanup(gh.Close)
	content := t.TempDir()
	for name, body := range map[string]string{
		"agents/planner.md": "---\nname: planner\ndescription: Plans\nmodel: opus\n---\nPlan.\n",
		"docs/guides.md":    "---\ndescription: Guides\n---\n",
	} {
		p := filepath.Join(content, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	addr := start(t, []string{
		"GITHUB_API_URL=" + gh.URL, "GITHUB_AUTH_REPOS=octo-org/skills", "SKILLSD_HOME=" + t.TempDir(),
		"AGENTS_DIR=" + filepath.Join(content, "agents"), "DOCS_DIR=" + filepath.Join(content, "docs"),
	}, "--skills-dir", skillsDir(t), "--http", "127.0.0.1:0", "--auth", "github")
	base := addr

	do := func(method, path, auth, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), method, base+path, strings.NewReader(body))
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+base64.RawURLEncoding.EncodeToString([]byte(auth)))
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	code := func(m map[string]any) any { e, _ := m["error"].(map[string]any); return e["code"] }

	if st, m := do("GET", "/v1/agents", "", ""); st != 401 || code(m) != "UNAUTHORIZED" {
		t.Errorf("no token: %d %v", st, m)
	}
	if st, m := do("GET", "/v1/agents", "not-a-github-token", ""); st != 401 || code(m) != "UNAUTHORIZED" {
		t.Errorf("unknown prefix: %d %v", st, m)
	}
	if st, m := do("GET", "/v1/agents", blind, ""); st != 403 || code(m) != "NOT_FOUND" {
		t.Errorf("token that cannot see the repository: %d %v", st, m)
	}
	st, m := do("GET", "/v1/agents", reader, "")
	if agents, _ := m["agents"].([]any); st != 200 || len(agents) != 1 || agents[0].(map[string]any)["model"] != "opus" {
		t.Errorf("GET /v1/agents: %d %v", st, m)
	}
	if st, m := do("GET", "/v1/agents/planner", reader, ""); st != 200 || m["path"] != "agents/planner.md" || len(m["sha"].(string)) != 40 {
		t.Errorf("GET /v1/agents/planner: %d %v", st, m)
	}
	if st, m := do("POST", "/v1/docs:get", reader, `{"path":["guides"]}`); st != 200 || m["file_path"] != "docs/guides.md" {
		t.Errorf("POST /v1/docs:get: %d %v", st, m)
	}
	for _, probe := range []string{"/healthz", "/readyz"} {
		if st, _ := do("GET", probe, "", ""); st != 200 {
			t.Errorf("%s without a token: %d, want 200", probe, st)
		}
	}
}
