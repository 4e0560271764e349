package source

import "golang.org/x/sys/unix"

// stampOf returns the stamp of the folder at dir (lstat); false when it
// cannot be read.
func stampOf(dir string) (folderStamp, bool) {
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return folderStamp{}, false
	}
	return folderStamp{dev: st.Dev, ino: st.Ino, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}, true
}
