package gitsync

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// BenchmarkSyncOneFileChanged measures a synchronisation that moves a
// checkout of 2,000 files (200 skills) to a commit changing one of them: the
// fetch, the checkout (a fresh tree, unchanged files hard-linked) and the
// switch. Each iteration moves the remote's main between the two commits.
func BenchmarkSyncOneFileChanged(b *testing.B) {
	dir := b.TempDir()
	r, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")}})
	if err != nil {
		b.Fatal(err)
	}
	wt, err := r.Worktree()
	if err != nil {
		b.Fatal(err)
	}
	commit := func(msg string) plumbing.Hash {
		if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
			b.Fatal(err)
		}
		h, err := wt.Commit(msg, &git.CommitOptions{Author: &object.Signature{Name: "b", Email: "b@example.com", When: time.Now()}})
		if err != nil {
			b.Fatal(err)
		}
		return h
	}
	for i := range 200 {
		for j := range 10 {
			p := filepath.Join(dir, "skills", fmt.Sprintf("s%03d", i), fmt.Sprintf("f%d.md", j))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(fmt.Sprintf("file %d of skill %d\n", j, i)), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	c1 := commit("one")
	if err := os.WriteFile(filepath.Join(dir, "skills", "s000", "f0.md"), []byte("changed\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	c2 := commit("two")
	s, err := New(Repo{Name: "bench", URL: "file://" + filepath.ToSlash(dir), Path: "skills"}, Options{CacheDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Sync(b.Context()); err != nil {
		b.Fatal(err)
	}
	heads := []plumbing.Hash{c1, c2}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		if err := r.Storer.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName("main"), heads[i%2])); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := s.Sync(b.Context())
		if err != nil || res.FilesChanged != 1 {
			b.Fatalf("sync: %+v, %v", res, err)
		}
	}
}
