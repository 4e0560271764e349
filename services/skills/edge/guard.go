// Package edge is the network edge of every skillsd binary: the one place
// where a listener is opened (Guard.Listen, Guard.Wrap), with the TLS and
// the inbound authentication that the configuration, the environment and
// the command line ask for, and where unsafe combinations are refused.
// skillsd's gRPC, skills-rest's HTTP and skills-mcp's HTTP use it alike, so
// that a setting asking for auth or TLS takes effect on every surface or
// stops start-up with one message that names it.
//
// A Guard answers four questions for one listener: who may call (none,
// static bearer tokens, or a caller's GitHub token; CheckGRPC and HTTP),
// over what (plaintext, TLS, or mutual TLS, with certificates re-read when
// their files change), whether this address may be served at all (a
// listener that is not loopback with no authentication is refused, unless
// "none" was asked for explicitly; it then starts with a loud warning), and
// whether answers keep the server's absolute paths (HidePaths).
//
// It also holds the client side of TLS towards a remote skillsd (ClientTLS)
// and the metadata a gateway sends to ask the service to hide paths
// (HidePathsDialOptions). It reads no flags itself (Flags registers them on
// a command's FlagSet), and decides nothing about what is served.
package edge

import (
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/skillsd/skillsd/services/skills/githubauth"
)

// Options configures a Guard. The zero value guards a plaintext listener
// with no authentication, allowed on loopback only.
type Options struct {
	// Surface names what is served ("gRPC", "REST", "MCP over HTTP"), in
	// messages and logs.
	Surface string
	// Settings are the configuration's and the command line's (FromConfig
	// or FromEnv, then Flags.Over).
	Settings Settings
	// Tokens are accepted tokens given directly (a program or a test
	// embedding the service): when set they replace the settings' mode and
	// tokens variable, and calls need one of them.
	Tokens []string
	// Getenv reads the variable holding the tokens; nil reads nothing.
	Getenv func(string) string
	// LegacyTokensEnv is a variable holding one more accepted token, read
	// when no tokens variable is named (skills-mcp's SKILLS_MCP_AUTH_TOKEN);
	// empty is none.
	LegacyTokensEnv string
	// Logger receives the warnings and refusals (never a token); nil discards.
	Logger *slog.Logger
	// HTTPClient calls GitHub in ModeGitHub; nil is githubauth's default.
	HTTPClient *http.Client
	// Realm names the server in WWW-Authenticate challenges; empty is "skillsd".
	Realm string
}

// Guard is the resolved policy of one listener. It is safe for concurrent use.
type Guard struct {
	surface  string
	mode     string // ModeUnset, ModeNone, ModeToken or ModeGitHub
	modeFrom string
	auth     *authenticator // nil: every caller is let through
	certs    *certSource    // nil: plaintext
	hide     string
	realm    string
	log      *slog.Logger
}

// New resolves opts into a Guard: it reads the tokens, loads the
// certificates and checks that the settings agree. Any problem is an error
// that names the flag, key or variable to change; nothing is served until
// New succeeded.
func New(opts Options) (*Guard, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	s := opts.Settings
	g := &Guard{surface: opts.Surface, mode: s.AuthMode, modeFrom: s.AuthModeFrom, hide: s.HidePaths, realm: opts.Realm, log: log}
	if g.surface == "" {
		g.surface = "server"
	}
	if g.realm == "" {
		g.realm = "skillsd"
	}
	if g.modeFrom == "" {
		g.modeFrom = "auth.mode"
	}
	switch g.hide {
	case "":
		g.hide = HideAuto
	case HideAuto, HideAlways, HideNever:
	default:
		return nil, fmt.Errorf("%s: unknown value %q (want auto, always or never)", orKey(s.HidePathsFrom, "network.hide_paths"), g.hide)
	}
	if len(opts.Tokens) > 0 {
		g.mode, g.modeFrom, g.auth = ModeToken, "the program's tokens", tokenAuth(opts.Tokens)
	} else if err := g.resolveAuth(s, getenv, opts.LegacyTokensEnv, opts.HTTPClient); err != nil {
		return nil, err
	}
	if s.TLS.Enabled() {
		certs, err := newCertSource(s.TLS, orKey(s.TLSFrom, "tls.cert_file"), log)
		if err != nil {
			return nil, err
		}
		g.certs = certs
	}
	return g, nil
}

func orKey(from, key string) string {
	if from == "" {
		return key
	}
	return from
}

