package source

import (
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unsafe"
)

// Listings are the folder listings a walk of a root read (each folder's
// entries, by name and type) with each folder's stamp as it was then, kept
// by the catalog cache so that the first walk of the next process takes a
// folder whose stamp is unchanged from them instead of listing it again
// (Options.Listings). On Linux a folder's modification and change times
// move whenever an entry is created, removed or renamed in it, so an
// unchanged stamp means unchanged entries; the files' own sizes and times
// are still read, one lstat each, since editing a file in place does not
// touch its folder. A listing is kept only when its folder had not changed
// for settleWindow before it was read: a change in the same tick of the
// file system's clock would not move the stamp.
type Listings struct {
	// realRoot is the root's real path when the walk read it: the listings
	// of another tree (a git checkout moved to another commit) are not used.
	realRoot string
	folders  []folderList // sorted by rel
}

// folderList is one folder's listing.
type folderList struct {
	rel   string // from the root, slash-separated; "" for the root
	stamp folderStamp
	// n is the number of entries, and packed the entries in order of name,
	// each its type's code (listedTypes, 1 byte), its name's length and its
	// name: one string per folder, as the file holds it (a slice of
	// structs and strings took half as much again at 10,000 skills).
	n      int
	packed string
}

// pack returns the packed form of a folder's entries (in order of name).
func pack(entries []fs.DirEntry) string {
	n := 0
	for _, e := range entries {
		n += 2 + len(e.Name())
	}
	b := make([]byte, 0, n)
	for _, e := range entries {
		b = append(b, byte(typeCode(e.Type())))
		b = appendString(b, e.Name())
	}
	return string(b)
}

// each yields the folder's entries in order; it reports whether it went
// through all of them (false when yield stops it, or at a malformed entry:
// a packed string not made here nor checked by ParseListings).
func (f *folderList) each(yield func(name string, typ fs.FileMode) bool) bool {
	s := f.packed
	for len(s) > 0 {
		code := int(s[0])
		l, k := uvarintIn(s[1:])
		if code >= len(listedTypes) || k <= 0 || l > uint64(len(s)-1-k) {
			return false
		}
		name := s[1+k : 1+k+int(l)]
		s = s[1+k+int(l):]
		if !yield(name, listedTypes[code]) {
			return false
		}
	}
	return true
}

// uvarintIn is binary.Uvarint over a string.
func uvarintIn(s string) (uint64, int) {
	var v uint64
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				return 0, -1
			}
			return v | uint64(c)<<(7*i), i + 1
		}
		v |= uint64(c&0x7f) << (7 * i)
	}
	return 0, 0
}

// folderStamp identifies a folder's state: its device and inode, and its
// modification and change times (nanoseconds).
type folderStamp struct {
	dev, ino     uint64
	mtime, ctime int64
}

// settleWindow is how long a folder must have been unchanged, when it is
// listed, for its listing to be kept (a variable for the tests).
var settleWindow = 2 * time.Second

// settled reports whether the entries of a folder of stamp st, listed at
// the time at, had not changed for settleWindow then (its modification
// time; its change time also moves with its mode or owner, which do not
// change its entries, and is compared, not waited for).
func (st folderStamp) settled(at time.Time) bool {
	return st.mtime < at.Add(-settleWindow).UnixNano()
}

// Listings returns the listings the walk read or took, for the next
// process's first walk; nil on a nil State or when there are none.
func (s *State) Listings() *Listings {
	if s == nil || len(s.listed) == 0 {
		return nil
	}
	return &Listings{realRoot: s.realRoot, folders: s.listed}
}

// FromListings is the number of folders the walk took from the last
// process's listings (Options.Listings) instead of listing them.
func (s *State) FromListings() int {
	if s == nil {
		return 0
	}
	return s.fromListings
}

// Len is the number of folders listed.
func (l *Listings) Len() int {
	if l == nil {
		return 0
	}
	return len(l.folders)
}

// find returns the listing of the folder rel; nil when there is none.
func (l *Listings) find(rel string) *folderList {
	if l == nil {
		return nil
	}
	i := sort.Search(len(l.folders), func(i int) bool { return l.folders[i].rel >= rel })
	if i == len(l.folders) || l.folders[i].rel != rel {
		return nil
	}
	return &l.folders[i]
}

