//go:build unix

package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// mixedFolder makes a folder holding one entry of every kind the walk
// meets: regular files (empty, small, large, with unusual modes), folders,
// symbolic links to a file, to a folder and to nothing, a FIFO, a socket
// when the system allows one, and unusual names.
func mixedFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"SKILL.md":             "---\nname: x\n---\n",
		"empty":                "",
		"b.md":                 strings.Repeat("b", 5000),
		"with space.md":        "space",
		"ünïcødé – 文件.md":      "unicode",
		".hidden":              "dot",
		"-dash":                "dash",
		"tab\there":            "tab",
		"sub/inner.md":         "inner",
		"node_modules/x.js":    "x",
		"Z-upper-before-lower": "sorts before lowercase",
	})
	if err := os.Chmod(filepath.Join(dir, "b.md"), 0o600|fs.ModeSetuid); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "-dash"), 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2001, 2, 3, 4, 5, 6, 789, time.UTC)
	if err := os.Chtimes(filepath.Join(dir, "empty"), old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "emptydir"), 0o700); err != nil {
		t.Fatal(err)
	}
	symlink(t, "b.md", filepath.Join(dir, "link-file"))
	symlink(t, "sub", filepath.Join(dir, "link-dir"))
	symlink(t, "nowhere", filepath.Join(dir, "link-dangling"))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Logf("no FIFO: %v", err)
	}
	// A socket path must be short (about 100 bytes): make it from a short
	// working folder, and do without when the system refuses.
	if l, err := net.Listen("unix", filepath.Join(dir, "sock")); err == nil {
		if ul, ok := l.(*net.UnixListener); ok {
			ul.SetUnlinkOnClose(false)
		}
		l.Close()
	} else {
		t.Logf("no socket: %v", err)
	}
	return dir
}

// sameAsOS checks that ReadDirResolved lists dir exactly as os.ReadDir does,
// and that every entry's Info is what os.Lstat says of it.
func sameAsOS(t *testing.T, dir string) []fs.DirEntry {
	t.Helper()
	want, werr := os.ReadDir(dir)
	got, gerr := ReadDirResolved(dir)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("ReadDirResolved: error %v; os.ReadDir: %v", gerr, werr)
	}
	if (got == nil) != (want == nil) {
		t.Errorf("ReadDirResolved: nil listing %v; os.ReadDir's nil: %v", got == nil, want == nil)
	}
	if len(got) != len(want) {
		t.Fatalf("ReadDirResolved: %d entries; os.ReadDir: %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Name() != w.Name() || g.Type() != w.Type() || g.IsDir() != w.IsDir() {
			t.Errorf("entry %d: %q %v dir=%v; os.ReadDir: %q %v dir=%v", i, g.Name(), g.Type(), g.IsDir(), w.Name(), w.Type(), w.IsDir())
			continue
		}
		gi, gerr := g.Info()
		wi, werr := os.Lstat(filepath.Join(dir, w.Name()))
		if (gerr == nil) != (werr == nil) {
			t.Errorf("%q: Info error %v; os.Lstat: %v", g.Name(), gerr, werr)
			continue
		}
		if werr != nil {
			continue
		}
		if d := infoDiff(gi, wi); d != "" {
			t.Errorf("%q: Info differs from os.Lstat: %s", g.Name(), d)
		}
	}
	return got
}

// infoDiff describes how a differs from b ("" when alike), inode included.
func infoDiff(a, b fs.FileInfo) string {
	var d []string
	if a.Name() != b.Name() {
		d = append(d, fmt.Sprintf("name %q != %q", a.Name(), b.Name()))
	}
	if a.Size() != b.Size() {
		d = append(d, fmt.Sprintf("size %d != %d", a.Size(), b.Size()))
	}
	if a.Mode() != b.Mode() {
		d = append(d, fmt.Sprintf("mode %v != %v", a.Mode(), b.Mode()))
	}
	if !a.ModTime().Equal(b.ModTime()) {
		d = append(d, fmt.Sprintf("mtime %v != %v", a.ModTime(), b.ModTime()))
	}
	if a.IsDir() != b.IsDir() {
		d = append(d, fmt.Sprintf("dir %v != %v", a.IsDir(), b.IsDir()))
	}
	if ia, ib := inode(a), inode(b); ia != ib {
		d = append(d, fmt.Sprintf("inode %d != %d", ia, ib))
	}
	return strings.Join(d, ", ")
}

