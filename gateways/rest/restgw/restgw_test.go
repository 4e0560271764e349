package restgw_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc"

	"github.com/skillsd/skillsd/gateways/rest/restgw"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// catalog is a small catalog mixing both layouts: Agent Skills folders (one
// nested, one whose name differs from its folder, one without frontmatter) and
// a seed-000 tree (_root.md, ui/_index.md, ui/react/auth.md).
var catalog = map[string]string{
	"pdf/SKILL.md": `---
name: pdf
description: Extract text and tables from PDF files and fill PDF forms.
metadata:
  skillhub:
    category: documents
    tags: [pdf, forms]
---
# PDF

Use pdfplumber for text extraction.
`,
	"docs/word/SKILL.md": `---
name: docx-writer
description: Create and edit Word documents with tracked changes.
---
# Word documents

Keep styles, never inline formatting.
`,
	"plugins/infra/skills/terraform/SKILL.md": `---
name: terraform
description: Plan and apply Terraform changes safely.
---
# Terraform

Always run plan first.
`,
	"plain/SKILL.md": "# A skill without frontmatter\n\nListed, loadable, never routed.\n",
	"_root.md": `---
keywords: [conventions, guidelines]
description: Ground rules for every task.
---
# Ground rules

Read the code first.
`,
	"ui/_index.md": `---
keywords: [frontend, ui]
description: Shared rules for user interfaces.
---
# UI

Accessible components.
`,
	"ui/react/auth.md": `---
keywords: [react, auth, login]
description: Authentication flows in React applications.
---
# React auth

Use the session hook.
`,
}

// writeCatalog writes files (path → content) under a new temporary folder.
func writeCatalog(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// gateway serves restgw over conn on an httptest server.
func gateway(t *testing.T, conn *grpc.ClientConn, opts restgw.Options) *httptest.Server {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	h, err := restgw.New(t.Context(), conn, opts)
	if err != nil {
		t.Fatalf("restgw.New: %v", err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// serve starts the real service on the given skill folders and the gateway in
// front of it.
func serve(t *testing.T, dirs ...string) *httptest.Server {
	t.Helper()
	return gateway(t, skillstest.Start(t, skillsd.Options{SkillsDirs: dirs, Logger: testLogger(t)}), restgw.Options{})
}

// response is one HTTP answer, body decoded.
type response struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

// do sends a request; path is sent as written (escapes included).
func do(t *testing.T, srv *httptest.Server, method, path string, body io.Reader, header ...string) response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	r := response{status: resp.StatusCode, header: resp.Header, raw: raw}
	if len(bytes.TrimSpace(raw)) > 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &r.body); err != nil {
			t.Fatalf("%s %s: body is not a JSON object: %v\n%s", method, path, err, raw)
		}
	}
	return r
}

func get(t *testing.T, srv *httptest.Server, path string, header ...string) response {
	t.Helper()
	return do(t, srv, http.MethodGet, path, nil, header...)
}

// wantOK fails unless r is a 200 JSON answer.
func wantOK(t *testing.T, what string, r response) {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("%s: status %d, want 200; body %s", what, r.status, r.raw)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s: Content-Type %q, want application/json", what, ct)
	}
}

// wantError checks the error shape {"error": {"code", "message", "details"}}
// with details.grpc_code, and the status and code.
func wantError(t *testing.T, what string, r response, status int, code, grpcCode string) map[string]any {
	t.Helper()
	if r.status != status {
		t.Errorf("%s: status %d, want %d; body %s", what, r.status, status, r.raw)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s: Content-Type %q, want application/json", what, ct)
	}
	if len(r.body) != 1 {
		t.Fatalf("%s: body %s, want one key \"error\"", what, r.raw)
	}
	e, ok := r.body["error"].(map[string]any)
	if !ok {
		t.Fatalf("%s: body %s has no error object", what, r.raw)
	}
	if got := e["code"]; got != code {
		t.Errorf("%s: error.code %v, want %q; body %s", what, got, code, r.raw)
	}
	if msg, _ := e["message"].(string); msg == "" {
		t.Errorf("%s: error.message is empty; body %s", what, r.raw)
	}
	details, ok := e["details"].(map[string]any)
	if !ok {
		t.Fatalf("%s: error.details %v, want an object; body %s", what, e["details"], r.raw)
	}
	if got := details["grpc_code"]; got != grpcCode {
		t.Errorf("%s: error.details.grpc_code %v, want %q", what, got, grpcCode)
	}
	for k := range e {
		if k != "code" && k != "message" && k != "details" {
			t.Errorf("%s: error has unexpected key %q", what, k)
		}
	}
	return e
}

