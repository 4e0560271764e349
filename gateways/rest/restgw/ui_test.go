package restgw_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillsd/skillsd/gateways/rest/restgw"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

var consoleFiles = fstest.MapFS{
	"index.html":          {Data: []byte("<!doctype html><title>console</title>")},
	"assets/app-1a2b.js":  {Data: []byte("console.log(1)")},
	"assets/app-3c4d.css": {Data: []byte("body{}")},
}

func serveUI(t *testing.T) *httptest.Server {
	t.Helper()
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{t.TempDir()}, Logger: testLogger(t)})
	return gateway(t, conn, restgw.Options{UI: consoleFiles})
}

func TestConsoleFiles(t *testing.T) {
	srv := serveUI(t)

	r := get(t, srv, "/ui/")
	if r.status != http.StatusOK || string(r.raw) != "<!doctype html><title>console</title>" {
		t.Fatalf("GET /ui/: %d %q", r.status, r.raw)
	}
	for k, want := range map[string]string{
		"Content-Type":            "text/html; charset=utf-8",
		"Cache-Control":           "no-cache",
		"X-Content-Type-Options":  "nosniff",
		"X-Frame-Options":         "DENY",
		"Content-Security-Policy": "default-src 'self'",
	} {
		if got := r.header.Get(k); !strings.HasPrefix(got, want) {
			t.Errorf("GET /ui/: %s %q, want %q", k, got, want)
		}
	}
	if csp := r.header.Get("Content-Security-Policy"); strings.Contains(csp, "unsafe") || !strings.Contains(csp, "connect-src 'self'") {
		t.Errorf("GET /ui/: CSP %q allows more than the page's own origin", csp)
	}
	if get(t, srv, "/ui/index.html").status != http.StatusOK {
		t.Errorf("GET /ui/index.html: not served")
	}

	js := get(t, srv, "/ui/assets/app-1a2b.js")
	if js.status != http.StatusOK || string(js.raw) != "console.log(1)" {
		t.Fatalf("GET a script: %d %q", js.status, js.raw)
	}
	if ct := js.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
		t.Errorf("script Content-Type %q", ct)
	}
	if cc := js.header.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
		t.Errorf("a hashed asset's Cache-Control %q, want immutable", cc)
	}
	etag := js.header.Get("ETag")
	if again := get(t, srv, "/ui/assets/app-1a2b.js", "If-None-Match", etag); etag == "" || again.status != http.StatusNotModified || len(again.raw) != 0 {
		t.Errorf("If-None-Match %s: %d, want 304 without a body", etag, again.status)
	}
	if head := do(t, srv, http.MethodHead, "/ui/assets/app-3c4d.css", nil); head.status != http.StatusOK || len(head.raw) != 0 || head.header.Get("Content-Length") != "6" {
		t.Errorf("HEAD a stylesheet: %d, %d bytes, Content-Length %q", head.status, len(head.raw), head.header.Get("Content-Length"))
	}

	for _, p := range []string{"/", "/ui"} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+p, nil)
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/ui/" {
			t.Errorf("GET %s: %d to %q, want 302 to /ui/", p, resp.StatusCode, resp.Header.Get("Location"))
		}
	}

	// Hostile and unknown paths: a JSON 404, never a file outside the console.
	for _, p := range []string{"/ui/nope.js", "/ui/../openapi.json", "/ui/assets/", "/ui/%2e%2e/restgw.go", "/ui/assets/../../go.mod", "/ui/index.html/x"} {
		r := get(t, srv, p)
		if r.status == http.StatusOK && !strings.Contains(string(r.raw), "swagger") && !strings.Contains(string(r.raw), "openapi") {
			t.Errorf("GET %s: %d %q", p, r.status, r.raw)
		}
		if r.status == http.StatusNotFound {
			wantError(t, "GET "+p, r, http.StatusNotFound, "NOT_FOUND", "NotFound")
		}
	}
	wantError(t, "POST /ui/", do(t, srv, http.MethodPost, "/ui/", strings.NewReader("{}")), http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "Unimplemented")

	// The API is still there.
	wantOK(t, "GET /v1/skills", get(t, srv, "/v1/skills"))
}

func TestConsoleOff(t *testing.T) {
	srv := serve(t, t.TempDir())
	r := get(t, srv, "/ui/")
	wantError(t, "GET /ui/ without a console", r, http.StatusNotFound, "NOT_FOUND", "NotFound")
}

func TestConsoleNeedsIndex(t *testing.T) {
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{t.TempDir()}, Logger: testLogger(t)})
	_, err := restgw.New(t.Context(), conn, restgw.Options{UI: fstest.MapFS{"assets/x.js": {Data: []byte("x")}}})
	if err == nil || !strings.Contains(err.Error(), "index.html") {
		t.Fatalf("New with a console without index.html: %v", err)
	}
}

func TestPublicPath(t *testing.T) {
	for p, want := range map[string]bool{
		"/healthz": true, "/openapi.json": true, "/": true, "/ui": true, "/ui/": true, "/ui/assets/x.js": true,
		"/v1/skills": false, "/v1/status": false, "/uix": false, "/healthz/x": false, "/v1/ui/": false,
	} {
		if got := restgw.PublicPath(p); got != want {
			t.Errorf("PublicPath(%q) = %v, want %v", p, got, want)
		}
	}
}
