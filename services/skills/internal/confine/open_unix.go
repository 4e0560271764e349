//go:build unix

package confine

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// openFlags open a file for reading without blocking on a FIFO and without
// making a terminal the controlling one.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY

// File is a file opened by OpenResolved, for sequential reading.
type File struct {
	fd   int
	name string
	size int64
}

// OpenResolved opens the file at abs, a path the caller has already resolved
// under a Rule (the catalog's walk does, for every file it lists), for
// reading. It never blocks on a FIFO put in place of a file: it opens
// without blocking and checks the type on the opened descriptor (a FIFO, a
// device, a socket or a folder is ErrNotRegular). It is os.Open with fewer
// system calls (os.Open also tries to register every file with the network
// poller, which never works for files on disk and costs five more calls per
// file, a good part of a catalog build).
func OpenResolved(abs string) (*File, error) {
	fd, err := open(abs, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK|syscall.O_NOCTTY)
	if err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	for {
		err := syscall.Fstat(fd, &st)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EINTR) {
			_ = syscall.Close(fd)
			return nil, &fs.PathError{Op: "stat", Path: abs, Err: err}
		}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		_ = syscall.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: abs, Err: ErrNotRegular}
	}
	return &File{fd: fd, name: abs, size: st.Size}, nil
}

// Size is the file's size when it was opened.
func (f *File) Size() int64 { return f.size }

// Read reads from the file.
func (f *File) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(f.fd, p)
		switch {
		case err == nil && n == 0:
			return 0, io.EOF
		case err == nil:
			return n, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EAGAIN):
			return 0, &fs.PathError{Op: "read", Path: f.name, Err: ErrNotRegular}
		}
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: err}
	}
}

// Close closes the file; closing twice does nothing.
func (f *File) Close() error {
	if f.fd < 0 {
		return nil
	}
	err := syscall.Close(f.fd)
	f.fd = -1
	if err != nil {
		return &fs.PathError{Op: "close", Path: f.name, Err: err}
	}
	return nil
}

// open is syscall.Open of abs with flags, tried again when a signal
// interrupts it; its error is an *fs.PathError.
func open(abs string, flags int) (int, error) {
	for {
		fd, err := syscall.Open(abs, flags, 0)
		if err == nil {
			return fd, nil
		}
		if !errors.Is(err, syscall.EINTR) {
			return -1, &fs.PathError{Op: "open", Path: abs, Err: err}
		}
	}
}
