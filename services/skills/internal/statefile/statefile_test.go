package statefile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/testfs"
)

func TestWriteThenRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "cache.bin")
	if err := Write(path, func(w io.Writer) error {
		_, err := io.WriteString(w, "hello")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", info.Mode().Perm())
	}
	if dir, _ := os.Stat(filepath.Dir(path)); dir.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v, want 0700", dir.Mode().Perm())
	}
	data, err := Read(path, 5)
	if err != nil || string(data) != "hello" {
		t.Fatalf("Read = %q, %v", data, err)
	}
	if _, err := Read(path, 4); err == nil {
		t.Error("a file over the limit was read")
	}
}

// TestWriteFailureKeepsTheFile: a write that fails leaves the file as it
// was and no temporary file beside it.
func TestWriteFailureKeepsTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cache.bin")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := Write(path, func(w io.Writer) error {
		_, _ = io.WriteString(w, strings.Repeat("new", 1<<17)) // past the buffer
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("Write = %v, want the write's error", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "old" {
		t.Errorf("the file is %d bytes, want the old content", len(data))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the folder, want only the cache", len(entries))
	}
}

// readers are the two ways to read a state file whole.
var readers = map[string]func(string, int64) ([]byte, error){"Read": Read, "Map": func(path string, limit int64) ([]byte, error) {
	data, _, err := Map(path, limit)
	return data, err
}}

func TestReadRefuses(t *testing.T) {
	for name, read := range readers {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := read(filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("missing file: %v, want fs.ErrNotExist", err)
			}
			if _, err := read(dir, 10); !errors.Is(err, ErrNotRegular) {
				t.Errorf("a folder: %v, want ErrNotRegular", err)
			}
			target := filepath.Join(dir, "target")
			if err := os.WriteFile(target, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := read(target, 0); err == nil {
				t.Error("a file over the limit was read")
			}
			link := filepath.Join(dir, "link")
			if err := os.Symlink(target, link); err == nil {
				if _, err := read(link, 10); !errors.Is(err, ErrNotRegular) {
					t.Errorf("a link: %v, want ErrNotRegular", err)
				}
			}
		})
	}
}

// TestMapKeepsContent: what Map returns is the file's content, and stays
// so after Write replaces the file (a new file renamed over it), as a
// catalog cache read at start is rewritten while its skills are served.
func TestMapKeepsContent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.bin")
	old := strings.Repeat("0123456789abcdef", 1<<12) + "end" // several pages, not a whole number of them
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	data, _, err := Map(path, int64(len(old)))
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != old {
		t.Fatalf("Map = %d bytes, not the file's content", len(data))
	}
	if err := Write(path, func(w io.Writer) error {
		_, err := io.WriteString(w, "new")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if string(data) != old {
		t.Error("the mapped content changed when the file was replaced")
	}
	if again, _, err := Map(path, 10); err != nil || string(again) != "new" {
		t.Errorf("Map after the write = %q, %v", again, err)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if data, release, err := Map(empty, 10); err != nil || len(data) != 0 || release == nil {
		t.Errorf("Map of an empty file = %q, %v", data, err)
	}
}

// TestMapRelease: a mapping released is gone from the process (a file
// whose content is not used does not stay in memory).
func TestMapRelease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "released.bin")
	if err := os.WriteFile(path, []byte(strings.Repeat("x", 10000)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, release, err := Map(path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" && !testfs.Mapped(t, path) {
		t.Fatal("the file is not mapped")
	}
	release()
	if testfs.Mapped(t, path) {
		t.Error("the file is still mapped after release")
	}
}

// TestWriteRemovesStaleTemps: a process killed during a Write (skills-mcp
// under a host that kills its servers) leaves its temporary file; the next
// Write of the same file removes those no process has written to for
// staleTempAge, and leaves the rest: a Write in progress elsewhere, other
// files' (the folder may be the user's), and names Write does not make.
func TestWriteRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cache.bin")
	old := time.Now().Add(-staleTempAge - time.Minute)
	file := func(name string, mtime time.Time) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := []string{file("cache.bin.tmp123456", old), file("cache.bin.tmp9", old)}
	kept := []string{
		file("cache.bin.tmp777", time.Now()), // being written
		file("other.bin.tmp123", old),        // another file's
		file("xcache.bin.tmp42", old),        // nor this
		file("cache.bin.tmp12x", old),        // not a name CreateTemp makes
		file("cache.bin.tmp", old),           // nor this
		file(".tmp42", old),                  // nor this
		file("cache.bin.tmp55.keep", old),    // nor this
	}
	// A folder and a link under a temporary's name are not Write's.
	if err := os.Mkdir(filepath.Join(dir, "cache.bin.tmp31"), 0o700); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, filepath.Join(dir, "cache.bin.tmp31"))
	if err := os.Symlink(stale[0], filepath.Join(dir, "cache.bin.tmp32")); err == nil {
		kept = append(kept, filepath.Join(dir, "cache.bin.tmp32"))
	}
	if err := Write(path, func(w io.Writer) error {
		_, err := io.WriteString(w, "whole")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, p := range stale {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s (last written %v ago) is still there: %v", filepath.Base(p), staleTempAge+time.Minute, err)
		}
	}
	for _, p := range kept {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(p), err)
		}
	}
	if data, err := Read(path, 100); err != nil || string(data) != "whole" {
		t.Errorf("Read = %q, %v; want the written content", data, err)
	}
}
