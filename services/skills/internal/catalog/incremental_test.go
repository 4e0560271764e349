package catalog

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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
// renamed, a skill file whose frontmatter breaks, then is fixed) and
// checks after each step that the build told only the changed paths (what
// the watcher reports) makes the same catalog as the build that reads
// every folder, both from the same previous snapshot; and, at the end,
// the same as a first build (but for the times the skills were loaded).
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
	sc, err := scan.New(scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
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
			if Same(cur, inc) {
				t.Fatal("the step changed nothing: the test does not test it")
			}
			cur = inc
		})
	}

	// From nothing: the same catalog, but for when each skill was loaded
	// (and how many were reused).
	first := buildWith(t, nil, nil)
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
	if diff := cmp.Diff(loaded(snapshotView(first)), loaded(snapshotView(cur))); diff != "" {
		t.Fatalf("the catalog built step by step differs from a first build (-first +steps):\n%s", diff)
	}
}
