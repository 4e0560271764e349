package refresh

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/source"
	"github.com/skillsd/skillsd/services/skills/internal/watch"
)

// SourceState is what the refresher knows of a source beyond the snapshot:
// for a git source, its repository, ref, commit, last synchronisation and
// error; for every source, how its changes are noticed.
type SourceState struct {
	// Location replaces the source's folder in answers (a URL without
	// credentials for a git source); "" keeps the folder (and the fields
	// below it are not used).
	Location string
	Ref      string
	Commit   string
	LastSync time.Time
	Error    string
	// Watch is how changes to the source are noticed; nil when unknown.
	Watch *WatchState
}

// WatchState is how changes to a source are noticed.
type WatchState struct {
	// Mode is "watching", "partial", "polling", "off" or "git".
	Mode    string
	Message string
	// Unwatched are the folders that cannot be watched, relative to the
	// source when inside it; Count has them all.
	Unwatched []Unwatched
	Count     int
	// NextRetry is when they are tried again; zero when nothing is pending.
	NextRetry time.Time
}

// Unwatched is one folder that cannot be watched, and why.
type Unwatched struct {
	Path, Reason string
}

// SourceState describes the source named name: a git source's repository
// and synchronisation, and how each source's changes are noticed; false
// when no source has that name.
func (r *Refresher) SourceState(name string) (SourceState, bool) {
	for _, g := range r.opts.Git {
		if g.Name != name {
			continue
		}
		st := g.Sync.State()
		out := SourceState{Location: g.url(), Ref: g.ref(), Commit: st.Commit, LastSync: st.LastSync,
			Watch: &WatchState{Mode: "git", Message: r.gitWatchMessage()}}
		if st.Err != nil {
			out.Error = st.Err.Error()
		}
		return out, true
	}
	snap := r.opts.Store.Current()
	if snap == nil {
		return SourceState{}, false
	}
	for _, src := range snap.Sources() {
		if src.Name == name {
			return SourceState{Watch: r.localWatch(src.Dir, src.Follow)}, true
		}
	}
	return SourceState{}, false
}

// gitWatchMessage says how git sources are kept fresh.
func (r *Refresher) gitWatchMessage() string {
	if r.opts.Interval <= 0 {
		return "a git repository: synchronised on refresh (the periodic refresh is off)"
	}
	return fmt.Sprintf("a git repository: synchronised every %s by the periodic refresh, and on refresh", r.opts.Interval)
}

// localWatch is how changes to the local source in dir (whose links may
// lead into follow) are noticed, from the watcher's last status.
func (r *Refresher) localWatch(dir string, follow []string) *WatchState {
	if r.opts.NoWatch {
		return &WatchState{Mode: "off", Message: "watching is switched off: changes are seen on refresh"}
	}
	r.watchMu.Lock()
	st := r.watch
	r.watchMu.Unlock()
	if st == nil {
		return nil // the watcher has not reported yet
	}
	poll := r.opts.PollInterval
	if poll <= 0 {
		poll = watch.DefaultPollInterval
	}
	out := &WatchState{Mode: st.Mode, NextRetry: st.NextRetry}
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
			if rl, err := filepath.Rel(d, u.Path); err == nil && filepath.IsLocal(rl) {
				rel, inside = filepath.ToSlash(rl), true
				if d != dir {
					rel = u.Path // in a folder its links lead into: the folder as configured
				}
				break
			}
		}
		if inside {
			out.Unwatched = append(out.Unwatched, Unwatched{Path: rel, Reason: u.Reason})
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

// restartWatchLocked watches the local sources among roots instead of the
// previous ones. The caller holds mu.
func (r *Refresher) restartWatchLocked(roots []*source.Root) {
	if r.stopWatch != nil {
		r.stopWatch()
		r.stopWatch = nil
	}
	r.watchMu.Lock()
	r.watch = nil // until the new watcher reports
	r.watchMu.Unlock()
	if r.opts.NoWatch || r.bg == nil || r.bg.Err() != nil {
		return
	}
	var dirs []string
	for _, root := range roots {
		if root.Kind != KindGit {
			// The folders its links may lead into change it too.
			dirs = append(dirs, root.Dir)
			dirs = append(dirs, root.Follow...)
		}
	}
	if len(dirs) == 0 {
		return
	}
	// The folders of each source as the last build read them: the watcher
	// watches those rather than reading every tree once more.
	snap := r.opts.Store.Current()
	folders := map[string][]string{}
	for _, root := range roots {
		if root.Kind != KindGit {
			folders[filepath.Clean(root.Dir)] = snap.Folders(root.Name)
		}
	}
	ctx, cancel := context.WithCancel(r.bg)
	r.stopWatch = cancel
	after := r.opts.WatchAfter
	r.wg.Go(func() {
		if after != nil {
			select {
			case <-after:
			case <-ctx.Done():
				return
			}
		}
		_ = watch.Run(ctx, watch.Options{
			Dirs:         dirs,
			Folders:      func(dir string) []string { return folders[dir] },
			Debounce:     r.opts.WatchDebounce,
			PollInterval: r.opts.PollInterval,
			Logger:       r.log,
			OnStatus: func(st watch.Status) {
				r.watchMu.Lock()
				r.watch = &st
				r.watchMu.Unlock()
			},
			OnChange: r.changed,
		})
	})
}

// changed rebuilds the catalog after the watcher saw the paths change,
// reading again only the folders that hold one.
func (r *Refresher) changed(ctx context.Context, paths []string) {
	start := time.Now()
	before := r.opts.Store.Current()
	r.buildMu.Lock()
	err := r.rebuildLocked(ctx, paths, true)
	r.buildMu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			r.log.Warn("rebuilding the catalog after a change failed; the previous catalog keeps serving", "error", err)
		}
		return
	}
	if after := r.opts.Store.Current(); after != before {
		r.log.Info("catalog updated", "generation", after.Generation(), "skills", after.Len(),
			"diagnostics", after.NumDiagnostics(), "took", time.Since(start).Round(time.Microsecond))
	}
}
