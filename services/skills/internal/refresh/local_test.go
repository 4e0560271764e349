package refresh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillsd/skillsd/services/skills/internal/config"
	"github.com/skillsd/skillsd/services/skills/internal/gitsync"
)

func TestDirs(t *testing.T) {
	cwd := t.TempDir()
	env := Env{Getenv: func(k string) string {
		if k == "SKILLS_DIR" {
			return "a" + string(filepath.ListSeparator) + string(filepath.ListSeparator) + "/b"
		}
		return ""
	}, Cwd: cwd, Home: "/home/u"}
	if got, want := Dirs(nil, env), []string{filepath.Join(cwd, "a"), "/b"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Dirs(nil) = %q, want %q (SKILLS_DIR, empty entries dropped)", got, want)
	}
	if got := Dirs([]string{"~/s"}, env); len(got) != 1 || got[0] != "/home/u/s" {
		t.Errorf("Dirs([~/s]) = %q, want [/home/u/s] (given folders before SKILLS_DIR)", got)
	}
}

func TestResolve(t *testing.T) {
	cwd, home, link := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(cwd, ".claude", "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	client := t.TempDir()
	if err := os.MkdirAll(filepath.Join(client, ".agents", "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := Env{Getenv: func(string) string { return "" }, Cwd: cwd, Home: home}
	repos := NewRepos(gitsync.Options{})

	// Given folders win, trusted, with the folders their links may lead into.
	s, err := Resolve(config.Default(), env, repos, Local{Dirs: []string{"/given"}, Follow: []string{link}, FollowKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Discovered || len(s.Roots) != 1 || s.Roots[0].Dir != "/given" || !s.Roots[0].Trusted || len(s.Roots[0].Follow) != 1 {
		t.Fatalf("given: Discovered %v, roots %+v", s.Discovered, s.Roots)
	}

	// Nothing given or configured: default discovery, and client roots go first.
	s, err = Resolve(config.Default(), env, repos, Local{Follow: []string{link}, FollowKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Discovered || len(s.Roots) != 1 || s.Roots[0].Name != "./.claude/skills" || len(s.Roots[0].Follow) != 1 {
		t.Fatalf("discovered: Discovered %v, roots %+v", s.Discovered, s.Roots)
	}
	next, used, ignored := s.ClientRoots([]string{client + "/", "relative"})
	if len(used) != 1 || used[0] != client || len(ignored) != 1 || ignored[0] != "relative" {
		t.Errorf("ClientRoots: used %q, ignored %q", used, ignored)
	}
	if len(next) != 2 || next[0].Dir != filepath.Join(client, ".agents", "skills") || next[1].Name != "./.claude/skills" || len(next[0].Follow) != 1 {
		t.Errorf("ClientRoots: roots %+v, want the client's folder, then the working directory's", next)
	}

	// Configured sources: the folders to follow apply to nothing, an error.
	cfg := config.Default()
	cfg.Sources = []config.Source{{Path: t.TempDir()}}
	if _, err := Resolve(cfg, env, repos, Local{Follow: []string{link}, FollowKey: "k"}); err == nil || !strings.HasPrefix(err.Error(), "k applies to") {
		t.Errorf("configured with Follow: err = %v, want the fail-closed error naming k", err)
	}
	s, err = Resolve(cfg, env, repos, Local{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Discovered || len(s.Roots) != 1 {
		t.Errorf("configured: Discovered %v, roots %+v", s.Discovered, s.Roots)
	}
}
