package search

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

// routerFiles are the skill files of the Router tests.
var routerFiles = map[string]string{
	"pdf/SKILL.md":    "---\nname: pdf\ndescription: Fill PDF forms and extract tables from PDF files.\n---\n\n# PDF\n\nUse pypdf.\n",
	"deploy/SKILL.md": "---\nname: k8s-deploy\ndescription: Deploy services to Kubernetes clusters.\n---\n\n# Deploy\n\nkubectl apply.\n",
	"notes/SKILL.md":  "---\nname: release-notes\ndescription: Write release notes from a changelog.\n---\n\n# Release notes\n",
}

// routerStore returns a store serving the catalog of routerFiles.
func routerStore(t *testing.T) *catalog.Store {
	t.Helper()
	dir := t.TempDir()
	for name, content := range routerFiles {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := catalog.Build(t.Context(), []*source.Root{{Name: "skills", Dir: dir, Kind: source.KindLocal, Trusted: true}}, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	store := &catalog.Store{}
	store.Swap(snap)
	return store
}

// TestRouterKeepsTheCache checks that a Router with a cache saves it after
// building (Close waits for the save), and that a Router of the next start
// reads it back and answers alike.
func TestRouterKeepsTheCache(t *testing.T) {
	store := routerStore(t)
	files := routerFiles
	path := filepath.Join(t.TempDir(), "state", CacheFileName())

	first := OpenAnalysisCache(path)
	q := Query{Text: "fill a pdf form"}
	want := NewRouter(RouterOptions{Store: store, Cache: first}).Routes(t.Context()).Search(t.Context(), q)
	if len(want) == 0 {
		t.Fatal("no hits")
	}
	first.saving.Wait() // the Router's own save, in the background
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the Router did not save the cache: %v", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	next := OpenAnalysisCache(path)
	if n := next.Len(); n != len(files) {
		t.Fatalf("the saved cache has %d analyses, want %d", n, len(files))
	}
	got := NewRouter(RouterOptions{Store: store, Cache: next}).Routes(t.Context()).Search(t.Context(), q)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("with the saved cache: %s, want %s", hitsString(got), hitsString(want))
	}
}

// TestCacheSavesLaterAtMostEverySaveEvery: a burst of builds writes the
// cache once at first, then once more saveEvery later, not once a build;
// Close makes the pending save at once instead of waiting for it.
func TestCacheSavesLaterAtMostEverySaveEvery(t *testing.T) {
	path := filepath.Join(t.TempDir(), CacheFileName())
	c := OpenAnalysisCache(path)
	skills := cacheFixture()
	New(skills, Options{Cache: c})
	c.saveLater(func(err error) { t.Error(err) })
	c.saving.Wait() // the first save is not delayed
	first, err := os.Stat(path)
	if err != nil {
		t.Fatalf("the first save did not happen: %v", err)
	}
	for range 3 {
		New(skills[:len(skills)-1], Options{Cache: c}) // another build, other analyses
		c.saveLater(func(err error) { t.Error(err) })
	}
	c.laterMu.Lock()
	pending := c.later != nil
	c.laterMu.Unlock()
	if !pending {
		t.Fatal("no save pending after a burst of builds")
	}
	if again, err := os.Stat(path); err != nil || !again.ModTime().Equal(first.ModTime()) {
		t.Fatalf("the burst rewrote the file at once (%v)", err)
	}
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > saveEvery/2 {
		t.Errorf("Close waited %v for the pending save", d)
	}
	last := OpenAnalysisCache("")
	New(skills[:len(skills)-1], Options{Cache: last})
	if n, want := OpenAnalysisCache(path).Len(), last.Len(); n != want || want == 0 {
		t.Errorf("after Close the file holds %d analyses, want the last build's %d", n, want)
	}
}

// TestCacheSavesNothingLaterAfterClose: a build that ends while the server
// closes (its index made beside Close) asks for a save after Close has
// looked for pending ones. That save is not scheduled: scheduled, it made a
// Close running beside it wait for it, up to saveEvery. Most likely why
// skillsd's TestScanCacheWrittenOnClose once saw Close take 4.9988 s on a
// loaded machine (CI, stop 39): its refresh's index is made after the
// refresh answers, a moment after the first build's save.
func TestCacheSavesNothingLaterAfterClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), CacheFileName())
	c := OpenAnalysisCache(path)
	skills := cacheFixture()
	New(skills, Options{Cache: c})
	c.saveLater(func(err error) { t.Error(err) })
	c.saving.Wait() // a save a moment ago: the next waits saveEvery
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	New(skills[:len(skills)-1], Options{Cache: c}) // a build ending after Close
	c.saveLater(func(err error) { t.Error(err) })
	c.laterMu.Lock()
	pending := c.later != nil
	c.laterMu.Unlock()
	if pending {
		t.Error("a save was scheduled after Close")
	}
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > saveEvery/2 {
		t.Errorf("a Close after it waited %v for that save", d)
	}
}
