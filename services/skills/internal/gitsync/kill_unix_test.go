//go:build unix

package gitsync

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// Environment of the helper process of TestKillMidCheckout.
const (
	envHelper    = "GITSYNC_TEST_KILL_HELPER"
	envCache     = "GITSYNC_TEST_CACHE"
	envURL       = "GITSYNC_TEST_URL"
	envKillAfter = "GITSYNC_TEST_KILL_AFTER"
)

// TestKillHelper is not a test: it is the process TestKillMidCheckout
// starts (this test binary, run again). It synchronises the cache named in
// its environment and SIGKILLs itself after writing the given number of
// files of the checkout, as kill -9 would.
func TestKillHelper(t *testing.T) {
	if os.Getenv(envHelper) != "1" {
		t.Skip("helper process of TestKillMidCheckout")
	}
	n, _ := strconv.Atoi(os.Getenv(envKillAfter))
	s, err := New(Repo{Name: "r", URL: os.Getenv(envURL), Path: "skills"}, Options{
		CacheDir: os.Getenv(envCache),
		OnCheckoutFile: func(written int) {
			if written == n {
				_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Sync(t.Context())
	t.Fatalf("the sync was not killed after %d files: %v", n, err)
}

// killMidCheckout runs TestKillHelper on cache and checks it died of SIGKILL.
func killMidCheckout(t *testing.T, cache, url string, after int) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestKillHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), envHelper+"=1", envCache+"="+cache, envURL+"="+url, envKillAfter+"="+strconv.Itoa(after))
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("helper did not die of SIGKILL mid-checkout: %v\n%s", err, out)
	}
}

// manySkills is a commit's worth of files: n skills, each with a few files.
func manySkills(prefix string, n int) map[string]*string {
	files := map[string]*string{}
	for i := range n {
		name := fmt.Sprintf("%s%03d", prefix, i)
		files["skills/"+name+"/SKILL.md"] = skillFile(name)
		files["skills/"+name+"/ref.md"] = str("reference of " + name)
		files["skills/"+name+"/scripts/run.sh"] = str("echo " + name)
	}
	return files
}

// onDisk lists the files below dir (through the checkout link) with their
// content, '/' separated.
func onDisk(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir+string(filepath.Separator), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// wantTree checks that the files below s's skills folder are exactly the
// skills/ files of commit c.
func wantTree(t *testing.T, up *upstream, s *Syncer, c string) {
	t.Helper()
	commit, err := up.repo.CommitObject(plumbing.NewHash(c))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := commit.Tree()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	iter := tree.Files()
	for f, err := iter.Next(); err == nil; f, err = iter.Next() {
		if rel, ok := strings.CutPrefix(f.Name, "skills/"); ok {
			want[rel], _ = f.Contents()
		}
	}
	got := onDisk(t, s.SkillsDir())
	var missing, extra []string
	for p, c := range want {
		if got[p] != c {
			missing = append(missing, p)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			extra = append(extra, p)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing)+len(extra) > 0 {
		t.Fatalf("the checkout is not commit %s: %d of %d files missing or different (%v…), %d extra (%v…)",
			c[:8], len(missing), len(want), head(missing), len(extra), head(extra))
	}
}

func head(s []string) []string { return s[:min(len(s), 3)] }

// TestKillMidCheckout kills a process (SIGKILL, from a hook after N files,
// not timing luck) in the middle of checking out a new commit, then proves
// that the next start serves the whole previous commit, and that the next
// synchronisation checks out the whole new commit and reports every file it
// changes — not "0 files changed" over a broken tree, as when the work tree
// was updated in place after HEAD had moved.
func TestKillMidCheckout(t *testing.T) {
	up := newUpstream(t)
	c1 := up.commit("one", manySkills("a", 20))
	cache := t.TempDir()
	first := newSyncer(t, Repo{Name: "r", URL: up.url(), Path: "skills"}, cache)
	if _, err := first.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	changes := manySkills("b", 100) // 300 new files
	changes["skills/a000/ref.md"] = str("changed")
	changes["skills/a001/SKILL.md"] = nil
	c2 := up.commit("two", changes)

	killMidCheckout(t, cache, up.url(), 150)

	// The next start: the previous commit, whole.
	next := newSyncer(t, Repo{Name: "r", URL: up.url(), Path: "skills"}, cache)
	if got := next.Open(); got != c1 {
		t.Fatalf("after the kill, Open() = %q; want the previous commit %s", got, c1)
	}
	wantTree(t, up, next, c1)

	// The next synchronisation: the new commit, whole, and every change counted.
	res, err := next.Sync(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit != c2 || res.Previous != c1 || res.FilesChanged != 302 {
		t.Errorf("sync after the kill: %+v; want %s from %s with 302 files changed", res, c2, c1)
	}
	wantTree(t, up, next, c2)
	// The unfinished tree is gone; the previous one is kept for readers.
	trees, _ := os.ReadDir(next.treesDir())
	var names []string
	for _, e := range trees {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if want := []string{c1, c2}; strings.Join(names, ",") != strings.Join(sortedCopy(want), ",") {
		t.Errorf("trees after the sync: %v; want %v", names, want)
	}

	// Killed during the very first clone: nothing is served, and the next
	// sync clones and counts every file.
	fresh := t.TempDir()
	killMidCheckout(t, fresh, up.url(), 10)
	again := newSyncer(t, Repo{Name: "r", URL: up.url(), Path: "skills"}, fresh)
	if got := again.Open(); got != "" {
		t.Fatalf("after a kill during the first clone, Open() = %q; want no checkout", got)
	}
	res, err = again.Sync(t.Context())
	if err != nil || res.Commit != c2 || res.FilesChanged != 359 {
		t.Fatalf("sync after a killed first clone: %+v, %v; want %s with 359 files", res, err, c2)
	}
	wantTree(t, up, again, c2)
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
