package source

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillsd/skillsd/services/skills/internal/skill"
)

func writeTree(t testing.TB, dir string, files map[string]string) string {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	for p, content := range files {
		abs := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("cannot create symlinks here: %v", err)
	}
}

const (
	folderSkill = "---\nname: x\ndescription: A folder skill.\n---\nBody.\n"
	treeSkill   = "---\nkeywords: [k]\ndescription: A tree skill.\n---\nBody.\n"
)

func walk(t *testing.T, dir string, lim Limits) ([]Entry, []skill.Diagnostic) {
	t.Helper()
	entries, diags, err := Walk(t.Context(), &Root{Name: "test", Dir: dir, Kind: KindLocal}, lim)
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	for _, d := range diags {
		if d.Source != "test" {
			t.Errorf("diagnostic without its source: %+v", d)
		}
	}
	return entries, diags
}

// entryView is what the tests compare of an entry.
type entryView struct {
	RelFile string
	Layout  skill.Layout
	Dir     string // relative to the root, "-" when empty
	Files   []string
}

func view(root string, entries []Entry) []entryView {
	var out []entryView
	for _, e := range entries {
		v := entryView{RelFile: e.RelFile, Layout: e.Layout, Dir: "-"}
		if e.Dir != "" {
			rel, _ := filepath.Rel(root, e.Dir)
			v.Dir = filepath.ToSlash(rel)
		}
		for _, f := range e.Files {
			v.Files = append(v.Files, f.Path)
			if f.Size <= 0 || f.ModTime.IsZero() || !filepath.IsAbs(f.Abs) {
				panic(fmt.Sprintf("bad file %+v", f))
			}
		}
		out = append(out, v)
	}
	return out
}

func diagSet(ds []skill.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Code+" "+d.File)
	}
	return out
}

