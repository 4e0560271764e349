//go:build unix

package catalog

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestCacheFileFIFO: a FIFO in place of the cache file is not opened (that
// would block the first build until something writes to it): the build runs
// as without a cache, at once.
func TestCacheFileFIFO(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, CacheFileName())
	if err := syscall.Mkfifo(file, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan *Snapshot, 1)
	go func() { done <- NewCache(file, "v", nil).load() }()
	select {
	case snap := <-done:
		if snap != nil {
			t.Error("a FIFO was read as a cache file")
		}
	case <-time.After(5 * time.Second):
		f, _ := os.OpenFile(file, os.O_WRONLY, 0) // unblock the reader
		if f != nil {
			f.Close()
		}
		t.Fatal("reading the cache waited on the FIFO in its place")
	}
}
