package skillsd

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/skillsd/skillsd/services/skills/edge"
	"github.com/skillsd/skillsd/services/skills/internal/config"
	"github.com/skillsd/skillsd/services/skills/internal/inproc"
)

// EdgeOptions say how the command's listener is guarded (package edge):
// Serve's gRPC listener, or the HTTP listener of a gateway that embeds the
// service and asks for Server.Guard. The zero value takes everything from
// the configuration.
type EdgeOptions struct {
	// Flags are the command line's --auth, tokens variable, --tls-* and
	// --hide-paths, put over the configuration (auth.*, tls.*,
	// network.hide_paths) and the environment.
	Flags edge.Flags
	// Surface names the listener in messages ("REST", "MCP over HTTP");
	// empty is "gRPC".
	Surface string
	// LegacyTokensEnv is a variable read for a token when no tokens
	// variable is named (skills-mcp's SKILLS_MCP_AUTH_TOKEN); empty is none.
	LegacyTokensEnv string
	// HTTPClient calls GitHub under auth.mode github; nil is a client with a
	// 10 s timeout.
	HTTPClient *http.Client
	// Realm names the server in HTTP challenges; empty is "skillsd".
	Realm string
}

// newGuard resolves the listener's policy: configuration < environment <
// flags (and Options.AuthTokens over all of them).
func newGuard(opts Options, cfg config.Config, file string, getenv func(string) string) (*edge.Guard, error) {
	settings := edge.FromConfig(cfg, file, getenv)
	settings.GitHubRepos = gitHubAuth(cfg).Repos // auth.github_repos, else the content repositories on GitHub
	settings = opts.Edge.Flags.Over(settings)
	surface := opts.Edge.Surface
	if surface == "" {
		surface = "gRPC"
	}
	return edge.New(edge.Options{
		Surface:         surface,
		Settings:        settings,
		Tokens:          opts.AuthTokens,
		Getenv:          getenv,
		LegacyTokensEnv: opts.Edge.LegacyTokensEnv,
		Logger:          opts.Logger,
		HTTPClient:      opts.Edge.HTTPClient,
		Realm:           opts.Edge.Realm,
	})
}

// Guard is the policy of the command's listener: what Serve applies to its
// own, and what a gateway embedding the service applies to its HTTP
// listener (Guard.Listen, Guard.HTTP). It is resolved on first use, so that
// a command that never listens (skills-mcp on stdio, the skills CLI) is not
// stopped by settings that only a listener reads; an error names the flag,
// key or variable to change.
func (s *Server) Guard() (*edge.Guard, error) {
	s.guardOnce.Do(func() { s.guard, s.guardErr = newGuard(s.opts, s.cfg, s.cfgFile, s.getenv) })
	return s.guard, s.guardErr
}

// privateDirs are the folders that answers with hidden paths name by a label.
func privateDirs(cfg config.Config, cfgFile string, getenv func(string) string, home string) map[string]string {
	dirs := map[string]string{}
	if cfgFile != "" {
		dirs[cfgFile] = filepath.Base(cfgFile) // its folder may be anywhere (--config)
	}
	if home != "" {
		dirs[home] = "~"
	}
	if state := config.StateDir(cfg, getenv, home); state != "" {
		if rel, err := filepath.Rel(home, state); home == "" || err != nil || strings.HasPrefix(rel, "..") {
			dirs[state] = "$SKILLSD_HOME"
		}
	}
	return dirs
}

// servedAddr is the local address of a connection accepted by Serve: it
// carries whether answers on its listener hide paths.
type servedAddr struct {
	net.Addr
	hide bool
}

// trustedAddr is the local address of a connection of DialTrusted.
type trustedAddr struct{ net.Addr }

// markedListener gives every connection it accepts another local address.
type markedListener struct {
	net.Listener
	mark func(net.Addr) net.Addr
}

func (l markedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return markedConn{Conn: c, local: l.mark(c.LocalAddr())}, nil
}

type markedConn struct {
	net.Conn
	local net.Addr
}

func (c markedConn) LocalAddr() net.Addr { return c.local }

// localAddr is the local address of a call's connection.
func localAddr(ctx context.Context) net.Addr {
	if p, ok := peer.FromContext(ctx); ok {
		return p.LocalAddr
	}
	return nil
}

// checkCall authenticates a call, unless it comes from DialTrusted. With a
// policy that cannot be resolved, every call that needs one is refused.
func (s *Server) checkCall(ctx context.Context, method string) error {
	if _, ok := localAddr(ctx).(trustedAddr); ok {
		return nil
	}
	g, err := s.Guard()
	if err != nil {
		return status.Error(codes.Unavailable, "the server's authentication settings are not usable; its log says why")
	}
	return g.CheckGRPC(ctx, method)
}

// hideCall reports whether a call's answer hides paths: when the caller asks
// (edge.HidePathsKey), or when it came through a listener of Serve whose
// policy hides them. In-process calls see them unless they ask.
func (s *Server) hideCall(ctx context.Context) bool {
	if edge.HidePathsAsked(ctx) {
		return true
	}
	a, ok := localAddr(ctx).(servedAddr)
	return ok && a.hide
}