func TestWalkLayouts(t *testing.T) {
	dir := writeTree(t, "", map[string]string{
		"_root.md":                  treeSkill,
		"a/SKILL.md":                folderSkill,
		"a/ref.md":                  treeSkill, // inside a skill folder: a file, not a skill
		"a/scripts/x.sh":            "echo x",
		"a/nested/SKILL.md":         folderSkill,
		"a/nested/n.txt":            "n",
		"a/.hidden/secret.txt":      "hidden folder",
		"a/.env":                    "TOKEN=hidden file",
		"b/skill.md":                folderSkill,
		"c/_index.md":               treeSkill,
		"c/leaf.md":                 treeSkill,
		"c/leaf/assets/t.txt":       "t",
		"c/leaf/inner.md":           treeSkill, // inside a resource folder
		"c/leaf/sub/SKILL.md":       folderSkill,
		"c/plain.md":                "# Plain markdown\n",
		"c/broken.md":               "---\ndescription: Only a description\n---\n",
		"c/fm-only.md":              "---\ntitle: docs page\n---\n",
		".git/x/SKILL.md":           folderSkill,
		"node_modules/p/SKILL.md":   folderSkill,
		"c/node_modules/p/SKILL.md": folderSkill,
	})
	entries, diags := walk(t, dir, Limits{})
	want := []entryView{
		{RelFile: "_root.md", Layout: skill.LayoutTree, Dir: "-"},
		{RelFile: "a/SKILL.md", Layout: skill.LayoutFolder, Dir: "a",
			Files: []string{"nested/SKILL.md", "nested/n.txt", "ref.md", "scripts/x.sh"}},
		{RelFile: "a/nested/SKILL.md", Layout: skill.LayoutFolder, Dir: "a/nested", Files: []string{"n.txt"}},
		{RelFile: "c/_index.md", Layout: skill.LayoutTree, Dir: "-"},
		{RelFile: "c/leaf.md", Layout: skill.LayoutTree, Dir: "c/leaf",
			Files: []string{"assets/t.txt", "inner.md", "sub/SKILL.md"}},
		{RelFile: "c/leaf/sub/SKILL.md", Layout: skill.LayoutFolder, Dir: "c/leaf/sub"},
	}
	if diff := cmp.Diff(want, view(dir, entries)); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	wantDiags := []string{"skill-file-name b/skill.md", "tree-skill-invalid c/broken.md"}
	if diff := cmp.Diff(wantDiags, diagSet(diags)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	for _, e := range entries {
		switch e.Layout {
		case skill.LayoutTree:
			if e.Doc == nil || len(e.Doc.Frontmatter.Keywords) == 0 || len(e.Data) == 0 {
				t.Errorf("%s: tree entry without its parsed document", e.RelFile)
			}
		case skill.LayoutFolder:
			if e.Doc != nil || string(e.Data) != folderSkill || e.Size != int64(len(folderSkill)) {
				t.Errorf("%s: folder entry Doc %v, Data %q", e.RelFile, e.Doc, e.Data)
			}
		}
		if e.AbsFile != filepath.Join(dir, filepath.FromSlash(e.RelFile)) || e.ModTime.IsZero() {
			t.Errorf("%s: AbsFile %q, ModTime %v", e.RelFile, e.AbsFile, e.ModTime)
		}
	}
}

func TestWalkRootSkill(t *testing.T) {
	dir := writeTree(t, filepath.Join(t.TempDir(), ".hidden-root"), map[string]string{
		"SKILL.md":     folderSkill,
		"refs/a.md":    treeSkill,
		"sub/SKILL.md": folderSkill,
	})
	entries, diags := walk(t, dir, Limits{})
	want := []entryView{
		{RelFile: "SKILL.md", Layout: skill.LayoutFolder, Dir: ".", Files: []string{"refs/a.md", "sub/SKILL.md"}},
		{RelFile: "sub/SKILL.md", Layout: skill.LayoutFolder, Dir: "sub"},
	}
	if diff := cmp.Diff(want, view(dir, entries)); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	if len(diags) != 0 {
		t.Errorf("diagnostics: %v", diagSet(diags))
	}
}

// TestWalkUncleanRoot: a root given as an unclean path ("dir/./sub/../")
// gives the paths a clean one gives; the walk joins names to the folders
// below the root without cleaning them again (joinName).
func TestWalkUncleanRoot(t *testing.T) {
	dir := writeTree(t, "", map[string]string{
		"a/SKILL.md":     folderSkill,
		"a/refs/x.md":    "x",
		"tree.md":        treeSkill,
		"tree/detail.md": "detail",
	})
	paths := func(entries []Entry) []string {
		var out []string
		for _, e := range entries {
			out = append(out, e.AbsFile, e.Dir)
			for _, f := range e.Files {
				out = append(out, f.Abs)
			}
		}
		return out
	}
	clean, _ := walk(t, dir, Limits{})
	unclean, _ := walk(t, dir+string(filepath.Separator)+"."+string(filepath.Separator)+"a"+string(filepath.Separator)+".."+string(filepath.Separator), Limits{})
	if len(clean) != 2 {
		t.Fatalf("%d entries, want 2", len(clean))
	}
	if diff := cmp.Diff(paths(clean), paths(unclean)); diff != "" {
		t.Errorf("paths from the unclean root (-clean +unclean):\n%s", diff)
	}
}

func TestWalkSymlinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	outside := writeTree(t, "", map[string]string{"secret/SKILL.md": folderSkill, "secret.txt": "s"})
	dir := writeTree(t, "", map[string]string{
		"real/SKILL.md":        folderSkill,
		"real/notes.txt":       "notes",
		"shared/common.txt":    "shared text",
		"s/SKILL.md":           folderSkill,
		".store/pdf/SKILL.md":  folderSkill,
		".store/pdf/guide.txt": "guide",
		"loop/SKILL.md":        folderSkill,
		"deep/er/SKILL.md":     folderSkill,
	})
	symlink(t, filepath.Join(outside, "secret"), filepath.Join(dir, "escape"))           // dir outside
	symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(dir, "s", "out.txt")) // file outside
	symlink(t, "../shared/common.txt", filepath.Join(dir, "s", "common.txt"))            // file inside
	symlink(t, "real", filepath.Join(dir, "alias"))                                      // same skill twice
	symlink(t, ".store/pdf", filepath.Join(dir, "pdf"))                                  // only through a link
	symlink(t, "..", filepath.Join(dir, "loop", "up"))                                   // loop to the root
	symlink(t, ".", filepath.Join(dir, "loop", "self"))                                  // loop to itself
	symlink(t, "../../deep", filepath.Join(dir, "deep", "er", "back"))                   // loop two up
	symlink(t, "missing", filepath.Join(dir, "s", "broken"))                             // dangling
	symlink(t, "cycle-b", filepath.Join(dir, "cycle-a"))                                 // link cycle
	symlink(t, "cycle-a", filepath.Join(dir, "cycle-b"))

	entries, diags := walk(t, dir, Limits{})
	want := []entryView{
		{RelFile: "deep/er/SKILL.md", Layout: skill.LayoutFolder, Dir: "deep/er"},
		{RelFile: "loop/SKILL.md", Layout: skill.LayoutFolder, Dir: "loop"},
		{RelFile: "pdf/SKILL.md", Layout: skill.LayoutFolder, Dir: "pdf", Files: []string{"guide.txt"}},
		{RelFile: "real/SKILL.md", Layout: skill.LayoutFolder, Dir: "real", Files: []string{"notes.txt"}},
		{RelFile: "s/SKILL.md", Layout: skill.LayoutFolder, Dir: "s", Files: []string{"common.txt"}},
	}
	if diff := cmp.Diff(want, view(dir, entries)); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	wantDiags := []string{
		"duplicate-folder alias/SKILL.md",
		"symlink-loop cycle-a",
		"symlink-loop cycle-b",
		"symlink-loop deep/er/back",
		"symlink-escape escape",
		"symlink-loop loop/self",
		"symlink-loop loop/up",
		"symlink-broken s/broken",
		"symlink-escape s/out.txt",
	}
	if diff := cmp.Diff(wantDiags, diagSet(diags)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	for _, d := range diags {
		if d.Severity != skill.SeverityWarning || strings.Contains(d.Message, outside) {
			t.Errorf("diagnostic %+v: want a warning that does not show the outside path", d)
		}
	}
	for _, e := range entries {
		if e.RelFile == "s/SKILL.md" && e.Files[0].Size != int64(len("shared text")) {
			t.Errorf("linked file size = %d, want its target's", e.Files[0].Size)
		}
	}

	// A root that is itself a link works.
	linkRoot := filepath.Join(t.TempDir(), "link-root")
	symlink(t, dir, linkRoot)
	entries2, _ := walk(t, linkRoot, Limits{})
	if diff := cmp.Diff(want, view(linkRoot, entries2)); diff != "" {
		t.Errorf("entries through a linked root (-want +got):\n%s", diff)
	}
}

