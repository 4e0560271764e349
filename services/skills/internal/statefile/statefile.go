// Package statefile reads and writes the service's own files in its state
// folder: the caches of security scans, catalogs, search analyses and
// embeddings. A read opens only a regular file — never a link, a FIFO (whose
// opening would block) or a device — and bounds its size; a write replaces
// the file atomically, readable by its owner only, so that a reader never
// sees half of it. Served content (skills, assets, agents, docs) is read
// through package confine instead; this package reads only what the service
// wrote itself, and each caller still checks what it reads.
package statefile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrNotRegular is Read's error for a path that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// Read returns the content of the file at path, which must be a regular
// file (not a link) of at most limit bytes. A missing file is an error
// matching fs.ErrNotExist.
func Read(path string, limit int64) ([]byte, error) {
	f, size, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, size)
}

// readAll reads f, of size bytes when it was opened, to its end.
func readAll(f *os.File, size int64) ([]byte, error) {
	// One byte more than the size, to see the file grow meanwhile.
	data := make([]byte, size+1)
	n, err := io.ReadFull(f, data)
	if err == nil {
		return nil, errors.New("the file grew while it was read")
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return data[:n], nil
}

// Map returns the content of the file at path, under Read's conditions,
// mapped into memory read-only instead of copied into the heap: a start
// that reads its caches then takes pages the kernel already holds instead
// of faulting in and filling fresh memory (on a virtual machine, where a
// fresh page costs several microseconds, that was most of reading a
// 4 MB catalog cache: 13 ms against 0.2).
//
// The mapping is never undone: what is decoded from it may share its memory
// for as long as the process lives. So Map is for a file read once per
// process, whose content is not written to (writing to it faults). The
// service replaces its files by renaming (Write), never in place, so a
// mapping keeps the content it was made with; a file cut short in place by
// another program while it is mapped would make a later read of the lost
// part fault. Where mapping is not available (not Linux), or fails, Map
// returns Read's copy.
//
// release undoes the mapping (nothing for a copy): a caller that finds the
// content unusable (a foreign version, a damaged file, an index for other
// skills) and keeps nothing decoded from it calls it, so that the file's
// pages do not stay in the process for nothing. It must be called at most
// once, and data not used after.
func Map(path string, limit int64) (data []byte, release func(), err error) {
	f, size, err := Open(path, limit)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if data, ok := mapFile(f, size); ok {
		return data, func() { unmapFile(data) }, nil
	}
	data, err = readAll(f, size)
	if err != nil {
		return nil, nil, err
	}
	return data, func() {}, nil
}

// Open opens the file at path for reading, under Read's conditions, and
// returns it with its size, for a caller that reads it as a stream (and
// checks that it ends where the size says). The caller closes it.
func Open(path string, limit int64) (*os.File, int64, error) {
	// Checked before the open (a FIFO's would block), and again after it
	// (the path may have been replaced meanwhile).
	if info, err := os.Lstat(path); err != nil {
		return nil, 0, err
	} else if !info.Mode().IsRegular() {
		return nil, 0, ErrNotRegular
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, 0, ErrNotRegular
	}
	if info.Size() > limit {
		f.Close()
		return nil, 0, fmt.Errorf("%d bytes, over the limit of %d", info.Size(), limit)
	}
	return f, info.Size(), nil
}

// Write replaces the file at path with what write writes (through a
// buffer): a temporary file beside it, mode 0600, renamed over path once
// complete. The folder is made (mode 0700) when missing. When write or any
// step fails, path is left as it was and the temporary file is removed.
// The temporary files of path that killed processes left are removed first
// (removeStaleTemps).
func Write(path string, write func(w io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	removeStaleTemps(path, time.Now())
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+tempInfix+"*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing to remove
	w := bufio.NewWriterSize(tmp, 256<<10)
	if err := write(w); err != nil {
		tmp.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	// CreateTemp makes it 0600 already; a file system that refuses modes
	// keeps its own.
	if err := tmp.Chmod(0o600); err != nil && !errors.Is(err, fs.ErrPermission) {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// tempInfix joins a state file's name and the random digits of its
// temporary file's (os.CreateTemp).
const tempInfix = ".tmp"

// staleTempAge is how long a temporary file of Write has not been written
// to for Write to take it for one a killed process left: a Write in
// progress, here or in another process sharing the folder, writes to its
// file all along (256 KiB at a time), and is done in seconds.
const staleTempAge = 10 * time.Minute

// removeStaleTemps removes the temporary files of path (its name, ".tmp",
// digits: what Write makes) last written to staleTempAge or more before
// now: a process killed during a Write leaves its temporary file behind
// (skills-mcp runs under hosts that kill their servers, and a catalog
// cache's is tens of megabytes). Only path's own are removed: the folder
// may be one the user chose (state_dir), and a name like another's is not
// proof that Write made it. Only regular files are removed; what cannot be
// read or removed is left.
func removeStaleTemps(path string, now time.Time) {
	dir, base := filepath.Split(path)
	entries, err := os.ReadDir(filepath.Clean(dir))
	if err != nil {
		return
	}
	for _, e := range entries {
		digits, ok := strings.CutPrefix(e.Name(), base+tempInfix)
		if !ok || !allDigits(digits) || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < staleTempAge {
			continue
		}
		_ = os.Remove(filepath.Join(dir, e.Name()))
	}
}

// allDigits reports whether s is one or more ASCII digits.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
