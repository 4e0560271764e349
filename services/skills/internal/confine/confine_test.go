package confine

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func write(t testing.TB, base string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks not available: %v", err)
	}
}

// layout is a tree with links of every kind: inside, outside, into a listed
// folder, back to a parent (a loop), two links leading to each other.
func layout(t testing.TB) (root, dotfiles, outside string) {
	base := t.TempDir()
	root, dotfiles, outside = filepath.Join(base, "root"), filepath.Join(base, "dotfiles"), filepath.Join(base, "outside")
	write(t, base, map[string]string{
		"root/s/SKILL.md":          "skill",
		"root/shared/common.md":    "shared",
		"dotfiles/x/SKILL.md":      "dotfile skill",
		"dotfiles/x/ref.md":        "dotfile ref",
		"outside/secret.txt":       "secret",
		"dotfiles/x/deeper/one.md": "one",
	})
	symlink(t, "../shared/common.md", filepath.Join(root, "s", "common.md"))
	symlink(t, "../shared", filepath.Join(root, "s", "shared"))
	symlink(t, "..", filepath.Join(root, "s", "up"))
	symlink(t, filepath.Join(dotfiles, "x"), filepath.Join(root, "x"))
	symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(root, "s", "secret.txt"))
	symlink(t, "../../outside", filepath.Join(root, "s", "out"))
	symlink(t, "b", filepath.Join(root, "s", "a"))
	symlink(t, "a", filepath.Join(root, "s", "b"))
	symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(dotfiles, "x", "leak.txt"))
	symlink(t, filepath.Join(root), filepath.Join(dotfiles, "x", "back"))
	return root, dotfiles, outside
}

func read(t *testing.T, tree Tree, rel string) (string, error) {
	t.Helper()
	f, _, err := tree.Open(rel)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	return string(data), err
}

func TestOpenFollowsTheRule(t *testing.T) {
	root, dotfiles, _ := layout(t)
	for _, tc := range []struct {
		name   string
		follow []string
		rel    string
		want   string
		err    error
	}{
		{name: "plain file", rel: "s/SKILL.md", want: "skill"},
		{name: "link to a file inside", rel: "s/common.md", want: "shared"},
		{name: "link to a folder inside", rel: "s/shared/common.md", want: "shared"},
		{name: "loop", rel: "s/up/s/SKILL.md", err: ErrLoop},
		{name: "links leading to each other", rel: "s/a", err: ErrLoop},
		{name: "link to a file outside", rel: "s/secret.txt", err: ErrOutside},
		{name: "link to a folder outside", rel: "s/out/secret.txt", err: ErrOutside},
		{name: "external link, no opt-in", rel: "x/SKILL.md", err: ErrOutside},
		{name: "external link, opted in", follow: []string{dotfiles}, rel: "x/SKILL.md", want: "dotfile skill"},
		{name: "deeper in the listed folder", follow: []string{dotfiles}, rel: "x/deeper/one.md", want: "one"},
		{name: "listed folder leaking further", follow: []string{dotfiles}, rel: "x/leak.txt", err: ErrOutside},
		{name: "listed folder looping back", follow: []string{dotfiles}, rel: "x/back/x/SKILL.md", err: ErrLoop},
		{name: "dot-dot", rel: "s/../s/SKILL.md", err: ErrOutside},
		{name: "absolute", rel: "/etc/passwd", err: ErrOutside},
		{name: "missing", rel: "s/nope.md", err: fs.ErrNotExist},
		{name: "through a file", rel: "s/SKILL.md/x", err: fs.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := read(t, Tree{Dir: root, Follow: tc.follow}, tc.rel)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("Open(%s): got %q, %v; want %v", tc.rel, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Open(%s): got %q, %v; want %q", tc.rel, got, err, tc.want)
			}
		})
	}
}

func TestOpenRefusesFolders(t *testing.T) {
	root, _, _ := layout(t)
	_, info, err := Tree{Dir: root}.Open("s")
	if !errors.Is(err, ErrNotRegular) || info == nil || !info.IsDir() {
		t.Fatalf("Open(folder): %v, %v; want ErrNotRegular with the folder's information", info, err)
	}
}

