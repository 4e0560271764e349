package content

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// docsTree writes sections×pages documentation pages.
func docsTree(b *testing.B, sections, pages int) string {
	dir := filepath.Join(b.TempDir(), "docs")
	files := map[string]string{}
	for s := range sections {
		files[fmt.Sprintf("s%02d/index.md", s)] = "---\ndescription: section\n---\n"
		for p := range pages {
			files[fmt.Sprintf("s%02d/p%03d.md", s, p)] = fmt.Sprintf("---\ntitle: Page %d\ndescription: About page %d of section %d.\n---\n\n# Page\n\nText.\n", p, p, s)
		}
	}
	writeB(b, dir, files)
	return dir
}

// BenchmarkListDocsScan reads and indexes a tree of 1,000 pages (what a
// listing costs once MaxAge has passed).
func BenchmarkListDocsScan(b *testing.B) {
	dir := docsTree(b, 20, 50)
	s := New(Options{Docs: Folder{Dir: dir, Prefix: "docs"}})
	ctx := b.Context()
	b.ResetTimer()
	for b.Loop() {
		s.Reload()
		if idx, err := s.ListDocs(ctx); err != nil || len(idx.Pages) != 1020 {
			b.Fatalf("%d pages, %v", len(idx.Pages), err)
		}
	}
}

// BenchmarkGetDoc resolves and reads one page with the index.md convention
// (two misses, then the .md file).
func BenchmarkGetDoc(b *testing.B) {
	dir := docsTree(b, 20, 50)
	s := New(Options{Docs: Folder{Dir: dir, Prefix: "docs"}})
	ctx := b.Context()
	for b.Loop() {
		if _, err := s.GetDoc(ctx, []string{"s07", "p042"}, false); err != nil {
			b.Fatal(err)
		}
	}
}

func writeB(b *testing.B, dir string, files map[string]string) {
	b.Helper()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}
