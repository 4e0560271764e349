package gitsync

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// upstream is a real git repository with a worktree, standing for a remote.
type upstream struct {
	t    *testing.T
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
	return &upstream{t: t, dir: dir, repo: r}
}

// url is the file:// URL of the repository.
func (u *upstream) url() string { return "file://" + filepath.ToSlash(u.dir) }

// commit writes files (a nil content deletes the file) and commits them on the
// current branch; it returns the commit hash.
func (u *upstream) commit(msg string, files map[string]*string) string {
	u.t.Helper()
	wt, err := u.repo.Worktree()
	if err != nil {
		u.t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(u.dir, filepath.FromSlash(name))
		if content == nil {
			if _, err := wt.Remove(name); err != nil {
				u.t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			u.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(*content), 0o644); err != nil {
			u.t.Fatal(err)
		}
	}
	// One add of everything: adding files one by one rewrites the index each time.
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		u.t.Fatal(err)
	}
	h, err := wt.Commit(msg, &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: time.Now()}})
	if err != nil {
		u.t.Fatal(err)
	}
	return h.String()
}

func (u *upstream) tag(name, hash string) {
	u.t.Helper()
	if _, err := u.repo.CreateTag(name, plumbing.NewHash(hash), nil); err != nil {
		u.t.Fatal(err)
	}
}

func (u *upstream) branch(name, hash string) {
	u.t.Helper()
	ref := plumbing.NewHashReference(plumbing.NewBranchReferenceName(name), plumbing.NewHash(hash))
	if err := u.repo.Storer.SetReference(ref); err != nil {
		u.t.Fatal(err)
	}
}

func str(s string) *string { return &s }

func skillFile(name string) *string {
	return str("---\nname: " + name + "\ndescription: The " + name + " skill.\n---\n# " + name + "\n")
}