// serveListener is lis as Serve serves it: marked with the path policy of
// its address, and through the guard (which refuses an unsafe address and
// adds TLS).
func (s *Server) serveListener(lis net.Listener) (net.Listener, error) {
	g, err := s.Guard()
	if err != nil {
		_ = lis.Close()
		return nil, err
	}
	hide := g.HidePaths(lis.Addr())
	lis, err = g.Wrap(lis)
	if err != nil {
		return nil, err
	}
	s.log.Debug("listener guarded", "addr", lis.Addr().String(), "paths_hidden", hide)
	return markedListener{Listener: lis, mark: func(a net.Addr) net.Addr { return servedAddr{Addr: a, hide: hide} }}, nil
}

// DialTrusted serves the server in memory, like DialInProcess, and returns a
// connection whose calls skip authentication: the connection of a gateway
// that authenticated its own caller before it calls (its listener goes
// through Guard), or of a local command. Answers keep the server's paths
// unless a call asks to hide them (edge.HidePathsDialOptions). The connection
// is closed by Close.
func (s *Server) DialTrusted(ctx context.Context, opts ...grpc.DialOption) (*grpc.ClientConn, error) {
	return s.dialMemory(&s.trusted, func(a net.Addr) net.Addr { return trustedAddr{a} }, opts...)
}

// TrustedConn is a connection to the server from its own process whose
// calls skip authentication, as DialTrusted's (ConnectTrusted).
type TrustedConn struct {
	*inproc.Conn
	streams *grpc.ClientConn
}

// Close closes the connection of its streams.
func (c *TrustedConn) Close() error { return c.streams.Close() }

// inprocAddr is the address of both ends of ConnectTrusted's calls.
type inprocAddr struct{}

func (inprocAddr) Network() string { return "inproc" }
func (inprocAddr) String() string  { return "in-process" }

// ConnectTrusted connects to the server from its own process, as a trusted
// caller (see DialTrusted): its unary calls run the services' handlers
// directly, behind the interceptors every call runs through (metrics, access
// log, recovery, policy, readiness), with the messages copied instead of
// encoded and no transport between; its streaming calls go over a
// DialTrusted connection made with opts. unary wraps the unary calls, as
// grpc.WithChainUnaryInterceptor would (opts' interceptors wrap only the
// streams). Answers are those of DialTrusted's connection, byte for byte.
func (s *Server) ConnectTrusted(ctx context.Context, unary []grpc.UnaryClientInterceptor, opts ...grpc.DialOption) (*TrustedConn, error) {
	streams, err := s.DialTrusted(ctx, opts...)
	if err != nil {
		return nil, err
	}
	// A closed server answers no more calls, as its connections do not.
	open := func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		select {
		case <-s.closeCh:
			return status.Error(codes.Unavailable, "skillsd: server is closed")
		default:
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	}
	conn, err := s.calls.Conn(inproc.Options{
		Interceptors:       s.unary,
		ClientInterceptors: append([]grpc.UnaryClientInterceptor{open}, unary...),
		Peer:               &peer.Peer{Addr: inprocAddr{}, LocalAddr: trustedAddr{inprocAddr{}}},
		Fallback:           streams,
	})
	if err != nil {
		_ = streams.Close()
		return nil, err
	}
	return &TrustedConn{Conn: conn, streams: streams}, nil
}

// MCPHTTPSettings bound the sessions of MCP over HTTP (mcp.http.*).
type MCPHTTPSettings struct {
	// SessionIdleTimeout closes a session idle for this long.
	SessionIdleTimeout time.Duration
	// MaxSessions caps the live sessions.
	MaxSessions int
	// AllowedOrigins are the web origins allowed to call.
	AllowedOrigins []string
}

// MCPHTTP returns the configuration's mcp.http settings (config.yaml, then
// the environment).
func (s *Server) MCPHTTP() MCPHTTPSettings { return mcpHTTP(s.cfg) }

// MCPHTTPFromEnv reads the mcp.http settings of an MCP gateway that loads
// no configuration (in front of a remote skillsd) from the environment:
// SKILLS_MCP_SESSION_IDLE_TIMEOUT_SECONDS, SKILLS_MCP_MAX_SESSIONS and
// SKILLS_MCP_ALLOWED_ORIGINS over the defaults.
func MCPHTTPFromEnv(getenv func(string) string) (MCPHTTPSettings, error) {
	c := config.Default()
	if err := c.ApplyEnvOf(getenv, "mcp.http."); err != nil {
		return MCPHTTPSettings{}, err
	}
	return mcpHTTP(c), nil
}

func mcpHTTP(c config.Config) MCPHTTPSettings {
	return MCPHTTPSettings{
		SessionIdleTimeout: c.MCP.HTTP.SessionIdleTimeout(),
		MaxSessions:        c.MCP.HTTP.MaxSessions,
		AllowedOrigins:     append([]string(nil), c.MCP.HTTP.AllowedOrigins...),
	}
}
