package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// TestOpenAPIMatchesAnswers checks the OpenAPI 3 document skills-rest serves
// against what it really answers: every operation is called on a real
// skills-rest (embedded service, analytics on, agents and docs, a skill with
// a warning) and each answer, success or error, is validated against the
// operation's schema for its status — required fields, null for unset
// messages, 64-bit integers as strings, enums by name, the error shape. The
// token errors come from a skills-rest in front of a skillsd that requires a
// token. Every operation must have been validated with a 200.
func TestOpenAPIMatchesAnswers(t *testing.T) {
	skipShort(t)
	root := t.TempDir()
	catalog := filepath.Join(root, "skills")
	if err := os.CopyFS(catalog, os.DirFS(filepath.Join(repoRoot(t), "examples", "skills"))); err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(catalog, "wrong-name", "SKILL.md"), "---\nname: another-name\ndescription: Named unlike its folder.\n---\nBody.\n")
	write(filepath.Join(root, "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews code.\n---\nReview.\n")
	write(filepath.Join(root, "docs", "guides", "setup.md"), "---\ntitle: Setup\n---\n# Setup\n")
	write(filepath.Join(root, "config.yaml"), "analytics:\n  enabled: true\ncommands:\n  enabled: true\n  allowed: [ls]\n")
	env := []string{"SKILLSD_HOME=" + filepath.Join(root, "home"), "AGENTS_DIR=" + filepath.Join(root, "agents"), "DOCS_DIR=" + filepath.Join(root, "docs")}
	_, addr := startOnFreePortEnv(t, env, binary(t, "skills-rest"),
		func(addr string) []string {
			return []string{"--http", addr, "--skills-dir", catalog, "--config", filepath.Join(root, "config.yaml")}
		}, httpReady("/readyz"))
	base := "http://" + addr

	raw := get(t, base+"/openapi.json", http.StatusOK)
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatalf("loading /openapi.json: %v", err)
	}
	if err := doc.Validate(t.Context()); err != nil {
		t.Fatalf("/openapi.json is not valid OpenAPI 3: %v", err)
	}
	v := &validator{doc: doc, ok: map[string]bool{}}

	type call struct {
		method, path, body string
		status             int
	}
	calls := []call{
		{"GET", "/healthz", "", 200},
		{"GET", "/readyz", "", 200},
		{"GET", "/openapi.json", "", 200},
		{"GET", "/v1/skills?page_size=3", "", 200},
		{"GET", "/v1/skills?include_body=true&tags=go&routable_only=true", "", 200},
		{"GET", "/v1/skills:tree", "", 200},
		{"GET", "/v1/skills/backend/go-service", "", 200},
		{"GET", "/v1/skills/changelog", "", 200},
		{"GET", "/v1/skills/wrong-name", "", 200},
		{"GET", "/v1/skills/go-servic", "", 404},
		{"GET", "/v1/diagnostics?min_severity=SEVERITY_WARNING", "", 200},
		{"GET", "/v1/status", "", 200},
		{"POST", "/v1/skills:refresh", "{}", 200},
		{"POST", "/v1/skills:search", `{"query":"write release notes","limit":3}`, 200},
		{"POST", "/v1/skills:search", `{"query":"quantum chromodynamics"}`, 200},
		{"POST", "/v1/skills:search", `{"query":"x","limit":"many"}`, 400},
		{"POST", "/v1/skills:match", `{"context":"scaffold a new Go HTTP service"}`, 200},
		{"POST", "/v1/skills:match", `{"context":"book a flight to Lisbon"}`, 200},
		{"GET", "/v1/files/backend/go-service?file=templates/main.go.tmpl", "", 200},
		{"GET", "/v1/files/backend/go-service?file=diagrams/service-layout.png&max_bytes=16", "", 200},
		{"GET", "/v1/files/backend/go-service?file=../../etc/passwd", "", 400},
		{"POST", "/v1/scripts:run", `{"skill_path":"backend/go-service","file":"scripts/scaffold-plan.sh","args":{"name":"orders-api"}}`, 200},
		{"POST", "/v1/scripts:run", `{"skill_path":"backend/go-service","file":"scripts/scaffold-plan.sh"}`, 400},
		{"POST", "/v1/commands:run", `{"skill_path":"changelog","command":"ls"}`, 200},
		{"POST", "/v1/commands:run", `{"skill_path":"changelog","command":"rm","args":["-rf","/"]}`, 403},
		{"POST", "/v1/usage:report", `{"skill_path":"changelog","useful":true,"comment":"good"}`, 200},
		{"POST", "/v1/usage/events", `{"events":[{"id":"oas-1","type":"no_match","timestamp":"2026-01-02T03:04:05Z","server_id":"t","data":{"context":"x"}}]}`, 200},
		{"GET", "/v1/usage/stats", "", 200},
		{"GET", "/v1/agents", "", 200},
		{"GET", "/v1/agents/reviewer", "", 200},
		{"GET", "/v1/agents/nobody", "", 404},
		{"GET", "/v1/docs", "", 200},
		{"POST", "/v1/docs:get", `{"path":["guides","setup"]}`, 200},
		{"DELETE", "/v1/skills", "", 405},
		{"GET", "/v1/nowhere", "", 404},
	}
	for _, c := range calls {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			v.check(t, base, c.method, c.path, c.body, c.status, nil)
		})
	}
	t.Run("GET /v1/catalog:watch", func(t *testing.T) {
		v.checkStream(t, base, "/v1/catalog:watch", nil)
	})

	// 401 from a service that requires a token, and the token accepted.
	t.Run("unauthenticated", func(t *testing.T) {
		_, grpcAddr := startOnFreePortEnv(t, []string{"OAS_TOKENS=oas-token", "SKILLSD_HOME=" + t.TempDir()}, binary(t, "skillsd"),
			func(addr string) []string {
				return []string{"--grpc", addr, "--skills-dir", catalog, "--token-env", "OAS_TOKENS"}
			}, grpcReady)
		_, restAddr := startOnFreePort(t, binary(t, "skills-rest"),
			func(addr string) []string { return []string{"--http", addr, "--server", grpcAddr} }, httpReady("/openapi.json"))
		remote := "http://" + restAddr
		v.check(t, remote, "GET", "/v1/status", "", 401, nil)
		v.check(t, remote, "GET", "/v1/catalog:watch", "", 401, nil)
		v.check(t, remote, "GET", "/v1/status", "", 200, map[string]string{"Authorization": "Bearer oas-token"})
	})

	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			if !v.ok[method+" "+path] {
				t.Errorf("%s %s: no 200 answer was validated; add a call", method, path)
			}
		}
	}
}

