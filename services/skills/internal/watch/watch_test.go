package watch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// start runs Run in the background and returns a channel that receives each
// OnChange call, and the number of calls so far.
func start(t *testing.T, opts Options) (<-chan struct{}, *atomic.Int32) {
	t.Helper()
	calls := make(chan struct{}, 100)
	var n atomic.Int32
	opts.OnChange = func(context.Context, []string) {
		n.Add(1)
		calls <- struct{}{}
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	// The first call says the watches are in place.
	select {
	case <-calls:
		n.Store(0)
	case <-time.After(3 * time.Second):
		if !opts.ForcePoll {
			t.Fatal("no first OnChange once the watches were set up")
		}
	}
	return calls, &n
}

func waitCall(t *testing.T, calls <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-calls:
	case <-time.After(3 * time.Second):
		t.Fatalf("%s: no OnChange within 3 s", what)
	}
}

func noCall(t *testing.T, calls <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-calls:
		t.Fatalf("%s: unexpected OnChange", what)
	case <-time.After(300 * time.Millisecond):
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWatchDebouncesAndFollowsNewFolders(t *testing.T) {
	root := filepath.Join(t.TempDir(), "skills")
	write(t, filepath.Join(root, "pdf", "SKILL.md"), "a")
	pending := filepath.Join(t.TempDir(), "later", "skills")
	calls, n := start(t, Options{Dirs: []string{root, pending}, Debounce: 100 * time.Millisecond})

	// A burst of writes is one call.
	for i := range 5 {
		write(t, filepath.Join(root, "pdf", "SKILL.md"), string(rune('a'+i)))
		time.Sleep(10 * time.Millisecond)
	}
	waitCall(t, calls, "burst of edits")
	noCall(t, calls, "after the burst")
	if got := n.Load(); got != 1 {
		t.Errorf("burst of 5 writes: %d calls, want 1", got)
	}

	// A new folder, then a file inside it: the folder is watched too.
	if err := os.MkdirAll(filepath.Join(root, "new", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	waitCall(t, calls, "new folder")
	write(t, filepath.Join(root, "new", "deep", "SKILL.md"), "x")
	waitCall(t, calls, "file in a new folder")

	// Removal.
	if err := os.RemoveAll(filepath.Join(root, "pdf")); err != nil {
		t.Fatal(err)
	}
	waitCall(t, calls, "folder removed")

	// Hidden folders are not the catalog's business.
	write(t, filepath.Join(root, ".git", "index"), "x")
	noCall(t, calls, "write under a hidden folder")

	// A source folder that appears after start.
	write(t, filepath.Join(pending, "docx", "SKILL.md"), "x")
	waitCall(t, calls, "source folder created")
	write(t, filepath.Join(pending, "docx", "SKILL.md"), "y")
	waitCall(t, calls, "edit in the new source folder")
}

func TestWatchRootRemovedAndRecreated(t *testing.T) {
	root := filepath.Join(t.TempDir(), "skills")
	write(t, filepath.Join(root, "a", "SKILL.md"), "a")
	calls, _ := start(t, Options{Dirs: []string{root}, Debounce: 50 * time.Millisecond})
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	waitCall(t, calls, "root removed")
	write(t, filepath.Join(root, "b", "SKILL.md"), "b")
	waitCall(t, calls, "root recreated")
	write(t, filepath.Join(root, "b", "SKILL.md"), "c")
	waitCall(t, calls, "edit in the recreated root")
}

func TestPoll(t *testing.T) {
	root := t.TempDir()
	calls, _ := start(t, Options{Dirs: []string{root}, ForcePoll: true, PollInterval: 50 * time.Millisecond})
	waitCall(t, calls, "first poll")
	waitCall(t, calls, "second poll")
}

func TestRunNeedsOnChange(t *testing.T) {
	if err := Run(t.Context(), Options{Dirs: []string{t.TempDir()}}); err == nil {
		t.Errorf("Run without OnChange: got no error")
	}
}

// TestWatchRenamedFolderReportsNewPaths renames a watched folder and checks
// that later edits inside it are reported under its new name (an incremental
// rebuild re-reads only the folders holding a reported path).
func TestWatchRenamedFolderReportsNewPaths(t *testing.T) {
	root := filepath.Join(t.TempDir(), "skills")
	write(t, filepath.Join(root, "a", "deep", "SKILL.md"), "a")
	got := make(chan []string, 100)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Dirs: []string{root}, Debounce: 50 * time.Millisecond,
			OnChange: func(_ context.Context, changed []string) { got <- changed }})
	}()
	defer func() { cancel(); <-done }()
	next := func(what string) []string {
		t.Helper()
		select {
		case c := <-got:
			return c
		case <-time.After(3 * time.Second):
			t.Fatalf("%s: no OnChange", what)
		}
		return nil
	}
	if c := next("start"); c != nil {
		t.Errorf("first call: %v, want nil (anything may have changed)", c)
	}
	if err := os.Rename(filepath.Join(root, "a"), filepath.Join(root, "b")); err != nil {
		t.Fatal(err)
	}
	next("rename")
	write(t, filepath.Join(root, "b", "deep", "SKILL.md"), "edited")
	c := next("edit after rename")
	if c == nil {
		return // a full rebuild: fine
	}
	for _, p := range c {
		if strings.HasPrefix(p, filepath.Join(root, "b")) {
			return
		}
	}
	t.Errorf("edit in the renamed folder reported as %v, want a path under %s", c, filepath.Join(root, "b"))
}

