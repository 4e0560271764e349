//go:build !linux

package source

// stampOf has no stamp to give where a folder's times are not known to
// move with its entries: every folder is listed.
func stampOf(string) (folderStamp, bool) { return folderStamp{}, false }
