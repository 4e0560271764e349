package search

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

// TestIncrementalIndexSameAsFull edits a catalog on disk step by step (a
// skill file edited, a companion file changed, a skill added, one deleted,
// one renamed, a frontmatter broken then fixed) and checks after each step
// that the index a server makes — of the catalog built from the changed
// paths only, with the analysis cache of the previous indexes (and so the
// keys it remembers) — is the index, and gives the answers, of the catalog
// built by reading every folder, made from nothing.
func TestIncrementalIndexSameAsFull(t *testing.T) {
	dir := t.TempDir()
	abs := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	tick := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	write := func(t *testing.T, rel, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(abs(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs(rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		tick = tick.Add(time.Minute) // a new time, whatever the file system's clock
		if err := os.Chtimes(abs(rel), tick, tick); err != nil {
			t.Fatal(err)
		}
	}
	md := func(name, desc, body string) string {
		return "---\nname: " + name + "\ndescription: " + desc + "\n---\n" + body + "\n"
	}
	write(t, "pdf/SKILL.md", md("pdf", "Fill PDF forms and extract their fields.", "# PDF forms\n\nUse pdftk to fill forms."))
	write(t, "pdf/ref.md", "reference")
	write(t, "k8s/SKILL.md", md("k8s", "Write Kubernetes network policies.", "# Policies\n\nIsolate the namespaces."))
	write(t, "tests/SKILL.md", md("tests", "Fix flaky Playwright tests.", "# Flaky tests\n\nRetry, then find the race."))
	write(t, "tests/e2e/SKILL.md", md("e2e", "Run end-to-end tests in CI.", "# CI\n\nRun them in a container."))

	roots := []*source.Root{{Name: "t", Dir: dir, Kind: source.KindLocal, Trusted: true}}
	build := func(t *testing.T, prev *catalog.Snapshot, dirty []string) *catalog.Snapshot {
		t.Helper()
		// One time for both builds of a step: what they parse is loaded then.
		snap, err := catalog.Build(t.Context(), roots, catalog.Options{Previous: prev, Dirty: dirty, Now: func() time.Time { return tick }})
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	routed := func(snap *catalog.Snapshot) []*catalog.Skill {
		var out []*catalog.Skill
		for _, sk := range snap.Skills() {
			if sk.Routable {
				out = append(out, sk)
			}
		}
		return out
	}
	cache := OpenAnalysisCache("")
	cur := build(t, nil, nil)
	New(routed(cur), Options{Cache: cache})
	queries := []string{"pdf forms", "fill a form", "kubernetes network policy", "flaky playwright tests",
		"end to end tests", "container ci", "excel spreadsheets", "word documents", "isolate namespaces"}

	steps := []struct {
		name   string
		change func(t *testing.T)
		dirty  []string
	}{
		{"edit a skill file", func(t *testing.T) {
			write(t, "pdf/SKILL.md", md("pdf", "Fill PDF forms, sign them and extract their fields.", "# PDF forms\n\nUse pdftk or qpdf."))
		}, []string{abs("pdf/SKILL.md")}},
		{"change a companion file", func(t *testing.T) { write(t, "pdf/ref.md", "another reference") },
			[]string{abs("pdf/ref.md")}},
		{"add a skill", func(t *testing.T) {
			write(t, "xlsx/SKILL.md", md("xlsx", "Edit Excel spreadsheets and their formulas.", "# Spreadsheets"))
		}, []string{abs("xlsx"), abs("xlsx/SKILL.md")}},
		{"delete a skill", func(t *testing.T) {
			if err := os.RemoveAll(abs("k8s")); err != nil {
				t.Fatal(err)
			}
		}, []string{abs("k8s")}},
		{"rename a skill", func(t *testing.T) {
			if err := os.Rename(abs("tests/e2e"), abs("tests/end-to-end")); err != nil {
				t.Fatal(err)
			}
		}, []string{abs("tests/e2e"), abs("tests/end-to-end")}},
		{"break a frontmatter", func(t *testing.T) {
			write(t, "tests/SKILL.md", "---\nname: tests\ndescription: [unclosed\n---\nBroken word documents.\n")
		}, []string{abs("tests/SKILL.md")}},
		{"fix the frontmatter", func(t *testing.T) {
			write(t, "tests/SKILL.md", md("tests", "Fix flaky Playwright tests and word documents.", "# Fixed"))
		}, []string{abs("tests/SKILL.md")}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.change(t)
			inc := build(t, cur, st.dirty)
			full := build(t, cur, nil)
			got := New(routed(inc), Options{Cache: cache})
			// The same index as analysing every skill of the catalog again,
			// and the same answers as the index of the full build.
			sameIndex(t, New(routed(inc), Options{}), got)
			sameAnswers(t, New(routed(full), Options{}), got, queries, true)
			cur = inc
		})
	}
}
