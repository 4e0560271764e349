//go:build !linux

package testfs

import "testing"

// MountTmpfs skips the test: mounting a tmpfs is a Linux feature.
func MountTmpfs(t testing.TB, dir string, size int64) {
	t.Helper()
	t.Skip("testfs: a tmpfs (a real full disk) needs Linux")
}
