//go:build unix

package scan

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCacheFileFIFO: a FIFO in place of the cache file is not opened (that
// would block until something writes to it): the scanner scans as without
// a cache, at once.
func TestCacheFileFIFO(t *testing.T) {
	dir := t.TempDir()
	cacheFile := filepath.Join(dir, CacheFileName())
	if err := syscall.Mkfifo(cacheFile, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	sk := writeFixture(t, dir, fixtureNamed(t, "curl-bash"))
	sk.Digest = "sha256:" + strings.Repeat("cd", 32)
	s, err := New(Options{CacheFile: cacheFile})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan []Finding, 1)
	go func() { done <- s.Scan(t.Context(), sk) }()
	select {
	case got := <-done:
		if !hasRule(got, "script.pipe-to-shell") {
			t.Errorf("no pipe-to-shell finding: %s", dump(got))
		}
	case <-time.After(5 * time.Second):
		f, _ := os.OpenFile(cacheFile, os.O_WRONLY, 0) // unblock the reader
		if f != nil {
			f.Close()
		}
		t.Fatal("the scan waited on the FIFO in place of the cache file")
	}
}
