package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/skillsd/skillsd/services/skills/githubauth"
	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// authHandler guards h as --auth asks: "none" serves everyone; "github"
// (seed 003's delegated auth, docs/github.md) lets through only callers whose
// GitHub token, sent URL-safe base64 encoded as a bearer token, can read the
// configured repositories. "" means the embedded service's auth.mode when it
// is github, else none. /healthz and /openapi.json stay open.
//
// The repositories and API come from the embedded service's configuration
// (auth.github_repos, GITHUB_AUTH_REPOS, else its content repositories on
// GitHub; GITHUB_API_URL), or from the environment in remote mode.
func authHandler(mode string, h http.Handler, embedded *skillsd.GitHubAuth, getenv func(string) string, log *slog.Logger) (http.Handler, string, error) {
	if mode == "" {
		mode = "none"
		if embedded != nil && embedded.Enabled {
			mode = "github"
		}
	}
	switch mode {
	case "none":
		return h, mode, nil
	case "github":
	default:
		return nil, "", usageError{fmt.Errorf("--auth %q: want none or github", mode)}
	}
	gopts := githubauth.EnvOptions(getenv)
	if embedded != nil {
		gopts.APIURL, gopts.Repos = embedded.APIURL, embedded.Repos
	}
	gopts.Logger, gopts.Realm = log, "skills-rest"
	if len(gopts.Repos) == 0 {
		return nil, "", usageError{fmt.Errorf("--auth github: no repository to check callers' tokens against: set GITHUB_AUTH_REPOS (owner/name, comma-separated), auth.github_repos, or a GitHub content repository (SKILLS_REPO)")}
	}
	a, err := githubauth.New(gopts)
	if err != nil {
		return nil, "", usageError{err}
	}
	guarded := a.Middleware(h)
	log.Info("delegated GitHub authentication", "repos", strings.Join(a.Repos(), ","), "api", gopts.APIURL)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" || r.URL.Path == "/openapi.json" {
			h.ServeHTTP(w, r)
			return
		}
		guarded.ServeHTTP(w, r)
	}), mode, nil
}
