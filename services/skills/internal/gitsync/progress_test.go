package gitsync

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestFirstCloneReportsProgress (issue 18): a first clone that takes long
// says so while it runs, at info level, with the remote's progress, instead
// of a silent start. The remote is git's own HTTP backend, slowed down.
func TestFirstCloneReportsProgress(t *testing.T) {
	backend := "/usr/lib/git-core/git-http-backend"
	if _, err := os.Stat(backend); err != nil {
		t.Skip("git http-backend is not installed")
	}
	up := newUpstream(t)
	files := map[string]*string{}
	for i := range 200 {
		files[fmt.Sprintf("skills/s%03d/SKILL.md", i)] = skillFile(fmt.Sprintf("s%03d", i))
	}
	up.commit("many", files)
	served := t.TempDir()
	if _, err := git.PlainClone(filepath.Join(served, "big.git"), true, &git.CloneOptions{URL: up.url()}); err != nil {
		t.Fatal(err)
	}
	cgiHandler := &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + served, "GIT_HTTP_EXPORT_ALL=1"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			time.Sleep(300 * time.Millisecond) // a slow network
		}
		cgiHandler.ServeHTTP(w, r)
	}))
	defer srv.Close()

	logs := &lockedBuffer{}
	s, err := New(Repo{Name: "big", URL: srv.URL + "/big.git"}, Options{
		CacheDir:         t.TempDir(),
		Logger:           slog.New(slog.NewTextHandler(logs, nil)),
		ProgressInterval: 50 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	for _, want := range []string{`msg="git source: cloning"`, `msg="git source: still cloning"`, "source=big", "elapsed="} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	// A second synchronisation fetches: it is not a clone.
	before := strings.Count(logs.String(), "still cloning")
	if _, err := s.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "still cloning"); n != before {
		t.Errorf("the second sync reported cloning again:\n%s", logs.String())
	}
}

// TestProgressKeepsTheLastMessage: the remote's progress text, updated in
// place with \r, is kept as its last complete message.
func TestProgressKeepsTheLastMessage(t *testing.T) {
	p := &progress{}
	for _, chunk := range []string{"Counting obj", "ects:  50% (1/2)\rCounting objects: 100% (2/2), done.\n", "Compressing objects:  33% (1/3)\r", "  \r"} {
		if _, err := p.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	if p.last != "Compressing objects:  33% (1/3)" {
		t.Errorf("last = %q", p.last)
	}
}
