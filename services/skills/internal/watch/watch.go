// Package watch tells when the files under a set of local folders change: it
// watches every folder below them with fsnotify (folders created later too),
// waits until the changes settle (a debounce of about 500 ms, so an editor's
// save or a git checkout is one change), and then calls the caller back once.
// A folder that does not exist yet is picked up when it appears (its nearest
// existing parent is watched).
//
// It degrades one folder at a time. A folder that cannot be watched (a path
// too long for the kernel, no permission) is skipped and named in the
// Status, the rest stays watched, and the skipped folders are tried again
// every RetryInterval (a deleted one is forgotten). Folders deeper than
// MaxDepth are not watched: the catalog does not read them either. Only
// where fsnotify cannot watch at all (no inotify instances or watches left,
// a network file system) does it call back on a fixed poll interval (30 s by
// default, as seed 001's refresh) — and it tries watching again every
// RetryInterval. The caller's rebuild, which reuses unchanged files, finds
// out what changed. Options.OnStatus hears every change of the state.
//
// It does not read, parse or rebuild anything itself (package catalog does),
// and it does not know about git (package gitsync).
package watch

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/skillsd/skillsd/services/skills/internal/defaults"
)

// Defaults of Options.
const (
	DefaultDebounce      = 500 * time.Millisecond
	DefaultPollInterval  = 30 * time.Second
	DefaultRetryInterval = 30 * time.Second
	DefaultMaxDepth      = 32 // source.DefaultMaxDepth: no deeper than the catalog reads
)

// Modes of a Status.
const (
	// ModeWatching: every folder below the Dirs is watched.
	ModeWatching = "watching"
	// ModePartial: some folders cannot be watched (Status.Unwatched); the
	// rest is, and those are tried again every RetryInterval.
	ModePartial = "partial"
	// ModePolling: fsnotify cannot watch; OnChange is called every
	// PollInterval, and watching is tried again every RetryInterval.
	ModePolling = "polling"
)

// maxUnwatched bounds the folders a Status names (their count is exact).
const maxUnwatched = 1000

// Status is how the folders are watched.
type Status struct {
	// Mode is ModeWatching, ModePartial or ModePolling.
	Mode string
	// Reason says why, for ModePolling.
	Reason string
	// Unwatched are the folders that cannot be watched, with why, sorted by
	// path (at most 1000; Count has them all).
	Unwatched []Unwatched
	// Count is how many folders cannot be watched.
	Count int
	// NextRetry is when what cannot be watched is tried again; zero when
	// nothing is pending.
	NextRetry time.Time
}

// Unwatched is one folder that cannot be watched.
type Unwatched struct {
	// Path is the folder (absolute).
	Path string
	// Reason is why, such as "file name too long".
	Reason string
}

// Options configures Run.
type Options struct {
	// Dirs are the folders to watch, each with everything below it. Hidden
	// folders (a name starting with ".") and node_modules below them are not
	// watched, as the catalog does not read them; the folders themselves may
	// be hidden.
	Dirs []string
	// Debounce is how long the files must stay quiet before OnChange is
	// called; 0 means DefaultDebounce.
	Debounce time.Duration
	// PollInterval is how often OnChange is called when fsnotify cannot watch;
	// 0 means DefaultPollInterval.
	PollInterval time.Duration
	// ForcePoll skips fsnotify and polls (for tests and file systems known
	// not to report changes).
	ForcePoll bool
	// RetryInterval is how often folders that could not be watched, or
	// fsnotify itself after it failed, are tried again; 0 means
	// DefaultRetryInterval.
	RetryInterval time.Duration
	// MaxDepth is how many folders deep below each of Dirs is watched (the
	// catalog's walk limit); 0 means DefaultMaxDepth.
	MaxDepth int
	// Folders, when set, returns for one of Dirs the folders below it (and
	// itself) known to exist, as the catalog's last walk read them: the
	// watcher then watches those instead of reading the tree again. Nil (or
	// a nil answer) reads the tree. A folder made since is seen by the
	// rescan that follows the set-up (OnChange(nil)), and by its events
	// after.
	Folders func(dir string) []string
	// OnStatus, when set, is called with the new Status each time it
	// changes (never concurrently with itself or OnChange).
	OnStatus func(Status)

	// addWatch, when set, replaces fsnotify's Add (tests inject the
	// kernel's refusals with it).
	addWatch func(fw *fsnotify.Watcher, dir string) error
	// OnChange is called after each settled burst of changes with the paths
	// the events named (files and folders, absolute); and with nil, meaning
	// "anything may have changed", on every poll, after lost events, and once
	// a debounce after the watches are in place (changes made while they
	// were being set up are not reported otherwise). It is never called concurrently with
	// itself. Required.
	OnChange func(ctx context.Context, changed []string)
	// Logger receives the log; nil discards it.
	Logger *slog.Logger
}

