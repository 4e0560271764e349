// Package watch tells when the files under a set of local folders change: it
// watches every folder below them with fsnotify (folders created later too),
// waits until the changes settle (a debounce of about 500 ms, so an editor's
// save or a git checkout is one change), and then calls the caller back once.
// A folder that does not exist yet is picked up when it appears (its nearest
// existing parent is watched). Where fsnotify cannot watch (no inotify
// instances or watches left, a network file system), it falls back to calling
// back on a fixed poll interval (30 s by default, as seed 001's refresh), and
// the caller's rebuild, which reuses unchanged files, finds out what changed.
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
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Defaults of Options.
const (
	DefaultDebounce     = 500 * time.Millisecond
	DefaultPollInterval = 30 * time.Second
)

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
	// OnChange is called after each settled burst of changes with the paths
	// the events named (files and folders, absolute); and with nil, meaning
	// "anything may have changed", on every poll, after lost events, and once
	// when the watches are in place (changes made while they were being set
	// up are not reported otherwise). It is never called concurrently with
	// itself. Required.
	OnChange func(ctx context.Context, changed []string)
	// Logger receives the log; nil discards it.
	Logger *slog.Logger
}

// Run watches until ctx is done, then returns nil. It returns an error only
// for invalid options; a watcher that cannot be set up is logged and replaced
// by polling.
func Run(ctx context.Context, opts Options) error {
	if opts.OnChange == nil {
		return errors.New("watch: OnChange is required")
	}
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if len(opts.Dirs) == 0 {
		<-ctx.Done()
		return nil
	}
	if opts.ForcePoll {
		return poll(ctx, opts)
	}
	w, err := newWatcher(opts)
	if err != nil {
		opts.Logger.Warn("cannot watch the skill folders; polling instead", "every", opts.PollInterval, "error", err)
		return poll(ctx, opts)
	}
	defer w.fs.Close()
	// Changes made while the watches were being set up went unseen: look
	// once now that they are in place.
	opts.OnChange(ctx, nil)
	if err := w.loop(ctx); err != nil {
		opts.Logger.Warn("watching the skill folders failed; polling instead", "every", opts.PollInterval, "error", err)
		return poll(ctx, opts)
	}
	return nil
}

// poll calls OnChange every PollInterval until ctx is done.
func poll(ctx context.Context, opts Options) error {
	t := time.NewTicker(opts.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			opts.OnChange(ctx, nil)
		}
	}
}

type watcher struct {
	opts Options
	fs   *fsnotify.Watcher
	// roots are the cleaned Dirs; pending are those that do not exist yet,
	// with the ancestor watched in their place.
	roots   []string
	pending map[string]string
}

func newWatcher(opts Options) (*watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &watcher{opts: opts, fs: fw, pending: map[string]string{}}
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
		return w.addTree(root, true)
	}
	for dir := filepath.Dir(root); ; dir = filepath.Dir(dir) {
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			if err := w.fs.Add(dir); err != nil {
				return err
			}
			w.pending[root] = dir
			return nil
		}
		if dir == filepath.Dir(dir) {
			return nil // nothing exists up to the file system root: nothing to watch
		}
	}
}

// addTree watches dir and the folders below it that the catalog reads. A
// folder that vanishes meanwhile is skipped; running out of watches is an
// error (the caller falls back to polling).
func (w *watcher) addTree(dir string, isRoot bool) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && !isRoot {
				return filepath.SkipDir
			}
			return nil // unreadable or gone: the catalog reports it
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && skipped(d.Name()) {
			return filepath.SkipDir
		}
		if err := w.fs.Add(p); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipDir
			}
			return err
		}
		return nil
	})
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
	dirty := false
	// changed are the paths of the pending burst; all says events were lost.
	changed := map[string]bool{}
	all := false
	for {
		select {
		case <-ctx.Done():
			return nil
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
			if relevant {
				dirty = true
				changed[filepath.Clean(ev.Name)] = true
				timer.Reset(w.opts.Debounce)
			}
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
