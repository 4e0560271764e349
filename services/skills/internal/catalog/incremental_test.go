package catalog

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillsd/skillsd/services/skills/internal/scan"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

// snapshotView is everything a snapshot serves, in text: each skill with
// its fields, files, digests, parent, security verdict and content, the
// diagnostics, the statistics (less the build's duration) and the
// identity.
func snapshotView(s *Snapshot) string {
	var b strings.Builder
	for _, sk := range s.Skills() {
		parent := ""
		if sk.Parent != nil {
			parent = sk.Parent.Path
		}
		fmt.Fprintf(&b, "skill %s name=%q desc=%q layout=%v routable=%v parent=%q file=%s rel=%s dir=%s size=%d mod=%s loaded=%s digest=%s filedigest=%s pending=%v kept=%v\n",
			sk.Path, sk.Name, sk.Description, sk.Layout, sk.Routable, parent, sk.File, sk.RelFile, sk.Dir, sk.Size,
			sk.ModTime.UTC().Format(time.RFC3339Nano), sk.LoadedAt.UTC().Format(time.RFC3339Nano), sk.Digest, sk.FileDigest(), sk.ScanPending(), sk.keptLastGood)
		for _, f := range sk.Files {
			fmt.Fprintf(&b, "  file %+v\n", f)
		}
		fmt.Fprintf(&b, "  security %+v\n  content %q\n", sk.Security, s.Content(sk))
	}
	for _, d := range s.Diagnostics() {
		fmt.Fprintf(&b, "diag %+v\n", d)
	}
	st := s.Stats()
	st.Duration = 0
	fmt.Fprintf(&b, "stats %+v\nid %s\n", st, s.ID())
	return b.String()
}

