package statefile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

func TestReadRefuses(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := Read(dir, 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a folder: %v, want ErrNotRegular", err)
	}
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err == nil {
		if _, err := Read(link, 10); !errors.Is(err, ErrNotRegular) {
			t.Errorf("a link: %v, want ErrNotRegular", err)
		}
	}
}