// skillPaths returns the skill_path of each skill of a list answer.
func skillPaths(t *testing.T, r response) []string {
	t.Helper()
	list, ok := r.body["skills"].([]any)
	if !ok {
		t.Fatalf("skills is %T, want a list; body %s", r.body["skills"], r.raw)
	}
	var paths []string
	for _, s := range list {
		paths = append(paths, s.(map[string]any)["skill_path"].(string))
	}
	return paths
}

var allPaths = []string{
	"_root",
	"docs/word",
	"pdf",
	"plain",
	"plugins/infra/skills/terraform",
	"ui/_index",
	"ui/react/auth",
}

func TestListSkills(t *testing.T) {
	srv := serve(t, writeCatalog(t, catalog))

	r := get(t, srv, "/v1/skills")
	wantOK(t, "list", r)
	if got := skillPaths(t, r); !slices.Equal(got, allPaths) {
		t.Errorf("list: paths %q, want %q", got, allPaths)
	}
	if got := r.body["total_size"]; got != float64(len(allPaths)) {
		t.Errorf("list: total_size %v, want %d", got, len(allPaths))
	}
	if got := r.body["next_page_token"]; got != "" {
		t.Errorf("list: next_page_token %v, want \"\"", got)
	}
	first := r.body["skills"].([]any)[0].(map[string]any)
	for _, key := range []string{"skill_path", "name", "description", "layout", "tags", "keywords", "source", "routable", "body", "loaded_at"} {
		if _, ok := first[key]; !ok {
			t.Errorf("list: skill has no %q (proto names, unpopulated fields emitted): %v", key, first)
		}
	}
	if got := first["body"]; got != "" {
		t.Errorf("list: body %q without include_body, want \"\"", got)
	}

	t.Run("paging", func(t *testing.T) {
		var paths []string
		token := ""
		for page := 0; ; page++ {
			if page > len(allPaths) {
				t.Fatal("paging does not end")
			}
			r := get(t, srv, "/v1/skills?page_size=3&page_token="+token)
			wantOK(t, "page", r)
			got := skillPaths(t, r)
			if len(got) > 3 {
				t.Errorf("page %d: %d skills, want at most 3", page, len(got))
			}
			paths = append(paths, got...)
			token, _ = r.body["next_page_token"].(string)
			if token == "" {
				break
			}
		}
		if !slices.Equal(paths, allPaths) {
			t.Errorf("pages gave %q, want %q", paths, allPaths)
		}
	})

	t.Run("query", func(t *testing.T) {
		r := get(t, srv, "/v1/skills?query=TERRAFORM")
		wantOK(t, "query", r)
		if got, want := skillPaths(t, r), []string{"plugins/infra/skills/terraform"}; !slices.Equal(got, want) {
			t.Errorf("query: %q, want %q", got, want)
		}
		if got := r.body["total_size"]; got != float64(1) {
			t.Errorf("query: total_size %v, want 1", got)
		}
	})

	t.Run("include_body", func(t *testing.T) {
		r := get(t, srv, "/v1/skills?query=pdf&include_body=true")
		wantOK(t, "include_body", r)
		skills := r.body["skills"].([]any)
		if len(skills) != 1 {
			t.Fatalf("include_body: %d skills, want 1: %s", len(skills), r.raw)
		}
		if body, _ := skills[0].(map[string]any)["body"].(string); !strings.Contains(body, "pdfplumber") {
			t.Errorf("include_body: body %q, want the markdown body", body)
		}
	})

	t.Run("category and tags", func(t *testing.T) {
		r := get(t, srv, "/v1/skills?category=Documents&tags=forms&tags=PDF")
		wantOK(t, "filter", r)
		if got, want := skillPaths(t, r), []string{"pdf"}; !slices.Equal(got, want) {
			t.Errorf("filter: %q, want %q", got, want)
		}
	})
}