// TestIncrementalSameAsFull edits a catalog step by step (a skill file
// edited, a companion file changed, a skill added, one deleted, one
// renamed, a skill file whose frontmatter breaks, then is fixed, a parent
// quarantined then cleared, a skill quarantined, the scanner replaced by
// one with another policy, a companion file rewritten at the same size) and
// checks after each step that the build told only the changed paths (what
// the watcher reports) makes the same catalog as the build that reads
// every folder, both from the same previous snapshot, and as a first
// build (but for the times the skills were loaded) after each step that
// serves no skill at its last good version.
func TestIncrementalSameAsFull(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a/SKILL.md":          folderSkill("a", "Skill a.", "Body of a."),
		"a/ref.md":            "reference of a",
		"a/scripts/run.sh":    "#!/bin/sh\necho a\n",
		"b/SKILL.md":          folderSkill("b", "Skill b.", "Body of b."),
		"b/ref.md":            "reference of b",
		"c/SKILL.md":          folderSkill("c", "Skill c.", "Body of c."),
		"c/d/SKILL.md":        folderSkill("d", "Skill d, below c.", "Body of d."),
		"c/d/notes.txt":       "notes of d",
		"pages/_index.md":     treeSkill("index", "The pages' index", "Rules of the pages."),
		"pages/page.md":       treeSkill("page", "A page", "Body of the page."),
		"pages/page/extra.md": "extra of the page",
	})
	root := localRoot("t", dir)
	roots := []*source.Root{root}
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
	sc := newScannerWith(t, scan.Policy{})
	now := testNow
	buildWith := func(t *testing.T, prev *Snapshot, dirty []string) *Snapshot {
		t.Helper()
		opts := testOptions(t)
		opts.Now = func() time.Time { return now }
		opts.Previous, opts.Dirty, opts.Scan, opts.DeferScan = prev, dirty, sc, true
		snap, err := Build(t.Context(), roots, opts)
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	cur := buildWith(t, nil, nil)

	steps := []struct {
		name   string
		change func(t *testing.T)
		dirty  []string
	}{
		{"edit a skill file", func(t *testing.T) {
			write(t, "a/SKILL.md", folderSkill("a", "Skill a, edited.", "A new body of a, longer than before."))
		}, []string{abs("a/SKILL.md")}},
		{"change a companion file", func(t *testing.T) {
			write(t, "b/ref.md", "the reference of b, changed")
		}, []string{abs("b/ref.md")}},
		{"change a nested skill's file", func(t *testing.T) {
			write(t, "c/d/notes.txt", "notes of d, changed")
		}, []string{abs("c/d/notes.txt")}},
		{"add a skill", func(t *testing.T) {
			write(t, "e/SKILL.md", folderSkill("e", "Skill e.", "Body of e."))
			write(t, "e/ref.md", "reference of e")
		}, []string{abs("e"), abs("e/SKILL.md"), abs("e/ref.md")}},
		{"delete a skill", func(t *testing.T) {
			if err := os.RemoveAll(abs("b")); err != nil {
				t.Fatal(err)
			}
		}, []string{abs("b")}},
		{"rename a skill", func(t *testing.T) {
			if err := os.Rename(abs("c/d"), abs("c/d2")); err != nil {
				t.Fatal(err)
			}
		}, []string{abs("c/d"), abs("c/d2")}},
		{"break a frontmatter", func(t *testing.T) {
			write(t, "a/SKILL.md", "---\nname: a\ndescription: [unclosed\n---\nBroken.\n")
		}, []string{abs("a/SKILL.md")}},
		{"edit the page and its resource", func(t *testing.T) {
			write(t, "pages/page.md", treeSkill("page", "A page, edited", "Another body."))
			write(t, "pages/page/extra.md", "extra, changed")
		}, []string{abs("pages/page.md"), abs("pages/page/extra.md")}},
		{"fix the frontmatter", func(t *testing.T) {
			write(t, "a/SKILL.md", folderSkill("a", "Skill a, fixed.", "Fixed."))
		}, []string{abs("a/SKILL.md")}},
		// The security verdicts: an unchanged skill takes its previous
		// verdict (heldVerdict), less what it inherited.
		{"quarantine a parent", func(t *testing.T) {
			write(t, "pages/_index.md", treeSkill("index", "The pages' index", "Run this:\n\n```sh\n"+strings.TrimPrefix(wipeScript, "#!/bin/sh\n")+"```"))
		}, []string{abs("pages/_index.md")}},
		{"clear the parent", func(t *testing.T) {
			write(t, "pages/_index.md", treeSkill("index", "The pages' index", "Rules of the pages, safe again."))
		}, []string{abs("pages/_index.md")}},
		{"quarantine a skill", func(t *testing.T) {
			write(t, "e/clean.sh", wipeScript)
		}, []string{abs("e/clean.sh")}},
		{"another policy", func(t *testing.T) {
			sc = newScannerWith(t, scan.Policy{Quarantine: scan.Off})
			write(t, "a/ref.md", "reference of a, changed")
		}, []string{abs("a/ref.md")}},
		// The companion files of an unchanged skill file are its previous
		// version's when each is (loaded.held).
		{"rewrite a companion file at the same size", func(t *testing.T) {
			write(t, "a/ref.md", "reference of a, CHANGED")
		}, []string{abs("a/ref.md")}},
		{"change a parent's file a nested skill shares", func(t *testing.T) {
			write(t, "c/d2/notes.txt", "notes of d, changed again")
		}, []string{abs("c/d2/notes.txt")}},
	}
	// loaded is a snapshot's view less when each skill was loaded and how
	// many were reused: what a first build changes.
	loaded := func(s string) string {
		s = regexp.MustCompile(` Reused:\d+ `).ReplaceAllString(s, " ")
		var out []string
		for _, line := range strings.Split(s, "\n") {
			if i := strings.Index(line, " loaded="); i >= 0 {
				j := strings.Index(line[i+1:], " ")
				line = line[:i] + line[i+1+j:]
			}
			out = append(out, line)
		}
		return strings.Join(out, "\n")
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.change(t)
			now = now.Add(time.Hour)
			inc := buildWith(t, cur, st.dirty)
			full := buildWith(t, cur, nil)
			if diff := cmp.Diff(snapshotView(full), snapshotView(inc)); diff != "" {
				t.Fatalf("the build of the changed paths differs from the full build (-full +incremental):\n%s", diff)
			}
			// And the catalog of a first build, unless a skill is served
			// at its last good version (which a first build does not know).
			if !slices.ContainsFunc(inc.skills, func(sk *Skill) bool { return sk.keptLastGood }) {
				if diff := cmp.Diff(loaded(snapshotView(buildWith(t, nil, nil))), loaded(snapshotView(inc))); diff != "" {
					t.Fatalf("the build of the changed paths differs from a first build (-first +incremental):\n%s", diff)
				}
			}
			if Same(cur, inc) {
				t.Fatal("the step changed nothing: the test does not test it")
			}
			// A verdict taken from the previous snapshot is one the cache
			// still holds.
			for _, sk := range inc.skills {
				if _, ok := sc.Cached(scanKey(sk)); sk.scanKeyed && !ok {
					t.Errorf("%s: its verdict is not in the scanner's cache", sk.Path)
				}
			}
			cur = inc
		})
	}

	// From nothing: the same catalog, but for when each skill was loaded
	// (and how many were reused).
	first := buildWith(t, nil, nil)
	if diff := cmp.Diff(loaded(snapshotView(first)), loaded(snapshotView(cur))); diff != "" {
		t.Fatalf("the catalog built step by step differs from a first build (-first +steps):\n%s", diff)
	}
}

// newScannerWith is a scanner with policy p.
func newScannerWith(t *testing.T, p scan.Policy) *scan.Scanner {
	t.Helper()
	sc, err := scan.New(scan.Options{Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