// Run watches until ctx is done, then returns nil. It returns an error only
// for invalid options; a watcher that cannot be set up is logged, replaced
// by polling, and tried again every RetryInterval.
func Run(ctx context.Context, opts Options) error {
	if opts.OnChange == nil {
		return errors.New("watch: OnChange is required")
	}
	defaults.Set(&opts.Debounce, DefaultDebounce)
	defaults.Set(&opts.PollInterval, DefaultPollInterval)
	defaults.Set(&opts.RetryInterval, DefaultRetryInterval)
	defaults.Set(&opts.MaxDepth, DefaultMaxDepth)
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.OnStatus == nil {
		opts.OnStatus = func(Status) {}
	}
	if len(opts.Dirs) == 0 {
		<-ctx.Done()
		return nil
	}
	if opts.ForcePoll {
		opts.OnStatus(Status{Mode: ModePolling, Reason: "watching is switched off for these folders"})
		poll(ctx, opts, 0)
		return nil
	}
	for ctx.Err() == nil {
		w, err := newWatcher(opts)
		if err == nil {
			w.report()
			err = w.loop(ctx)
			_ = w.fs.Close()
			if err == nil {
				return nil
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		opts.Logger.Warn("cannot watch the skill folders; polling instead, and trying to watch again later",
			"every", opts.PollInterval, "retry", opts.RetryInterval, "error", err)
		opts.OnStatus(Status{Mode: ModePolling, Reason: "file events are not available: " + err.Error(), NextRetry: time.Now().Add(opts.RetryInterval)})
		poll(ctx, opts, opts.RetryInterval)
	}
	return nil
}

// poll calls OnChange every PollInterval until ctx is done or, when until
// is not 0, that long has passed.
func poll(ctx context.Context, opts Options, until time.Duration) {
	t := time.NewTicker(opts.PollInterval)
	defer t.Stop()
	var end <-chan time.Time
	if until > 0 {
		timer := time.NewTimer(until)
		defer timer.Stop()
		end = timer.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-end:
			return
		case <-t.C:
			opts.OnChange(ctx, nil)
		}
	}
}

type watcher struct {
	opts Options
	fs   *fsnotify.Watcher
	// add watches one folder (fs.Add; tests replace it).
	add func(string) error
	// roots are the cleaned Dirs; pending are those that do not exist yet,
	// with the ancestor watched in their place.
	roots   []string
	pending map[string]string
	// unwatched are the folders that cannot be watched, with why; they are
	// tried again at nextRetry. last is the Status last reported.
	unwatched map[string]string
	nextRetry time.Time
	last      Status
}

// errNoWatches stops setting up watches: the kernel has no watch left, so
// no folder could be watched (the caller polls).
var errNoWatches = errors.New("no inotify watch left (raise fs.inotify.max_user_watches)")

func newWatcher(opts Options) (*watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &watcher{opts: opts, fs: fw, add: fw.Add, pending: map[string]string{}, unwatched: map[string]string{}}
	if opts.addWatch != nil {
		w.add = func(dir string) error { return opts.addWatch(fw, dir) }
	}
	for _, d := range opts.Dirs {
		w.roots = append(w.roots, filepath.Clean(d))
	}
	for _, r := range w.roots {
		if err := w.addRoot(r); err != nil {
			_ = fw.Close()
			return nil, err
		}
	}
	return w, nil
}

// addRoot watches root and every folder below it, or, when root does not
// exist yet, its nearest existing ancestor.
func (w *watcher) addRoot(root string) error {
	info, err := os.Stat(root)
	if err == nil && info.IsDir() {
		delete(w.pending, root)
		if w.opts.Folders != nil {
			if listed := w.opts.Folders(root); listed != nil {
				return w.addListed(root, listed)
			}
		}
		return w.addTree(root, true)
	}
	for dir := filepath.Dir(root); ; dir = filepath.Dir(dir) {
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			if err := w.add(dir); err != nil {
				if errors.Is(err, syscall.ENOSPC) {
					return errNoWatches
				}
				w.skip(dir, err)
				return nil
			}
			w.pending[root] = dir
			// The next folder towards root may have been made between the
			// Stat and the watch, its event then lost: look once more.
			rel, _ := filepath.Rel(dir, root)
			next := filepath.Join(dir, strings.SplitN(rel, string(filepath.Separator), 2)[0])
			if info, err := os.Stat(next); err == nil && info.IsDir() {
				return w.addRoot(root)
			}
			return nil
		}
		if dir == filepath.Dir(dir) {
			return nil // nothing exists up to the file system root: nothing to watch
		}
	}
}

