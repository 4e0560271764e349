package refresh

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/gitsync"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

// upstream is a git repository with a worktree on disk, standing for a
// remote; commit writes the files and commits them on main.
type upstream struct {
	dir  string
	repo *git.Repository
}

func newUpstream(t *testing.T) *upstream {
	t.Helper()
	dir := t.TempDir()
	r, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &upstream{dir: dir, repo: r}
}

func (u *upstream) url() string { return "file://" + filepath.ToSlash(u.dir) }

func (u *upstream) commit(t *testing.T, files map[string]string) {
	t.Helper()
	wt, err := u.repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(u.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Commit("c", &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: time.Now()}}); err != nil {
		t.Fatal(err)
	}
}

func skillMD(name string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\n# " + name + "\n"
}

func TestReposOneSyncerPerRepository(t *testing.T) {
	repos := NewRepos(gitsync.Options{CacheDir: t.TempDir()})
	get := func(r gitsync.Repo) *gitsync.Syncer {
		t.Helper()
		s, err := repos.Syncer(r)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	skills := get(gitsync.Repo{Name: "skills", URL: "https://h/s.git", Ref: "main", Path: "skills", Token: "tok"})
	for _, tc := range []struct {
		name  string
		repo  gitsync.Repo
		share bool
	}{
		{"the docs of the same repository", gitsync.Repo{Name: "docs", URL: "https://h/s.git", Ref: "main", Path: "docs", Token: "tok"}, true},
		{"the default ref", gitsync.Repo{Name: "agents", URL: "https://h/s.git", Path: "agents", Token: "tok"}, true},
		{"another branch", gitsync.Repo{Name: "docs", URL: "https://h/s.git", Ref: "dev", Token: "tok"}, false},
		{"another repository", gitsync.Repo{Name: "docs", URL: "https://h/d.git", Ref: "main", Token: "tok"}, false},
		{"another token", gitsync.Repo{Name: "docs", URL: "https://h/s.git", Ref: "main", Token: "other"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := get(tc.repo) == skills; got != tc.share {
				t.Errorf("shares the skills' syncer: got %v, want %v", got, tc.share)
			}
		})
	}
}

// newRefresher is a refresher of one git source and the content that both
// follow up's repository (one syncer), with the refresh interval given.
func newRefresher(t *testing.T, up *upstream, interval time.Duration, onContent func()) (*Refresher, *gitsync.Syncer) {
	t.Helper()
	repos := NewRepos(gitsync.Options{CacheDir: t.TempDir()})
	skills, err := repos.Syncer(gitsync.Repo{Name: "skills", URL: up.url(), Path: "skills"})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := repos.Syncer(gitsync.Repo{Name: "docs", URL: up.url(), Path: "docs"})
	if err != nil {
		t.Fatal(err)
	}
	if docs != skills {
		t.Fatal("the docs of the skills repository got a syncer of their own")
	}
	store := &catalog.Store{}
	r := New(Options{
		Store:     store,
		Roots:     []*source.Root{{Name: "skills", Dir: Folder(skills, "skills"), Kind: KindGit}},
		Git:       []GitSource{{Name: "skills", Sync: skills}},
		Content:   []*gitsync.Syncer{docs},
		OnContent: onContent,
		Interval:  interval,
		NoWatch:   true,
		Build: func(ctx context.Context, roots []*source.Root, dirty []string) (*catalog.Snapshot, error) {
			return catalog.Build(ctx, roots, catalog.Options{Previous: store.Current(), Dirty: dirty})
		},
	})
	return r, skills
}

// TestRefreshSharedRepository: a repository that serves the skills and the
// docs is synchronised once per refresh, and the content is read again when
// it changed.
func TestRefreshSharedRepository(t *testing.T) {
	up := newUpstream(t)
	up.commit(t, map[string]string{"skills/a/SKILL.md": skillMD("a"), "docs/index.md": "# docs\n"})
	var reads atomic.Int32
	r, _ := newRefresher(t, up, 0, func() { reads.Add(1) })
	r.SyncAtStart(t.Context())
	if err := r.Rebuild(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := r.opts.Store.Current().Len(); got != 1 {
		t.Fatalf("skills after the first build: got %d, want 1", got)
	}
	if !exists(filepath.Join(r.opts.Git[0].Sync.CheckoutDir(), "docs", "index.md")) {
		t.Fatal("the docs are not in the shared checkout")
	}

	rep, err := r.Refresh(t.Context())
	if err != nil || len(rep.Failed) > 0 || rep.FilesChanged != 0 {
		t.Fatalf("refresh with nothing new: %+v, %v", rep, err)
	}
	if n := reads.Load(); n != 0 {
		t.Errorf("content read again %d times with nothing new, want 0", n)
	}

	up.commit(t, map[string]string{"skills/b/SKILL.md": skillMD("b"), "docs/more.md": "# more\n"})
	rep, err = r.Refresh(t.Context())
	if err != nil || len(rep.Failed) > 0 {
		t.Fatalf("refresh: %+v, %v", rep, err)
	}
	if rep.FilesChanged != 2 || rep.Skills != 2 || !rep.Git {
		t.Errorf("refresh report: got %+v, want 2 files changed, 2 skills, git mode", rep)
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("content read again %d times after the repository changed, want 1", n)
	}
}

// TestLoopOneScheduler: the periodic refresh synchronises the shared
// repository for the skills and the docs alike, and Stop ends it.
func TestLoopOneScheduler(t *testing.T) {
	up := newUpstream(t)
	up.commit(t, map[string]string{"skills/a/SKILL.md": skillMD("a")})
	var reads atomic.Int32
	r, skills := newRefresher(t, up, 20*time.Millisecond, func() { reads.Add(1) })
	r.SyncAtStart(t.Context())
	if err := r.Rebuild(t.Context()); err != nil {
		t.Fatal(err)
	}
	r.Start()
	up.commit(t, map[string]string{"skills/b/SKILL.md": skillMD("b"), "docs/index.md": "# docs\n"})
	deadline := time.Now().Add(10 * time.Second)
	for r.opts.Store.Current().Len() != 2 || reads.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s: %d skills, content read %d times; want 2 skills, read at least once", r.opts.Store.Current().Len(), reads.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !exists(filepath.Join(skills.CheckoutDir(), "docs", "index.md")) {
		t.Error("the docs are not in the shared checkout")
	}
	r.Stop()
	if r.Running() || r.Go(func(context.Context) {}) {
		t.Error("the refresher still runs after Stop")
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }
