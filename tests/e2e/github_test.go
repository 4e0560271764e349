package e2e

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// githubDoc is what node/github-client.mjs prints.
type githubDoc struct {
	Transport    string `json:"transport"`
	ConnectError string `json:"connectError"`
	Tools        []string
	Calls        []struct {
		Name    string `json:"name"`
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
		Error   string `json:"error"`
	} `json:"calls"`
}

// TestGitHubAuthWithNodeSDK runs skills-mcp --http --auth github
// --profile github-worker against a fake GitHub API on 127.0.0.1, and drives
// it with the official TypeScript SDK over Streamable HTTP (/mcp) and the
// legacy HTTP+SSE transport (/sse): a token that can read the repository
// lists and reads agents and docs in seed 003's shapes; no token, or one
// GitHub refuses, does not get a session; and the token appears neither in
// the server's log nor under its state folder.
func TestGitHubAuthWithNodeSDK(t *testing.T) {
	skipShort(t)
	node, script := requireNode(t)
	script = filepath.Join(filepath.Dir(script), "github-client.mjs")
	const reader = "github_pat_11E2EREADER0_e2eReaderToken0000000000000000000000000000000000000000"
	const blind = "ghp_E2EBlindE2EBlindE2EBlindE2EBlindE2E"
	gh := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		switch tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "); {
		case tok == reader && r.URL.Path == "/repos/octo-org/handbook":
			_, _ = io.WriteString(w, `{"id":7,"name":"handbook","full_name":"octo-org/handbook","private":true,"permissions":{"admin":false,"maintain":false,"push":false,"triage":false,"pull":true}}`)
		case tok == blind || tok == reader:
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
		"skills/pdf/SKILL.md":         "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n",
		"agents/reviewer.md":          "---\nname: reviewer\ndescription: Reviews diffs\nmodel: sonnet\ntools: Read, Grep\n---\nReview.\n",
		"docs/guides/index.md":        "---\ndescription: Guides\n---\n",
		"docs/guides/setup.mdx":       "---\ndescription: Set it up\n---\nRun make.\n",
		"docs/reference/api/index.md": "# API\n",
	} {
		p := filepath.Join(content, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	state := t.TempDir()
	env := []string{
		"SKILLSD_HOME=" + state, "LOG_LEVEL=debug", "ANALYTICS_ENDPOINT=",
		"GITHUB_API_URL=" + gh.URL, "GITHUB_AUTH_REPOS=octo-org/handbook",
		"AGENTS_DIR=" + filepath.Join(content, "agents"), "DOCS_DIR=" + filepath.Join(content, "docs"),
	}
	proc, addr := startOnFreePortEnv(t, env, binary(t, "skills-mcp"),
		func(addr string) []string {
			return []string{"--http", addr, "--skills-dir", filepath.Join(content, "skills"), "--auth", "github", "--profile", "github-worker"}
		}, httpReady("/readyz"))

	bearer := func(tok string) string { return "Bearer " + base64.RawURLEncoding.EncodeToString([]byte(tok)) }
	run := func(transport, auth string) githubDoc {
		t.Helper()
		args := []string{"--base", "http://" + addr, "--transport", transport}
		if auth != "" {
			args = append(args, "--authorization", auth)
		}
		var doc githubDoc
		out := runNodeScript(t, node, script, args...)
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatalf("github-client: %v\n%s", err, out)
		}
		return doc
	}
	for _, transport := range []string{"streamable", "sse"} {
		t.Run(transport, func(t *testing.T) {
			for _, auth := range []string{"", bearer("not-a-github-token"), bearer(blind)} {
				if doc := run(transport, auth); doc.ConnectError == "" {
					t.Errorf("authorization %q: connected, want refused", auth)
				} else if !strings.Contains(doc.ConnectError, "401") && !strings.Contains(doc.ConnectError, "403") && !strings.Contains(doc.ConnectError, "UNAUTHORIZED") &&
					!strings.Contains(doc.ConnectError, "NOT_FOUND") && !strings.Contains(strings.ToLower(doc.ConnectError), "unauthorized") {
					t.Errorf("authorization %q: connect error %q says neither 401/403 nor the refusal's code", auth, doc.ConnectError)
				}
			}
			doc := run(transport, bearer(reader))
			if doc.ConnectError != "" {
				t.Fatalf("connect with a good token: %s", doc.ConnectError)
			}
			for _, want := range []string{"list_skills", "get_skill", "get_skill_file", "list_agents", "get_agent", "list_docs", "get_doc"} {
				if !strings.Contains(","+strings.Join(doc.Tools, ",")+",", ","+want+",") {
					t.Errorf("tools %v lack %s", doc.Tools, want)
				}
			}
			if len(doc.Calls) != 5 {
				t.Fatalf("calls: %+v", doc.Calls)
			}
			var agents []map[string]any
			if err := json.Unmarshal([]byte(doc.Calls[0].Text), &agents); err != nil || len(agents) != 1 || agents[0]["model"] != "sonnet" {
				t.Errorf("list_agents: %s (%v)", doc.Calls[0].Text, err)
			}
			var agent map[string]any
			if err := json.Unmarshal([]byte(doc.Calls[1].Text), &agent); err != nil || agent["path"] != "agents/reviewer.md" || len(agent["sha"].(string)) != 40 {
				t.Errorf("get_agent: %s", doc.Calls[1].Text)
			}
			var tree map[string]any
			if err := json.Unmarshal([]byte(doc.Calls[2].Text), &tree); err != nil || tree["guides"] == nil || tree["reference"] == nil {
				t.Errorf("list_docs: %s", doc.Calls[2].Text)
			}
			var page map[string]any
			if err := json.Unmarshal([]byte(doc.Calls[3].Text), &page); err != nil || page["filePath"] != "docs/guides/setup.mdx" || !strings.Contains(page["content"].(string), "Run make.") {
				t.Errorf("get_doc: %s", doc.Calls[3].Text)
			}
			if c := doc.Calls[4]; !c.IsError || !strings.Contains(c.Text, `"INVALID_PATH"`) {
				t.Errorf("get_doc [guides, ..]: %+v, want an INVALID_PATH error", c)
			}
		})
	}

	proc.stop(t)
	secrets := []string{reader, blind}
	for _, s := range []string{reader, blind} {
		secrets = append(secrets, base64.RawURLEncoding.EncodeToString([]byte(s)))
	}
	logs := proc.stderr.String()
	if !strings.Contains(logs, "request refused") {
		t.Errorf("the log does not show the refusals:\n%s", tail(logs, 3000))
	}
	for _, s := range secrets {
		if strings.Contains(logs, s) {
			t.Errorf("the server log holds a token (%s…)", s[:8])
		}
	}
	_ = filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, _ := os.ReadFile(p)
		for _, s := range secrets {
			if strings.Contains(string(data), s) {
				t.Errorf("%s holds a token (%s…)", p, s[:8])
			}
		}
		return nil
	})
}
