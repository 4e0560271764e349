//go:build unix

package usage

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive advisory lock on f without waiting. It reports
// false when another open file (in this process or another) holds one:
// flock locks belong to the open file description.
func tryLock(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		}
		return false, err
	}
}

// removeLocked removes the file at path, which f holds locked, then closes
// f: on Unix a file can be removed while open, so the lock is held until the
// name is gone and no other process can pick the file up in between.
func removeLocked(f *os.File, path string) error {
	err := os.Remove(path)
	_ = f.Close()
	return err
}
