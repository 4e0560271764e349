//lint:file-ignore SA1019 MCP roots are deprecated from protocol 2026-07-28 (SEP-2577), but the hosts of today declare them on the initialize handshake, and default discovery needs them (ARCHITECTURE.md §11).

// Package roots follows the roots an MCP client declares: it asks each
// session that declares the roots capability for them, once initialized and
// again when the client says they changed, and reports them as local
// folders. It owns the mapping of file URIs to paths; it does not own what
// the folders are used for (skills-mcp's default discovery, through
// mcpgw.Options.OnClientRoots).
package roots

import (
	"context"
	"log/slog"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rootsTimeout bounds one roots/list request to a client.
const rootsTimeout = 5 * time.Second

// Watcher asks each client that declares the roots capability for its
// roots, once its session is initialized and again whenever it says they
// changed, and reports them, as local folders, to Options.OnClientRoots.
//
// It only asks sessions that completed the initialize handshake: a session of
// protocol 2026-07-28 or later has none, and that protocol forbids such
// requests from the server. Requests go out from goroutines of their own, so
// that notification handlers never wait for the client; one session has at
// most one request under way, and changes announced meanwhile are coalesced
// into one more request when it ends, so reports follow the client's order.
type Watcher struct {
	report  func(ctx context.Context, roots []string)
	log     *slog.Logger
	timeout time.Duration
	// windows selects how file URIs map to paths (rootPath).
	windows bool

	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*rootsSession
}

// rootsSession is the state of one initialized session that declared roots.
type rootsSession struct {
	ctx     context.Context // ends with the session
	running bool            // a request (and its report) is under way
	again   bool            // the roots changed meanwhile: ask once more
}

// New returns a watcher that reports each client's roots to report; log
// gets its debug lines; windows selects Windows paths for file URIs.
func New(report func(context.Context, []string), log *slog.Logger, windows bool) *Watcher {
	return &Watcher{
		report:   report,
		log:      log,
		timeout:  rootsTimeout,
		windows:  windows,
		sessions: map[*mcp.ServerSession]*rootsSession{},
	}
}

// Install sets the server options' handlers that drive the watcher
// (InitializedHandler and RootsListChangedHandler).
func (w *Watcher) Install(opts *mcp.ServerOptions) {
	opts.InitializedHandler = w.initialized
	opts.RootsListChangedHandler = w.listChanged
}

// initialized starts watching a session that declared the roots capability
// and asks for its roots.
func (w *Watcher) initialized(ctx context.Context, req *mcp.InitializedRequest) {
	ss := req.Session
	if p := ss.InitializeParams(); p == nil || p.Capabilities == nil || p.Capabilities.RootsV2 == nil {
		w.log.Debug("the MCP client does not declare roots: not asking for them")
		return
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w.mu.Lock()
	w.sessions[ss] = &rootsSession{ctx: sctx}
	w.mu.Unlock()
	go func() {
		_ = ss.Wait()
		cancel()
		w.mu.Lock()
		delete(w.sessions, ss)
		w.mu.Unlock()
	}()
	w.ask(ss)
}

// listChanged asks a watched session for its roots again. A session that is
// not watched (not initialized yet, or without the roots capability) is
// ignored: an initialized one that declared roots is asked anyway.
func (w *Watcher) listChanged(_ context.Context, req *mcp.RootsListChangedRequest) {
	if !w.ask(req.Session) {
		w.log.Debug("ignoring roots/list_changed from a client that is not initialized or did not declare roots")
	}
}

// ask starts a request for the session's roots, or, when one is under way,
// marks that another must follow. It reports whether the session is watched.
func (w *Watcher) ask(ss *mcp.ServerSession) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	st, ok := w.sessions[ss]
	if !ok {
		return false
	}
	if st.running {
		st.again = true
		return true
	}
	st.running = true
	go w.run(ss, st)
	return true
}

// run asks for the session's roots until no change was announced meanwhile.
func (w *Watcher) run(ss *mcp.ServerSession, st *rootsSession) {
	for {
		w.fetch(st.ctx, ss)
		w.mu.Lock()
		if !st.again || st.ctx.Err() != nil {
			st.running = false
			w.mu.Unlock()
			return
		}
		st.again = false
		w.mu.Unlock()
	}
}

// fetch sends roots/list and reports the answer's local folders. Failures are
// logged at debug level: many clients declare roots but do not answer.
func (w *Watcher) fetch(ctx context.Context, ss *mcp.ServerSession) {
	lctx, cancel := context.WithTimeout(ctx, w.timeout)
	res, err := ss.ListRoots(lctx, nil)
	cancel()
	if err != nil {
		w.log.Debug("the MCP client did not list its roots", "error", err)
		return
	}
	roots := make([]string, 0, len(res.Roots))
	for _, r := range res.Roots {
		if r == nil {
			continue
		}
		p, ok := rootPath(r.URI, w.windows)
		if !ok {
			w.log.Debug("ignoring an MCP client root that is not a local folder", "uri", r.URI)
			continue
		}
		roots = append(roots, p)
	}
	if ctx.Err() != nil {
		return // the session ended
	}
	w.log.Debug("MCP client roots", "roots", roots)
	w.report(ctx, roots)
}

// rootPath returns the local absolute path that a root's URI names: file URIs
// only (RFC 8089), percent-decoded, with no host or host "localhost". With
// windows, paths are Windows paths: file:///C:/dir is C:\dir, and
// file://server/share/dir is the UNC path \\server\share\dir. Other URIs, and
// file URIs that name no absolute path, give false.
func rootPath(uri string, windows bool) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || !strings.EqualFold(u.Scheme, "file") || u.Opaque != "" || u.User != nil || u.Port() != "" {
		return "", false
	}
	p := u.Path
	if !strings.HasPrefix(p, "/") || strings.ContainsRune(p, 0) {
		return "", false
	}
	p = path.Clean(p)
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		host = ""
	}
	if !windows {
		if host != "" {
			return "", false
		}
		return p, true
	}
	if strings.ContainsRune(p, '\\') {
		return "", false // a separator hidden from path.Clean
	}
	if host != "" {
		if p == "/" || !isServerName(host) {
			return "", false // a server without a share, or no server name
		}
		return `\\` + host + strings.ReplaceAll(p, "/", `\`), true
	}
	// "/C:" or "/C:/…": a drive; a path without one is not absolute on Windows.
	if len(p) < 3 || !isASCIILetter(p[1]) || p[2] != ':' || (len(p) > 3 && p[3] != '/') {
		return "", false
	}
	p = p[1:]
	if len(p) == 2 {
		p += "/"
	}
	return strings.ReplaceAll(p, "/", `\`), true
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// isServerName reports whether host can name the server of a UNC path: a DNS
// name or IPv4 address (letters, digits, '-', '_' and '.'), not made of dots
// only, so that neither "." nor ".." (the device namespace, a parent folder)
// get through.
func isServerName(host string) bool {
	dots := 0
	for i := 0; i < len(host); i++ {
		switch c := host[i]; {
		case c == '.':
			dots++
		case isASCIILetter(c), '0' <= c && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return dots < len(host)
}
