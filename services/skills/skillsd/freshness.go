package skillsd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/config"
	"github.com/skillsd/skillsd/services/skills/internal/failure"
	"github.com/skillsd/skillsd/services/skills/internal/gitsync"
	"github.com/skillsd/skillsd/services/skills/internal/server"
	"github.com/skillsd/skillsd/services/skills/internal/source"
	"github.com/skillsd/skillsd/services/skills/internal/watch"
)

// KindGit is the Kind of a source that is a git checkout.
const KindGit = "git"

// initialSyncTimeout bounds the first synchronisation of each git source at
// start-up when there is no cached checkout; cachedSyncTimeout when there is
// one (a slow network then delays start-up less: the cached checkout is
// served and the sync retried in the background).
const (
	initialSyncTimeout = 60 * time.Second
	cachedSyncTimeout  = 10 * time.Second
)

// retryInterval is how soon a git source whose synchronisation failed is
// tried again, when the refresh interval is longer.
const retryInterval = time.Minute

// freshness is what keeps the catalog current: the git sources, the watcher
// of the local sources, the periodic refresh.
type freshness struct {
	git []*gitSource
	// flight makes refreshes single-flight (seed 000 §9.5) and lets a
	// skip_cache read wait for the refresh running.
	flight flight
	// interval is the periodic refresh's interval; 0 is off.
	interval time.Duration

	mu sync.Mutex // guards the fields below
	// bg is the background work's context; cancel ends it.
	bg     context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// stopWatch ends the watcher of the current local sources.
	stopWatch context.CancelFunc

	// scanning says the background security scan runs (scanjob.go);
	// scanAgain that a catalog with skills pending was swapped in meanwhile.
	scanning, scanAgain bool

	// watchMu guards watch, the watcher's last status (nil before it
	// reports).
	watchMu sync.Mutex
	watch   *watch.Status
}

// gitSource is one git repository serving skills.
type gitSource struct {
	name string
	sync *gitsync.Syncer
	// ref is the ref followed, url the remote without credentials.
	ref, url string
}

// gitRoots makes the git sources of the configuration: SKILLS_REPO
// (content.skills_repo, its skills/ sub-folder by default, trusted, token
// GITHUB_TOKEN) and the config's git sources (untrusted unless trusted: true,
// token from token_env or GITHUB_TOKEN). Tokens are read here and kept in
// memory only. The syncers log to log (a long first clone says how far it
// is).
func gitRoots(cfg config.Config, getenv func(string) string, cwd, home string, log *slog.Logger) ([]*source.Root, []*gitSource, error) {
	type spec struct {
		name, url, ref, path, token string
		trusted                     bool
		keys                        string
	}
	var specs []spec
	if repo := cfg.Content.Skills(); repo.URL != "" {
		keys, err := trustedKeys(cfg, false, nil, "security.trusted_keys", cwd, home, getenv)
		if err != nil {
			return nil, nil, err
		}
		specs = append(specs, spec{name: repo.URL, url: repo.URL, ref: repo.Branch, path: repo.Path,
			token: strings.TrimSpace(getenv("GITHUB_TOKEN")), trusted: true, keys: keys})
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
		specs = append(specs, spec{name: name, url: src.Git.URL, ref: src.Git.Ref, path: src.Git.Path,
			token: strings.TrimSpace(getenv(tokenEnv)), trusted: src.Git.Trusted, keys: keys})
	}
	if len(specs) == 0 {
		return nil, nil, nil
	}
	state := config.StateDir(cfg, getenv, home)
	if state == "" {
		return nil, nil, errors.New("git sources need a state folder for their cache: set SKILLSD_HOME")
	}
	var (
		roots []*source.Root
		git   []*gitSource
	)
	for _, sp := range specs {
		s, err := gitsync.New(gitsync.Repo{Name: sp.name, URL: sp.url, Ref: sp.ref, Path: sp.path, Token: sp.token, TrustedKeys: sp.keys},
			gitsync.Options{CacheDir: filepath.Join(state, "git"), Logger: log})
		if err != nil {
			return nil, nil, fmt.Errorf("config: git source %q: %w", sp.name, err)
		}
		roots = append(roots, &source.Root{Name: sp.name, Dir: s.SkillsDir(), Kind: KindGit, Trusted: sp.trusted})
		git = append(git, &gitSource{name: sp.name, sync: s, ref: s.Repo().Ref, url: gitsync.Redact(sp.url)})
	}
	return roots, git, nil
}

// syncAtStart synchronises each git source, and each content repository,
// once; a source that cannot be reached serves its cached checkout, with a
// warning, and is retried by the periodic refresh.
func (s *Server) syncAtStart(ctx context.Context) {
	for _, c := range s.content.syncers {
		timeout := initialSyncTimeout
		if c.Open() != "" {
			timeout = cachedSyncTimeout
		}
		sctx, cancel := context.WithTimeout(ctx, timeout)
		_, err := c.Sync(sctx)
		cancel()
		if err != nil {
			s.log.Warn("content repository not synchronised; serving its last checkout, if any",
				"kind", c.Repo().Name, "repo", gitsync.Redact(c.Repo().URL), "branch", c.Repo().Ref, "error", err)
		}
	}
	for _, g := range s.fresh.git {
		timeout := initialSyncTimeout
		if g.sync.Open() != "" {
			timeout = cachedSyncTimeout
		}
		sctx, cancel := context.WithTimeout(ctx, timeout)
		res, err := g.sync.Sync(sctx)
		cancel()
		if err == nil {
			s.log.Info("git source synchronised", "source", g.name, "ref", g.ref, "commit", res.Commit, "cloned", res.Cloned)
			continue
		}
		if commit := g.sync.Open(); commit != "" {
			s.log.Warn("git source unreachable: serving its cached checkout, retrying later",
				"source", g.name, "commit", commit, "error", err)
		} else {
			s.log.Warn("git source unreachable and never cloned: it holds no skills until it can be reached",
				"source", g.name, "error", err)
		}
	}
}

// errStopping is why a refresh was abandoned: the server is stopping.
var errStopping = errors.New("the server is stopping")

// refresh synchronises every git source and rebuilds the catalog, once at a
// time: a call made while another runs returns Busy at once. A refresh still
// running when the server stops is abandoned (its fetch or rebuild
// cancelled; the catalog served does not change): finishing it would only
// hold up the stop.
func (s *Server) refresh(ctx context.Context) (server.RefreshReport, error) {
	if !s.fresh.flight.begin() {
		return server.RefreshReport{Busy: true}, nil
	}
	defer s.fresh.flight.end()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if bg := s.background(); bg != nil {
		defer context.AfterFunc(bg, func() { cancel(errStopping) })()
	}
	rep := server.RefreshReport{Git: len(s.fresh.git) > 0}
	for i, g := range s.fresh.git {
		res, err := g.sync.Sync(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return rep, abandoned(ctx)
			}
			s.log.Warn("git source not synchronised: it keeps serving its last checkout", "source", g.name, "error", err)
			rep.Failed = append(rep.Failed, fmt.Sprintf("%s: %v", g.name, err))
		} else {
			rep.FilesChanged += res.FilesChanged
			if res.Changed() {
				s.log.Info("git source updated", "source", g.name, "from", res.Previous, "to", res.Commit, "files_changed", res.FilesChanged)
			}
		}
		st := g.sync.State()
		if i == 0 {
			rep.Commit = st.Commit
		}
		if st.LastSync.After(rep.LastSync) {
			rep.LastSync = st.LastSync
		}
	}
	if err := s.rebuild(ctx); err != nil {
		if ctx.Err() != nil {
			return rep, abandoned(ctx)
		}
		return rep, err
	}
	snap := s.store.Current()
	rep.Skills, rep.Generation = snap.Len(), snap.Generation()
	return rep, nil
}

// abandoned is the error of a refresh whose ctx ended: Unavailable when the
// server is stopping, else the caller's own cancellation or deadline.
func abandoned(ctx context.Context) error {
	if errors.Is(context.Cause(ctx), errStopping) {
		return failure.New(failure.Unavailable, "",
			"the server is stopping: this refresh was abandoned and the catalog it serves did not change; refresh again once it is back")
	}
	return ctx.Err()
}

// background is the background work's context, which ends when the server
// stops; nil before it started.
func (s *Server) background() context.Context {
	s.fresh.mu.Lock()
	defer s.fresh.mu.Unlock()
	return s.fresh.bg
}

