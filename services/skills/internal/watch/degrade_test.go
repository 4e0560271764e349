package watch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/skillsd/skillsd/services/skills/internal/testfs"
)

// watched runs Run on opts and returns the changes and statuses it reports.
func watched(t *testing.T, opts Options) (<-chan []string, func() Status, <-chan Status) {
	t.Helper()
	changes := make(chan []string, 100)
	statuses := make(chan Status, 100)
	var mu sync.Mutex
	var last Status
	opts.OnChange = func(_ context.Context, c []string) { changes <- c }
	opts.OnStatus = func(st Status) {
		mu.Lock()
		last = st
		mu.Unlock()
		statuses <- st
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, opts) }()
	t.Cleanup(func() { cancel(); <-done })
	return changes, func() Status { mu.Lock(); defer mu.Unlock(); return last }, statuses
}

// until waits for a status that ok accepts; the deadline only detects a hang.
func until(t *testing.T, statuses <-chan Status, what string, ok func(Status) bool) Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for {
		select {
		case st := <-statuses:
			if ok(st) {
				return st
			}
		case <-ctx.Done():
			t.Fatalf("%s: never reported", what)
		}
	}
}

// eventChange waits for an OnChange that names paths (an event, not a poll).
func eventChange(t *testing.T, changes <-chan []string, what string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for {
		select {
		case c := <-changes:
			if c != nil {
				return c
			}
		case <-ctx.Done():
			t.Fatalf("%s: no event-driven change (polling every hour)", what)
		}
	}
}

// TestDeepTreesDoNotStopWatching: one too-deep or too-long path used to
// make the whole watcher fall back to polling every 30 s, for good, even
// after the tree was deleted. A folder too long to watch is skipped and
// named in the status, the rest stays watched, and deleting the tree brings
// back full watching; folders deeper than the catalog reads are not watched
// at all.
func TestDeepTreesDoNotStopWatching(t *testing.T) {
	t.Run("5,100-character path", func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "skills")
		write(t, filepath.Join(root, "pdf", "SKILL.md"), "a")
		long := filepath.Join(root, "long")
		testfs.Nest(t, long, strings.Repeat("x", 250), 21)
		changes, _, statuses := watched(t, Options{Dirs: []string{root}, Debounce: 50 * time.Millisecond, PollInterval: time.Hour, RetryInterval: time.Hour})
		st := until(t, statuses, "partial watching", func(st Status) bool { return st.Mode == ModePartial })
		if st.Count != 1 || !strings.HasPrefix(st.Unwatched[0].Path, long+string(filepath.Separator)) ||
			st.Unwatched[0].Reason != syscall.ENAMETOOLONG.Error() || st.NextRetry.IsZero() {
			t.Errorf("status: %+v; want the too-long folder named, with why", st)
		}
		write(t, filepath.Join(root, "pdf", "SKILL.md"), "b")
		if c := eventChange(t, changes, "a change beside the long path"); !strings.Contains(strings.Join(c, ","), "pdf") {
			t.Errorf("change: %v", c)
		}
		if err := os.RemoveAll(long); err != nil {
			t.Fatal(err)
		}
		until(t, statuses, "full watching once the tree is deleted", func(st Status) bool { return st.Mode == ModeWatching && st.Count == 0 })
	})
	t.Run("2,500 nested folders (5,000 characters)", func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "skills")
		write(t, filepath.Join(root, "pdf", "SKILL.md"), "a")
		testfs.Nest(t, filepath.Join(root, "deep"), "d", 2500)
		changes, _, statuses := watched(t, Options{Dirs: []string{root}, Debounce: 50 * time.Millisecond, PollInterval: time.Hour, RetryInterval: time.Hour})
		until(t, statuses, "watching", func(st Status) bool { return st.Mode == ModeWatching })
		write(t, filepath.Join(root, "pdf", "SKILL.md"), "b")
		eventChange(t, changes, "a change beside the deep tree")
		// A change at the deepest level the catalog reads is seen too.
		d := root + string(filepath.Separator) + "deep" + strings.Repeat(string(filepath.Separator)+"d", DefaultMaxDepth-1)
		write(t, filepath.Join(d, "SKILL.md"), "deep")
		if c := eventChange(t, changes, "a change 32 folders deep"); !strings.HasSuffix(strings.Join(c, ","), "SKILL.md") {
			t.Errorf("change: %v", c)
		}
	})
}

// TestNoWatchesLeftPollsThenWatchesAgain: when the kernel has no watch left
// (ENOSPC), the watcher polls, says so, and watches again once it can.
func TestNoWatchesLeftPollsThenWatchesAgain(t *testing.T) {
	root := filepath.Join(t.TempDir(), "skills")
	write(t, filepath.Join(root, "pdf", "SKILL.md"), "a")
	var full atomic.Bool
	full.Store(true)
	changes, _, statuses := watched(t, Options{
		Dirs: []string{root}, Debounce: 50 * time.Millisecond, PollInterval: 100 * time.Millisecond, RetryInterval: 300 * time.Millisecond,
		addWatch: func(fw *fsnotify.Watcher, dir string) error {
			if full.Load() {
				return &os.PathError{Op: "inotify_add_watch", Path: dir, Err: syscall.ENOSPC}
			}
			return fw.Add(dir)
		},
	})
	st := until(t, statuses, "polling", func(st Status) bool { return st.Mode == ModePolling })
	if !strings.Contains(st.Reason, "max_user_watches") || st.NextRetry.IsZero() {
		t.Errorf("polling status: %+v", st)
	}
	// Polling calls back with nil ("anything may have changed").
	select {
	case c := <-changes:
		if c != nil {
			t.Errorf("a poll named paths: %v", c)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no poll")
	}
	full.Store(false)
	until(t, statuses, "watching again", func(st Status) bool { return st.Mode == ModeWatching })
	write(t, filepath.Join(root, "pdf", "SKILL.md"), "b")
	eventChange(t, changes, "a change once watching again")
}
