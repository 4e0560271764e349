package skillstest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// GitRepo is a real git repository with a worktree on branch main, made in a
// temporary folder, that tests use as the remote of a git source (through
// its file:// URL).
type GitRepo struct {
	t    testing.TB
	dir  string
	repo *git.Repository
}

// NewGitRepo makes an empty repository on branch main.
func NewGitRepo(t testing.TB) *GitRepo {
	t.Helper()
	dir := t.TempDir()
	r, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
	})
	if err != nil {
		t.Fatalf("skillstest: git init: %v", err)
	}
	return &GitRepo{t: t, dir: dir, repo: r}
}

// Dir is the repository's folder.
func (g *GitRepo) Dir() string { return g.dir }

// URL is the repository's file:// URL.
func (g *GitRepo) URL() string { return "file://" + filepath.ToSlash(g.dir) }

// Commit writes files (path → content, '/' separated; "" deletes the file)
// and commits them on main. It returns the commit hash.
func (g *GitRepo) Commit(msg string, files map[string]string) string {
	g.t.Helper()
	wt, err := g.repo.Worktree()
	if err != nil {
		g.t.Fatal(err)
	}
	for name, content := range files {
		if content == "" {
			if _, err := wt.Remove(name); err != nil {
				g.t.Fatalf("skillstest: git rm %s: %v", name, err)
			}
			continue
		}
		p := filepath.Join(g.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			g.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			g.t.Fatal(err)
		}
	}
	// One add of everything: adding files one by one rewrites the index each time.
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		g.t.Fatalf("skillstest: git add: %v", err)
	}
	h, err := wt.Commit(msg, &git.CommitOptions{Author: &object.Signature{Name: "skillstest", Email: "test@example.com", When: time.Now()}})
	if err != nil {
		g.t.Fatalf("skillstest: git commit: %v", err)
	}
	return h.String()
}

// Tag makes a lightweight tag at commit.
func (g *GitRepo) Tag(name, commit string) {
	g.t.Helper()
	if _, err := g.repo.CreateTag(name, plumbing.NewHash(commit), nil); err != nil {
		g.t.Fatalf("skillstest: git tag %s: %v", name, err)
	}
}

// Branch makes (or moves) branch name to commit, leaving main checked out.
func (g *GitRepo) Branch(name, commit string) {
	g.t.Helper()
	ref := plumbing.NewHashReference(plumbing.NewBranchReferenceName(name), plumbing.NewHash(commit))
	if err := g.repo.Storer.SetReference(ref); err != nil {
		g.t.Fatalf("skillstest: git branch %s: %v", name, err)
	}
}

// SkillMD is a minimal valid SKILL.md.
func SkillMD(name, description string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n---\n# " + name + "\n\nUse this skill for " + description + "\n"
}
