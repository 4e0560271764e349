package skillsd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// TestCatalogCacheAcrossStarts: a server keeps its catalog in the state
// folder when it stops; the next start takes the unchanged skill files from
// it and parses only the one changed meanwhile; a damaged file is ignored
// and the server starts as without it.
func TestCatalogCacheAcrossStarts(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	old := time.Now().Add(-time.Hour)
	write := func(name, desc string, mod time.Time) {
		p := filepath.Join(dir, name, "SKILL.md")
		writeFile(t, p, skillstest.SkillMD(name, desc))
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	write("pdf", "reading PDF documents", old)
	write("csv", "reading CSV files", old)
	start := func() *catalog.Snapshot {
		t.Helper()
		srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{dir}, Cwd: t.TempDir(), Home: t.TempDir(),
			NoWatch: true, NoUsage: true, Getenv: env(map[string]string{"SKILLSD_HOME": state})})
		if err != nil {
			t.Fatal(err)
		}
		snap := skillsd.Catalog(srv)
		if err := srv.Close(); err != nil {
			t.Fatal(err)
		}
		return snap
	}
	file := filepath.Join(state, catalog.CacheFileName())

	if n := start().Stats().Reused; n != 0 {
		t.Fatalf("first start reused %d skills", n)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("no catalog cache after the first start: %v", err)
	}
	if n := start().Stats().Reused; n != 2 {
		t.Errorf("second start reused %d skills, want 2", n)
	}

	write("pdf", "reading and merging PDF documents", old.Add(time.Minute))
	snap := start()
	if n := snap.Stats().Reused; n != 1 {
		t.Errorf("after an edit while down: reused %d skills, want 1", n)
	}
	if d := snap.Get("pdf").Description; !strings.Contains(d, "merging") {
		t.Errorf("pdf's description %q misses the edit made while down", d)
	}

	writeFile(t, file, "not a catalog cache")
	snap = start()
	if n := snap.Stats().Reused; n != 0 || snap.Len() != 2 {
		t.Errorf("with a damaged cache: reused %d of %d skills, want 0 of 2", n, snap.Len())
	}
	if n := start().Stats().Reused; n != 2 {
		t.Errorf("the damaged cache was not replaced: the next start reused %d skills, want 2", n)
	}
}
