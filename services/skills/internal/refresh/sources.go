package refresh

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/skillsd/skillsd/services/skills/internal/config"
	"github.com/skillsd/skillsd/services/skills/internal/gitsync"
	"github.com/skillsd/skillsd/services/skills/internal/scan"
	"github.com/skillsd/skillsd/services/skills/internal/source"
	"github.com/skillsd/skillsd/services/skills/userpath"
)

// Env is where the paths and secrets a configuration names are read from.
type Env struct {
	// Getenv reads the environment (tokens, $VAR in paths); required.
	Getenv func(string) string
	// Cwd and Home resolve relative paths and "~".
	Cwd, Home string
}

// Configured resolves the sources the configuration names, in precedence
// order: SKILLS_REPO (content.skills_repo) and the config's git sources,
// each with the syncer of its repository from repos, then the config's
// local sources. None: nil.
func Configured(cfg config.Config, env Env, repos *Repos) ([]*source.Root, []GitSource, error) {
	roots, git, err := gitRoots(cfg, env, repos)
	if err != nil {
		return nil, nil, err
	}
	for i, src := range cfg.Sources {
		if src.Git != nil {
			continue
		}
		d := userpath.Abs(src.Path, env.Cwd, env.Home, env.Getenv)
		follow, err := FollowFolders(fmt.Sprintf("config: sources[%d].follow_external_symlinks", i), src.FollowExternalSymlinks, env.Home, env.Getenv)
		if err != nil {
			return nil, nil, err
		}
		roots = append(roots, &source.Root{Name: cmp.Or(src.Name, d), Dir: filepath.Clean(d), Kind: source.KindLocal, Trusted: true, Follow: follow})
	}
	return roots, git, nil
}

// gitRoots makes the git sources of the configuration: SKILLS_REPO
// (content.skills_repo, its skills/ sub-folder by default, trusted, token
// GITHUB_TOKEN) and the config's git sources (untrusted unless trusted: true,
// token from token_env or GITHUB_TOKEN), each with the syncer of its
// repository from repos. Tokens are read here and kept in memory only.
func gitRoots(cfg config.Config, env Env, repos *Repos) ([]*source.Root, []GitSource, error) {
	type spec struct {
		repo    gitsync.Repo
		trusted bool
	}
	var specs []spec
	if repo := cfg.Content.Skills(); repo.URL != "" {
		gr, err := GitRepo(repo.URL, repo, "security.trusted_keys", cfg, env)
		if err != nil {
			return nil, nil, err
		}
		specs = append(specs, spec{repo: gr, trusted: true})
	}
	for i, src := range cfg.Sources {
		if src.Git == nil {
			continue
		}
		gr, err := GitRepo(cmp.Or(src.Name, src.Git.URL), *src.Git, fmt.Sprintf("sources[%d].git.trusted_keys", i), cfg, env)
		if err != nil {
			return nil, nil, err
		}
		specs = append(specs, spec{repo: gr, trusted: src.Git.Trusted})
	}
	if len(specs) == 0 {
		return nil, nil, nil
	}
	if config.StateDir(cfg, env.Getenv, env.Home) == "" {
		return nil, nil, errors.New("git sources need a state folder for their cache: set SKILLSD_HOME")
	}
	var (
		roots []*source.Root
		git   []GitSource
	)
	for _, sp := range specs {
		name := sp.repo.Name
		s, err := repos.Syncer(sp.repo)
		if err != nil {
			return nil, nil, fmt.Errorf("config: git source %q: %w", name, err)
		}
		roots = append(roots, &source.Root{Name: name, Dir: Folder(s, sp.repo.Path), Kind: KindGit, Trusted: sp.trusted})
		git = append(git, GitSource{Name: name, Sync: s})
	}
	return roots, git, nil
}

// GitRepo is the repository g names, as name, for gitsync: its token read
// from g.TokenEnv (GITHUB_TOKEN when empty) and kept in memory only, and the
// keys its commits must be signed with (trustedKeys; keysKey names the
// setting in errors).
func GitRepo(name string, g config.GitSource, keysKey string, cfg config.Config, env Env) (gitsync.Repo, error) {
	keys, err := trustedKeys(cfg, g.RequireSigned, g.TrustedKeys, keysKey, env)
	if err != nil {
		return gitsync.Repo{}, err
	}
	return gitsync.Repo{Name: name, URL: g.URL, Ref: g.Ref, Path: g.Path,
		Token: strings.TrimSpace(env.Getenv(cmp.Or(g.TokenEnv, "GITHUB_TOKEN"))), TrustedKeys: keys}, nil
}

// ReposOf is the one maker of syncers for the skills, agents and docs
// repositories of cfg, in <state folder>/git.
func ReposOf(cfg config.Config, env Env, log *slog.Logger) *Repos {
	dir := ""
	if state := config.StateDir(cfg, env.Getenv, env.Home); state != "" {
		dir = filepath.Join(state, "git")
	}
	return NewRepos(gitsync.Options{CacheDir: dir, Logger: log})
}

// FollowFolders expands the folders a source's links may lead into ("~",
// $VAR) and checks that each is absolute; key names the setting in errors.
func FollowFolders(key string, list []string, home string, getenv func(string) string) ([]string, error) {
	var out []string
	for i, f := range list {
		if strings.TrimSpace(f) == "" {
			continue
		}
		d := userpath.Expand(f, home, getenv)
		if !filepath.IsAbs(d) {
			return nil, fmt.Errorf("%s[%d]: %q is not an absolute folder once expanded (%q): list the folders the links lead into, such as ~/dotfiles/skills", key, i, f, d)
		}
		if filepath.Dir(d) == d {
			return nil, fmt.Errorf("%s[%d]: %q is the file system root: links could then lead anywhere; list the folders the links lead into", key, i, f)
		}
		out = append(out, d)
	}
	return out, nil
}

// maxKeyFile bounds a trusted key file.
const maxKeyFile = 1 << 20

// trustedKeys is the armored key ring a git source verifies commits with:
// "" when it need not (neither required nor security.require_signed), else
// the source's own key files (key names them, for errors), or else
// security.trusted_keys. A key file that cannot be read stops start-up.
func trustedKeys(cfg config.Config, required bool, own []string, key string, env Env) (string, error) {
	if !required && !cfg.Security.RequireSigned {
		return "", nil
	}
	files, name := own, key
	if len(files) == 0 {
		files, name = cfg.Security.TrustedKeys, "security.trusted_keys"
	}
	if len(files) == 0 {
		return "", fmt.Errorf("%s: signed commits are required but no key is trusted", name)
	}
	var ring strings.Builder
	for _, f := range files {
		r, err := scan.OpenResolved(userpath.Abs(f, env.Cwd, env.Home, env.Getenv))
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		data, err := io.ReadAll(io.LimitReader(r, maxKeyFile+1))
		r.Close()
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		if len(data) > maxKeyFile || !strings.Contains(string(data), "BEGIN PGP PUBLIC KEY BLOCK") {
			return "", fmt.Errorf("%s: %s is not an armored OpenPGP public key (gpg --armor --export KEY)", name, f)
		}
		ring.Write(data)
		ring.WriteByte('\n')
	}
	return ring.String(), nil
}
