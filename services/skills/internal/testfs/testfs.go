// Package testfs makes file trees that tests need and ordinary calls cannot
// make: folder chains whose paths are longer than the kernel accepts, and
// small file systems that fill up (a tmpfs, where the kernel lets the test
// mount one); and it tells whether a file is mapped into the test's
// process. It is for tests only.
package testfs

import (
	"os"
	"strings"
	"testing"
)

// Mapped reports whether the file at path is mapped into the test's
// process (/proc/self/maps; false where there is none).
func Mapped(t testing.TB, path string) bool {
	t.Helper()
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return false
	}
	return strings.Contains(string(maps), " "+path+"\n")
}

// Nest makes below dir (created if need be) a chain of n folders, each
// named name, one inside the other, through openat: once the path exceeds
// PATH_MAX, a plain mkdir refuses it.
func Nest(t testing.TB, dir, name string, n int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		if err := r.Mkdir(name, 0o755); err != nil {
			r.Close()
			t.Fatal(err)
		}
		next, err := r.OpenRoot(name)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		r = next
	}
	r.Close()
}