func TestResolveGivesTheRealPath(t *testing.T) {
	root, dotfiles, _ := layout(t)
	real, info, err := Tree{Dir: root, Follow: []string{dotfiles}}.Resolve("x/ref.md")
	realDot, _ := filepath.EvalSymlinks(dotfiles)
	if err != nil || real != filepath.Join(realDot, "x", "ref.md") || info.Size() != int64(len("dotfile ref")) {
		t.Fatalf("Resolve: %q, %v, %v", real, info, err)
	}
	if real, _, err := (Tree{Dir: root}).Resolve(""); err != nil || filepath.Base(real) != "root" {
		t.Fatalf("Resolve(root): %q, %v", real, err)
	}
}

func TestWalkReportsWhatItDoesNotFollow(t *testing.T) {
	root, dotfiles, _ := layout(t)
	rule, err := Tree{Dir: root, Follow: []string{dotfiles}}.Rule()
	if err != nil {
		t.Fatal(err)
	}
	seen, refused := map[string]bool{}, map[string]error{}
	err = rule.Walk(func(rel string, info fs.FileInfo, err error) error {
		if err != nil {
			refused[rel] = err
			return nil
		}
		seen[rel] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"s/SKILL.md", "s/common.md", "s/shared/common.md", "x/SKILL.md", "x/deeper/one.md"} {
		if !seen[want] {
			t.Errorf("Walk did not reach %s (saw %v)", want, keys(seen))
		}
	}
	for rel, want := range map[string]error{"s/up": ErrLoop, "s/a": ErrLoop, "s/secret.txt": ErrOutside, "s/out": ErrOutside, "x/leak.txt": ErrOutside, "x/back": ErrLoop} {
		if !errors.Is(refused[rel], want) {
			t.Errorf("Walk: %s reported as %v, want %v", rel, refused[rel], want)
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestMissingFollowFolderIsLeftOut(t *testing.T) {
	root, _, _ := layout(t)
	rule, err := Tree{Dir: root, Follow: []string{filepath.Join(root, "nope"), "relative"}}.Rule()
	if err != nil || len(rule.follow) != 0 {
		t.Fatalf("Rule: %v, %v; want no folder to follow", rule, err)
	}
	if _, err := (Tree{Dir: filepath.Join(root, "nope")}).Rule(); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Rule of a missing folder: %v", err)
	}
}

func TestReadResolved(t *testing.T) {
	root, _, _ := layout(t)
	data, err := ReadResolved(filepath.Join(root, "s", "SKILL.md"), 0)
	if err != nil || string(data) != "skill" {
		t.Fatalf("ReadResolved: %q, %v", data, err)
	}
	head, err := ReadHeadResolved(filepath.Join(root, "s", "SKILL.md"), 3)
	if err != nil || string(head) != "ski" {
		t.Fatalf("ReadHeadResolved: %q, %v", head, err)
	}
	if _, err := ReadResolved(root, 0); !errors.Is(err, ErrNotRegular) && runtime.GOOS != "windows" {
		t.Fatalf("ReadResolved(folder): %v; want ErrNotRegular", err)
	}
}

// TestEscapeErrorText pins the text of os.Root's refusal, which isEscape
// relies on (the os package does not export the error).
func TestEscapeErrorText(t *testing.T) {
	dir := t.TempDir()
	symlink(t, "..", filepath.Join(dir, "up"))
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, p := range []string{"up/x", "../x"} {
		if _, err := root.Open(p); !isEscape(err) {
			t.Fatalf("os.Root escape error: got %v, which isEscape does not recognise", err)
		}
	}
}

// FuzzOpen opens arbitrary paths: whatever opens lies inside the root or
// the listed folder, never in the folder outside.
func FuzzOpen(f *testing.F) {
	for _, s := range []string{"s/SKILL.md", "s/up/s/common.md", "x/leak.txt", "s/out/secret.txt", "../outside/secret.txt", "s/./shared//common.md", "x/back/s/SKILL.md", "\x00", ""} {
		f.Add(s)
	}
	root, dotfiles, outside := layout(f)
	realOut, _ := filepath.EvalSymlinks(outside)
	tree := Tree{Dir: root, Follow: []string{dotfiles}}
	f.Fuzz(func(t *testing.T, rel string) {
		real, _, err := tree.Resolve(rel)
		if err != nil {
			return
		}
		if Within(real, realOut) || strings.Contains(real, "outside") {
			t.Fatalf("Resolve(%q) = %s, outside the tree", rel, real)
		}
		file, _, err := tree.Open(rel)
		if err == nil {
			data, _ := io.ReadAll(file)
			file.Close()
			if string(data) == "secret" {
				t.Fatalf("Open(%q) read the secret", rel)
			}
		}
	})
}
