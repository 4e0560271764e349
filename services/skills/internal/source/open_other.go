//go:build !unix

package source

import (
	"io"
	"io/fs"
	"os"
)

// Open opens a file of a root for reading (os.Open).
func Open(name string) (io.ReadCloser, error) { return os.Open(name) }

func readDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }
