package statefile

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps the size bytes of f read-only, its pages populated at once
// (one system call instead of a fault per page); false when it cannot.
func mapFile(f *os.File, size int64) ([]byte, bool) {
	if size <= 0 || int64(int(size)) != size {
		return nil, false
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_POPULATE)
	if err != nil {
		return nil, false
	}
	return data, true
}

// unmapFile undoes mapFile's mapping.
func unmapFile(data []byte) { _ = unix.Munmap(data) }
