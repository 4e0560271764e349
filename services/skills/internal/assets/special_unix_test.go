//go:build unix

package assets

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/failure"
)

func TestSpecialFiles(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"s/SKILL.md": "---\nname: s\ndescription: x.\n---\n"})
	if err := syscall.Mkfifo(filepath.Join(root, "s", "fifo"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	snap := build(t, root)
	done := make(chan error, 1)
	go func() {
		_, err := New(Options{}).Read(snap, skillOf(t, snap, "s"), Request{File: "fifo"})
		done <- err
	}()
	select {
	case err := <-done:
		wantFailure(t, err, failure.PermissionDenied, ReasonInvalidPath, "not a regular file")
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO blocked")
	}
}
