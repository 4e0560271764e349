package mcpgw

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of HTTPOptions (and of the mcp.http.* keys of config.yaml).
const (
	DefaultSessionIdleTimeout = 30 * time.Minute
	DefaultMaxSessions        = 1000
)

// DefaultAllowedOrigins are the web origins allowed when HTTPOptions lists
// none: pages served from this machine, on any port.
func DefaultAllowedOrigins() []string {
	return []string{
		"http://localhost:*", "https://localhost:*",
		"http://127.0.0.1:*", "https://127.0.0.1:*",
		"http://[::1]:*", "https://[::1]:*",
	}
}

// modernProtocol is the first MCP protocol version whose requests carry
// their version and need no session (SEP-2575): the go-sdk serves it over
// HTTP only from a stateless handler.
const modernProtocol = "2026-07-28"

// HTTPOptions bound MCP over HTTP. The zero value is ready to use.
type HTTPOptions struct {
	// Logger receives the transport's log and the refusals; nil discards.
	Logger *slog.Logger
	// SessionIdleTimeout closes a Streamable HTTP session that received no
	// request for this long (its client then gets 404 and starts a new one,
	// as the transport asks); 0 is DefaultSessionIdleTimeout.
	SessionIdleTimeout time.Duration
	// MaxSessions caps the live sessions, Streamable HTTP and legacy SSE
	// together: one more is refused with 503 and a JSON-RPC error saying
	// so; 0 is DefaultMaxSessions.
	MaxSessions int
	// AllowedOrigins are the web origins whose pages may call (the MCP
	// transport asks servers to check Origin): "scheme://host[:port]",
	// ":*" for any port, "*" for every origin. A request with an Origin
	// header not allowed gets 403; requests without one (clients that are
	// not browsers) pass. Empty is DefaultAllowedOrigins.
	AllowedOrigins []string
}

// HTTP serves one MCP server over Streamable HTTP (every protocol version:
// the SDK's stateful handler before 2026-07-28, its stateless one from it)
// and the legacy HTTP+SSE transport, with idle sessions closed, live
// sessions bounded and the Origin header checked. DNS-rebinding protection
// (a loopback listener refuses a foreign Host) stays on.
type HTTP struct {
	server  *mcp.Server
	opts    HTTPOptions
	log     *slog.Logger
	origins []origin

	legacy, modern, sseHandler http.Handler

	// mu guards pending (Streamable HTTP sessions being opened) and sse
	// (legacy SSE streams open), counted against MaxSessions.
	mu      sync.Mutex
	pending int
	sse     int
}

// NewHTTP returns the handlers of server. AllowedOrigins must be valid
// origins (config.yaml's are checked when it loads); an invalid entry is an
// error naming it.
func NewHTTP(server *mcp.Server, opts HTTPOptions) (*HTTP, error) {
	if opts.SessionIdleTimeout <= 0 {
		opts.SessionIdleTimeout = DefaultSessionIdleTimeout
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if len(opts.AllowedOrigins) == 0 {
		opts.AllowedOrigins = DefaultAllowedOrigins()
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &HTTP{server: server, opts: opts, log: log}
	for _, o := range opts.AllowedOrigins {
		p, err := parseOrigin(o)
		if err != nil {
			return nil, err
		}
		h.origins = append(h.origins, p)
	}
	get := func(*http.Request) *mcp.Server { return server }
	h.legacy = mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Logger: log, SessionTimeout: opts.SessionIdleTimeout})
	h.modern = mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Logger: log, Stateless: true})
	h.sseHandler = mcp.NewSSEHandler(get, &mcp.SSEOptions{})
	return h, nil
}

// Streamable is the handler of the Streamable HTTP endpoint (/mcp).
func (h *HTTP) Streamable() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.originAllowed(w, r) {
			return
		}
		if v := r.Header.Get("MCP-Protocol-Version"); v >= modernProtocol && r.Header.Get("Mcp-Session-Id") == "" {
			h.modern.ServeHTTP(w, r) // no session: one request, one answer
			return
		}
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			h.newSession(w, r, h.legacy, false)
			return
		}
		h.legacy.ServeHTTP(w, r)
	})
}

// SSE is the handler of the legacy HTTP+SSE endpoint (/sse): GET opens a
// session's event stream, POST /sse?sessionid=… sends it a message.
func (h *HTTP) SSE() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.originAllowed(w, r) {
			return
		}
		if r.Method == http.MethodGet {
			h.newSession(w, r, h.sseHandler, true)
			return
		}
		h.sseHandler.ServeHTTP(w, r)
	})
}

// Sessions is the number of live sessions: Streamable HTTP sessions (the
// server's sessions with an ID) and open legacy SSE streams.
func (h *HTTP) Sessions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.streamable() + h.sse
}

