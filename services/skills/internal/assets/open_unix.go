//go:build unix

package assets

import (
	"os"
	"syscall"
)

// openFlags open a file for reading without blocking on a FIFO and without
// making a terminal the controlling one.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY
