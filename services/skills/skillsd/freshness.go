package skillsd

import (
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
		name    string
		repo    gitsync.Repo
		trusted bool
	}
	var specs []spec
	if repo := cfg.Content.Skills(); repo.URL != "" {
		keys, err := trustedKeys(cfg, false, nil, "security.trusted_keys", cwd, home, getenv)
		if err != nil {
			return nil, nil, err
		}
		specs = append(specs, spec{name: repo.URL, trusted: true, repo: gitsync.Repo{URL: repo.URL, Ref: repo.Branch, Path: repo.Path,
			Token: strings.TrimSpace(getenv("GITHUB_TOKEN")), TrustedKeys: keys}})
	}
	for i, src := range cfg.Sources {
		if src.Git == nil {
			continue
		}
		tokenEnv := src.Git.TokenEnv
		if tokenEnv == "" {
			tokenEnv = "GITHUB_TOKEN"
		}
		name := src.Name
		if name == "" {
			name = src.Git.URL
		}
		keys, err := trustedKeys(cfg, src.Git.RequireSigned, src.Git.TrustedKeys, fmt.Sprintf("sources[%d].git.trusted_keys", i), cwd, home, getenv)
		if err != nil {
			return nil, nil, err
		}
		specs = append(specs, spec{name: name, trusted: src.Git.Trusted, repo: gitsync.Repo{URL: src.Git.URL, Ref: src.Git.Ref, Path: src.Git.Path,
			Token: strings.TrimSpace(getenv(tokenEnv)), TrustedKeys: keys}})
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
		sp.repo.Name = sp.name
		s, err := repos.Syncer(sp.repo)
		if err != nil {
			return nil, nil, fmt.Errorf("config: git source %q: %w", sp.name, err)
		}
		roots = append(roots, &source.Root{Name: sp.name, Dir: refresh.Folder(s, sp.repo.Path), Kind: KindGit, Trusted: sp.trusted})
		git = append(git, refresh.GitSource{Name: sp.name, Sync: s})
	}
	return roots, git, nil
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
