package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw"
	"github.com/skillsd/skillsd/services/skills/accesslog"
	"github.com/skillsd/skillsd/services/skills/edge"
	"github.com/skillsd/skillsd/services/skills/githubauth"
	"github.com/skillsd/skillsd/services/skills/healthz"
)

// authEnvDefault is skills-mcp's own variable for the token HTTP clients
// must send, read when no tokens variable is named (before SKILLSD_AUTH_TOKENS
// existed; both work).
const authEnvDefault = "SKILLS_MCP_AUTH_TOKEN"

// sessionFlags bound MCP over HTTP from the command line; zero values leave
// the configuration's (mcp.http.*).
type sessionFlags struct {
	idleTimeout time.Duration
	maxSessions int
	origins     stringList
}

func (f *sessionFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&f.idleTimeout, "session-idle-timeout", 0, "with --http: close a session idle this long, such as 30m (default mcp.http.session_idle_timeout_seconds, SKILLS_MCP_SESSION_IDLE_TIMEOUT_SECONDS, else 30m)")
	fs.IntVar(&f.maxSessions, "max-sessions", 0, "with --http: the most sessions alive at once; one more is refused with 503 (default mcp.http.max_sessions, SKILLS_MCP_MAX_SESSIONS, else 1000)")
	fs.Var(&f.origins, "allowed-origin", "with --http: a web `ORIGIN` whose pages may call (scheme://host[:port], :* for any port, * for all; repeat for more; replaces mcp.http.allowed_origins and SKILLS_MCP_ALLOWED_ORIGINS, default localhost on any port)")
}

func (f sessionFlags) given() bool {
	return f.idleTimeout != 0 || f.maxSessions != 0 || len(f.origins) > 0
}

// checkHTTPArgs checks the flags of MCP over HTTP against the others;
// getenv reads the variable --auth-token-env names.
func checkHTTPArgs(o options, getenv func(string) string) error {
	if o.httpAddr == "" {
		switch {
		case o.guard.TokensEnv != "":
			return usagef("--auth-token-env needs --http: on stdio the host that starts skills-mcp is its only client")
		case o.guard.Auth != "":
			return usagef("--auth needs --http: on stdio the host that starts skills-mcp is its only client")
		case o.guard.Given():
			return usagef("--tls-cert, --tls-key, --tls-client-ca and --hide-paths configure the HTTP listener; they need --http")
		case o.sessions.given():
			return usagef("--session-idle-timeout, --max-sessions and --allowed-origin bound MCP over HTTP; they need --http")
		}
	}
	if err := checkMetricsArgs(o); err != nil {
		return err
	}
	if o.sessions.idleTimeout < 0 || o.sessions.maxSessions < 0 {
		return usagef("--session-idle-timeout and --max-sessions must be positive")
	}
	if err := o.guard.Check(getenv); err != nil {
		return usagef("%v", err)
	}
	return nil
}

// httpEdge is the HTTP listener, opened through its guard, and the bounds of
// its sessions.
type httpEdge struct {
	lis      net.Listener
	guard    *edge.Guard
	sessions mcpgw.HTTPOptions
	// metrics is --metrics' registry and metricsLis its listener (nil: off).
	metrics    *prometheus.Registry
	metricsLis net.Listener
}

// dialOptions mark the calls to the service whose answers hide paths.
// Each call carries the request id of the HTTP request it serves
// (requestIDMiddleware, accesslog.DialOptions).
func (e *httpEdge) dialOptions() []grpc.DialOption {
	if e == nil {
		return nil
	}
	opts := accesslog.DialOptions()
	if e.guard.HidePaths(e.lis.Addr()) {
		opts = append(opts, edge.HidePathsDialOptions()...)
	}
	return opts
}

// openHTTP resolves the guard and the session bounds and opens the listener.
func openHTTP(o options, svc service, getenv func(string) string, log *slog.Logger) (*httpEdge, error) {
	guard, err := svc.guard()
	if err != nil {
		return nil, err
	}
	settings, err := svc.http()
	if err != nil {
		return nil, err
	}
	if o.sessions.idleTimeout > 0 {
		settings.SessionIdleTimeout = o.sessions.idleTimeout
	}
	if o.sessions.maxSessions > 0 {
		settings.MaxSessions = o.sessions.maxSessions
	}
	if len(o.sessions.origins) > 0 {
		settings.AllowedOrigins = o.sessions.origins
	}
	lis, err := guard.Listen(o.httpAddr)
	if err != nil {
		return nil, fmt.Errorf("--http %s: %w", o.httpAddr, err)
	}
	mlis, err := listenMetrics(guard, o)
	if err != nil {
		_ = lis.Close()
		return nil, err
	}
	return &httpEdge{lis: lis, guard: guard, metrics: o.metrics, metricsLis: mlis, sessions: mcpgw.HTTPOptions{
		Logger: log, SessionIdleTimeout: settings.SessionIdleTimeout, MaxSessions: settings.MaxSessions, AllowedOrigins: settings.AllowedOrigins,
	}}, nil
}

