package restgw

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"
)

// handler wraps the mux with what every request gets: panic recovery, a
// request log line, the body limit and the check that the path and query are
// UTF-8 (proto strings must be, and a non-UTF-8 one would fail inside gRPC as
// an Internal error instead of the caller's mistake).
type handler struct {
	next    http.Handler
	errors  *errorWriter
	maxBody int64
	log     *slog.Logger
	ui      *uiHandler // nil: no console
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &recorder{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			h.log.ErrorContext(r.Context(), "panic serving a request", "method", r.Method, "path", clip(r.URL.Path, 200), "panic", p, "stack", string(debug.Stack()))
			if !rec.wroteHeader {
				h.errors.write(rec, http.StatusInternalServerError, internalError())
			}
		}
		h.log.DebugContext(r.Context(), "http request", "method", r.Method, "path", clip(r.URL.Path, 200), "status", rec.status, "duration", time.Since(start))
	}()

	if r.ContentLength > h.maxBody {
		h.errors.write(rec, http.StatusRequestEntityTooLarge, payloadTooLarge(h.maxBody))
		return
	}
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = &limitedBody{ReadCloser: http.MaxBytesReader(rec, r.Body, h.maxBody), limit: h.maxBody}
	}
	if !utf8.ValidString(r.URL.Path) {
		h.errors.write(rec, http.StatusBadRequest, invalid("the request path is not valid UTF-8 once unescaped"))
		return
	}
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		h.errors.write(rec, http.StatusBadRequest, invalid("malformed query string: "+err.Error()))
		return
	}
	for k, vs := range query {
		if !utf8.ValidString(k) {
			h.errors.write(rec, http.StatusBadRequest, invalid("a query parameter name is not valid UTF-8 once unescaped"))
			return
		}
		for _, v := range vs {
			if !utf8.ValidString(v) {
				h.errors.write(rec, http.StatusBadRequest, invalid("query parameter "+clip(k, 100)+" is not valid UTF-8 once unescaped"))
				return
			}
		}
	}
	if h.ui != nil && (r.URL.Path == "/" || r.URL.Path == "/ui" || strings.HasPrefix(r.URL.Path, UIPrefix)) {
		h.ui.ServeHTTP(rec, r)
		return
	}
	if status, e := checkBody(r); e != nil {
		h.errors.write(rec, status, *e)
		return
	}
	h.next.ServeHTTP(rec, r)
}

// limitedBody is a request body cut at the limit; it remembers whether the
// limit was hit, so that the error handler answers 413 rather than the
// decoding error the generated code makes of it.
type limitedBody struct {
	io.ReadCloser
	limit    int64
	exceeded bool
}

func (b *limitedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		b.exceeded = true
	}
	return n, err
}

// bodyLimitExceeded reports whether reading r's body hit the limit, and the limit.
func bodyLimitExceeded(r *http.Request) (int64, bool) {
	if b, ok := r.Body.(*limitedBody); ok && b.exceeded {
		return b.limit, true
	}
	return 0, false
}

// recorder remembers the status written. It unwraps to the original writer,
// so http.ResponseController (grpc-gateway's streaming) can still flush.
type recorder struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
}

func (rec *recorder) WriteHeader(code int) {
	if !rec.wroteHeader {
		rec.status, rec.wroteHeader = code, true
		// Every 401 names the scheme to use, also one that grpc-gateway
		// writes itself (a stream refused before its first message).
		if code == http.StatusUnauthorized && rec.Header().Get("WWW-Authenticate") == "" {
			rec.Header().Set("WWW-Authenticate", bearerChallenge)
		}
	}
	rec.ResponseWriter.WriteHeader(code)
}

func (rec *recorder) Write(p []byte) (int, error) {
	if !rec.wroteHeader {
		rec.status, rec.wroteHeader = http.StatusOK, true
	}
	return rec.ResponseWriter.Write(p)
}

// Flush implements http.Flusher.
func (rec *recorder) Flush() {
	if !rec.wroteHeader {
		rec.status, rec.wroteHeader = http.StatusOK, true
	}
	_ = http.NewResponseController(rec.ResponseWriter).Flush() // best effort, as http.Flusher
}

// Unwrap returns the original writer, for http.ResponseController.
func (rec *recorder) Unwrap() http.ResponseWriter { return rec.ResponseWriter }
