package restgw

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
)

// watchPath is the one GET route that streams: it is never buffered.
const watchPath = "/v1/catalog:watch"

// conditional gives the catalog reads (GET /v1/…, but the watch stream) an
// ETag and Cache-Control, and answers 304 Not Modified to a request whose
// If-None-Match names the answer's ETag.
//
// The ETag is the digest of the answer itself: the same request answered
// from the same catalog gives the same bytes, so it changes exactly when the
// answer does (a new catalog generation that changes this answer, or
// another request), survives a restart of the server, and is the same on
// every replica that serves the same content the same way. Cache-Control
// "private, no-cache" lets a browser or client keep the answer but ask
// again each time (a 304 is then a few bytes), and keeps shared caches out,
// as answers may need credentials. The request still reaches the service,
// so that its usage counts and its authorisation are checked every time.
func conditional(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || !strings.HasPrefix(r.URL.Path, "/v1/") || r.URL.Path == watchPath {
			next.ServeHTTP(w, r)
			return
		}
		buf := &bufferedAnswer{header: w.Header()}
		next.ServeHTTP(buf, r)
		status := buf.status
		if status == 0 {
			status = http.StatusOK
		}
		if status != http.StatusOK {
			w.WriteHeader(status)
			_, _ = w.Write(buf.body.Bytes())
			return
		}
		sum := sha256.Sum256(buf.body.Bytes())
		etag := `"` + hex.EncodeToString(sum[:16]) + `"`
		h := w.Header()
		h.Set("ETag", etag)
		h.Set("Cache-Control", "private, no-cache")
		if matchesETag(r.Header.Get("If-None-Match"), etag) {
			h.Del("Content-Length")
			h.Del("Content-Type")
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Length", strconv.Itoa(buf.body.Len()))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(buf.body.Bytes())
	})
}

// matchesETag reports whether an If-None-Match header names etag (or is
// "*"); weak tags compare by their value, as RFC 9110 says for GET.
func matchesETag(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

// bufferedAnswer keeps a unary answer until it is complete. It shares the
// real writer's header map.
type bufferedAnswer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedAnswer) Header() http.Header { return b.header }

func (b *bufferedAnswer) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

func (b *bufferedAnswer) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}
