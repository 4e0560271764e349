package source

import (
	"time"

	"golang.org/x/sys/unix"
)

// stampOf returns the stamp of the folder at dir (lstat); false when it
// cannot be read.
func stampOf(dir string) (folderStamp, bool) {
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return folderStamp{}, false
	}
	return folderStamp{dev: st.Dev, ino: st.Ino, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}, true
}

// regularFile returns the size and modification time of the regular file
// at path (lstat); false when it is gone or is not a regular file.
func regularFile(path string) (int64, time.Time, bool) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return 0, time.Time{}, false
	}
	return st.Size, time.Unix(st.Mtim.Unix()), true
}