// list lists the folder of t: taken from the last process's listing
// (w.cached) when the folder's stamp is the one it was listed with and
// every regular file in it still is one, else read from the disk. The
// listing is recorded for the next process (b.listed) when the folder was
// settled. A folder reached through a link is always read, and not kept.
func (w *walker) list(b *batch, t dirTask) ([]fs.DirEntry, error) {
	if t.viaLink {
		return readDir(t.real)
	}
	if l := w.cached.find(t.rel); l != nil {
		if st, ok := stampOf(t.real); ok && st == l.stamp {
			if ents, ok := l.entries(t.real); ok {
				b.listed = append(b.listed, *l)
				w.fromListings.Add(1)
				return ents, nil
			}
		}
	}
	at := time.Now()
	st, stamped := stampOf(t.real) // before the listing: a change during it moves the stamp
	ents, err := readDir(t.real)
	if err == nil && stamped && st.settled(at) {
		b.listed = append(b.listed, folderList{rel: t.rel, stamp: st, n: len(ents), packed: pack(ents)})
	}
	return ents, err
}

// presize sizes the walk's records for what the last process's listings
// hold: grown by append, the records of a large tree were allocated about
// five times over (16 of a 3,000-skill walk's 45 MB).
func (w *walker) presize() {
	if w.cached == nil {
		return
	}
	n, skills := 0, 0
	for i := range w.cached.folders {
		f := &w.cached.folders[i]
		n += f.n
		if strings.Contains(f.packed, skillFileName) {
			skills++
		}
	}
	w.files = make([]fileRec, 0, n)
	w.pending = make([]pendingEntry, 0, skills)
	w.dirs = make([]dirRec, 0, len(w.cached.folders))
	w.listed = make([]folderList, 0, len(w.cached.folders))
}

// entries returns the folder's entries from its listing, the regular files
// described now (lstat of their path in dir); false when one of them is
// gone or no longer a regular file (then the folder is read again).
func (l *folderList) entries(dir string) ([]fs.DirEntry, bool) {
	ents := make([]listedDirEntry, 0, l.n)
	ok := l.each(func(name string, typ fs.FileMode) bool {
		d := listedDirEntry{dir: dir, name: name, typ: typ}
		if typ == 0 {
			size, mod, ok := regularFile(joinName(dir, name))
			if !ok {
				return false
			}
			d.info = listedInfo{name: name, size: size, mod: mod}
			d.described = true
		}
		ents = append(ents, d)
		return true
	})
	if !ok || len(ents) != l.n {
		return nil, false
	}
	out := make([]fs.DirEntry, len(ents))
	for i := range ents {
		out[i] = &ents[i]
	}
	return out, true
}

// listedDirEntry is an fs.DirEntry from a listing.
type listedDirEntry struct {
	dir, name string
	typ       fs.FileMode
	// info describes a regular file (described); others are described on
	// demand.
	info      listedInfo
	described bool
}

func (d *listedDirEntry) Name() string      { return d.name }
func (d *listedDirEntry) IsDir() bool       { return d.typ.IsDir() }
func (d *listedDirEntry) Type() fs.FileMode { return d.typ }
func (d *listedDirEntry) Info() (fs.FileInfo, error) {
	if d.described {
		return &d.info, nil
	}
	return os.Lstat(joinName(d.dir, d.name))
}

// listedInfo is the fs.FileInfo of a regular file of a listing: its size
// and modification time, all the walk reads of it, kept in the entry
// instead of allocating os.Lstat's description for each file.
type listedInfo struct {
	name string
	size int64
	mod  time.Time
}

func (i *listedInfo) Name() string       { return i.name }
func (i *listedInfo) Size() int64        { return i.size }
func (i *listedInfo) Mode() fs.FileMode  { return 0 }
func (i *listedInfo) ModTime() time.Time { return i.mod }
func (i *listedInfo) IsDir() bool        { return false }
func (i *listedInfo) Sys() any           { return nil }

// AppendListings appends l's encoding to b (ParseListings reads it back);
// a nil l is encoded as none.
func AppendListings(b []byte, l *Listings) []byte {
	b = appendListingsHead(b, l)
	for i := range l.Len() {
		b = appendFolder(b, &l.folders[i])
	}
	return b
}