// sourceState describes a source for status answers: a git source's
// repository and synchronisation, and how each source's changes are noticed.
func (s *Server) sourceState(name string) (server.SourceState, bool) {
	for _, g := range s.fresh.git {
		if g.name != name {
			continue
		}
		st := g.sync.State()
		out := server.SourceState{Location: g.url, Ref: g.ref, Commit: st.Commit, LastSync: st.LastSync,
			Watch: &server.WatchState{Mode: "git", Message: s.gitWatchMessage()}}
		if st.Err != nil {
			out.Error = st.Err.Error()
		}
		return out, true
	}
	snap := s.store.Current()
	if snap == nil {
		return server.SourceState{}, false
	}
	for _, src := range snap.Sources() {
		if src.Name == name {
			return server.SourceState{Watch: s.localWatch(src.Dir, src.Follow)}, true
		}
	}
	return server.SourceState{}, false
}

// gitWatchMessage says how git sources are kept fresh.
func (s *Server) gitWatchMessage() string {
	if s.fresh.interval <= 0 {
		return "a git repository: synchronised on refresh (the periodic refresh is off)"
	}
	return fmt.Sprintf("a git repository: synchronised every %s by the periodic refresh, and on refresh", s.fresh.interval)
}

// localWatch is how changes to the local source in dir (whose links may
// lead into follow) are noticed, from the watcher's last status.
func (s *Server) localWatch(dir string, follow []string) *server.WatchState {
	if s.opts.NoWatch {
		return &server.WatchState{Mode: "off", Message: "watching is switched off: changes are seen on refresh"}
	}
	f := &s.fresh
	f.watchMu.Lock()
	st := f.watch
	f.watchMu.Unlock()
	if st == nil {
		return nil // the watcher has not reported yet
	}
	poll := s.opts.PollInterval
	if poll <= 0 {
		poll = watch.DefaultPollInterval
	}
	out := &server.WatchState{Mode: st.Mode, NextRetry: st.NextRetry}
	switch st.Mode {
	case watch.ModePolling:
		out.Message = fmt.Sprintf("file events are not available (%s): the source is read again every %s, and watching is tried again", st.Reason, poll)
		return out
	case watch.ModeWatching:
		out.Message = "every folder the catalog reads is watched"
		return out
	}
	for _, u := range st.Unwatched {
		rel, inside := "", false
		for _, d := range append([]string{dir}, follow...) {
			if r, err := filepath.Rel(d, u.Path); err == nil && filepath.IsLocal(r) {
				rel, inside = filepath.ToSlash(r), true
				if d != dir {
					rel = u.Path // in a folder its links lead into: the folder as configured
				}
				break
			}
		}
		if inside {
			out.Unwatched = append(out.Unwatched, server.Unwatched{Path: rel, Reason: u.Reason})
		}
	}
	out.Count = len(out.Unwatched)
	if out.Count == 0 {
		out.Mode, out.Message, out.NextRetry = watch.ModeWatching, "every folder the catalog reads is watched", time.Time{}
		return out
	}
	out.Message = fmt.Sprintf("%d folders cannot be watched (see the diagnostics); the others are, and those are tried again", out.Count)
	return out
}

// startBackground starts the periodic refresh of the git sources and the
// watcher of the local sources; stopBackground ends them.
func (s *Server) startBackground() {
	f := &s.fresh
	f.mu.Lock()
	defer f.mu.Unlock()
	f.bg, f.cancel = context.WithCancel(context.Background())
	if len(f.git) > 0 && f.interval > 0 {
		f.wg.Go(func() { s.refreshLoop(f.bg) })
	}
	if s.config != nil && !s.opts.NoWatch {
		f.wg.Go(func() { s.config.run(f.bg) })
	}
	s.restartWatchLocked(s.roots)
}