type validator struct {
	doc *openapi3.T
	ok  map[string]bool // "GET /v1/skills" → a 200 was validated
}

// route finds the document's operation for a request path: templates match
// one segment per {param}, except {skill_path}, which takes the rest.
func (v *validator) route(method, path string) (*routers.Route, map[string]string) {
	for tmpl, item := range v.doc.Paths.Map() {
		op := item.GetOperation(method)
		if op == nil {
			continue
		}
		prefix, param, hasParam := strings.Cut(tmpl, "{")
		switch {
		case !hasParam && tmpl == path:
			return &routers.Route{Spec: v.doc, Path: tmpl, PathItem: item, Method: method, Operation: op}, map[string]string{}
		case hasParam && strings.HasPrefix(path, prefix) && len(path) > len(prefix):
			name := strings.TrimSuffix(param, "}")
			value := path[len(prefix):]
			if name != "skill_path" && strings.Contains(value, "/") {
				continue
			}
			return &routers.Route{Spec: v.doc, Path: tmpl, PathItem: item, Method: method, Operation: op}, map[string]string{name: value}
		}
	}
	return nil, nil
}

func (v *validator) check(t *testing.T, base, method, path, body string, want int, header map[string]string) {
	t.Helper()
	req, resp := send(t.Context(), t, method, base+path, body, header)
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d: %s", method, path, resp.StatusCode, want, answer)
	}
	u := req.URL
	rt, params := v.route(method, u.Path)
	if rt == nil {
		// No operation: the answer must be the document's error shape.
		rt = &routers.Route{Spec: v.doc, Path: u.Path, Method: method, Operation: &openapi3.Operation{Responses: openapi3.NewResponses(
			openapi3.WithStatus(http.StatusOK, &openapi3.ResponseRef{Value: openapi3.NewResponse().WithDescription("none")}),
			openapi3.WithName("default", v.doc.Components.Responses["Error"].Value),
		)}}
	}
	v.validate(t, req, rt, params, resp.StatusCode, resp.Header, answer)
	if resp.StatusCode == http.StatusOK && rt.PathItem != nil {
		v.ok[method+" "+rt.Path] = true
	}
	if resp.StatusCode == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("%s %s: 401 without WWW-Authenticate: Bearer", method, path)
	}
}

// checkStream validates the first lines of a newline-delimited stream.
func (v *validator) checkStream(t *testing.T, base, path string, header map[string]string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, resp := send(ctx, t, http.MethodGet, base+path, "", header)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d", path, resp.StatusCode)
	}
	rt, params := v.route(http.MethodGet, path)
	if rt == nil || rt.Operation.Extensions["x-stream"] == nil {
		t.Fatalf("GET %s: the document does not mark it as a stream", path)
	}
	line, err := bufio.NewReader(resp.Body).ReadBytes('\n')
	if err != nil {
		t.Fatalf("GET %s: reading the first line: %v", path, err)
	}
	var first map[string]any
	if err := json.Unmarshal(line, &first); err != nil || first["result"] == nil {
		t.Fatalf("GET %s: first line %s", path, line)
	}
	v.validate(t, req, rt, params, resp.StatusCode, resp.Header, bytes.TrimSpace(line))
	v.ok["GET "+rt.Path] = true
}

// send makes one request; body, when given, is JSON.
func send(ctx context.Context, t *testing.T, method, url, body string, header map[string]string) (*http.Request, *http.Response) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, val := range header {
		req.Header.Set(k, val)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return req, resp
}

func (v *validator) validate(t *testing.T, req *http.Request, rt *routers.Route, params map[string]string, status int, h http.Header, body []byte) {
	t.Helper()
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: rt},
		Status:                 status,
		Header:                 h,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(t.Context(), in); err != nil {
		t.Errorf("%s %s → %d does not match the document:\n%v\nanswer: %s", req.Method, req.URL.RequestURI(), status, err, clip(body, 600))
	}
}

func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return fmt.Sprintf("%s… (%d bytes)", b[:n], len(b))
}