func newSyncer(t *testing.T, repo Repo, cache string) *Syncer {
	t.Helper()
	s, err := New(repo, Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func TestSyncBranchUpdates(t *testing.T) {
	up := newUpstream(t)
	c1 := up.commit("one", map[string]*string{"skills/pdf/SKILL.md": skillFile("pdf"), "README.md": str("hi")})
	cache := t.TempDir()
	s := newSyncer(t, Repo{Name: "team", URL: up.url(), Ref: "main", Path: "skills"}, cache)

	res, err := s.Sync(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit != c1 || !res.Cloned || res.Previous != "" || res.FilesChanged != 2 {
		t.Errorf("first sync: got %+v, want commit %s, cloned, 2 files", res, c1)
	}
	if !exists(filepath.Join(s.SkillsDir(), "pdf", "SKILL.md")) {
		t.Fatalf("pdf/SKILL.md not checked out under %s", s.SkillsDir())
	}

	again, err := s.Sync(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if again.Changed() || again.FilesChanged != 0 || again.Cloned {
		t.Errorf("sync without upstream change: got %+v, want unchanged", again)
	}

	c2 := up.commit("two", map[string]*string{"skills/docx/SKILL.md": skillFile("docx"), "skills/pdf/SKILL.md": nil})
	res, err = s.Sync(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit != c2 || res.Previous != c1 || res.FilesChanged != 2 || res.Cloned {
		t.Errorf("second sync: got %+v, want %s from %s with 2 files changed", res, c2, c1)
	}
	if exists(filepath.Join(s.SkillsDir(), "pdf")) || !exists(filepath.Join(s.SkillsDir(), "docx", "SKILL.md")) {
		t.Errorf("checkout not updated: pdf still there or docx missing")
	}
	if st := s.State(); st.Commit != c2 || st.Err != nil || st.LastSync.IsZero() {
		t.Errorf("state: got %+v", st)
	}
}

func TestSyncTagAndCommitRefs(t *testing.T) {
	up := newUpstream(t)
	c1 := up.commit("one", map[string]*string{"a/SKILL.md": skillFile("a")})
	up.tag("v1", c1)
	c2 := up.commit("two", map[string]*string{"b/SKILL.md": skillFile("b")})
	up.branch("release", c1)
	_ = c2

	for _, tc := range []struct {
		name, ref, want string
	}{
		{"tag", "v1", c1},
		{"branch", "release", c1},
		{"full commit", c1, c1},
		{"short commit", c1[:10], c1},
		{"main", "main", c2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSyncer(t, Repo{Name: "r", URL: up.url(), Ref: tc.ref}, t.TempDir())
			res, err := s.Sync(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if res.Commit != tc.want {
				t.Errorf("ref %q: got commit %s, want %s", tc.ref, res.Commit, tc.want)
			}
			if got := exists(filepath.Join(s.SkillsDir(), "b", "SKILL.md")); got != (tc.want == c2) {
				t.Errorf("ref %q: b/SKILL.md present %v", tc.ref, got)
			}
		})
	}

	s := newSyncer(t, Repo{Name: "r", URL: up.url(), Ref: "nope"}, t.TempDir())
	if _, err := s.Sync(t.Context()); err == nil || !strings.Contains(err.Error(), `ref "nope"`) {
		t.Errorf("unknown ref: got %v, want an error naming the ref", err)
	}
}

func TestSyncRemoteGoneKeepsCheckout(t *testing.T) {
	up := newUpstream(t)
	c1 := up.commit("one", map[string]*string{"s/SKILL.md": skillFile("s")})
	cache := t.TempDir()
	s := newSyncer(t, Repo{Name: "r", URL: up.url()}, cache)
	if _, err := s.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(up.dir); err != nil {
		t.Fatal(err)
	}

	// A new process on the same cache: the network is down.
	s2 := newSyncer(t, Repo{Name: "r", URL: up.url()}, cache)
	if _, err := s2.Sync(t.Context()); err == nil {
		t.Fatal("sync with the remote gone: got no error")
	}
	if st := s2.State(); st.Err == nil {
		t.Errorf("state after a failed sync: got no error")
	}
	if got := s2.Open(); got != c1 {
		t.Errorf("Open after a failed sync: got %q, want the cached %s", got, c1)
	}
	if !exists(filepath.Join(s2.SkillsDir(), "s", "SKILL.md")) {
		t.Errorf("the cached checkout lost its files")
	}
}

func TestSyncCorruptedCacheReclones(t *testing.T) {
	up := newUpstream(t)
	c1 := up.commit("one", map[string]*string{"s/SKILL.md": skillFile("s")})
	for _, tc := range []struct {
		name    string
		corrupt func(t *testing.T, dir string)
	}{
		{"objects gone", func(t *testing.T, dir string) {
			if err := os.RemoveAll(filepath.Join(dir, "objects")); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(dir, "objects"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"config garbage", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "config"), []byte("[garbage\x00\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"not a clone", func(t *testing.T, dir string) {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(dir, "junk"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"other remote", func(t *testing.T, dir string) {
			r, err := git.PlainOpen(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.DeleteRemote("origin"); err != nil {
				t.Fatal(err)
			}
			if _, err := r.CreateRemote(&gitconfig.RemoteConfig{Name: "origin", URLs: []string{"file:///elsewhere"}}); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			s := newSyncer(t, Repo{Name: "r", URL: up.url()}, cache)
			if _, err := s.Sync(t.Context()); err != nil {
				t.Fatal(err)
			}
			tc.corrupt(t, s.storeDir())
			res, err := s.Sync(t.Context())
			if err != nil {
				t.Fatalf("sync over a corrupted cache: %v", err)
			}
			if !res.Cloned || res.Commit != c1 {
				t.Errorf("got %+v, want a re-clone at %s", res, c1)
			}
			if !exists(filepath.Join(s.SkillsDir(), "s", "SKILL.md")) {
				t.Errorf("re-clone did not check out the files")
			}
		})
	}
}

func TestNewRejectsCredentialsInURL(t *testing.T) {
	_, err := New(Repo{URL: "https://x:secret@example.com/r.git"}, Options{CacheDir: t.TempDir()})
	if err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("got %v, want an error that does not quote the password", err)
	}
	if _, err := New(Repo{URL: "file:///x"}, Options{}); err == nil {
		t.Errorf("no cache folder: got no error")
	}
}

// TestSyncHTTPBasicAuthTokenNeverStored serves the repository with the real
// git http-backend (smart HTTP, through net/http/cgi) behind basic auth on
// 127.0.0.1, and checks that the token is sent and never written to disk.
func TestSyncHTTPBasicAuthTokenNeverStored(t *testing.T) {
	backend := "/usr/lib/git-core/git-http-backend"
	if _, err := os.Stat(backend); err != nil {
		t.Skip("git http-backend is not installed")
	}
	up := newUpstream(t)
	c1 := up.commit("one", map[string]*string{"skills/pdf/SKILL.md": skillFile("pdf")})
	served := t.TempDir()
	if _, err := git.PlainClone(filepath.Join(served, "team.git"), true, &git.CloneOptions{URL: up.url()}); err != nil {
		t.Fatal(err)
	}

	const token = "ghp_testTokenThatMustNeverBeStored0123456789"
	var authed, denied atomic.Int32
	cgiHandler := &cgi.Handler{
		Path: backend,
		Env:  []string{"GIT_PROJECT_ROOT=" + served, "GIT_HTTP_EXPORT_ALL=1"},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if !ok || user != "x-access-token" || pass != token {
			denied.Add(1)
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		authed.Add(1)
		cgiHandler.ServeHTTP(w, r)
	}))
	defer srv.Close()
	remote := srv.URL + "/team.git"

	home := t.TempDir()
	cache := filepath.Join(home, "git")
	bad := newSyncer(t, Repo{Name: "team", URL: remote, Token: "wrong"}, cache)
	if _, err := bad.Sync(t.Context()); err == nil || strings.Contains(err.Error(), "wrong") {
		t.Errorf("wrong token: got %v, want an access error without the token", err)
	}

	s := newSyncer(t, Repo{Name: "team", URL: remote, Token: token, Path: "skills"}, cache)
	res, err := s.Sync(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit != c1 || authed.Load() == 0 {
		t.Errorf("got %+v after %d authenticated requests, want commit %s", res, authed.Load(), c1)
	}
	c2 := up.commit("two", map[string]*string{"skills/docx/SKILL.md": skillFile("docx")})
	pushTo(t, up, filepath.Join(served, "team.git"))
	if res, err = s.Sync(t.Context()); err != nil || res.Commit != c2 {
		t.Fatalf("second sync: %+v, %v; want %s", res, err, c2)
	}
	if !exists(filepath.Join(s.SkillsDir(), "docx", "SKILL.md")) {
		t.Errorf("docx not checked out")
	}

	// grep -r <token> $SKILLSD_HOME finds nothing.
	err = filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 { // the checkout link: its tree is walked too
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(data, []byte(token)) {
			t.Errorf("the token is written in %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// pushTo pushes the upstream's main branch into a bare repository.
func pushTo(t *testing.T, up *upstream, bare string) {
	t.Helper()
	_, err := up.repo.CreateRemote(&gitconfig.RemoteConfig{Name: "served", URLs: []string{"file://" + filepath.ToSlash(bare)}})
	if err != nil && !errors.Is(err, git.ErrRemoteExists) {
		t.Fatal(err)
	}
	err = up.repo.PushContext(t.Context(), &git.PushOptions{RemoteName: "served", RefSpecs: []gitconfig.RefSpec{"refs/heads/main:refs/heads/main"}})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		t.Fatal(err)
	}
}

func TestCacheName(t *testing.T) {
	a, b := cacheName("https://github.com/org/skills.git", "main"), cacheName("https://github.com/other/skills.git", "main")
	if a == b || !strings.HasPrefix(a, "skills-") {
		t.Errorf("cache names %q and %q: want distinct names starting with skills-", a, b)
	}
	if c := cacheName("https://github.com/org/skills.git", "v1"); c == a {
		t.Errorf("two refs of one repository share the cache %q", c)
	}
	if got := cacheName("file:///", "main"); !strings.HasPrefix(got, "repo-") {
		t.Errorf("cacheName(file:///) = %q", got)
	}
}

// TestSyncersShareTheCache: syncers of one repository on one cache (other
// processes sharing SKILLSD_HOME, or the skills and content syncers of one
// process) take turns through the cache's lock, while a reader resolving the
// checkout link always finds one whole commit.
func TestSyncersShareTheCache(t *testing.T) {
	up := newUpstream(t)
	files := func(v int) map[string]*string {
		m := map[string]*string{"skills/version.txt": str(fmt.Sprint(v))}
		for i := range v * 10 {
			m[fmt.Sprintf("skills/s%03d/SKILL.md", i)] = skillFile(fmt.Sprintf("s%03d", i))
		}
		return m
	}
	up.commit("v1", files(1))
	cache := t.TempDir()
	first := newSyncer(t, Repo{Name: "r", URL: up.url(), Path: "skills"}, cache)
	if _, err := first.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	readerDone := make(chan error, 1)
	go func() {
		reads := 0
		for {
			select {
			case <-stop:
				if reads == 0 {
					readerDone <- errors.New("the reader never read")
				}
				readerDone <- nil
				return
			default:
			}
			real, err := filepath.EvalSymlinks(first.SkillsDir())
			if err != nil {
				continue
			}
			v, err := os.ReadFile(filepath.Join(real, "version.txt"))
			if err != nil {
				continue // a tree collected since: never a partial one
			}
			ents, err := os.ReadDir(real)
			if err != nil {
				continue
			}
			var n int
			fmt.Sscan(string(v), &n)
			if len(ents) != n*10+1 {
				readerDone <- fmt.Errorf("tree of version %d holds %d entries, want %d", n, len(ents), n*10+1)
				return
			}
			reads++
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for v := 2; v <= 6; v++ {
		up.commit(fmt.Sprint("v", v), files(v))
		for range 4 {
			wg.Go(func() {
				s, err := New(Repo{Name: "r", URL: up.url(), Path: "skills"}, Options{CacheDir: cache})
				if err != nil {
					errs <- err
					return
				}
				if _, err := s.Sync(t.Context()); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
	}
	close(stop)
	if err := <-readerDone; err != nil {
		t.Error(err)
	}
	close(errs)
	for err := range errs {
		t.Errorf("concurrent sync: %v", err)
	}
	last := newSyncer(t, Repo{Name: "r", URL: up.url(), Path: "skills"}, cache)
	if got, want := last.Open(), up.head(); got != want {
		t.Errorf("after the syncs: Open() = %s, want the last commit %s", got, want)
	}
	ents, _ := os.ReadDir(last.treesDir())
	if len(ents) > 2 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("trees left: %v; want the current and the previous one", names)
	}
}

// head is the commit main points at.
func (u *upstream) head() string {
	u.t.Helper()
	ref, err := u.repo.Head()
	if err != nil {
		u.t.Fatal(err)
	}
	return ref.Hash().String()
}
