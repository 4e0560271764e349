package skillstest

import (
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	git "github.com/go-git/go-git/v5"
)

// gitHTTPBackend is git's smart HTTP server program.
const gitHTTPBackend = "/usr/lib/git-core/git-http-backend"

// ServeGitGated serves g over smart HTTP (the real git http-backend, on
// 127.0.0.1; the test is skipped where it is not installed) and holds every
// request until release is called: a clone or fetch that takes as long as
// the test wants. It returns the repository's http:// URL.
func ServeGitGated(t testing.TB, g *GitRepo) (url string, release func()) {
	t.Helper()
	if _, err := os.Stat(gitHTTPBackend); err != nil {
		t.Skip("git http-backend is not installed")
	}
	served := t.TempDir()
	if _, err := git.PlainClone(filepath.Join(served, "team.git"), true, &git.CloneOptions{URL: g.URL()}); err != nil {
		t.Fatalf("skillstest: cloning the repository to serve: %v", err)
	}
	gate := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	h := &cgi.Handler{Path: gitHTTPBackend, Env: []string{"GIT_PROJECT_ROOT=" + served, "GIT_HTTP_EXPORT_ALL=1"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(release)
	return srv.URL + "/team.git", release
}