// addTree watches dir and the folders below it that the catalog reads, no
// deeper than MaxDepth below their root. A folder that vanishes meanwhile is
// skipped; one that cannot be watched (a path too long, no permission) is
// skipped and remembered (unwatched); running out of watches is
// errNoWatches (the caller falls back to polling).
func (w *watcher) addTree(dir string, isRoot bool) error {
	base := w.depth(dir)
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				if p == dir && !isRoot {
					return filepath.SkipDir
				}
				return nil // gone meanwhile
			}
			if p == dir {
				w.skip(p, err) // the folder itself cannot be reached
				return filepath.SkipDir
			}
			return nil // a folder watched but unreadable: the catalog reports it
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && skipped(d.Name()) {
			return filepath.SkipDir
		}
		if base+strings.Count(p[len(dir):], string(filepath.Separator)) > w.opts.MaxDepth {
			return filepath.SkipDir // deeper than the catalog reads
		}
		if err := w.add(p); err != nil {
			switch {
			case errors.Is(err, fs.ErrNotExist):
				return filepath.SkipDir
			case errors.Is(err, syscall.ENOSPC):
				return errNoWatches
			}
			w.skip(p, err)
			return filepath.SkipDir
		}
		delete(w.unwatched, p)
		return nil
	})
}

// addListed watches root and the folders listed below it (as the catalog's
// walk read them) without reading the tree, under the rules of addTree: no
// hidden folder, none deeper than MaxDepth, a vanished one skipped.
func (w *watcher) addListed(root string, listed []string) error {
	for _, p := range append([]string{root}, listed...) {
		p = filepath.Clean(p)
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue // not below root
		}
		if rel != "." && (slices.ContainsFunc(strings.Split(rel, string(filepath.Separator)), skipped) ||
			strings.Count(rel, string(filepath.Separator))+1 > w.opts.MaxDepth) {
			continue
		}
		if err := w.add(p); err != nil {
			switch {
			case errors.Is(err, fs.ErrNotExist):
				continue // gone since the walk: the rescan sees it
			case errors.Is(err, syscall.ENOSPC):
				return errNoWatches
			}
			w.skip(p, err)
			continue
		}
		delete(w.unwatched, p)
	}
	return nil
}

// depth is how many folders below its root p is (0 for a root, or for a
// path under none).
func (w *watcher) depth(p string) int {
	for _, r := range w.roots {
		if p == r {
			return 0
		}
		if strings.HasPrefix(p, r+string(filepath.Separator)) {
			return strings.Count(p[len(r):], string(filepath.Separator))
		}
	}
	return 0
}

// skip remembers that the folder p cannot be watched, and why.
func (w *watcher) skip(p string, err error) {
	reason := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		reason = pe.Err.Error()
	}
	if _, known := w.unwatched[p]; !known {
		w.opts.Logger.Warn("a folder cannot be watched: skipped; the others are, and it is tried again later", "dir", p, "error", reason)
	}
	w.unwatched[p] = reason
}

// retry tries again to watch the folders that could not be: those gone are
// forgotten, those that can be watched now are.
func (w *watcher) retry() error {
	paths := make([]string, 0, len(w.unwatched))
	for p := range w.unwatched {
		paths = append(paths, p)
	}
	for _, p := range paths {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			delete(w.unwatched, p)
			continue
		}
		delete(w.unwatched, p)
		if err := w.addTree(p, false); err != nil {
			return err
		}
	}
	return nil
}

// forget drops what is remembered as unwatchable at or below p (removed).
func (w *watcher) forget(p string) {
	prefix := p + string(filepath.Separator)
	for u := range w.unwatched {
		if u == p || strings.HasPrefix(u, prefix) {
			delete(w.unwatched, u)
		}
	}
}

// report tells OnStatus the state, when it changed.
func (w *watcher) report() {
	st := Status{Mode: ModeWatching, Count: len(w.unwatched)}
	if len(w.unwatched) > 0 {
		st.Mode = ModePartial
		if w.nextRetry.IsZero() {
			w.nextRetry = time.Now().Add(w.opts.RetryInterval)
		}
		st.NextRetry = w.nextRetry
		for p, why := range w.unwatched {
			st.Unwatched = append(st.Unwatched, Unwatched{Path: p, Reason: why})
		}
		sort.Slice(st.Unwatched, func(i, j int) bool { return st.Unwatched[i].Path < st.Unwatched[j].Path })
		if len(st.Unwatched) > maxUnwatched {
			st.Unwatched = st.Unwatched[:maxUnwatched]
		}
	} else {
		w.nextRetry = time.Time{}
	}
	if sameStatus(st, w.last) {
		return
	}
	w.last = st
	w.opts.OnStatus(st)
}