// TestWatchListedFolders: given the folders the catalog's walk read
// (Options.Folders), the watcher watches those without reading the tree
// itself: a folder left out of the list is not watched (a change there is
// not reported), a listed one is, and a listed folder gone since the walk,
// a hidden one or one outside the root costs nothing.
func TestWatchListedFolders(t *testing.T) {
	root := filepath.Join(t.TempDir(), "skills")
	write(t, filepath.Join(root, "pdf", "SKILL.md"), "a")
	write(t, filepath.Join(root, "pdf", "scripts", "fill.py"), "a")
	write(t, filepath.Join(root, "unlisted", "SKILL.md"), "a")
	listed := []string{
		filepath.Join(root, "pdf"), filepath.Join(root, "pdf", "scripts"),
		filepath.Join(root, "gone"), filepath.Join(root, ".git"), filepath.Join(t.TempDir(), "elsewhere"),
	}
	var asked atomic.Int32
	calls, _ := start(t, Options{Dirs: []string{root}, Debounce: 50 * time.Millisecond, Folders: func(dir string) []string {
		if dir == root {
			asked.Add(1)
			return listed
		}
		return nil
	}})
	if asked.Load() == 0 {
		t.Fatal("Folders was not asked for the root's folders")
	}
	write(t, filepath.Join(root, "unlisted", "SKILL.md"), "b")
	noCall(t, calls, "a change in a folder the list left out")
	write(t, filepath.Join(root, "pdf", "scripts", "fill.py"), "b")
	waitCall(t, calls, "a change in a listed folder")
	write(t, filepath.Join(root, "new", "SKILL.md"), "a")
	waitCall(t, calls, "a folder made in the root")
}

// TestCatchUpAfterSetUp: a change made while the watches are being set up
// (before the folder's watch is in place, so no event ever names it) is
// still reported, by one OnChange(nil) a debounce after the set-up, not at
// once (a server answers its first requests meanwhile).
func TestCatchUpAfterSetUp(t *testing.T) {
	root := filepath.Join(t.TempDir(), "skills")
	write(t, filepath.Join(root, "pdf", "SKILL.md"), "a")
	const debounce = 300 * time.Millisecond
	var watchedAt atomic.Int64
	changes, _, statuses := watched(t, Options{
		Dirs: []string{root}, Debounce: debounce, PollInterval: time.Hour, RetryInterval: time.Hour,
		addWatch: func(fw *fsnotify.Watcher, dir string) error {
			if dir == filepath.Join(root, "pdf") {
				// Unseen by any watch: only the catch-up can report it.
				if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("changed during set-up"), 0o644); err != nil {
					return err
				}
			}
			err := fw.Add(dir)
			watchedAt.Store(time.Now().UnixNano())
			return err
		},
	})
	until(t, statuses, "watching", func(st Status) bool { return st.Mode == ModeWatching })
	select {
	case c := <-changes:
		if c != nil {
			t.Fatalf("first change named paths %v; want the catch-up (nil)", c)
		}
		if waited := time.Since(time.Unix(0, watchedAt.Load())); waited < debounce {
			t.Errorf("the catch-up came %v after the last watch; want a debounce (%v) after it", waited, debounce)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no catch-up after the watches were set up")
	}
	select {
	case c := <-changes:
		t.Errorf("a second change without any event: %v", c)
	case <-time.After(2 * debounce):
	}
}
