//go:build unix && !linux

package confine

import (
	"io/fs"
	"os"
	"syscall"
)

// ReadDirResolved lists the folder at abs (resolved by the caller), sorted
// by name. Like os.ReadDir, with fewer system calls (see OpenResolved); on an
// error it returns what it could read. (Linux has its own, cheaper still:
// readdir_linux.go.)
func ReadDirResolved(abs string) ([]fs.DirEntry, error) {
	fd, err := open(abs, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_DIRECTORY|syscall.O_NONBLOCK)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), abs)
	defer f.Close()
	ents, err := f.ReadDir(-1)
	sortDirEntries(ents)
	return ents, err
}