// resolveAuth picks the mode and builds its authenticator.
func (g *Guard) resolveAuth(s Settings, getenv func(string) string, legacy string, client *http.Client) error {
	named := s.TokensEnv != ""
	tokensVar, tokensFrom := s.TokensEnv, orKey(s.TokensEnvFrom, "auth.tokens_env")
	if !named {
		tokensVar, tokensFrom = DefaultTokensEnv, DefaultTokensEnv
	}
	tokens := splitTokens(getenv(tokensVar))
	if !named && len(tokens) == 0 && legacy != "" {
		if tokens = splitTokens(getenv(legacy)); len(tokens) > 0 {
			tokensVar, tokensFrom = legacy, legacy
		}
	}
	switch g.mode {
	case ModeUnset:
		if named || len(tokens) > 0 {
			g.mode, g.modeFrom = ModeToken, tokensFrom
		}
	case ModeNone, ModeGitHub:
		if named {
			return fmt.Errorf("%s is %s, but %s names a tokens variable (%s), which only token mode reads: remove one of the two", g.modeFrom, g.mode, tokensFrom, tokensVar)
		}
		if len(tokens) > 0 {
			return fmt.Errorf("%s is %s, but %s holds bearer tokens, which only token mode reads: unset it, or ask for token mode", g.modeFrom, g.mode, tokensVar)
		}
	case ModeToken:
	default:
		return fmt.Errorf("%s: unknown value %q (want none, token or github)", g.modeFrom, g.mode)
	}
	switch g.mode {
	case ModeToken:
		if len(tokens) == 0 {
			return fmt.Errorf("%s asks for token authentication, but the variable %s (%s) is empty or unset: set it to the accepted tokens, comma-separated", g.modeFrom, tokensVar, tokensFrom)
		}
		g.auth = tokenAuth(tokens)
	case ModeGitHub:
		if len(s.GitHubRepos) == 0 {
			return fmt.Errorf("%s is github, but there is no repository to check callers' tokens against: set auth.github_repos or GITHUB_AUTH_REPOS (owner/name, comma-separated), or a GitHub content repository (SKILLS_REPO)", g.modeFrom)
		}
		gh, err := githubauth.New(githubauth.Options{APIURL: s.GitHubAPIURL, Repos: s.GitHubRepos, Client: client, Logger: g.log, Realm: g.realm})
		if err != nil {
			return fmt.Errorf("%s is github: %w", g.modeFrom, err)
		}
		g.log.Info("delegated GitHub authentication", "surface", g.surface, "repos", strings.Join(gh.Repos(), ","), "api", s.GitHubAPIURL)
		g.auth = &authenticator{mode: ModeGitHub, github: gh}
	}
	return nil
}

// tokenAuth accepts tokens.
func tokenAuth(tokens []string) *authenticator {
	a := &authenticator{mode: ModeToken}
	for _, t := range tokens {
		a.tokens = append(a.tokens, sha256.Sum256([]byte(t)))
	}
	return a
}

// Mode is the authentication in force: none, token or github.
func (g *Guard) Mode() string {
	if g.mode == ModeUnset {
		return ModeNone
	}
	return g.mode
}

// Unset reports whether no authentication was asked for at all (neither a
// mode nor tokens): the listener then serves loopback only.
func (g *Guard) Unset() bool { return g.mode == ModeUnset }

// TLS reports whether the listener serves TLS.
func (g *Guard) TLS() bool { return g.certs != nil }

// Scheme is "https" with TLS, else "http", for the URLs a command prints.
func (g *Guard) Scheme() string {
	if g.certs != nil {
		return "https"
	}
	return "http"
}

// Listen opens a TCP listener on addr (host:port; port 0 picks one) and
// returns it through Wrap.
func (g *Guard) Listen(addr string) (net.Listener, error) {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	return g.Wrap(lis)
}

// Wrap checks lis against the policy and returns what to serve on: lis
// itself, or a TLS listener over it that presents the current certificate.
// A listener that is not loopback with no authentication is closed and
// refused, unless "none" was asked for explicitly, which starts with a loud
// warning. A listener this guard already returned is returned as it is.
func (g *Guard) Wrap(lis net.Listener) (net.Listener, error) {
	if l, ok := lis.(*guarded); ok && l.g == g {
		return l, nil
	}
	addr := lis.Addr().String()
	if !Loopback(lis.Addr()) {
		switch g.mode {
		case ModeUnset:
			_ = lis.Close()
			return nil, &UnsafeError{Surface: g.surface, Addr: addr}
		case ModeNone:
			g.log.Warn("!!! UNAUTHENTICATED LISTENER: serving "+g.surface+" on "+addr+", which is not a loopback address, with no authentication ("+g.modeFrom+" is none): "+
				"anyone who can reach this port can read every skill, refresh the catalog and run scripts. Set token or github authentication unless a proxy in front authenticates every caller.",
				"surface", g.surface, "addr", addr)
		}
	}
	if g.certs != nil {
		lis = tls.NewListener(lis, g.certs.config())
	}
	return &guarded{Listener: lis, g: g}, nil
}

// guarded is a listener that went through a Guard.
type guarded struct {
	net.Listener
	g *Guard
}

// UnsafeError is a listener refused because it is not loopback and no
// authentication was configured.
type UnsafeError struct {
	Surface, Addr string
}

func (e *UnsafeError) Error() string {
	return fmt.Sprintf("refusing to serve %s on %s: it is not a loopback address and no authentication is configured, so anyone who can reach it could read every skill and run scripts. "+
		"Ask for authentication (--auth token with the tokens in %s or the variable --auth-token-env names, --auth github; auth.mode in config.yaml; SKILLSD_AUTH_MODE), "+
		"or pass --auth none (auth.mode: none, SKILLSD_AUTH_MODE=none) to serve it without authentication on purpose",
		e.Surface, e.Addr, DefaultTokensEnv)
}

// IsUnsafe reports whether err is an *UnsafeError.
func IsUnsafe(err error) bool {
	var u *UnsafeError
	return errors.As(err, &u)
}

// Loopback reports whether addr is a loopback address (127.0.0.0/8, ::1) or
// a local socket. The unspecified address (0.0.0.0, ::) listens on every
// interface: it is not loopback.
func Loopback(addr net.Addr) bool {
	switch a := addr.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// HidePaths reports whether answers served on a listener at addr leave the
// server's absolute paths out: always, never, or (auto) when addr is not
// loopback.
func (g *Guard) HidePaths(addr net.Addr) bool {
	switch g.hide {
	case HideAlways:
		return true
	case HideNever:
		return false
	}
	return !Loopback(addr)
}

// Attrs are the policy's log attributes.
func (g *Guard) Attrs() []any {
	return []any{"auth", g.Mode(), "tls", g.TLS(), "hide_paths", g.hide}
}
