package source

import (
	"path/filepath"
	"testing"
	"unsafe"
)

// TestRelIn checks that relIn reads as joinRel does, and shares the memory
// of the path when the path ends with the relative path.
func TestRelIn(t *testing.T) {
	for _, c := range []struct {
		abs, dir, name string
		shared         bool
	}{
		{"/r/a/b/c.md", "a/b", "c.md", true},
		{"/r/c.md", "", "c.md", true},
		{"c.md", "", "c.md", true},
		{"/r/a/b/c.md", "x/b", "c.md", false}, // another folder
		{"/r/ab/c.md", "b", "c.md", true},     // the same text: shared all the same
		{"/r/a/b/d.md", "a/b", "c.md", false},
		{"/r/a\\b/c.md", "a/b", "c.md", false},
		{"md", "a", "c.md", false}, // shorter than the relative path
		{"", "", "x", false},
	} {
		got := relIn(c.abs, c.dir, c.name)
		if want := joinRel(c.dir, c.name); got != want {
			t.Errorf("relIn(%q, %q, %q) = %q, want %q", c.abs, c.dir, c.name, got, want)
		}
		shares := len(got) > 0 && len(got) <= len(c.abs) && unsafe.StringData(got) == unsafe.StringData(c.abs[len(c.abs)-len(got):])
		if shares != c.shared {
			t.Errorf("relIn(%q, %q, %q) shares the path's memory: %v, want %v", c.abs, c.dir, c.name, shares, c.shared)
		}
	}
}

// TestRealIn checks that a folder whose path is its real path gives its
// entries' paths as their real paths, and one reached through a link the
// real path joined.
func TestRealIn(t *testing.T) {
	same := dirTask{abs: "/r/a", real: "/r/a"}
	if got := realIn(same, "/r/a/x", "x"); got != "/r/a/x" {
		t.Errorf("realIn(same) = %q", got)
	}
	linked := dirTask{abs: "/r/link", real: "/elsewhere/t"}
	if got, want := realIn(linked, "/r/link/x", "x"), filepath.Join("/elsewhere/t", "x"); got != want {
		t.Errorf("realIn(linked) = %q, want %q", got, want)
	}
}

// FuzzRelIn checks that relIn always reads as joinRel, whatever the path.
func FuzzRelIn(f *testing.F) {
	f.Add("/r/a/b/c.md", "a/b", "c.md")
	f.Add("/r/ab/c.md", "b", "c.md")
	f.Add("c.md", "", "c.md")
	f.Add("", "", "")
	f.Fuzz(func(t *testing.T, abs, dir, name string) {
		if got, want := relIn(abs, dir, name), joinRel(dir, name); got != want {
			t.Fatalf("relIn(%q, %q, %q) = %q, want %q", abs, dir, name, got, want)
		}
	})
}

// TestJoinName checks that joinName reads as filepath.Join for a clean
// folder and a plain entry name, the root folder included.
func TestJoinName(t *testing.T) {
	for _, c := range []struct{ dir, name string }{
		{"/r/a", "x.md"},
		{"/", "etc"},
		{"", "x"},
		{".", "x"}, // found by FuzzJoinName
		{"..", "x"},
		{"rel/dir", "f"},
		{"/r/a", "..x"},
		{"/r/a", "x y"},
	} {
		if got, want := joinName(c.dir, c.name), filepath.Join(c.dir, c.name); got != want {
			t.Errorf("joinName(%q, %q) = %q, want %q", c.dir, c.name, got, want)
		}
	}
}

// FuzzJoinName checks joinName against filepath.Join for every clean
// folder and plain name (what the walk gives it: folders joined from a
// clean root, names from a listing).
func FuzzJoinName(f *testing.F) {
	f.Add("/r/a", "x.md")
	f.Add("/", "x")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, dir, name string) {
		if (dir != "" && filepath.Clean(dir) != dir) || !validName(name) {
			t.Skip()
		}
		if got, want := joinName(dir, name), filepath.Join(dir, name); got != want {
			t.Fatalf("joinName(%q, %q) = %q, want %q", dir, name, got, want)
		}
	})
}
