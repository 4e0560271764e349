// Package refresh keeps the catalog current. It resolves every source: the
// folders a caller gives or SKILLS_DIR names (Dirs), default discovery and a
// client's roots (Resolve, Sources.ClientRoots), and the sources the
// configuration names (SKILLS_REPO, sources[]: Configured) with the git
// repositories behind them, one syncer per repository, whoever uses it
// (Repos: a git source of skills, the agents, the docs). It owns the sources
// in precedence order, the builds that turn them into a snapshot and swap it
// into the catalog.Store (one at a time, the shrink guard applied), the one
// scheduler of every git repository, single-flight refreshes
// (RefreshSkills) and the reloads of skip_cache reads, the watcher of the
// local sources, and what is known of each source (SourceState).
//
// It does not build catalogs (Options.Build: package catalog), walk a
// folder (package source), or talk to clients (package server converts its
// answers); package skillsd hands it the Options it was given and logs what
// it resolved.
package refresh

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/gitsync"
	"github.com/skillsd/skillsd/services/skills/internal/source"
	"github.com/skillsd/skillsd/services/skills/internal/watch"
)

// KindGit is the Kind of a source that is a git checkout.
const KindGit = "git"

// Options configures a Refresher.
type Options struct {
	// Store receives each catalog built. Required.
	Store *catalog.Store
	// Roots are the sources, in precedence order.
	Roots []*source.Root
	// Git are the git sources among Roots (by Root.Name), each with the
	// syncer of its repository.
	Git []GitSource
	// Content are the syncers of the agents and docs repositories; OnContent,
	// when set, is called after the scheduler synchronised them (the
	// content store then reads the new checkouts).
	Content   []*gitsync.Syncer
	OnContent func()
	// Interval is the periodic refresh's interval: every git repository is
	// synchronised and the catalog rebuilt that often; 0 is off.
	Interval time.Duration
	// NoWatch turns off the watching of the local sources.
	NoWatch bool
	// WatchAfter, when set, holds the watcher's start until it is closed
	// (skillsd.Options.WatchAfter); the watcher then catches up with what
	// changed meanwhile (package watch). Nil starts it at once.
	WatchAfter <-chan struct{}
	// WatchDebounce and PollInterval are the watcher's (package watch); 0
	// means its defaults.
	WatchDebounce time.Duration
	PollInterval  time.Duration
	// Build builds a catalog from roots; dirty are the paths that changed
	// (nil: any). Required.
	Build func(ctx context.Context, roots []*source.Root, dirty []string) (*catalog.Snapshot, error)
	// AfterBuild, when set, is called after each build Rebuild, Refresh,
	// Reload, SetRoots and the watcher make (not after Build's).
	AfterBuild func()
	// Logger receives the log; nil discards it.
	Logger *slog.Logger
}

// GitSource is one git repository serving skills.
type GitSource struct {
	// Name is the source's name, its Root's.
	Name string
	// Sync is the syncer of its repository, shared with whatever else uses
	// the repository (Repos).
	Sync *gitsync.Syncer
}

// ref is the ref followed, url the remote without credentials.
func (g GitSource) ref() string { return g.Sync.Repo().Ref }
func (g GitSource) url() string { return gitsync.Redact(g.Sync.Repo().URL) }

// Refresher keeps the catalog current. Its methods are safe for concurrent
// use.
type Refresher struct {
	opts Options
	log  *slog.Logger

	// buildMu serialises builds, so that a build with older sources never
	// replaces a newer one, and guards roots.
	buildMu sync.Mutex
	roots   []*source.Root

	// flight makes refreshes single-flight (seed 000 §9.5) and lets a
	// skip_cache read wait for the refresh running.
	flight flight

	mu sync.Mutex // guards the fields below
	// bg is the background work's context (nil before Start), cancel ends
	// it, wg waits for it.
	bg     context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// stopWatch ends the watcher of the current local sources.
	stopWatch context.CancelFunc

	// watchMu guards watch, the watcher's last status (nil before it
	// reports).
	watchMu sync.Mutex
	watch   *watch.Status
}

// New returns a Refresher; nothing runs until Start.
func New(opts Options) *Refresher {
	log := cmp.Or(opts.Logger, slog.New(slog.DiscardHandler))
	return &Refresher{opts: opts, log: log, roots: opts.Roots}
}

// Interval is the periodic refresh's interval; 0 is off.
func (r *Refresher) Interval() time.Duration { return r.opts.Interval }

// Roots are the sources in precedence order.
func (r *Refresher) Roots() []*source.Root {
	r.buildMu.Lock()
	defer r.buildMu.Unlock()
	return r.roots
}