// remoteGuard is the guard of skills-mcp --http in front of a remote skillsd:
// the environment, then the flags. Sending its own token upstream with no
// caller authentication would lend that token to anyone: refused unless
// --auth none says so.
func remoteGuard(o options, getenv func(string) string, log *slog.Logger) (*edge.Guard, error) {
	settings, err := edge.FromEnv(getenv)
	if err != nil {
		return nil, err
	}
	g, err := edge.New(edge.Options{Surface: "MCP over HTTP", Settings: o.guard.Over(settings), Getenv: getenv,
		LegacyTokensEnv: authEnvDefault, Logger: log, Realm: "skills-mcp"})
	if err != nil {
		return nil, err
	}
	if o.tokenEnv != "" && g.Unset() {
		return nil, usagef("--token-env %s sends this gateway's own token to --server, and no caller authentication is configured: "+
			"anyone reaching skills-mcp would act with that token. Ask callers for credentials (--auth token with --auth-token-env NAME, "+
			"or --auth github), or pass --auth none to share the token on purpose", o.tokenEnv)
	}
	return g, nil
}

// mcpRefusal answers a refused request as MCP clients read errors: a
// JSON-RPC error (code -32001) that says what to send.
func mcpRefusal(w http.ResponseWriter, _ *http.Request, e *githubauth.Error) {
	msg := "unauthorized: " + e.Message + " (the token skills-mcp reads from --auth-token-env, " + edge.DefaultTokensEnv + " or " + authEnvDefault + ")"
	mcpgw.WriteJSONRPCError(w, e.HTTPStatus(), -32001, msg)
}

// serveHTTP serves the MCP server over Streamable HTTP (/mcp), the legacy
// HTTP+SSE transport (/sse) for clients that predate it, and the health
// probes over conn (/healthz, /readyz, open), until ctx ends.
func serveHTTP(ctx context.Context, server *mcp.Server, conn grpc.ClientConnInterface, web *httpEdge, log *slog.Logger) error {
	server.AddReceivingMiddleware(requestIDMiddleware)
	h, err := mcpgw.NewHTTP(server, web.sessions)
	if err != nil {
		return err
	}
	// Delegated GitHub auth answers in seed 003's error shape, like REST;
	// static tokens in JSON-RPC's.
	refuse := edge.Refusal(mcpRefusal)
	if web.guard.Mode() == edge.ModeGitHub {
		refuse = edge.RESTRefusal
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", web.guard.HTTP(h.Streamable(), edge.HTTPOptions{Refuse: refuse}))
	mux.Handle("/sse", web.guard.HTTP(h.SSE(), edge.HTTPOptions{Refuse: refuse}))
	// The probes, open, in the shape skills-rest answers them (package healthz).
	mux.Handle("GET "+healthz.LivePath, healthz.Live(conn, 0, log))
	mux.Handle("GET "+healthz.ReadyPath, healthz.Ready(conn, 0, log))
	// One access-log line per HTTP request (the MCP messages ride on them).
	hs := &http.Server{Handler: startMetrics(ctx, web, accesslog.HTTP(log, mux), log), ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(web.lis) }()
	base := web.guard.Scheme() + "://" + web.lis.Addr().String()
	log.Info("serving MCP over Streamable HTTP", append([]any{"url", base + "/mcp", "sse_url", base + "/sse",
		"paths_hidden", web.guard.HidePaths(web.lis.Addr()), "session_idle_timeout", web.sessions.SessionIdleTimeout,
		"max_sessions", web.sessions.MaxSessions, "allowed_origins", strings.Join(web.sessions.AllowedOrigins, ",")}, web.guard.Attrs()...)...)
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil {
		// Long-lived streams (server-sent events) may outlast the grace period:
		// close them; stopping on a signal is still a clean exit.
		log.Warn("closing HTTP connections still open after the grace period", "err", err)
		_ = hs.Close()
	}
	return nil
}
