package restgw

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

// UIPrefix is where the web console is served.
const UIPrefix = "/ui/"

// PublicPath reports whether a request path is served without credentials
// whatever the auth mode: the health probes, this document and the console's
// static files (the console then sends the caller's token with its API
// calls, and asks for one when an API call answers 401).
func PublicPath(p string) bool {
	return p == "/healthz" || p == "/readyz" || p == "/openapi.json" || p == "/" || p == "/ui" || strings.HasPrefix(p, UIPrefix)
}

// consoleCSP lets the console's page load its own scripts, styles and
// images and talk to its own origin only: no inline script, nothing from
// elsewhere.
const consoleCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// uiFile is one file of the console, read once.
type uiFile struct {
	body        []byte
	contentType string
	etag        string
	immutable   bool // a content-hashed asset
}

// uiHandler serves the console's files from fsys at UIPrefix: index.html for
// the folder, the files by name, 404 for anything else. The files are read
// when the gateway starts (they are embedded in the binary).
type uiHandler struct {
	files  map[string]uiFile // "index.html", "assets/app-1a2b.js"
	errors *errorWriter
}

func newUIHandler(fsys fs.FS, e *errorWriter) (*uiHandler, error) {
	h := &uiHandler{files: map[string]uiFile{}, errors: e}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		ct := mime.TypeByExtension(path.Ext(p))
		if ct == "" {
			ct = "application/octet-stream"
		}
		h.files[p] = uiFile{
			body:        body,
			contentType: ct,
			etag:        `"` + hex.EncodeToString(sum[:16]) + `"`,
			immutable:   strings.HasPrefix(p, "assets/"),
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("restgw: reading the console's files: %w", err)
	}
	if _, ok := h.files["index.html"]; !ok {
		return nil, errors.New("restgw: the console's files have no index.html (build it with make console)")
	}
	return h, nil
}

func (h *uiHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		h.errors.write(w, http.StatusMethodNotAllowed, errorBody{Error: errorDetail{
			Code: "METHOD_NOT_ALLOWED", Message: "method " + r.Method + " is not allowed on " + clip(r.URL.Path, 200),
			Details: map[string]string{"grpc_code": "Unimplemented"},
		}})
		return
	}
	if r.URL.Path == "/" || r.URL.Path == "/ui" {
		http.Redirect(w, r, UIPrefix, http.StatusFound)
		return
	}
	name := strings.TrimPrefix(r.URL.Path, UIPrefix)
	if name == "" {
		name = "index.html"
	}
	f, ok := h.files[name]
	if !ok {
		h.errors.write(w, http.StatusNotFound, errorBody{Error: errorDetail{
			Code: "NOT_FOUND", Message: "the console has no file " + clip(name, 200),
			Details: map[string]string{"grpc_code": "NotFound"},
		}})
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", f.contentType)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("ETag", f.etag)
	if f.immutable {
		hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		hd.Set("Cache-Control", "no-cache")
	}
	if strings.HasSuffix(name, ".html") {
		hd.Set("Content-Security-Policy", consoleCSP)
		hd.Set("X-Frame-Options", "DENY")
	}
	if match := r.Header.Get("If-None-Match"); match != "" && match == f.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hd.Set("Content-Length", fmt.Sprint(len(f.body)))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(f.body)
}