// stopBackground ends the background work and waits for it.
func (s *Server) stopBackground() {
	f := &s.fresh
	f.mu.Lock()
	if f.cancel != nil {
		f.cancel()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// restartWatch watches the local sources among roots (after the sources
// changed) instead of the previous ones.
func (s *Server) restartWatch(roots []*source.Root) {
	s.fresh.mu.Lock()
	defer s.fresh.mu.Unlock()
	s.restartWatchLocked(roots)
}

func (s *Server) restartWatchLocked(roots []*source.Root) {
	f := &s.fresh
	if f.stopWatch != nil {
		f.stopWatch()
		f.stopWatch = nil
	}
	f.watchMu.Lock()
	f.watch = nil // until the new watcher reports
	f.watchMu.Unlock()
	if s.opts.NoWatch || f.bg == nil || f.bg.Err() != nil {
		return
	}
	var dirs []string
	for _, r := range roots {
		if r.Kind != KindGit {
			// The folders its links may lead into change it too.
			dirs = append(dirs, r.Dir)
			dirs = append(dirs, r.Follow...)
		}
	}
	if len(dirs) == 0 {
		return
	}
	ctx, cancel := context.WithCancel(f.bg)
	f.stopWatch = cancel
	log := s.log
	f.wg.Go(func() {
		_ = watch.Run(ctx, watch.Options{
			Dirs:         dirs,
			Debounce:     s.opts.WatchDebounce,
			PollInterval: s.opts.PollInterval,
			Logger:       log,
			OnStatus: func(st watch.Status) {
				f.watchMu.Lock()
				f.watch = &st
				f.watchMu.Unlock()
			},
			OnChange: func(ctx context.Context, changed []string) {
				start := time.Now()
				before := s.store.Current()
				if err := s.rebuildChanged(ctx, changed); err != nil {
					if ctx.Err() == nil {
						log.Warn("rebuilding the catalog after a change failed; the previous catalog keeps serving", "error", err)
					}
					return
				}
				if after := s.store.Current(); after != before {
					log.Info("catalog updated", "generation", after.Generation(), "skills", after.Len(),
						"diagnostics", len(after.Diagnostics()), "took", time.Since(start).Round(time.Microsecond))
				}
			},
		})
	})
}

// refreshLoop synchronises the git sources every interval (sooner after a
// failure) until ctx ends.
func (s *Server) refreshLoop(ctx context.Context) {
	f := &s.fresh
	next := f.interval
	if s.gitFailing() {
		next = min(f.interval, retryInterval)
	}
	for {
		t := time.NewTimer(next)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		rep, err := s.refresh(ctx)
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return
			}
			s.log.Warn("periodic refresh failed", "error", err)
			next = min(f.interval, retryInterval)
		case rep.Busy:
			next = min(f.interval, retryInterval)
		case len(rep.Failed) > 0:
			next = min(f.interval, retryInterval)
		default:
			next = f.interval
		}
	}
}

// gitFailing reports whether a git source's last synchronisation failed.
func (s *Server) gitFailing() bool {
	for _, g := range s.fresh.git {
		if g.sync.State().Err != nil {
			return true
		}
	}
	return false
}

// rebuildChanged rebuilds the catalog after the paths changed (nil: any
// path), reading again only the folders that hold a changed path.
func (s *Server) rebuildChanged(ctx context.Context, changed []string) error {
	s.buildMu.Lock()
	defer s.buildMu.Unlock()
	snap, err := catalog.Build(ctx, s.roots, s.buildOptions(changed))
	if err != nil {
		return fmt.Errorf("loading the catalog: %w", err)
	}
	s.swapIfChanged(snap)
	s.flushScans()
	s.scanLater()
	return nil
}

// swapIfChanged swaps snap in unless it serves exactly what the current
// snapshot serves (a rebuild that found nothing new keeps the generation).
// A rebuild much smaller than the catalog served, for reasons other than
// deleted skill files, is refused by the shrink guard (catalog.Guard): the
// catalog served stays, with a diagnostic saying why.
func (s *Server) swapIfChanged(snap *catalog.Snapshot) {
	prev := s.store.Current()
	if kept, lost := catalog.Guard(prev, snap); len(lost) > 0 {
		s.log.Warn("a rebuild lost skills whose files are still there: keeping the last good catalog",
			"skills_served", prev.Len(), "skills_found", snap.Len(), "missing", len(lost), "first_missing", lost[0])
		snap = kept
	}
	if prev != nil && catalog.Same(prev, snap) {
		s.log.Debug("rebuild found no change", "generation", prev.Generation())
		return
	}
	s.store.Swap(snap)
}