// streamable counts the live Streamable HTTP sessions. The SDK's other
// sessions have no ID: legacy SSE ones (counted by h.sse) and the stateless
// handler's, which live for one request.
func (h *HTTP) streamable() int {
	n := 0
	for ss := range h.server.Sessions() {
		if ss.ID() != "" {
			n++
		}
	}
	return n
}

// newSession serves a request that opens a session, unless MaxSessions are
// live or being opened. A Streamable HTTP session counts as pending until
// its answer starts (the SDK has made it live by then: it may count twice
// for that moment, never less); a legacy SSE session counts for as long as
// its stream is open, which is its whole life.
func (h *HTTP) newSession(w http.ResponseWriter, r *http.Request, next http.Handler, sse bool) {
	h.mu.Lock()
	if h.streamable()+h.pending+h.sse >= h.opts.MaxSessions {
		h.mu.Unlock()
		h.log.Warn("MCP session refused: the limit of live sessions is reached", "max_sessions", h.opts.MaxSessions)
		w.Header().Set("Retry-After", "60")
		writeJSONRPCError(w, http.StatusServiceUnavailable, -32000, fmt.Sprintf(
			"too many MCP sessions: this server keeps at most %d open (mcp.http.max_sessions). Close sessions you no longer use (HTTP DELETE with their Mcp-Session-Id) or try again later; idle sessions close after %s.",
			h.opts.MaxSessions, h.opts.SessionIdleTimeout))
		return
	}
	counter := &h.pending
	if sse {
		counter = &h.sse
	}
	*counter++
	h.mu.Unlock()
	var once sync.Once
	release := func() {
		once.Do(func() {
			h.mu.Lock()
			*counter--
			h.mu.Unlock()
		})
	}
	defer release()
	if !sse {
		w = &releasingWriter{ResponseWriter: w, release: release}
	}
	next.ServeHTTP(w, r)
}

// releasingWriter calls release when the answer starts: a client that read
// it and opens the next session at once must find this one live, not pending.
type releasingWriter struct {
	http.ResponseWriter
	release func()
}

func (w *releasingWriter) WriteHeader(code int) {
	w.release()
	w.ResponseWriter.WriteHeader(code)
}

func (w *releasingWriter) Write(p []byte) (int, error) {
	w.release()
	return w.ResponseWriter.Write(p)
}

// Unwrap gives http.ResponseController the original writer (to flush).
func (w *releasingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// origin is one allowed origin.
type origin struct {
	any          bool // "*"
	scheme, host string
	port         string // "" the scheme's default, "*" any
}

// parseOrigin reads "*" or scheme://host[:port|:*].
func parseOrigin(s string) (origin, error) {
	if s == "*" {
		return origin{any: true}, nil
	}
	anyPort := strings.HasSuffix(s, ":*")
	u, err := url.Parse(strings.TrimSuffix(s, ":*"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return origin{}, fmt.Errorf("allowed origin %q: want scheme://host[:port], :* for any port, or * for every origin", s)
	}
	o := origin{scheme: u.Scheme, host: strings.ToLower(u.Hostname()), port: normalPort(u.Scheme, u.Port())}
	if anyPort {
		o.port = "*"
	}
	return o, nil
}

// normalPort drops a scheme's default port.
func normalPort(scheme, port string) string {
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		return ""
	}
	return port
}

// originAllowed checks the Origin header; a refusal is answered here.
func (h *HTTP) originAllowed(w http.ResponseWriter, r *http.Request) bool {
	raw := r.Header.Get("Origin")
	if raw == "" {
		return true
	}
	if u, err := url.Parse(raw); err == nil && u.Hostname() != "" {
		host, port := strings.ToLower(u.Hostname()), normalPort(u.Scheme, u.Port())
		for _, o := range h.origins {
			if o.any || (o.scheme == u.Scheme && o.host == host && (o.port == "*" || o.port == port)) {
				return true
			}
		}
	} else {
		for _, o := range h.origins {
			if o.any {
				return true
			}
		}
	}
	h.log.Info("MCP request refused: Origin not allowed", "origin", clipText(raw, 200))
	writeJSONRPCError(w, http.StatusForbidden, -32000, fmt.Sprintf(
		"Origin %s may not call this MCP server: add it to mcp.http.allowed_origins (SKILLS_MCP_ALLOWED_ORIGINS, --allowed-origin) to let its pages call", clipText(raw, 200)))
	return false
}

// writeJSONRPCError answers a refused HTTP request with a JSON-RPC error.
func writeJSONRPCError(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
}

// WriteJSONRPCError answers a refused HTTP request (auth, Origin, session
// limit) as MCP clients read errors: a JSON-RPC error with no id.
func WriteJSONRPCError(w http.ResponseWriter, status, code int, msg string) {
	writeJSONRPCError(w, status, code, msg)
}

// clipText shortens s to n bytes.
func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
