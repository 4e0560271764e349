//go:build !linux

package confine

import (
	"io/fs"
	"sort"
)

// sortDirEntries sorts a listing by name, as os.ReadDir does.
func sortDirEntries(ents []fs.DirEntry) {
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
}
