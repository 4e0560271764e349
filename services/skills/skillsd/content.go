package skillsd

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillsd/skillsd/services/skills/internal/config"
	"github.com/skillsd/skillsd/services/skills/internal/content"
	"github.com/skillsd/skillsd/services/skills/internal/failure"
	"github.com/skillsd/skillsd/services/skills/internal/gitsync"
	"github.com/skillsd/skillsd/services/skills/internal/refresh"
	"github.com/skillsd/skillsd/services/skills/userpath"
)

// contentSetup is the agents and docs store and the syncers of its git
// checkouts (the refresher schedules them).
type contentSetup struct {
	store   *content.Store
	syncers []*gitsync.Syncer
}

// newContent builds the agents and docs store (seed 003, REQ-CFG-002). Each of
// agents and docs comes from, first match wins: Options.AgentsDir/DocsDir,
// content.agents_dir/docs_dir (AGENTS_DIR, DOCS_DIR), or a repository
// (content.agents_repo/docs_repo, AGENTS_REPO, DOCS_REPO, falling back to the
// skills repository) checked out with the syncer repos hands out (shared
// with the skills when the repository is theirs) under the state folder, at
// its _path sub-folder. Nothing configured: no agents, no docs.
//
// It touches no network: the repositories are synchronised with the skills'
// at start-up (refresh.Refresher.SyncAtStart). A repository that cannot be reached then is not
// fatal: the last checkout serves, or none (empty lists) until a refresh
// succeeds.
func newContent(opts Options, cfg config.Config, cwd, home string, getenv func(string) string, repos *refresh.Repos, log *slog.Logger) (*contentSetup, error) {
	cs := &contentSetup{}
	localDir := func(d string) string { return userpath.Abs(d, cwd, home, getenv) }
	folder := func(kind, flagDir, cfgDir string, repo config.GitSource) (content.Folder, error) {
		switch {
		case flagDir != "":
			d := localDir(flagDir)
			return content.Folder{Dir: d, Prefix: filepath.Base(d), Kind: kind}, nil
		case cfgDir != "":
			d := localDir(cfgDir)
			return content.Folder{Dir: d, Prefix: filepath.Base(d), Kind: kind}, nil
		case repo.URL == "":
			return content.Folder{Kind: kind}, nil
		}
		sub := strings.Trim(path.Clean("/"+repo.Path), "/")
		if sub == "" {
			sub = "."
		}
		if config.StateDir(cfg, getenv, home) == "" {
			return content.Folder{}, fmt.Errorf("content.%s_repo: no state folder to check the repository out into (set SKILLSD_HOME)", kind)
		}
		repo.Path = strings.TrimPrefix(sub, ".")
		gr, err := refresh.GitRepo(kind, repo, "security.trusted_keys", cfg, refresh.Env{Getenv: getenv, Cwd: cwd, Home: home})
		if err != nil {
			return content.Folder{}, err
		}
		syncer, err := repos.Syncer(gr)
		if err != nil {
			return content.Folder{}, fmt.Errorf("content.%s_repo: %w", kind, err)
		}
		if !slices.Contains(cs.syncers, syncer) {
			syncer.Open()
			cs.syncers = append(cs.syncers, syncer)
		}
		dir := refresh.Folder(syncer, sub)
		return content.Folder{Dir: dir, Prefix: sub, Kind: kind, Refresh: syncRefresh(syncer, repo, sub)}, nil
	}
	agents, err := folder("agents", opts.AgentsDir, cfg.Content.AgentsDir, cfg.Content.Agents())
	if err != nil {
		return nil, err
	}
	docs, err := folder("docs", opts.DocsDir, cfg.Content.DocsDir, cfg.Content.Docs())
	if err != nil {
		return nil, err
	}
	if agents.Dir != "" || docs.Dir != "" {
		log.Info("content folders", "agents", agents.Dir, "docs", docs.Dir)
	}
	cs.store = content.New(content.Options{Agents: agents, Docs: docs, Logger: log})
	return cs, nil
}

// syncRefresh is a Folder's Refresh for a git checkout: a failed fetch is an
// UPSTREAM_ERROR naming the repository, branch and path.
func syncRefresh(s *gitsync.Syncer, repo config.GitSource, sub string) func(context.Context) error {
	return func(ctx context.Context) error {
		if _, err := s.Sync(ctx); err != nil {
			return failure.New(failure.Unavailable, "UPSTREAM_ERROR", "synchronising %s (branch %s) failed; the last checkout keeps serving", gitsync.Redact(repo.URL), repo.Ref).
				With("repo", gitsync.Redact(repo.URL)).With("branch", repo.Ref).With("path", sub).Wrap(err)
		}
		return nil
	}
}

// GitHubAuth is the delegated GitHub authentication the configuration asks
// for (auth.mode github): what package githubauth needs.
type GitHubAuth struct {
	// Enabled is auth.mode == "github".
	Enabled bool
	// APIURL is the GitHub API base (auth.github_api_url, GITHUB_API_URL).
	APIURL string
	// Repos are the repositories ("owner/name") a caller's token must be
	// able to read: auth.github_repos (GITHUB_AUTH_REPOS), else the content
	// repositories hosted on that GitHub.
	Repos []string
}

// GitHubAuth returns the server's delegated GitHub authentication settings,
// for gateways that serve HTTP in front of it.
func (s *Server) GitHubAuth() GitHubAuth {
	return gitHubAuth(s.cfg)
}

func gitHubAuth(cfg config.Config) GitHubAuth {
	g := GitHubAuth{Enabled: cfg.Auth.Mode == config.AuthGitHub, APIURL: cfg.Auth.GitHubAPIURL, Repos: append([]string{}, cfg.Auth.GitHubRepos...)}
	if len(g.Repos) > 0 {
		return g
	}
	seen := map[string]bool{}
	for _, r := range []config.GitSource{cfg.Content.Skills(), cfg.Content.Agents(), cfg.Content.Docs()} {
		if or, ok := GitHubRepoOf(r.URL, g.APIURL); ok && !seen[strings.ToLower(or)] {
			seen[strings.ToLower(or)] = true
			g.Repos = append(g.Repos, or)
		}
	}
	return g
}

// GitHubRepoOf returns "owner/name" for a git URL of a repository hosted on
// github.com or on the GitHub Enterprise host of apiURL
// (https://ghe.example.com/api/v3): https://github.com/o/r(.git),
// git@github.com:o/r.git, ssh://git@github.com/o/r.
func GitHubRepoOf(gitURL, apiURL string) (string, bool) {
	hosts := map[string]bool{"github.com": true}
	if u, err := url.Parse(apiURL); err == nil && u.Host != "" {
		hosts[strings.TrimPrefix(strings.ToLower(u.Hostname()), "api.")] = true
	}
	var host, p string
	if u, err := url.Parse(gitURL); err == nil && u.Scheme != "" && u.Host != "" {
		host, p = u.Hostname(), u.Path
	} else if at, rest, ok := strings.Cut(gitURL, "@"); ok && !strings.Contains(at, "/") {
		host, p, _ = strings.Cut(rest, ":")
	}
	if !hosts[strings.ToLower(host)] {
		return "", false
	}
	parts := strings.Split(strings.Trim(strings.TrimSuffix(strings.Trim(p, "/"), ".git"), "/"), "/")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return "", false
	}
	return parts[0] + "/" + parts[1], true
}