func TestWalkSymlinkStubs(t *testing.T) {
	dir := writeTree(t, "", map[string]string{
		"a/SKILL.md":        folderSkill,
		"a/version.txt":     "1.2.3",          // one line, but not an existing path
		"a/README":          "see ../c",       // one line, spaces, not a path
		"a/two-lines.txt":   "../c\n../c\n",   // more than one line
		"a/shared":          "../c",           // stub of a folder link
		"a/notes.txt":       "../c/guide.txt", // stub of a file link
		"b/SKILL.md":        "../a/SKILL.md",  // stub of a skill file
		"c/guide.txt":       "the guide",
		"d/SKILL.md":        folderSkill,
		"d/self.txt":        "self.txt", // names itself: not a link
		"d/trailing-nl.txt": "../c\n",
	})
	entries, diags := walk(t, dir, Limits{})
	want := []entryView{
		{RelFile: "a/SKILL.md", Layout: skill.LayoutFolder, Dir: "a", Files: []string{"README", "two-lines.txt", "version.txt"}},
		{RelFile: "d/SKILL.md", Layout: skill.LayoutFolder, Dir: "d", Files: []string{"self.txt", "trailing-nl.txt"}},
	}
	if diff := cmp.Diff(want, view(dir, entries)); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	wantDiags := []string{"symlink-stub a/notes.txt", "symlink-stub a/shared", "symlink-stub b/SKILL.md"}
	if diff := cmp.Diff(wantDiags, diagSet(diags)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

func TestWalkLimits(t *testing.T) {
	t.Run("files", func(t *testing.T) {
		files := map[string]string{}
		for i := range 20 {
			files[fmt.Sprintf("s%02d/SKILL.md", i)] = folderSkill
		}
		dir := writeTree(t, "", files)
		entries, diags := walk(t, dir, Limits{MaxFiles: 10})
		if len(entries) >= 10 {
			t.Errorf("got %d entries with a budget of 10 files and folders", len(entries))
		}
		n := 0
		for _, d := range diags {
			if d.Code == CodeLimitFiles {
				n++
				if d.Severity != skill.SeverityError {
					t.Errorf("limit diagnostic severity %v", d.Severity)
				}
			}
		}
		if n != 1 {
			t.Errorf("got %d limit-files diagnostics, want 1: %v", n, diagSet(diags))
		}
	})
	t.Run("skill files", func(t *testing.T) {
		files := map[string]string{"big/SKILL.md": folderSkill, "big/nested/SKILL.md": folderSkill, "page.md": treeSkill}
		for _, s := range []string{"a", "c", "z"} {
			files[s+"/SKILL.md"] = folderSkill
			files[s+"/ref.md"] = "ref"
		}
		for i := range 30 {
			files[fmt.Sprintf("big/data/f%02d.txt", i)] = ""
			files[fmt.Sprintf("page/data/f%02d.txt", i)] = ""
		}
		dir := writeTree(t, "", files)
		entries, diags := walk(t, dir, Limits{MaxSkillFiles: 20})
		if diff := cmp.Diff([]string{"a/SKILL.md", "c/SKILL.md", "z/SKILL.md"}, relFiles(entries)); diff != "" {
			t.Errorf("entries (-want +got):\n%s", diff)
		}
		for _, e := range entries {
			if len(e.Files) != 1 {
				t.Errorf("%s: %d companion files, want its ref.md", e.RelFile, len(e.Files))
			}
		}
		if diff := cmp.Diff([]string{"limit-skill-files big/SKILL.md", "limit-skill-files page.md"}, diagSet(diags)); diff != "" {
			t.Errorf("diagnostics (-want +got):\n%s", diff)
		}
	})
	t.Run("files outside skills are not counted", func(t *testing.T) {
		files := map[string]string{"a/SKILL.md": folderSkill, "b/SKILL.md": folderSkill}
		for i := range 50 {
			files[fmt.Sprintf("junk/f%02d.bin", i)] = "x"
		}
		dir := writeTree(t, "", files)
		entries, diags := walk(t, dir, Limits{MaxFiles: 10})
		if diff := cmp.Diff([]string{"a/SKILL.md", "b/SKILL.md"}, relFiles(entries)); diff != "" || len(diags) != 0 {
			t.Errorf("entries (-want +got):\n%s\ndiagnostics: %v", diff, diagSet(diags))
		}
	})
	t.Run("depth", func(t *testing.T) {
		dir := writeTree(t, "", map[string]string{"a/SKILL.md": folderSkill, "a/b/c/SKILL.md": folderSkill})
		entries, diags := walk(t, dir, Limits{MaxDepth: 2})
		if diff := cmp.Diff([]string{"a/SKILL.md"}, relFiles(entries)); diff != "" {
			t.Errorf("entries (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"limit-depth a/b/c"}, diagSet(diags)); diff != "" {
			t.Errorf("diagnostics (-want +got):\n%s", diff)
		}
	})
	t.Run("skill file size", func(t *testing.T) {
		big := strings.Repeat("x", 200)
		dir := writeTree(t, "", map[string]string{
			"a/SKILL.md": folderSkill + big,
			"b/SKILL.md": folderSkill,
			"big.md":     treeSkill + big,
			"doc.md":     "# Big documentation\n" + big,
		})
		entries, diags := walk(t, dir, Limits{MaxSkillFileBytes: 100})
		if diff := cmp.Diff([]string{"b/SKILL.md"}, relFiles(entries)); diff != "" {
			t.Errorf("entries (-want +got):\n%s", diff)
		}
		want := []string{"skill-file-too-large a/SKILL.md", "skill-file-too-large big.md"}
		if diff := cmp.Diff(want, diagSet(diags)); diff != "" {
			t.Errorf("diagnostics (-want +got):\n%s", diff)
		}
	})
}

func relFiles(entries []Entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.RelFile)
	}
	return out
}

func TestWalkErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	if _, _, err := Walk(t.Context(), &Root{Name: "m", Dir: missing}, Limits{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing root: error %v, want fs.ErrNotExist", err)
	}
	file := writeTree(t, "", map[string]string{"f": "x"})
	if _, _, err := Walk(t.Context(), &Root{Name: "f", Dir: filepath.Join(file, "f")}, Limits{}); err == nil {
		t.Errorf("a file as root: no error")
	}
	if _, _, err := Walk(t.Context(), nil, Limits{}); err == nil {
		t.Errorf("nil root: no error")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := Walk(ctx, &Root{Name: "c", Dir: file}, Limits{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v, want context.Canceled", err)
	}
}

func TestWalkUnreadable(t *testing.T) {
	dir := writeTree(t, "", map[string]string{
		"a/SKILL.md":    folderSkill,
		"b/SKILL.md":    folderSkill,
		"c/inner/x.txt": "x",
		"c/SKILL.md":    folderSkill,
	})
	locked := []string{filepath.Join(dir, "a", "SKILL.md"), filepath.Join(dir, "c", "inner")}
	for _, p := range locked {
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, p := range locked {
			os.Chmod(p, 0o755)
		}
	})
	if _, err := os.ReadFile(locked[0]); err == nil {
		t.Skip("running with privileges that read a chmod-000 file (root?)")
	}
	entries, diags := walk(t, dir, Limits{})
	if diff := cmp.Diff([]string{"b/SKILL.md", "c/SKILL.md"}, relFiles(entries)); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	want := []string{"file-unreadable a/SKILL.md", "dir-unreadable c/inner"}
	if diff := cmp.Diff(want, diagSet(diags)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	for _, d := range diags {
		if strings.Contains(d.Message, dir) {
			t.Errorf("diagnostic shows an absolute path: %q", d.Message)
		}
	}
}

func TestWalkDeterministic(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("g%d/s%02d/SKILL.md", i%4, i)] = folderSkill
		files[fmt.Sprintf("g%d/s%02d/ref/%d.txt", i%4, i, i)] = "ref"
		files[fmt.Sprintf("t%d/leaf%02d.md", i%3, i)] = treeSkill
		files[fmt.Sprintf("t%d/bad%02d.md", i%3, i)] = "---\nkeywords: [a]\n---\n"
	}
	dir := writeTree(t, "", files)
	first, firstDiags := walk(t, dir, Limits{})
	for range 5 {
		again, diags := walk(t, dir, Limits{})
		if diff := cmp.Diff(view(dir, first), view(dir, again)); diff != "" {
			t.Fatalf("entries differ between walks:\n%s", diff)
		}
		if diff := cmp.Diff(firstDiags, diags); diff != "" {
			t.Fatalf("diagnostics differ between walks:\n%s", diff)
		}
	}
	if len(first) != 60 || len(firstDiags) != 30 {
		t.Errorf("got %d entries, %d diagnostics; want 60, 30", len(first), len(firstDiags))
	}
}

func TestFrontmatterStart(t *testing.T) {
	for in, want := range map[string]bool{
		"---\na: b\n---\n":     true,
		"\ufeff---\r\na: b\n":  true,
		"\n\n---\n":            true,
		"--- \n":               true,
		"# Title\n---\n":       false,
		"----\n":               false,
		" ---\n":               false,
		"":                     false,
		"---":                  true,
		"text without newline": false,
	} {
		if got := frontmatterStart([]byte(in)) >= 0; got != want {
			t.Errorf("frontmatterStart(%q) = %v, want %v", in, got, want)
		}
	}
}
