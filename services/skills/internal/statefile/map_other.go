//go:build !linux

package statefile

import "os"

// mapFile does not map: Map reads the file instead.
func mapFile(*os.File, int64) ([]byte, bool) { return nil, false }

// unmapFile has nothing to undo.
func unmapFile([]byte) {}
