package testfs

import (
	"fmt"
	"syscall"
	"testing"
)

// MountTmpfs mounts a tmpfs of size bytes on dir (an existing, empty
// folder), unmounted when the test ends: a real file system that fills up
// (ENOSPC). Where the kernel refuses (not root, no CAP_SYS_ADMIN, a
// container without mount rights) the test is skipped, saying why.
func MountTmpfs(t testing.TB, dir string, size int64) {
	t.Helper()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		t.Skipf("testfs: the kernel refused to mount a tmpfs on %s (%v): a real full disk needs root or CAP_SYS_ADMIN", dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("testfs: unmounting the tmpfs on %s: %v", dir, err)
		}
	})
}