func TestReadDirResolvedMatchesOS(t *testing.T) {
	dir := mixedFolder(t)
	got := sameAsOS(t, dir)
	var names []string
	for _, de := range got {
		names = append(names, de.Name())
	}
	for _, n := range []string{"SKILL.md", "link-dangling", "ünïcødé – 文件.md", ".hidden", "with space.md"} {
		if !strings.Contains("\x00"+strings.Join(names, "\x00")+"\x00", "\x00"+n+"\x00") {
			t.Errorf("%q not listed: %q", n, names)
		}
	}
	// Twice more: the second listing reuses the first one's memory.
	sameAsOS(t, dir)
	sameAsOS(t, filepath.Join(dir, "sub"))
	sameAsOS(t, filepath.Join(dir, "emptydir"))
}

// TestReadDirResolvedHuge lists a folder far larger than one getdents
// buffer, then a small one (the reused memory must not leak between them).
func TestReadDirResolvedHuge(t *testing.T) {
	if testing.Short() {
		t.Skip("5,000 files")
	}
	dir := t.TempDir()
	for i := range 5000 {
		name := fmt.Sprintf("entry-%05d-%s.md", i, strings.Repeat("n", i%40))
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name[:i%15]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := sameAsOS(t, dir)
	if len(got) != 5000 {
		t.Errorf("%d entries, want 5000", len(got))
	}
	sameAsOS(t, mixedFolder(t))
}

func TestReadDirResolvedErrors(t *testing.T) {
	dir := mixedFolder(t)
	for _, p := range []string{"missing", "b.md", "link-dangling"} {
		_, werr := os.ReadDir(filepath.Join(dir, p))
		got, err := ReadDirResolved(filepath.Join(dir, p))
		var pe *fs.PathError
		if len(got) != 0 || !errors.As(err, &pe) || !errors.Is(err, errors.Unwrap(werr)) {
			t.Errorf("ReadDirResolved(%s) = %d entries, %v; os.ReadDir: %v", p, len(got), err, werr)
		}
	}
	if _, err := ReadDirResolved(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing folder: %v; want fs.ErrNotExist", err)
	}
}

// TestReadDirResolvedUnreadable: a folder that cannot be listed fails as
// os.ReadDir does, and a folder that can be listed but not searched lists
// its names, each Info failing as os.Lstat does.
func TestReadDirResolvedUnreadable(t *testing.T) {
	dir := mixedFolder(t)
	if err := os.Chmod(dir, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	if _, err := os.ReadDir(dir); err == nil {
		t.Skip("a folder of mode 000 can be read here (running as root?)")
	}
	got, err := ReadDirResolved(dir)
	if len(got) != 0 || !errors.Is(err, fs.ErrPermission) {
		t.Errorf("mode 000: %d entries, %v; want fs.ErrPermission", len(got), err)
	}
	if err := os.Chmod(dir, 0o444); err != nil { // readable, not searchable
		t.Fatal(err)
	}
	got, err = ReadDirResolved(dir)
	want, werr := os.ReadDir(dir)
	if err != nil || werr != nil || len(got) != len(want) {
		t.Fatalf("mode 444: %d entries, %v; os.ReadDir: %d, %v", len(got), err, len(want), werr)
	}
	for i, de := range got {
		_, gerr := de.Info()
		_, werr := want[i].Info()
		if de.Name() != want[i].Name() || !errors.Is(gerr, fs.ErrPermission) || !errors.Is(werr, fs.ErrPermission) {
			t.Errorf("mode 444: %q Info: %v; os.ReadDir's: %q %v", de.Name(), gerr, want[i].Name(), werr)
		}
	}
}

// inode is the inode number in info.Sys (os's *syscall.Stat_t, or the
// *unix.Stat_t of ReadDirResolved on Linux); 0 when there is none.
func inode(info fs.FileInfo) uint64 {
	switch st := info.Sys().(type) {
	case *syscall.Stat_t:
		return uint64(st.Ino)
	case *unix.Stat_t:
		return uint64(st.Ino)
	}
	return 0
}
