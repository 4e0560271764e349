//go:build !unix

package confine

import (
	"io/fs"
	"os"
)

// openFlags open a file for reading.
const openFlags = os.O_RDONLY

// File is a file opened by OpenResolved, for sequential reading.
type File struct {
	f    *os.File
	size int64
}

// OpenResolved opens the file at abs, a path the caller has already resolved
// under a Rule, for reading, and checks that it is a regular file
// (ErrNotRegular otherwise).
func OpenResolved(abs string) (*File, error) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: abs, Err: ErrNotRegular}
	}
	return &File{f: f, size: info.Size()}, nil
}

// Size is the file's size when it was opened.
func (f *File) Size() int64 { return f.size }

// Read reads from the file.
func (f *File) Read(p []byte) (int, error) { return f.f.Read(p) }

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// ReadDirResolved lists the folder at abs, sorted by name (os.ReadDir).
func ReadDirResolved(abs string) ([]fs.DirEntry, error) {
	ents, err := os.ReadDir(abs)
	sortDirEntries(ents)
	return ents, err
}
