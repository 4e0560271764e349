package skillsd

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/skillsd/skillsd/services/skills/internal/config"
	"github.com/skillsd/skillsd/services/skills/internal/gitsync"
	"github.com/skillsd/skillsd/services/skills/internal/refresh"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

// KindGit is the Kind of a source that is a git checkout.
const KindGit = refresh.KindGit

// gitRoots makes the git sources of the configuration: SKILLS_REPO
// (content.skills_repo, its skills/ sub-folder by default, trusted, token
// GITHUB_TOKEN) and the config's git sources (untrusted unless trusted: true,
// token from token_env or GITHUB_TOKEN), each with the syncer of its
// repository from repos. Tokens are read here and kept in memory only.
func gitRoots(cfg config.Config, getenv func(string) string, cwd, home string, repos *refresh.Repos) ([]*source.Root, []refresh.GitSource, error) {
	type spec struct {
		repo    gitsync.Repo
		trusted bool
	}
	var specs []spec
	if repo := cfg.Content.Skills(); repo.URL != "" {
		gr, err := gitRepo(repo.URL, repo, "security.trusted_keys", cfg, cwd, home, getenv)
		if err != nil {
			return nil, nil, err
		}
		specs = append(specs, spec{repo: gr, trusted: true})
	}
	for i, src := range cfg.Sources {
		if src.Git == nil {
			continue
		}
		gr, err := gitRepo(cmp.Or(src.Name, src.Git.URL), *src.Git, fmt.Sprintf("sources[%d].git.trusted_keys", i), cfg, cwd, home, getenv)
		if err != nil {
			return nil, nil, err
		}
		specs = append(specs, spec{repo: gr, trusted: src.Git.Trusted})
	}
	if len(specs) == 0 {
		return nil, nil, nil
	}
	if config.StateDir(cfg, getenv, home) == "" {
		return nil, nil, errors.New("git sources need a state folder for their cache: set SKILLSD_HOME")
	}
	var (
		roots []*source.Root
		git   []refresh.GitSource
	)
	for _, sp := range specs {
		name := sp.repo.Name
		s, err := repos.Syncer(sp.repo)
		if err != nil {
			return nil, nil, fmt.Errorf("config: git source %q: %w", name, err)
		}
		roots = append(roots, &source.Root{Name: name, Dir: refresh.Folder(s, sp.repo.Path), Kind: KindGit, Trusted: sp.trusted})
		git = append(git, refresh.GitSource{Name: name, Sync: s})
	}
	return roots, git, nil
}

// gitRepo is the repository g names, as name, for gitsync: its token read
// from g.TokenEnv (GITHUB_TOKEN when empty) and kept in memory only, and the
// keys its commits must be signed with (trustedKeys; keysKey names the
// setting in errors).
func gitRepo(name string, g config.GitSource, keysKey string, cfg config.Config, cwd, home string, getenv func(string) string) (gitsync.Repo, error) {
	keys, err := trustedKeys(cfg, g.RequireSigned, g.TrustedKeys, keysKey, cwd, home, getenv)
	if err != nil {
		return gitsync.Repo{}, err
	}
	return gitsync.Repo{Name: name, URL: g.URL, Ref: g.Ref, Path: g.Path,
		Token: strings.TrimSpace(getenv(cmp.Or(g.TokenEnv, "GITHUB_TOKEN"))), TrustedKeys: keys}, nil
}

// repos is the one maker of syncers for the skills, agents and docs
// repositories of cfg, in <state folder>/git.
func repos(cfg config.Config, getenv func(string) string, home string, log *slog.Logger) *refresh.Repos {
	dir := ""
	if state := config.StateDir(cfg, getenv, home); state != "" {
		dir = filepath.Join(state, "git")
	}
	return refresh.NewRepos(gitsync.Options{CacheDir: dir, Logger: log})
}