// WriteListings writes AppendListings's encoding of l to w, a few folders
// at a time: the listings of 10,000 skills encode to about 3.7 MB, which a
// start writing its catalog cache need not hold whole. It returns the
// number of bytes written.
func WriteListings(w io.Writer, l *Listings) (int64, error) {
	var n int64
	b := appendListingsHead(make([]byte, 0, 32<<10), l)
	flush := func() error {
		k, err := w.Write(b)
		n += int64(k)
		b = b[:0]
		return err
	}
	for i := range l.Len() {
		if b = appendFolder(b, &l.folders[i]); len(b) >= 32<<10 {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	return n, flush()
}

// appendListingsHead appends the number of folders and the real root.
func appendListingsHead(b []byte, l *Listings) []byte {
	if l.Len() == 0 {
		return binary.AppendUvarint(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(l.folders)))
	return appendString(b, l.realRoot)
}

// appendFolder appends one folder's listing.
func appendFolder(b []byte, f *folderList) []byte {
	b = appendString(b, f.rel)
	b = binary.AppendUvarint(b, f.stamp.dev)
	b = binary.AppendUvarint(b, f.stamp.ino)
	b = binary.AppendVarint(b, f.stamp.mtime)
	b = binary.AppendVarint(b, f.stamp.ctime)
	b = binary.AppendUvarint(b, uint64(f.n))
	return appendString(b, f.packed)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// The types a listing holds, by code.
var listedTypes = []fs.FileMode{0, fs.ModeDir, fs.ModeSymlink, fs.ModeNamedPipe, fs.ModeSocket,
	fs.ModeDevice, fs.ModeDevice | fs.ModeCharDevice, fs.ModeIrregular}

// typeCode is the code of an entry's type (an unknown one is irregular).
func typeCode(t fs.FileMode) int {
	for i, lt := range listedTypes {
		if t == lt {
			return i
		}
	}
	return len(listedTypes) - 1
}

// errListings is ParseListings's one error.
var errListings = errors.New("folder listings: damaged")

// ParseListings reads what AppendListings wrote at the start of b; it
// returns the listings (nil for none) and the bytes after them. Everything
// is checked: the real root is an absolute clean path, the folders are
// clean relative paths in order, each once, and each entry a plain name
// (no separator, not "." or ".."), in order, each once, of a known type.
// The strings returned share b's memory, which must not change after (the
// catalog cache's file is mapped).
func ParseListings(b []byte) (*Listings, []byte, error) {
	p := &parser{b: b}
	n := p.count(6) // a folder takes 6 bytes at least
	if p.err != nil {
		return nil, nil, p.err
	}
	if n == 0 {
		return nil, p.b, nil
	}
	l := &Listings{realRoot: p.string(), folders: make([]folderList, n)}
	if p.err == nil && (!filepath.IsAbs(l.realRoot) || filepath.Clean(l.realRoot) != l.realRoot) {
		return nil, nil, errListings
	}
	for i := range l.folders {
		f := &l.folders[i]
		f.rel = p.string()
		f.stamp = folderStamp{dev: p.uvarint(), ino: p.uvarint(), mtime: p.varint(), ctime: p.varint()}
		f.n = p.count(3) // an entry takes 3 bytes at least
		f.packed = p.string()
		if p.err != nil || !validRel(f.rel) || i > 0 && f.rel <= l.folders[i-1].rel || !f.valid() {
			return nil, nil, errListings
		}
	}
	if p.err != nil {
		return nil, nil, p.err
	}
	return l, p.b, nil
}

// valid reports whether the folder's packed entries are well formed, n of
// them, each a plain name of a known type, in order of name, each once.
func (f *folderList) valid() bool {
	count, prev := 0, ""
	ok := f.each(func(name string, _ fs.FileMode) bool {
		if !validName(name) || count > 0 && name <= prev {
			return false
		}
		count++
		prev = name
		return true
	})
	return ok && count == f.n
}

// validRel reports whether rel is "" or a clean slash-separated relative
// path that stays below its root.
func validRel(rel string) bool {
	if rel == "" {
		return true
	}
	return path.Clean(rel) == rel && !path.IsAbs(rel) && rel != ".." && !strings.HasPrefix(rel, "../") &&
		!strings.ContainsRune(rel, 0) && !strings.Contains(rel, "\\")
}

// validName reports whether name is one plain entry name.
func validName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\\\x00")
}

// parser reads ParseListings's encoding; after the first error it reads
// zeros.
type parser struct {
	b   []byte
	err error
}

func (p *parser) uvarint() uint64 {
	if p.err != nil {
		return 0
	}
	v, n := binary.Uvarint(p.b)
	if n <= 0 {
		p.err = errListings
		return 0
	}
	p.b = p.b[n:]
	return v
}

func (p *parser) varint() int64 {
	if p.err != nil {
		return 0
	}
	v, n := binary.Varint(p.b)
	if n <= 0 {
		p.err = errListings
		return 0
	}
	p.b = p.b[n:]
	return v
}

// count reads a count of items of at least size bytes each: no more than
// what is left can hold.
func (p *parser) count(size int) int {
	v := p.uvarint()
	if p.err == nil && v > uint64(len(p.b)/size) {
		p.err = errListings
		return 0
	}
	return int(v)
}

func (p *parser) string() string {
	n := p.uvarint()
	if p.err != nil || n > uint64(len(p.b)) {
		p.err = errListings
		return ""
	}
	var s string
	if n > 0 {
		s = unsafe.String(&p.b[0], int(n))
	}
	p.b = p.b[n:]
	return s
}
