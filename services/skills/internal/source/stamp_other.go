//go:build !linux

package source

import (
	"os"
	"time"
)

// stampOf has no stamp to give where a folder's times are not known to
// move with its entries: every folder is listed.
func stampOf(string) (folderStamp, bool) { return folderStamp{}, false }

// regularFile returns the size and modification time of the regular file
// at path (lstat); false when it is gone or is not a regular file.
func regularFile(path string) (int64, time.Time, bool) {
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() {
		return 0, time.Time{}, false
	}
	return info.Size(), info.ModTime(), true
}
