//go:build unix

package edge

import (
	"io/fs"
	"syscall"
)

// inode is a file's inode number: a certificate renewed by renaming a new
// file over the old one keeps neither.
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
