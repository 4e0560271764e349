package restgw_test

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestNoInternalHeaders: the gRPC metadata of the answers stays inside
// (issue 18: Grpc-Metadata-Content-Type leaked to every REST client).
func TestNoInternalHeaders(t *testing.T) {
	srv := serve(t, writeCatalog(t, catalog))
	for _, r := range []response{
		get(t, srv, "/v1/skills"),
		get(t, srv, "/v1/skills/pdf"),
		get(t, srv, "/v1/status"),
		get(t, srv, "/v1/skills/nope"),
		do(t, srv, http.MethodPost, "/v1/skills:search", strings.NewReader(`{"query": "pdf"}`)),
	} {
		for name := range r.header {
			if strings.HasPrefix(strings.ToLower(name), "grpc-") {
				t.Errorf("header %s: %v leaked", name, r.header[name])
			}
		}
	}
}

// TestConditionalReads: catalog reads carry an ETag and Cache-Control; the
// same request with If-None-Match gets 304 and no body until the answer
// changes.
func TestConditionalReads(t *testing.T) {
	dir := writeCatalog(t, catalog)
	srv := serve(t, dir)
	for _, path := range []string{"/v1/skills", "/v1/skills/pdf", "/v1/skills:tree", "/v1/diagnostics", "/v1/status"} {
		r := get(t, srv, path)
		wantOK(t, path, r)
		etag := r.header.Get("ETag")
		if !strings.HasPrefix(etag, `"`) || len(etag) < 10 {
			t.Errorf("%s: ETag %q", path, etag)
			continue
		}
		if cc := r.header.Get("Cache-Control"); cc != "private, no-cache" {
			t.Errorf("%s: Cache-Control %q, want private, no-cache", path, cc)
		}
		if want := fmt.Sprintf(`"%x"`, sha256.Sum256(r.raw))[:33] + `"`; etag != want {
			t.Errorf("%s: ETag %s, want the answer's digest %s", path, etag, want)
		}
		again := get(t, srv, path, "If-None-Match", etag)
		if again.status != http.StatusNotModified || len(again.raw) != 0 || again.header.Get("ETag") != etag {
			t.Errorf("%s with If-None-Match: %d %q, ETag %q; want 304 without a body", path, again.status, again.raw, again.header.Get("ETag"))
		}
		other := get(t, srv, path, "If-None-Match", `"something-else"`)
		wantOK(t, path+" with another ETag", other)
		if string(other.raw) != string(r.raw) {
			t.Errorf("%s: the body differs from the first answer", path)
		}
	}
	// Another request is another answer: another ETag.
	a, b := get(t, srv, "/v1/skills?page_size=1"), get(t, srv, "/v1/skills?page_size=2")
	if a.header.Get("ETag") == b.header.Get("ETag") {
		t.Error("two different pages share an ETag")
	}
	// Errors, writes and the probes are not cached.
	if r := get(t, srv, "/v1/skills/nope"); r.header.Get("ETag") != "" {
		t.Errorf("a 404 has an ETag %q", r.header.Get("ETag"))
	}
	if r := do(t, srv, http.MethodPost, "/v1/skills:search", strings.NewReader(`{"query": "pdf"}`)); r.header.Get("ETag") != "" {
		t.Errorf("a POST has an ETag %q", r.header.Get("ETag"))
	}
}
