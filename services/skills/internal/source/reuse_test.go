package source

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWalkWithMatchesFullWalk applies a series of edits to a root and checks
// after each that a walk reusing the previous one (told only the changed
// paths) finds exactly what a full walk finds, and that it did reuse folders.
func TestWalkWithMatchesFullWalk(t *testing.T) {
	root := t.TempDir()
	r := &Root{Name: "r", Dir: root, Kind: KindLocal}
	put := func(rel, content string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	skillMD := func(name string) string { return "---\nname: " + name + "\ndescription: d " + name + "\n---\nbody\n" }
	treeMD := "---\nkeywords: [a, b]\ndescription: tree skill\n---\nbody\n"
	put("a/pdf/SKILL.md", skillMD("pdf"))
	put("a/pdf/scripts/run.sh", "echo\n")
	put("a/docx/SKILL.md", skillMD("docx"))
	put("b/x/SKILL.md", skillMD("x"))
	put("b/x/nested/y/SKILL.md", skillMD("y"))
	put("ui/_index.md", treeMD)
	put("ui/react.md", treeMD)
	put("ui/react/assets/t.txt", "t")
	put("docs/readme.md", "# not a skill\n")

	full := func() ([]Entry, []any) {
		e, d, _, err := WalkWith(t.Context(), r, Limits{}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return e, []any{d}
	}
	_, _, state, err := WalkWith(t.Context(), r, Limits{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !state.reusable {
		t.Fatal("state of a walk without links: not reusable")
	}
	// The folders it read, for a file watcher: every folder of the tree.
	var tree []string
	if err := filepath.WalkDir(r.Dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			tree = append(tree, p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	folders := state.Folders()
	slices.Sort(folders)
	if diff := cmp.Diff(tree, folders); diff != "" {
		t.Errorf("Folders (-the tree's +listed):\n%s", diff)
	}

	for _, step := range []struct {
		name string
		edit func() []string // returns the changed paths, as a watcher would
	}{
		{"edit a skill file", func() []string { return []string{put("a/pdf/SKILL.md", skillMD("pdf2"))} }},
		{"add a companion file", func() []string { return []string{put("a/docx/ref.md", "ref")} }},
		{"add a skill folder", func() []string {
			put("c/new/SKILL.md", skillMD("new"))
			return []string{filepath.Join(root, "c")} // the watcher reports the new folder
		}},
		{"parent becomes a skill", func() []string { return []string{put("b/SKILL.md", skillMD("b"))} }},
		{"tree file gains a resource folder", func() []string {
			return []string{put("ui/_index/assets/base.txt", "base"), filepath.Join(root, "ui", "_index")}
		}},
		{"remove a folder", func() []string {
			p := filepath.Join(root, "a", "docx")
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
			return []string{p}
		}},
		{"markdown becomes a tree skill", func() []string { return []string{put("docs/readme.md", treeMD)} }},
	} {
		dirty := step.edit()
		got, gotDiags, next, err := WalkWith(t.Context(), r, Limits{}, Options{Previous: state, Dirty: dirty})
		if err != nil {
			t.Fatal(err)
		}
		want, wantDiags := full()
		strip := func(es []Entry) []Entry {
			out := make([]Entry, len(es))
			for i, e := range es {
				e.Data, e.Root = nil, nil
				out[i] = e
			}
			return out
		}
		if diff := cmp.Diff(strip(want), strip(got), cmp.AllowUnexported()); diff != "" {
			t.Errorf("%s: incremental walk differs from a full walk (-full +incremental):\n%s", step.name, diff)
		}
		if diff := cmp.Diff(wantDiags, []any{gotDiags}); diff != "" {
			t.Errorf("%s: diagnostics differ (-full +incremental):\n%s", step.name, diff)
		}
		if next.reused == 0 {
			t.Errorf("%s: no folder was reused", step.name)
		}
		state = next
	}
}

func TestWalkWithLinksReadsEverything(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "link")); err != nil {
		t.Skip("no symlinks here")
	}
	_, _, state, err := WalkWith(t.Context(), &Root{Name: "r", Dir: root}, Limits{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if state.reusable {
		t.Errorf("a walk that met a symlink: reusable, want not")
	}
	if f := state.Folders(); f != nil {
		t.Errorf("a walk that met a symlink lists its folders %v; want nil (the watcher reads the tree)", f)
	}
}