// Start starts the background work: the periodic refresh of the git
// repositories and the watcher of the local sources. Stop ends it.
func (r *Refresher) Start() {
	roots := r.Roots() // before mu: SetRoots takes buildMu, then mu
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bg, r.cancel = context.WithCancel(context.Background())
	if (len(r.opts.Git) > 0 || len(r.opts.Content) > 0) && r.opts.Interval > 0 {
		bg := r.bg
		r.wg.Go(func() { r.loop(bg) })
	}
	r.restartWatchLocked(roots)
}

// Go runs fn in the background, with a context that ends at Stop, and
// reports true; it does nothing and reports false before Start or after
// Stop.
func (r *Refresher) Go(fn func(ctx context.Context)) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bg == nil || r.bg.Err() != nil {
		return false
	}
	bg := r.bg
	r.wg.Go(func() { fn(bg) })
	return true
}

// Running reports whether the background work runs: started, not stopped.
func (r *Refresher) Running() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bg != nil && r.bg.Err() == nil
}

// Stop ends the background work and waits for it; a refresh still running
// is abandoned.
func (r *Refresher) Stop() {
	r.mu.Lock()
	if r.cancel != nil {
		r.cancel()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

// background is the background work's context; nil before Start.
func (r *Refresher) background() context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bg
}

// Rebuild builds the catalog from the sources and swaps it in, then calls
// AfterBuild. Files that did not change are taken from the snapshot being
// served.
func (r *Refresher) Rebuild(ctx context.Context) error {
	r.buildMu.Lock()
	defer r.buildMu.Unlock()
	return r.rebuildLocked(ctx, nil, true)
}

// Build is Rebuild without AfterBuild: for the work AfterBuild starts.
func (r *Refresher) Build(ctx context.Context) error {
	r.buildMu.Lock()
	defer r.buildMu.Unlock()
	return r.rebuildLocked(ctx, nil, false)
}

// rebuildLocked builds from the sources, reading again only the folders
// that hold a path of dirty (nil: every folder), and swaps the result in;
// after calls AfterBuild. The caller holds buildMu.
func (r *Refresher) rebuildLocked(ctx context.Context, dirty []string, after bool) error {
	snap, err := r.opts.Build(ctx, r.roots, dirty)
	if err != nil {
		return fmt.Errorf("loading the catalog: %w", err)
	}
	r.swapIfChanged(snap)
	if after && r.opts.AfterBuild != nil {
		r.opts.AfterBuild()
	}
	return nil
}

// SetRoots replaces the sources with roots and rebuilds the catalog. It
// reports false, and does nothing, when roots are the sources already; when
// the build fails (ctx ends) the previous sources and catalog stay and the
// error is returned. The watcher then follows the new local sources.
func (r *Refresher) SetRoots(ctx context.Context, roots []*source.Root) (bool, error) {
	r.buildMu.Lock()
	defer r.buildMu.Unlock()
	if sameRoots(roots, r.roots) {
		return false, nil
	}
	prev := r.roots
	r.roots = roots
	if err := r.rebuildLocked(ctx, nil, true); err != nil {
		r.roots = prev
		return false, err
	}
	r.mu.Lock()
	r.restartWatchLocked(roots)
	r.mu.Unlock()
	return true, nil
}

// sameRoots reports whether a and b are the same sources in the same order.
func sameRoots(a, b []*source.Root) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Same(b[i]) {
			return false
		}
	}
	return true
}

// swapIfChanged swaps snap in unless it serves exactly what the current
// snapshot serves (a rebuild that found nothing new keeps the generation).
// A rebuild much smaller than the catalog served, for reasons other than
// deleted skill files, is refused by the shrink guard (catalog.Guard): the
// catalog served stays, with a diagnostic saying why.
func (r *Refresher) swapIfChanged(snap *catalog.Snapshot) {
	prev := r.opts.Store.Current()
	if kept, lost := catalog.Guard(prev, snap); len(lost) > 0 {
		r.log.Warn("a rebuild lost skills whose files are still there: keeping the last good catalog",
			"skills_served", prev.Len(), "skills_found", snap.Len(), "missing", len(lost), "first_missing", lost[0])
		snap = kept
	}
	if prev != nil && catalog.Same(prev, snap) {
		r.log.Debug("rebuild found no change", "generation", prev.Generation())
		return
	}
	r.opts.Store.Swap(snap)
}

// errStopping is why a refresh was abandoned: the refresher is stopping.
var errStopping = errors.New("the server is stopping")
