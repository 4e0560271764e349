//go:build !unix

package assets

import "os"

// openFlags open a file for reading.
const openFlags = os.O_RDONLY
