package confine

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ReadDirResolved lists the folder at abs (resolved by the caller), sorted
// by name, like os.ReadDir: the same entries, types and errors (on an error
// it returns what it could read), with far fewer system calls. It lists the
// folder with getdents64 on a plain descriptor (os.ReadDir also registers it
// with the network poller: two more calls per folder), and describes every
// regular file (and every entry whose type the listing does not give) with
// fstatat relative to the open folder while it is open, so that the entry's
// Info costs nothing later (os.ReadDir's Info is an lstat of the full path,
// which the kernel walks again, component by component, for every file).
// Other entries (folders, links, …) are described lazily, as os.ReadDir does.
// The one visible difference: an Info's Sys is a *unix.Stat_t (os's is a
// *syscall.Stat_t, the same fields).
//
// A regular file that vanished between the listing and its fstatat stays
// listed and its Info fails with an error matching fs.ErrNotExist, as it
// would with os.ReadDir; an entry of unknown type that vanished is left out,
// as os.ReadDir does.
func ReadDirResolved(abs string) ([]fs.DirEntry, error) {
	fd, err := open(abs, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	defer closeFD(fd)

	s := scratchPool.Get().(*scratch)
	defer s.release()
	var readErr error
	for {
		n, err := getdents(fd, s.buf)
		if err != nil {
			readErr = &fs.PathError{Op: "readdirent", Path: abs, Err: err}
			break
		}
		if n <= 0 {
			break
		}
		s.recs, s.names = parseDirents(s.buf[:n], s.recs, s.names)
	}
	if len(s.recs) == 0 {
		return []fs.DirEntry{}, readErr // never nil once open, as os.ReadDir
	}
	if testHookListed != nil {
		testHookListed(s.recs)
	}

	names := string(s.names) // one allocation for every name of the folder
	ents := make([]dirEntry, len(s.recs))
	nstat := 0
	for _, r := range s.recs {
		if r.typ == 0 || r.typ == unknownType {
			nstat++
		}
	}
	infos := make([]fileInfo, nstat) // the regular files' (one allocation)
	k := 0
	for _, r := range s.recs {
		e := &ents[k]
		e.dir, e.name, e.typ = abs, names[r.off:r.end], r.typ
		if e.typ == 0 || e.typ == unknownType {
			e.info, infos = &infos[0], infos[1:]
			err := e.stat(fd)
			if e.typ == unknownType {
				if err != nil {
					*e = dirEntry{}
					if errors.Is(err, fs.ErrNotExist) {
						continue // gone since the listing (os.ReadDir leaves it out too)
					}
					// os.ReadDir stops here and returns what it read.
					readErr = &fs.PathError{Op: "fstatat", Path: abs, Err: errors.Unwrap(err)}
					break
				}
				e.typ = e.info.mode.Type()
			}
		}
		k++
	}
	ents = ents[:k]
	slices.SortFunc(ents, func(a, b dirEntry) int { return strings.Compare(a.name, b.name) })
	out := make([]fs.DirEntry, len(ents))
	for i := range ents {
		out[i] = &ents[i]
	}
	return out, readErr
}

// testHookListed, when set (by tests), sees the records of a listing
// before its entries are described.
var testHookListed func(recs []direntRec)

// getdents is unix.Getdents, tried again when a signal interrupts it.
func getdents(fd int, buf []byte) (int, error) {
	for {
		n, err := unix.Getdents(fd, buf)
		if !errors.Is(err, syscall.EINTR) {
			return n, err
		}
	}
}

// closeFD closes a descriptor opened for reading, where a failure to close
// has nothing to report.
func closeFD(fd int) { _ = syscall.Close(fd) }

// direntBufSize is the size of the buffer getdents64 fills: large enough that
// most folders are listed in one call (plus the one that says the end).
const direntBufSize = 16 << 10

// scratch is the reused memory of one listing: the buffer getdents64 fills,
// and the records and names parsed from it before they are copied out.
type scratch struct {
	buf   []byte
	recs  []direntRec
	names []byte
}

var scratchPool = sync.Pool{New: func() any { return &scratch{buf: make([]byte, direntBufSize)} }}

// release returns s to the pool, emptied; a scratch grown by a huge folder
// is dropped rather than kept.
func (s *scratch) release() {
	if cap(s.recs) > 4096 || cap(s.names) > 64<<10 {
		return
	}
	s.recs, s.names = s.recs[:0], s.names[:0]
	scratchPool.Put(s)
}

// direntRec is one parsed folder entry: its name is names[off:end] of the
// scratch it was parsed into.
type direntRec struct {
	off, end int
	typ      fs.FileMode
}

// unknownType is the type of an entry whose d_type the file system does not
// give (DT_UNKNOWN, or a type fs.FileMode has no word for).
const unknownType = ^fs.FileMode(0)

// The layout of struct linux_dirent64 (the inode is not used): d_ino (8 bytes), d_off (8), d_reclen
// (2), d_type (1), then the name, NUL-terminated, padded to 8 bytes.
const (
	direntReclenOff = 16
	direntTypeOff   = 18
	direntNameOff   = 19
)

// parseDirents parses the linux_dirent64 records of buf (what one getdents64
// call returned), appending each entry's name to names and its record to
// recs. It leaves out "." and ".." (and an empty name, which no file system
// gives), keeps entries with a zero inode as os.ReadDir does on Linux (old
// XFS, FUSE), and stops at a record that does not fit (a malformed buffer
// never makes it read out of bounds).
func parseDirents(buf []byte, recs []direntRec, names []byte) ([]direntRec, []byte) {
	for len(buf) >= direntNameOff {
		reclen := int(binary.NativeEndian.Uint16(buf[direntReclenOff:]))
		if reclen < direntNameOff || reclen > len(buf) {
			break
		}
		rec := buf[:reclen]
		buf = buf[reclen:]
		name := rec[direntNameOff:]
		if i := indexNUL(name); i >= 0 {
			name = name[:i]
		}
		if len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		off := len(names)
		names = append(names, name...)
		recs = append(recs, direntRec{off: off, end: len(names), typ: direntType(rec[direntTypeOff])})
	}
	return recs, names
}

func indexNUL(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}

// direntType is the type a d_type gives, as os.ReadDir reads it; unknownType
// when it gives none.
func direntType(t byte) fs.FileMode {
	switch t {
	case syscall.DT_REG:
		return 0
	case syscall.DT_DIR:
		return fs.ModeDir
	case syscall.DT_LNK:
		return fs.ModeSymlink
	case syscall.DT_FIFO:
		return fs.ModeNamedPipe
	case syscall.DT_SOCK:
		return fs.ModeSocket
	case syscall.DT_BLK:
		return fs.ModeDevice
	case syscall.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice
	}
	return unknownType
}

// dirEntry is an fs.DirEntry of ReadDirResolved. Its information is filled
// while the folder is open (a regular file, or an entry of unknown type), or
// read by path when asked for (anything else).
type dirEntry struct {
	dir, name string
	typ       fs.FileMode
	info      *fileInfo // filled while the folder was open (nil: not asked for)
	infoErr   error     // why info could not be filled
}

func (e *dirEntry) Name() string      { return e.name }
func (e *dirEntry) IsDir() bool       { return e.typ.IsDir() }
func (e *dirEntry) Type() fs.FileMode { return e.typ }
func (e *dirEntry) String() string    { return fs.FormatDirEntry(e) }
func (e *dirEntry) path() string      { return e.dir + "/" + e.name }

// Info describes the entry without following a symbolic link, like
// os.Lstat. Its error is an *fs.PathError (Op "lstat", the full path).
func (e *dirEntry) Info() (fs.FileInfo, error) {
	if e.infoErr != nil {
		return nil, e.infoErr
	}
	if e.info != nil {
		return e.info, nil
	}
	var st unix.Stat_t
	for {
		err := unix.Lstat(e.path(), &st)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EINTR) {
			return nil, &fs.PathError{Op: "lstat", Path: e.path(), Err: err}
		}
	}
	info := &fileInfo{}
	info.fill(e.name, &st)
	return info, nil
}

