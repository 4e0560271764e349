package main

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/services/skills/githubauth"
	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// Authentication modes of MCP over HTTP (--auth).
const (
	authNone   = "none"
	authToken  = "token"
	authGitHub = "github"
)

// httpAuth is how MCP-over-HTTP clients authenticate: wrap guards the MCP
// endpoints (/mcp and /sse; /healthz stays open).
type httpAuth struct {
	mode string
	wrap func(http.Handler) http.Handler
}

// checkAuthArgs checks --auth against the other flags.
func checkAuthArgs(o options) error {
	switch o.authMode {
	case "", authNone, authToken, authGitHub:
	default:
		return usagef("--auth %q: want none, token (a static bearer token) or github (each caller's own GitHub token)", o.authMode)
	}
	if o.authMode != "" && o.httpAddr == "" {
		return usagef("--auth needs --http: on stdio the host that starts skills-mcp is its only client")
	}
	if o.authTokenEnv != "" && (o.authMode == authNone || o.authMode == authGitHub) {
		return usagef("--auth-token-env names the token of --auth token; it does not go with --auth %s", o.authMode)
	}
	return nil
}

// newHTTPAuth picks the mode: --auth; else token when a static token is set
// (--auth-token-env, SKILLS_MCP_AUTH_TOKEN); else github when the embedded
// service's configuration says auth.mode: github; else none.
//
// In github mode the repositories and the API come from the embedded
// service's configuration (auth.github_repos, GITHUB_AUTH_REPOS, else its
// content repositories on GitHub; GITHUB_API_URL), or from the environment
// in front of a remote skillsd (GITHUB_AUTH_REPOS, GITHUB_API_URL).
func newHTTPAuth(o options, svc service, getenv func(string) string, log *slog.Logger) (httpAuth, error) {
	mode := o.authMode
	var token string
	if mode == "" || mode == authToken {
		var err error
		if token, err = httpToken(o, getenv); err != nil {
			return httpAuth{}, err
		}
	}
	if mode == "" {
		switch {
		case token != "":
			mode = authToken
		case svc.githubAuth != nil && svc.githubAuth.Enabled:
			mode = authGitHub
		default:
			mode = authNone
		}
	}
	switch mode {
	case authToken:
		if token == "" {
			return httpAuth{}, usagef("--auth token: no token: set %s or name another variable with --auth-token-env", authEnvDefault)
		}
		return httpAuth{mode: mode, wrap: func(h http.Handler) http.Handler { return requireBearer(token, h) }}, nil
	case authGitHub:
		gopts := githubauth.EnvOptions(getenv)
		if svc.githubAuth != nil {
			gopts.APIURL, gopts.Repos = svc.githubAuth.APIURL, svc.githubAuth.Repos
		}
		gopts.Logger, gopts.Realm = log, "skills-mcp"
		if len(gopts.Repos) == 0 {
			return httpAuth{}, usagef("--auth github: no repository to check callers' tokens against: set GITHUB_AUTH_REPOS (owner/name, comma-separated), auth.github_repos, or a GitHub content repository (SKILLS_REPO)")
		}
		a, err := githubauth.New(gopts)
		if err != nil {
			return httpAuth{}, usagef("--auth github: %v", err)
		}
		log.Info("delegated GitHub authentication", "repos", strings.Join(a.Repos(), ","), "api", gopts.APIURL)
		return httpAuth{mode: mode, wrap: a.Middleware}, nil
	}
	return httpAuth{mode: authNone, wrap: func(h http.Handler) http.Handler { return h }}, nil
}

// githubAuthOf is the embedded service's delegated-auth settings.
func githubAuthOf(srv *skillsd.Server) *skillsd.GitHubAuth {
	g := srv.GitHubAuth()
	return &g
}

// sseHandler serves the legacy HTTP+SSE transport (protocol 2024-11-05) at
// /sse: GET opens the event stream, whose first event names the URL
// (/sse?sessionid=…) the client POSTs its messages to.
func sseHandler(server *mcp.Server) http.Handler {
	return mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server }, &mcp.SSEOptions{}) // DNS-rebinding protection stays on
}
