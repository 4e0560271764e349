//go:build !unix

package usage

import "os"

// tryLock always succeeds where flock is not available (Windows): there the
// spool assumes one process per SKILLSD_HOME.
func tryLock(*os.File) (bool, error) { return true, nil }

// removeLocked closes f, then removes the file at path (an open file cannot
// be removed on Windows).
func removeLocked(f *os.File, path string) error {
	_ = f.Close()
	return os.Remove(path)
}