// stat fills e.info (set by the caller) with fstatat relative to the open
// folder dirfd; on an error it sets e.infoErr instead, and returns it.
func (e *dirEntry) stat(dirfd int) error {
	for {
		err := unix.Fstatat(dirfd, e.name, &e.info.sys, unix.AT_SYMLINK_NOFOLLOW)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EINTR) {
			e.info = nil
			e.infoErr = &fs.PathError{Op: "lstat", Path: e.path(), Err: err}
			return e.infoErr
		}
	}
	e.info.fill(e.name, &e.info.sys)
	return nil
}

// fileInfo is the fs.FileInfo of a dirEntry, as os.Lstat makes it. Sys
// returns the *unix.Stat_t it was made from.
type fileInfo struct {
	name    string
	size    int64
	mode    fs.FileMode
	modTime time.Time
	sys     unix.Stat_t
}

// fill sets i from st (which may be &i.sys) the way os.Lstat does.
func (i *fileInfo) fill(name string, st *unix.Stat_t) {
	i.name = name
	i.size = st.Size
	i.modTime = time.Unix(st.Mtim.Unix())
	i.mode = fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFBLK:
		i.mode |= fs.ModeDevice
	case unix.S_IFCHR:
		i.mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		i.mode |= fs.ModeDir
	case unix.S_IFIFO:
		i.mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		i.mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		i.mode |= fs.ModeSocket
	}
	if st.Mode&unix.S_ISGID != 0 {
		i.mode |= fs.ModeSetgid
	}
	if st.Mode&unix.S_ISUID != 0 {
		i.mode |= fs.ModeSetuid
	}
	if st.Mode&unix.S_ISVTX != 0 {
		i.mode |= fs.ModeSticky
	}
	if &i.sys != st {
		i.sys = *st
	}
}

func (i *fileInfo) Name() string       { return i.name }
func (i *fileInfo) Size() int64        { return i.size }
func (i *fileInfo) Mode() fs.FileMode  { return i.mode }
func (i *fileInfo) ModTime() time.Time { return i.modTime }
func (i *fileInfo) IsDir() bool        { return i.mode.IsDir() }
func (i *fileInfo) Sys() any           { return &i.sys }
