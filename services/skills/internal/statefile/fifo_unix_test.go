//go:build unix

package statefile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadFIFO: a FIFO in place of a state file is refused without being
// opened (the open would block until something writes to it).
func TestReadFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.bin")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	for name, read := range readers {
		done := make(chan error, 1)
		go func() {
			_, err := read(path, 1<<20)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("%s = %v, want ErrNotRegular", name, err)
			}
		case <-time.After(5 * time.Second):
			if f, _ := os.OpenFile(path, os.O_WRONLY, 0); f != nil { // unblock the reader
				f.Close()
			}
			t.Fatalf("%s waited on the FIFO", name)
		}
	}
}
