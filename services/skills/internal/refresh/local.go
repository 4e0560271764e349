package refresh

import (
	"fmt"
	"path/filepath"

	"github.com/skillsd/skillsd/services/skills/internal/config"
	"github.com/skillsd/skillsd/services/skills/internal/source"
	"github.com/skillsd/skillsd/services/skills/userpath"
)

// Dirs are the skills folders given (dirs, such as --skills-dir, else the
// SKILLS_DIR list), as absolute paths; empty ones are dropped.
func Dirs(dirs []string, env Env) []string {
	if len(dirs) == 0 {
		if list := env.Getenv("SKILLS_DIR"); list != "" {
			dirs = filepath.SplitList(list)
		}
	}
	expanded := make([]string, 0, len(dirs))
	for _, d := range dirs {
		if d == "" {
			continue
		}
		expanded = append(expanded, userpath.Abs(d, env.Cwd, env.Home, env.Getenv))
	}
	return expanded
}

// Local is what a caller says of the skills folders outside the
// configuration file.
type Local struct {
	// Dirs are the folders given (see Dirs): when there are some, they are
	// the sources, trusted.
	Dirs []string
	// Follow lists the folders the links of Dirs, or of the discovered
	// folders, may lead into ("~" and $VAR expanded); FollowKey names the
	// setting that gave them, for errors.
	Follow    []string
	FollowKey string
}

// Sources are the skill sources Resolve found.
type Sources struct {
	// Roots are the sources, in precedence order.
	Roots []*source.Root
	// Git are the git sources among them, with their syncers.
	Git []GitSource
	// Discovered says the roots come from default discovery (no folder was
	// given or configured), so that a client's roots apply (ClientRoots).
	Discovered bool

	follow []string
	env    Env
}

// Resolve finds the skill sources, in precedence order: the folders given
// (local.Dirs), else the configured ones (Configured, with the syncers of
// repos), else default discovery in env.Cwd and env.Home. Folders to follow
// links into apply to the given and discovered folders only: with configured
// sources they are an error (a setting nothing reads is not silence).
func Resolve(cfg config.Config, env Env, repos *Repos, local Local) (Sources, error) {
	follow, err := FollowFolders(local.FollowKey, local.Follow, env.Home, env.Getenv)
	if err != nil {
		return Sources{}, err
	}
	s := Sources{follow: follow, env: env}
	for _, d := range local.Dirs {
		s.Roots = append(s.Roots, &source.Root{Name: d, Dir: d, Kind: source.KindLocal, Trusted: true, Follow: follow})
	}
	if len(s.Roots) == 0 {
		if s.Roots, s.Git, err = Configured(cfg, env, repos); err != nil {
			return Sources{}, err
		}
	}
	s.Discovered = len(s.Roots) == 0
	if s.Discovered {
		s.Roots, _, _ = s.ClientRoots(nil)
	}
	if len(follow) > 0 && len(local.Dirs) == 0 && !s.Discovered {
		return Sources{}, fmt.Errorf("%s applies to the folders given by --skills-dir, SKILLS_DIR or default discovery, but the sources come from the configuration: list the folders under sources[].follow_external_symlinks instead", local.FollowKey)
	}
	return s, nil
}

// ClientRoots are the discovered sources with a client's roots (an MCP
// client's roots/list answer, as local paths) first: the skills folders of
// those roots go before the working directory's, which go before the home
// directory's. Paths that are not absolute are left out (ignored); used are
// the roots kept, cleaned.
func (s Sources) ClientRoots(roots []string) (next []*source.Root, used, ignored []string) {
	used = make([]string, 0, len(roots))
	for _, r := range roots {
		if !filepath.IsAbs(r) {
			ignored = append(ignored, r)
			continue
		}
		used = append(used, filepath.Clean(r))
	}
	next = source.Discover(s.env.Cwd, s.env.Home, used)
	for _, r := range next {
		r.Follow = s.follow
	}
	return next, used, ignored
}