func TestEmptyListsAreArrays(t *testing.T) {
	srv := serve(t, t.TempDir())

	r := get(t, srv, "/v1/skills")
	wantOK(t, "list", r)
	want := map[string]any{"skills": []any{}, "next_page_token": "", "total_size": float64(0)}
	if !jsonEqual(r.body, want) {
		t.Errorf("empty list: %s, want {\"skills\": [], \"next_page_token\": \"\", \"total_size\": 0}", r.raw)
	}

	for _, path := range []string{"/v1/skills:tree", "/v1/diagnostics?min_severity=SEVERITY_ERROR"} {
		r := get(t, srv, path)
		wantOK(t, path, r)
		for k, v := range r.body {
			if v == nil {
				t.Errorf("%s: %q is null; body %s", path, k, r.raw)
			}
		}
		key := "skills"
		if strings.HasPrefix(path, "/v1/diagnostics") {
			key = "diagnostics"
		}
		if list, ok := r.body[key].([]any); !ok || len(list) != 0 {
			t.Errorf("%s: %q is %v, want []", path, key, r.body[key])
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestGetSkill(t *testing.T) {
	srv := serve(t, writeCatalog(t, catalog))

	tests := []struct {
		name, path, want string
	}{
		{"one segment", "/v1/skills/pdf", "pdf"},
		{"tree path with slashes", "/v1/skills/ui/react/auth", "ui/react/auth"},
		{"folder path with slashes", "/v1/skills/plugins/infra/skills/terraform", "plugins/infra/skills/terraform"},
		{"escaped slashes", "/v1/skills/ui%2Freact%2Fauth", "ui/react/auth"},
		{"lower-case escaped slashes", "/v1/skills/ui%2freact%2fauth", "ui/react/auth"},
		{"mixed slashes", "/v1/skills/ui/react%2Fauth", "ui/react/auth"},
		{"name, case-insensitive", "/v1/skills/DOCX-Writer", "docs/word"},
		{"tree name, case-insensitive and escaped", "/v1/skills/UI%2FReact%2FAuth", "ui/react/auth"},
		{"tree parent", "/v1/skills/ui/_index", "ui/_index"},
		{"root", "/v1/skills/_root", "_root"},
		{"with a query parameter", "/v1/skills/pdf?skip_cache=true", "pdf"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := get(t, srv, tc.path)
			wantOK(t, tc.path, r)
			sk, _ := r.body["skill"].(map[string]any)
			if got := sk["skill_path"]; got != tc.want {
				t.Errorf("GET %s: skill.skill_path %v, want %q", tc.path, got, tc.want)
			}
			for _, key := range []string{"files", "assets", "scripts", "inherited_assets", "inherited_scripts", "inheritance_chain", "diagnostics"} {
				if _, ok := r.body[key].([]any); !ok {
					t.Errorf("GET %s: %q is %v, want a list", tc.path, key, r.body[key])
				}
			}
		})
	}

	t.Run("inheritance", func(t *testing.T) {
		r := get(t, srv, "/v1/skills/ui/react/auth")
		wantOK(t, "auth", r)
		chain, _ := r.body["inheritance_chain"].([]any)
		if want := []any{"_root", "ui/_index", "ui/react/auth"}; !jsonEqual(chain, want) {
			t.Errorf("inheritance_chain %v, want %v", chain, want)
		}
	})
}

func TestGetSkillNotFound(t *testing.T) {
	srv := serve(t, writeCatalog(t, catalog))

	r := get(t, srv, "/v1/skills/ui/react/authentication")
	e := wantError(t, "unknown skill", r, http.StatusNotFound, "SKILL_NOT_FOUND", "NotFound")
	if msg := e["message"].(string); !strings.Contains(msg, "ui/react/authentication") {
		t.Errorf("message %q does not name the skill", msg)
	}

	// Escapes are decoded once: %252F is a literal "%2F", not a slash.
	r = get(t, srv, "/v1/skills/ui%252Freact%252Fauth")
	e = wantError(t, "double-escaped slashes", r, http.StatusNotFound, "SKILL_NOT_FOUND", "NotFound")
	if details := e["details"].(map[string]any); details["skill_path"] != "ui%2Freact%2Fauth" {
		t.Errorf("double-escaped slashes: details.skill_path %v, want ui%%2Freact%%2Fauth", details["skill_path"])
	}

	// A trailing slash asks GetSkill for the empty path, not for the listing.
	r = get(t, srv, "/v1/skills/")
	wantError(t, "empty skill path", r, http.StatusBadRequest, "INVALID_ARGUMENT", "InvalidArgument")
}

// TestRoutesDoNotShadow checks that the three catalog routes under /v1/skills,
// and the POST routes with a verb, each reach their own RPC.
func TestRoutesDoNotShadow(t *testing.T) {
	srv := serve(t, writeCatalog(t, catalog))

	r := get(t, srv, "/v1/skills")
	wantOK(t, "GET /v1/skills", r)
	if _, ok := r.body["total_size"]; !ok {
		t.Errorf("GET /v1/skills did not reach ListSkills: %s", r.raw)
	}

	r = get(t, srv, "/v1/skills:tree")
	wantOK(t, "GET /v1/skills:tree", r)
	nodes, _ := r.body["skills"].([]any)
	if len(nodes) == 0 {
		t.Fatalf("GET /v1/skills:tree: no nodes: %s", r.raw)
	}
	if _, ok := nodes[0].(map[string]any)["children"]; !ok {
		t.Errorf("GET /v1/skills:tree did not reach GetSkillTree: %s", r.raw)
	}

	r = get(t, srv, "/v1/skills/pdf")
	wantOK(t, "GET /v1/skills/pdf", r)
	if _, ok := r.body["inheritance_chain"]; !ok {
		t.Errorf("GET /v1/skills/pdf did not reach GetSkill: %s", r.raw)
	}

	// A skill path may end in something that looks like a verb.
	r = get(t, srv, "/v1/skills/pdf:tree")
	e := wantError(t, "GET /v1/skills/pdf:tree", r, http.StatusNotFound, "SKILL_NOT_FOUND", "NotFound")
	if !strings.Contains(e["message"].(string), "pdf:tree") {
		t.Errorf("GET /v1/skills/pdf:tree: message %q, want the path pdf:tree", e["message"])
	}

	// The verbs answer their POST routes only.
	for _, path := range []string{"/v1/skills:search", "/v1/skills:match", "/v1/skills:refresh"} {
		r := get(t, srv, path)
		wantError(t, "GET "+path, r, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "Unimplemented")
	}
	r = get(t, srv, "/v1/skills:nosuchverb")
	wantError(t, "unknown verb", r, http.StatusNotFound, "NOT_FOUND", "NotFound")
}

func TestCatalogRoutes(t *testing.T) {
	srv := serve(t, writeCatalog(t, catalog))

	r := get(t, srv, "/v1/status")
	wantOK(t, "status", r)
	if got := r.body["skill_count"]; got != float64(len(allPaths)) {
		t.Errorf("status: skill_count %v, want %d", got, len(allPaths))
	}
	if _, ok := r.body["generation"].(string); !ok {
		t.Errorf("status: generation %v, want an int64 string (proto JSON)", r.body["generation"])
	}

	r = get(t, srv, "/v1/diagnostics")
	wantOK(t, "diagnostics", r)
	if _, ok := r.body["diagnostics"].([]any); !ok {
		t.Errorf("diagnostics: %s", r.raw)
	}

	r = get(t, srv, "/v1/skills:tree?path=ui")
	wantOK(t, "sub-tree", r)
}

// TestUsageStatsAnalyticsOff: every RPC is implemented now, so the 501
// mapping is checked by TestUnknownService (a server with no skills
// services); here a refusal with a reason: analytics turned off
// (analytics.enabled: false; it is on, local only, by default).
func TestUsageStatsAnalyticsOff(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("analytics:\n  enabled: false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := gateway(t, skillstest.Start(t, skillsd.Options{SkillsDirs: []string{writeCatalog(t, catalog)}, ConfigFile: cfg, Logger: testLogger(t)}), restgw.Options{})
	r := get(t, srv, "/v1/usage/stats")
	wantError(t, "GET /v1/usage/stats", r, http.StatusBadRequest, "NOT_SUPPORTED", "FailedPrecondition")
}

func TestRoutingErrors(t *testing.T) {
	srv := serve(t, writeCatalog(t, catalog))

	tests := []struct {
		method, path string
		status       int
		code         string
		grpcCode     string
	}{
		{http.MethodGet, "/nope", http.StatusNotFound, "NOT_FOUND", "NotFound"},
		{http.MethodGet, "/v2/skills", http.StatusNotFound, "NOT_FOUND", "NotFound"},
		{http.MethodGet, "/", http.StatusNotFound, "NOT_FOUND", "NotFound"},
		{http.MethodGet, "/v1//skills", http.StatusNotFound, "NOT_FOUND", "NotFound"},
		{http.MethodDelete, "/v1/skills/pdf", http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "Unimplemented"},
		{http.MethodPost, "/v1/skills", http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "Unimplemented"},
		{http.MethodPut, "/healthz", http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "Unimplemented"},
		{http.MethodPost, "/openapi.json", http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "Unimplemented"},
	}
	for _, tc := range tests {
		r := do(t, srv, tc.method, tc.path, nil)
		wantError(t, tc.method+" "+tc.path, r, tc.status, tc.code, tc.grpcCode)
	}
}

func TestHealthz(t *testing.T) {
	srv := serve(t, t.TempDir())
	for _, probe := range []string{"/healthz", "/readyz"} {
		r := get(t, srv, probe)
		wantOK(t, probe, r)
		if want := map[string]any{"status": "SERVING"}; !jsonEqual(r.body, want) {
			t.Errorf("%s: %s, want {\"status\":\"SERVING\"}", probe, r.raw)
		}
	}
}

func TestOpenAPI(t *testing.T) {
	srv := serve(t, t.TempDir())
	r := get(t, srv, "/openapi.json")
	wantOK(t, "openapi", r)
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(r.raw, &doc); err != nil {
		t.Fatalf("openapi.json is not JSON: %v", err)
	}
	if doc.OpenAPI != "3.0.3" {
		t.Errorf("openapi %q, want 3.0.3", doc.OpenAPI)
	}
	// The pinned routes (ARCHITECTURE §6) and the gateway's own; the
	// document renders {skill_path=**} as {skill_path}.
	for _, route := range []struct{ path, method string }{
		{"/v1/skills", "get"},
		{"/v1/skills/{skill_path}", "get"},
		{"/v1/skills:search", "post"},
		{"/v1/skills:match", "post"},
		{"/healthz", "get"},
		{"/openapi.json", "get"},
	} {
		if _, ok := doc.Paths[route.path][route.method]; !ok {
			t.Errorf("openapi.json has no %s %s", strings.ToUpper(route.method), route.path)
		}
	}
}

func TestAuthorizationIsForwarded(t *testing.T) {
	conn := skillstest.Start(t, skillsd.Options{
		SkillsDirs: []string{writeCatalog(t, catalog)},
		AuthTokens: []string{"s3cret"},
		Logger:     testLogger(t),
	})
	srv := gateway(t, conn, restgw.Options{})

	r := get(t, srv, "/v1/skills")
	wantError(t, "no token", r, http.StatusUnauthorized, "UNAUTHENTICATED", "Unauthenticated")
	if got := r.header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
		t.Errorf("no token: WWW-Authenticate %q, want Bearer …", got)
	}

	r = get(t, srv, "/v1/skills", "Authorization", "Bearer wrong")
	wantError(t, "wrong token", r, http.StatusUnauthorized, "UNAUTHENTICATED", "Unauthenticated")

	r = get(t, srv, "/v1/skills", "Authorization", "Bearer s3cret")
	wantOK(t, "token", r)
	r = get(t, srv, "/v1/skills/ui/react/auth", "Authorization", "Bearer s3cret")
	wantOK(t, "token", r)

	// Health answers without a token (load balancers probe it).
	wantOK(t, "healthz", get(t, srv, "/healthz"))
}

func TestHostileInputs(t *testing.T) {
	srv := serve(t, writeCatalog(t, catalog))

	long := strings.Repeat("a/", 8<<10) + "x"
	tests := []struct {
		name, method, path, body string
		status                   int
		code, grpcCode           string
	}{
		{"very long path", "GET", "/v1/skills/" + long, "", http.StatusBadRequest, "INVALID_PATH", "InvalidArgument"},
		{"invalid UTF-8 in the path", "GET", "/v1/skills/%ff%fe", "", http.StatusBadRequest, "INVALID_ARGUMENT", "InvalidArgument"},
		{"invalid UTF-8 in the query", "GET", "/v1/skills?query=%C3%28", "", http.StatusBadRequest, "INVALID_ARGUMENT", "InvalidArgument"},
		{"NUL in the path", "GET", "/v1/skills/pdf%00", "", http.StatusNotFound, "SKILL_NOT_FOUND", "NotFound"},
		{"dot-dot path", "GET", "/v1/skills/../../etc/passwd", "", http.StatusNotFound, "SKILL_NOT_FOUND", "NotFound"},
		{"escaped dot-dot in the skill path", "GET", "/v1/skills/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd", "", http.StatusNotFound, "SKILL_NOT_FOUND", "NotFound"},
		{"negative page_size", "GET", "/v1/skills?page_size=-1", "", http.StatusBadRequest, "INVALID_ARGUMENT", "InvalidArgument"},
		{"page_size not a number", "GET", "/v1/skills?page_size=ten", "", http.StatusBadRequest, "INVALID_ARGUMENT", "InvalidArgument"},
		{"page_size beyond int32", "GET", "/v1/skills?page_size=99999999999", "", http.StatusBadRequest, "INVALID_ARGUMENT", "InvalidArgument"},
		{"bad page_token", "GET", "/v1/skills?page_token=not-a-token", "", http.StatusBadRequest, "INVALID_ARGUMENT", "InvalidArgument"},
		{"bad bool", "GET", "/v1/skills?include_body=maybe", "", http.StatusBadRequest, "INVALID_ARGUMENT", "InvalidArgument"},
		{"bad enum", "GET", "/v1/diagnostics?min_severity=SEVERE", "", http.StatusBadRequest, "INVALID_ARGUMENT", "InvalidArgument"},
		{"malformed JSON body", "POST", "/v1/skills:search", `{"query": `, http.StatusBadRequest, "INVALID_ARGUMENT", "InvalidArgument"},
		{"wrong JSON type", "POST", "/v1/skills:match", `{"context": 42}`, http.StatusBadRequest, "INVALID_ARGUMENT", "InvalidArgument"},
		{"invalid UTF-8 in the body", "POST", "/v1/skills:search", "{\"query\": \"\xff\"}", http.StatusBadRequest, "INVALID_ARGUMENT", "InvalidArgument"},
		{"too large body", "POST", "/v1/skills:search", `{"query": "` + strings.Repeat("x", restgw.DefaultMaxBodyBytes) + `"}`, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", "ResourceExhausted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			r := do(t, srv, tc.method, tc.path, body)
			wantError(t, tc.name, r, tc.status, tc.code, tc.grpcCode)
		})
	}

	t.Run("huge page_size is capped", func(t *testing.T) {
		r := get(t, srv, "/v1/skills?page_size=1000000")
		wantOK(t, "page_size 1000000", r)
		if got := skillPaths(t, r); !slices.Equal(got, allPaths) {
			t.Errorf("page_size 1000000: %q, want every skill", got)
		}
	})

	t.Run("too large body streamed without Content-Length", func(t *testing.T) {
		// An io.Reader that is not a bytes/strings reader makes the client
		// send the body chunked, so only reading it finds the size.
		big := io.MultiReader(strings.NewReader(`{"query": "`), strings.NewReader(strings.Repeat("x", 2*restgw.DefaultMaxBodyBytes)), strings.NewReader(`"}`))
		r := do(t, srv, http.MethodPost, "/v1/skills:search", big)
		wantError(t, "chunked body", r, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", "ResourceExhausted")
	})
}
