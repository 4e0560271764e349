//go:build unix

package confine

import (
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFIFONeverBlocks: a FIFO with no writer would block an ordinary open
// forever; every opener here refuses it at once, saying what it is.
func TestFIFONeverBlocks(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "x.md")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("no FIFOs: %v", err)
	}
	if _, err := OpenResolved(p); !errors.Is(err, ErrNotRegular) {
		t.Errorf("OpenResolved(FIFO): %v; want ErrNotRegular", err)
	}
	_, info, err := Tree{Dir: root}.Open("x.md")
	if !errors.Is(err, ErrNotRegular) || info == nil || Describe(info.Mode()) != "a named pipe (FIFO)" {
		t.Errorf("Tree.Open(FIFO): %v, %v; want ErrNotRegular with a FIFO's information", info, err)
	}
	rule, err := Tree{Dir: root}.Rule()
	if err != nil {
		t.Fatal(err)
	}
	var got error
	_ = rule.Walk(func(rel string, info fs.FileInfo, err error) error {
		if rel == "x.md" {
			got = err
		}
		return nil
	})
	if !errors.Is(got, ErrNotRegular) {
		t.Errorf("Walk reported the FIFO as %v; want ErrNotRegular", got)
	}
}