func sameStatus(a, b Status) bool {
	if a.Mode != b.Mode || a.Reason != b.Reason || a.Count != b.Count || !a.NextRetry.Equal(b.NextRetry) || len(a.Unwatched) != len(b.Unwatched) {
		return false
	}
	for i := range a.Unwatched {
		if a.Unwatched[i] != b.Unwatched[i] {
			return false
		}
	}
	return true
}

// skipped reports whether the catalog ignores a folder of this name.
func skipped(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules"
}

// loop turns events into debounced OnChange calls until ctx is done (nil) or
// the watcher fails (the error).
func (w *watcher) loop(ctx context.Context) error {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	retry := time.NewTicker(w.opts.RetryInterval)
	defer retry.Stop()
	dirty := false
	// changed are the paths of the pending burst; all says events were lost.
	changed := map[string]bool{}
	all := false
	// Changes made while the watches were being set up went unseen: look
	// once, a debounce after they are in place (not at once: a server that
	// has just loaded its catalog answers its first requests meanwhile).
	// Bursts of events meanwhile are reported on their own, with their paths.
	catchUp := time.NewTimer(w.opts.Debounce)
	defer catchUp.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-retry.C:
			if len(w.unwatched) == 0 {
				continue
			}
			w.nextRetry = time.Time{}
			if err := w.retry(); err != nil {
				return err
			}
			w.report()
		case err, ok := <-w.fs.Errors:
			if !ok {
				return errors.New("watcher closed")
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Events were lost: rebuild to be safe.
				w.opts.Logger.Debug("file events overflowed; rebuilding")
				dirty, all = true, true
				timer.Reset(w.opts.Debounce)
				continue
			}
			return err
		case ev, ok := <-w.fs.Events:
			if !ok {
				return errors.New("watcher closed")
			}
			relevant, err := w.handle(ev)
			if err != nil {
				return err
			}
			w.report()
			if relevant {
				dirty = true
				changed[filepath.Clean(ev.Name)] = true
				timer.Reset(w.opts.Debounce)
			}
		case <-catchUp.C:
			w.opts.OnChange(ctx, nil)
		case <-timer.C:
			if dirty {
				var paths []string
				if !all {
					paths = make([]string, 0, len(changed))
					for p := range changed {
						paths = append(paths, p)
					}
					sort.Strings(paths)
				}
				dirty, all = false, false
				clear(changed)
				w.opts.OnChange(ctx, paths)
			}
		}
	}
}

// handle updates the watch list for one event and reports whether the event
// may change the catalog.
func (w *watcher) handle(ev fsnotify.Event) (bool, error) {
	name := filepath.Clean(ev.Name)
	// A pending root (or one of its ancestors) may have appeared.
	if len(w.pending) > 0 && ev.Has(fsnotify.Create) {
		appeared := false
		for root, watched := range w.pending {
			if filepath.Dir(name) != watched || !within(root, name) {
				continue
			}
			if err := w.addRoot(root); err != nil {
				return false, err
			}
			if _, still := w.pending[root]; !still {
				appeared = true
			}
		}
		if appeared {
			return true, nil
		}
	}
	if !w.inRoots(name) {
		return false, nil
	}
	// A root that is removed becomes pending again.
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		// A folder moved away keeps its watches under its old name, and
		// later events inside it would name the old path: drop them (its new
		// name, if inside a root, arrives as a Create and is watched anew).
		w.unwatch(name)
		w.forget(name)
		for _, r := range w.roots {
			if r == name {
				if err := w.addRoot(r); err != nil {
					return false, err
				}
			}
		}
		return true, nil
	}
	if ev.Has(fsnotify.Create) {
		if info, err := os.Lstat(name); err == nil && info.IsDir() && !skipped(filepath.Base(name)) {
			if err := w.addTree(name, false); err != nil {
				return false, err
			}
		}
	}
	return ev.Op != fsnotify.Chmod, nil
}

// unwatch removes the watches of the folder p and of the folders below it.
func (w *watcher) unwatch(p string) {
	prefix := p + string(filepath.Separator)
	for _, d := range w.fs.WatchList() {
		if d == p || strings.HasPrefix(d, prefix) {
			_ = w.fs.Remove(d)
		}
	}
}

// inRoots reports whether p is a root or lies below one, outside the folders
// the catalog skips.
func (w *watcher) inRoots(p string) bool {
	for _, r := range w.roots {
		if p == r {
			return true
		}
		rel, err := filepath.Rel(r, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		hiddenPart := false
		for part := range strings.SplitSeq(filepath.ToSlash(rel), "/") {
			if skipped(part) {
				hiddenPart = true
				break
			}
		}
		if !hiddenPart {
			return true
		}
	}
	return false
}

// within reports whether name is root or one of root's ancestors (so that its
// creation is a step towards root existing).
func within(root, name string) bool {
	return root == name || strings.HasPrefix(root, name+string(filepath.Separator))
}
