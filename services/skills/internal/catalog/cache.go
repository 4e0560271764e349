package catalog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/skillsd/skillsd/services/skills/internal/skill"
	"github.com/skillsd/skillsd/services/skills/internal/source"
	"github.com/skillsd/skillsd/services/skills/internal/statefile"
)

// The catalog cache keeps, across process starts, what a build parsed and
// hashed: each layout-A skill file's parsed document, parse diagnostics and
// digest, and each companion file's record (digest, MIME type, text flag),
// under the file's absolute path, size and modification time. The first
// build of a process (Options.Cache) takes from it what did not change, as
// later builds take it from the snapshot they replace, instead of parsing
// every skill file and hashing every companion file again.
//
// The file is ours, but it is read as untrusted input: a header names the
// format and the binary's version, and a checksum of the body follows (a
// CRC-32C: it finds damage, which is what it is for, ten times faster than
// sha256 would; whoever can write the file can write any checksum); a file
// of another format or version, too large, cut short, with a wrong checksum,
// or whose body does not decode exactly is ignored whole (the build reads
// everything, as without a cache) and replaced by the next write.
//
// Layout (integers are varints, strings a length and bytes):
//
//	"skillsd-catalog-cache/1\n"  the format (cacheMagic)
//	version                      the binary's version (Cache's)
//	body length, CRC-32C of body (4 bytes, big-endian)
//	body                         a record of each skill (appendSkill), then
//	                             their number (4 bytes, big-endian); then
//	                             the folder listings of each source's walk
//	                             (appendListings), then their length (4
//	                             bytes, big-endian)

// cacheFormat is the version of the layout, in the file's name and header:
// change it whenever what is written changes (a field of skill.Document,
// File or skill.Diagnostic included).
const cacheFormat = 3

// cacheMagic opens every cache file.
var cacheMagic = "skillsd-catalog-cache/" + strconv.Itoa(cacheFormat) + "\n"

// maxCacheFile bounds the cache file: a larger file is neither written nor
// read. It holds every SKILL.md whole: about 4 MB for the 387 skills of the
// benchmark corpus, 110 MB for 10,000 such skills.
const maxCacheFile = 512 << 20

// maxValueDepth bounds the nesting of frontmatter values in the cache (the
// parser stops at 1000 levels).
const maxValueDepth = 1100

// racyWindow: a file whose modification time is this close to the start of
// the build (or later) is not kept, since a change made in the same tick of
// a coarse file-system clock after the build read it would leave its size
// and time as they were.
const racyWindow = 2 * time.Second

// cacheEvery is how often, at most, a Cache writes its file.
const cacheEvery = 5 * time.Second

// CacheFileName is the file name of the catalog cache under a state folder.
func CacheFileName() string { return cacheFileName(cacheFormat) }

func cacheFileName(format int) string { return "catalog-cache-" + strconv.Itoa(format) + ".bin" }

// removeOlderFormats removes, beside file, the caches of earlier formats
// (a format change renames the file; an upgrade would leave the old one).
func removeOlderFormats(file string) {
	if filepath.Base(file) != CacheFileName() {
		return // a file named by its caller: its neighbours are not ours
	}
	for f := 1; f < cacheFormat; f++ {
		_ = os.Remove(filepath.Join(filepath.Dir(file), cacheFileName(f)))
	}
}

// Cache is the file that keeps a catalog's parsed skill files and hashed
// companion files for the first build of a later process (Options.Cache).
// Keep writes it in the background, at most every few seconds; Close writes
// what is left. A nil *Cache keeps nothing. Its methods are safe for
// concurrent use.
type Cache struct {
	file, version string
	log           *slog.Logger
	every         time.Duration

	// writeMu serialises writes of the file.
	writeMu sync.Mutex
	// sum is the checksum of the body on disk, as last written or read
	// (when known): a body with the same checksum is not written again.
	sum   uint32
	known bool

	mu sync.Mutex // guards the fields below
	// pending is the newest snapshot not written yet.
	pending *Snapshot
	// timer is the write scheduled; writing says a write runs.
	timer   *time.Timer
	writing bool
	// last is when the last background write started.
	last   time.Time
	closed bool
	// first is what the first read of the file found (readFirst), until
	// the first load takes it; firstTaken says it did.
	first      *Snapshot
	firstTaken bool
	firstOnce  sync.Once
	// wg counts the scheduled and running background writes.
	wg sync.WaitGroup
}

// NewCache returns the cache kept in file for a binary of this version (a
// file written by another version is ignored). log receives a debug line
// when the file is ignored or written; nil discards.
func NewCache(file, version string, log *slog.Logger) *Cache {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Cache{file: file, version: version, log: log, every: cacheEvery}
}

// Keep schedules the writing of what s holds to the file, off the caller's
// path: at once when the last write (or the first read of the file) is a
// few seconds old, else when it is; a newer snapshot kept meanwhile
// replaces s. It does nothing on a nil Cache or after Close.
func (c *Cache) Keep(s *Snapshot) {
	if c == nil || s == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.pending = s
	if c.timer == nil && !c.writing {
		c.scheduleLocked()
	}
}

// scheduleLocked starts the timer of the next background write.
func (c *Cache) scheduleLocked() {
	wait := max(c.every-time.Since(c.last), 0)
	c.wg.Add(1)
	c.timer = time.AfterFunc(wait, c.fire)
}

// fire is a scheduled background write.
func (c *Cache) fire() {
	defer c.wg.Done()
	c.mu.Lock()
	c.timer = nil
	s := c.pending
	if c.closed || s == nil {
		c.mu.Unlock()
		return
	}
	c.pending, c.writing, c.last = nil, true, time.Now()
	c.mu.Unlock()

	if err := c.Save(s); err != nil {
		c.log.Warn("could not keep the catalog for the next start", "file", c.file, "error", err)
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	c.writing = false
	if c.pending != nil && !c.closed {
		c.scheduleLocked()
	}
}

// Close writes the snapshot kept last, if it was not written yet, and stops
// the background writes. It does nothing on a nil Cache.
func (c *Cache) Close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	if c.timer != nil && c.timer.Stop() {
		c.timer = nil
		c.wg.Done()
	}
	c.mu.Unlock()
	c.wg.Wait()
	c.mu.Lock()
	s := c.pending
	c.pending = nil
	c.mu.Unlock()
	if s == nil {
		return nil
	}
	return c.Save(s)
}

// Save writes what s holds to the file now, replacing it atomically; the
// file is readable by its owner only. Files whose modification time is
// within a few seconds of the start of s's build are left out (they are
// read again next time). Nothing is written when the file already holds the
// same.
func (c *Cache) Save(s *Snapshot) error {
	if c == nil || s == nil {
		return nil
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	notAfter := s.started.Add(-racyWindow)
	// A first pass only sums the body: no copy of a large catalog is made
	// in memory, and an unchanged one is not written.
	sum := crc32.New(castagnoli)
	size, err := encodeBodyTo(sum, s, notAfter)
	if err != nil {
		return fmt.Errorf("catalog cache: %w", err)
	}
	if c.known && sum.Sum32() == c.sum {
		return nil
	}
	header := appendHeader(nil, c.version, size, sum.Sum32())
	if total := int64(len(header)) + size; total > maxCacheFile {
		c.log.Debug("catalog cache not written: too large", "file", c.file, "bytes", total, "limit", maxCacheFile)
		return nil
	}
	if err := statefile.Write(c.file, func(w io.Writer) error {
		if _, err := w.Write(header); err != nil {
			return err
		}
		_, err := encodeBodyTo(w, s, notAfter)
		return err
	}); err != nil {
		return fmt.Errorf("catalog cache: %w", err)
	}
	c.sum, c.known = sum.Sum32(), true
	removeOlderFormats(c.file)
	c.log.Debug("catalog cache written", "file", c.file, "skills", len(s.skills), "bytes", int64(len(header))+size)
	return nil
}

// Exists reports whether the file is there, as a regular file: a start
// that has it reads its catalog more than it parses it (false on a nil
// Cache).
func (c *Cache) Exists() bool {
	if c == nil {
		return false
	}
	info, err := os.Lstat(c.file)
	return err == nil && info.Mode().IsRegular()
}

// Preload reads the file now for the first build to take (load): a server
// calls it in the background, so that its start reads the file beside the
// rest of its work instead of in front of its first walk. It does nothing
// on a nil Cache, or when the file was read already (it waits for a read
// under way).
func (c *Cache) Preload() {
	if c == nil {
		return
	}
	c.readFirst()
}

// readFirst reads the file once per Cache, for the first load: mapped, not
// copied, and the skills decoded share the mapping, which stays for as long
// as the process (statefile.Map). The cache is written by renaming a new
// file over it, so the mapping keeps what was read.
func (c *Cache) readFirst() {
	c.firstOnce.Do(func() {
		s := c.read(statefile.Map)
		c.mu.Lock()
		c.first = s
		if s != nil && c.last.IsZero() {
			// A start that found the file writes it again no sooner than
			// c.every after this read: its first build mostly gives back
			// what it read, and encoding that (to find it unchanged)
			// would compete with the host's first requests. A start
			// without the file writes it at once, for the next start.
			c.last = time.Now()
		}
		c.mu.Unlock()
	})
}

// load returns the file's content as a snapshot that holds only what a
// build reuses (skills with their file, source name, layout, size and time,
// document, parse diagnostics, digest and companion files); nil when there
// is no usable file, which is logged at debug level. The first load takes
// what Preload read (reading it now if it did not); a later one (a build
// that starts over without a snapshot) reads the file again, copied, so
// that mappings do not pile up.
func (c *Cache) load() *Snapshot {
	if c == nil {
		return nil
	}
	c.readFirst()
	c.mu.Lock()
	s, taken := c.first, c.firstTaken
	c.first, c.firstTaken = nil, true
	c.mu.Unlock()
	if !taken {
		return s
	}
	return c.read(func(path string, limit int64) ([]byte, func(), error) {
		data, err := statefile.Read(path, limit)
		return data, func() {}, err
	})
}

// read reads the file with readFile and decodes it (load); a file it does
// not use is released (a mapping undone: statefile.Map).
func (c *Cache) read(readFile func(string, int64) ([]byte, func(), error)) *Snapshot {
	data, release, err := readFile(c.file, maxCacheFile)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.log.Debug("catalog cache ignored", "file", c.file, "error", err)
		}
		return nil
	}
	skills, listings, sum, err := decodeCache(data, c.version)
	if err != nil {
		release() // nothing decoded is kept
		c.log.Debug("catalog cache ignored", "file", c.file, "error", err)
		return nil
	}
	c.writeMu.Lock()
	c.sum, c.known = sum, true
	c.writeMu.Unlock()
	return &Snapshot{skills: skills, listings: listings}
}

// castagnoli is the CRC-32C table (computed with the CPU's instruction
// where there is one).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checksum is the checksum of a body.
func checksum(body []byte) uint32 { return crc32.Checksum(body, castagnoli) }

// appendHeader appends the file's header for body to b.
func appendHeader(b []byte, version string, size int64, sum uint32) []byte {
	b = append(b, cacheMagic...)
	b = appendString(b, version)
	b = binary.BigEndian.AppendUint64(b, uint64(size))
	return binary.BigEndian.AppendUint32(b, sum)
}

// Errors of decodeCache.
var (
	errCacheFormat   = errors.New("not a catalog cache of this format")
	errCacheVersion  = errors.New("written by another version")
	errCacheChecksum = errors.New("checksum mismatch")
	errCacheCorrupt  = errors.New("corrupt")
)

// decodeCache checks a cache file's header and checksum and decodes its
// body; it returns the checksum of the body. A large body is summed beside
// its decode, which starts before the sum is known; nothing decoded is
// returned unless the sum matches (the decoder takes any bytes: fuzzed).
func decodeCache(data []byte, version string) ([]*Skill, map[string]*source.Listings, uint32, error) {
	var sum uint32
	rest, ok := bytes.CutPrefix(data, []byte(cacheMagic))
	if !ok {
		return nil, nil, sum, errCacheFormat
	}
	d := &decoder{b: rest}
	v := d.bytes()
	if d.err != nil || len(d.b) < 12 {
		return nil, nil, sum, errCacheCorrupt
	}
	if string(v) != version {
		return nil, nil, sum, fmt.Errorf("%w (%q, not %q)", errCacheVersion, v, version)
	}
	n := binary.BigEndian.Uint64(d.b)
	if uint64(len(d.b)-12) != n {
		return nil, nil, sum, fmt.Errorf("%w: the body is not %d bytes long", errCacheCorrupt, n)
	}
	sum = binary.BigEndian.Uint32(d.b[8:])
	body := d.b[12:]
	if len(body) < sumApartBytes {
		if checksum(body) != sum {
			return nil, nil, sum, errCacheChecksum
		}
		skills, listings, err := decodeBody(body)
		return skills, listings, sum, err
	}
	summed := make(chan bool, 1)
	go func() { summed <- checksum(body) == sum }()
	skills, listings, err := decodeBody(body)
	if !<-summed {
		return nil, nil, sum, errCacheChecksum
	}
	return skills, listings, sum, err
}

// sumApartBytes is the size from which a body's checksum is computed beside
// its decode, not before it: the sum of the 4.3 MB body of 387 skills took
// 2 ms of a 4.3 ms read, the decode most of the rest. A variable for the
// tests.
var sumApartBytes = 256 << 10

// decodeBody decodes the skills and the listings of a cache file's body.
func decodeBody(body []byte) ([]*Skill, map[string]*source.Listings, error) {
	skillsPart, listingsPart, ok := splitBody(body)
	if !ok {
		return nil, nil, fmt.Errorf("%w: no listings", errCacheCorrupt)
	}
	skills, err := decodeSkills(skillsPart)
	if err != nil {
		return nil, nil, err
	}
	listings, err := decodeListings(listingsPart)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errCacheCorrupt, err)
	}
	return skills, listings, nil
}

// encodeBodyTo writes the body of a cache file for s to w: its skills
// (encodeSkillsTo), then the listings of its walks (appendListings) and
// their length. It returns the body's size.
func encodeBodyTo(w io.Writer, s *Snapshot, notAfter time.Time) (int64, error) {
	size, err := encodeSkillsTo(w, s.skills, notAfter)
	if err != nil {
		return size, err
	}
	n, err := writeListings(w, s.walks)
	if err != nil {
		return size + n, err
	}
	_, err = w.Write(binary.BigEndian.AppendUint32(nil, uint32(n)))
	return size + n + 4, err
}

// splitBody splits a body into its skills and its listings.
func splitBody(body []byte) (skills, listings []byte, ok bool) {
	if len(body) < 4 {
		return nil, nil, false
	}
	n := uint64(binary.BigEndian.Uint32(body[len(body)-4:]))
	if n > uint64(len(body)-4) {
		return nil, nil, false
	}
	end := len(body) - 4
	return body[: end-int(n) : end-int(n)], body[end-int(n) : end], true
}

// writeListings writes the folder listings of the walks to w, by source
// name: their number, then each source's name and listings
// (source.WriteListings). It returns the number of bytes written.
func writeListings(w io.Writer, walks map[string]*source.State) (int64, error) {
	names := make([]string, 0, len(walks))
	for name, st := range walks {
		if st.Listings().Len() > 0 {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	k, err := w.Write(binary.AppendUvarint(nil, uint64(len(names))))
	n := int64(k)
	for _, name := range names {
		if err != nil {
			return n, err
		}
		k, err = w.Write(appendString(nil, name))
		n += int64(k)
		if err != nil {
			return n, err
		}
		var m int64
		m, err = source.WriteListings(w, walks[name].Listings())
		n += m
	}
	return n, err
}

// decodeListings reads writeListings's encoding, all of it.
func decodeListings(b []byte) (map[string]*source.Listings, error) {
	d := &decoder{b: b}
	n := d.length(2)
	if d.err != nil {
		return nil, d.err
	}
	out := make(map[string]*source.Listings, n)
	for range n {
		name := string(d.bytes())
		if d.err != nil {
			return nil, d.err
		}
		l, rest, err := source.ParseListings(d.b)
		if err != nil {
			return nil, err
		}
		if _, dup := out[name]; dup || l == nil {
			return nil, errors.New("a source's listings twice, or empty")
		}
		out[name] = l
		d.b = rest
	}
	if len(d.b) != 0 {
		return nil, errors.New("bytes after the listings")
	}
	return out, nil
}

// encodeSkills is the body of a cache file: every skill whose skill file
// is unchanged since before notAfter, with those of its companion files
// that are too (the others are left out of its list, so that they are
// hashed again). A skill kept at its last good version, without the digest
// of its skill file, or whose document cannot be written, is left out.
func encodeSkills(skills []*Skill, notAfter time.Time) []byte {
	var b bytes.Buffer
	_, _ = encodeSkillsTo(&b, skills, notAfter) // a Buffer does not fail
	return b.Bytes()
}

// encodeSkillsTo writes encodeSkills's body to w, one record at a time
// (a catalog's cache is never whole in memory): the records, then their
// number (4 bytes). It returns the body's size.
func encodeSkillsTo(w io.Writer, skills []*Skill, notAfter time.Time) (int64, error) {
	var (
		rec  []byte
		size int64
		n    uint32
	)
	for _, sk := range skills {
		if sk.Doc == nil || sk.keptLastGood || !strings.HasPrefix(sk.fileDigest, "sha256:") || !sk.ModTime.Before(notAfter) {
			continue
		}
		var err error
		if rec, err = appendSkill(rec[:0], sk, notAfter); err != nil {
			continue // a document the cache cannot hold: read it again next time
		}
		if _, err := w.Write(rec); err != nil {
			return size, err
		}
		size += int64(len(rec))
		n++
	}
	_, err := w.Write(binary.BigEndian.AppendUint32(nil, n))
	return size + 4, err
}

// appendSkill appends one skill's record.
func appendSkill(b []byte, sk *Skill, notAfter time.Time) ([]byte, error) {
	b = appendString(b, sk.File)
	b = appendString(b, sk.RelFile)
	b = appendString(b, sk.Source.Name)
	b = binary.AppendUvarint(b, uint64(sk.Layout))
	b = binary.AppendVarint(b, sk.Size)
	b = appendTime(b, sk.ModTime)
	b = appendTime(b, sk.LoadedAt)
	b = appendString(b, sk.fileDigest)
	b = appendString(b, sk.Dir)
	b, err := appendDocument(b, sk.Doc)
	if err != nil {
		return b, err
	}
	b = appendList(b, sk.parseDiags, func(b []byte, d skill.Diagnostic) []byte {
		b = binary.AppendVarint(appendString(appendString(b, d.Source), d.File), int64(d.Line))
		return appendString(appendString(binary.AppendUvarint(b, uint64(d.Severity)), d.Code), d.Message)
	})
	n := 0
	for _, f := range sk.Files {
		if f.ModTime.Before(notAfter) {
			n++
		}
	}
	b = binary.AppendUvarint(b, uint64(n))
	for _, f := range sk.Files {
		if !f.ModTime.Before(notAfter) {
			continue
		}
		b = appendString(b, f.Path)
		b = binary.AppendVarint(b, f.Size)
		b = appendTime(b, f.ModTime)
		b = appendString(b, f.Digest)
		b = appendString(b, f.MIME)
		b = appendBool(b, f.Text)
	}
	return b, nil
}

// appendDocument appends a parsed skill file: every field of
// skill.Document, nil and empty lists and maps kept apart.
func appendDocument(b []byte, doc *skill.Document) ([]byte, error) {
	b = appendBool(b, doc.HasFrontmatter)
	b = appendString(b, doc.Body)
	b = binary.AppendVarint(b, int64(doc.BodyLine))
	fm := &doc.Frontmatter
	var err error
	if b, err = appendValue(b, fm.Raw, 0); err != nil {
		return b, err
	}
	b = appendCount(b, len(fm.KeyLines), fm.KeyLines == nil)
	for _, k := range sortedKeys(fm.KeyLines) {
		b = appendString(b, k)
		b = binary.AppendVarint(b, int64(fm.KeyLines[k]))
	}
	b = appendString(b, fm.Name)
	b = appendString(b, fm.Description)
	b = appendString(b, fm.License)
	b = appendString(b, fm.Compatibility)
	b = appendStrings(b, fm.AllowedTools)
	if b, err = appendValue(b, fm.Metadata, 0); err != nil {
		return b, err
	}
	b = appendStrings(b, fm.Keywords)
	b = binary.AppendVarint(b, int64(fm.Priority))
	b = appendBool(b, fm.Inherit)
	b = appendList(b, fm.Assets, func(b []byte, a skill.Asset) []byte {
		return appendString(appendString(appendString(b, a.File), a.Description), a.Type)
	})
	b = appendList(b, fm.Scripts, func(b []byte, s skill.Script) []byte {
		b = appendString(appendString(appendString(b, s.File), s.Description), s.Execution)
		b = appendList(b, s.Args, func(b []byte, a skill.Arg) []byte {
			b = appendBool(appendBool(appendString(appendString(b, a.Name), a.Description), a.Required), a.Default != nil)
			if a.Default != nil {
				b = appendString(b, *a.Default)
			}
			return b
		})
		return appendBool(b, s.Network)
	})
	b = appendString(b, fm.Category)
	b = appendStrings(b, fm.Tags)
	b = appendBool(b, fm.DisableModelInvocation)
	b = appendBool(b, fm.UserInvocable)
	b = appendString(b, fm.ArgumentHint)
	b = appendBool(b, fm.AlwaysApply)
	b = appendBool(b, fm.Network)
	return b, nil
}

// appendList appends a list for decodeList: its count (a nil list kept
// apart) and each element by one.
func appendList[T any](b []byte, list []T, one func([]byte, T) []byte) []byte {
	b = appendCount(b, len(list), list == nil)
	for _, e := range list {
		b = one(b, e)
	}
	return b
}

// The tags of a frontmatter value (skill.Frontmatter.Raw's types).
const (
	tagNil byte = iota
	tagFalse
	tagTrue
	tagInt
	tagFloat
	tagString
	tagList    // []any
	tagMap     // map[string]any
	tagNilList // []any(nil)
	tagNilMap  // map[string]any(nil)
)

var errValue = errors.New("a frontmatter value the cache cannot hold")

// appendValue appends a frontmatter value, one of the types the parser
// makes; any other type is an error.
func appendValue(b []byte, v any, depth int) ([]byte, error) {
	if depth > maxValueDepth {
		return b, errValue
	}
	switch v := v.(type) {
	case nil:
		return append(b, tagNil), nil
	case bool:
		if v {
			return append(b, tagTrue), nil
		}
		return append(b, tagFalse), nil
	case int:
		return binary.AppendVarint(append(b, tagInt), int64(v)), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return b, errValue
		}
		return binary.LittleEndian.AppendUint64(append(b, tagFloat), math.Float64bits(v)), nil
	case string:
		return appendString(append(b, tagString), v), nil
	case []any:
		if v == nil {
			return append(b, tagNilList), nil
		}
		b = binary.AppendUvarint(append(b, tagList), uint64(len(v)))
		var err error
		for _, e := range v {
			if b, err = appendValue(b, e, depth+1); err != nil {
				return b, err
			}
		}
		return b, nil
	case map[string]any:
		if v == nil {
			return append(b, tagNilMap), nil
		}
		b = binary.AppendUvarint(append(b, tagMap), uint64(len(v)))
		var err error
		for _, k := range sortedKeys(v) {
			b = appendString(b, k)
			if b, err = appendValue(b, v[k], depth+1); err != nil {
				return b, err
			}
		}
		return b, nil
	}
	return b, errValue
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// appendCount appends a list's or map's length, 0 for nil (n+1 otherwise).
func appendCount(b []byte, n int, isNil bool) []byte {
	if isNil {
		return append(b, 0)
	}
	return binary.AppendUvarint(b, uint64(n)+1)
}

func appendStrings(b []byte, ss []string) []byte { return appendList(b, ss, appendString) }

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendTime(b []byte, t time.Time) []byte {
	return binary.AppendUvarint(binary.AppendVarint(b, t.Unix()), uint64(t.Nanosecond()))
}

// decoder reads a body; the first error sticks, and every read after it
// returns zero values.
type decoder struct {
	b []byte
	// s is the body as one string: decoded strings are slices of it.
	s   string
	off int
	err error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errCacheCorrupt
	}
	d.b = nil
}

// advance moves past n bytes read.
func (d *decoder) advance(n int) { d.b, d.off = d.b[n:], d.off+n }

// readVarint reads one varint with read (binary.Uvarint or binary.Varint).
func readVarint[T uint64 | int64](d *decoder, read func([]byte) (T, int)) T {
	v, n := read(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.advance(n)
	return v
}

func (d *decoder) uvarint() uint64 { return readVarint(d, binary.Uvarint) }

func (d *decoder) varint() int64 { return readVarint(d, binary.Varint) }

// int reads a varint that must fit an int.
func (d *decoder) int() int {
	v := d.varint()
	if v < math.MinInt || v > math.MaxInt {
		d.fail()
		return 0
	}
	return int(v)
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.advance(1)
	return c
}

func (d *decoder) bool() bool {
	switch d.byte() {
	case 0:
		return false
	case 1:
		return true
	}
	d.fail()
	return false
}

// bytes reads a length and that many bytes.
func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	v := d.b[:n]
	d.advance(int(n))
	return v
}

func (d *decoder) string() string {
	v := d.bytes()
	if len(v) == 0 {
		return ""
	}
	if d.s == "" {
		return string(v)
	}
	return d.s[d.off-len(v) : d.off]
}

// count reads a length written by appendCount: isNil for 0. Each element
// takes at least size bytes: a length larger than what is left allows is
// corrupt (so that no length allocates much more than the file holds).
func (d *decoder) count(size int) (n int, isNil bool) {
	v := d.uvarint()
	if d.err != nil || v == 0 {
		return 0, true
	}
	if v-1 > uint64(len(d.b)/size) {
		d.fail()
		return 0, true
	}
	return int(v - 1), false
}

// length reads a plain length, bounded like count's.
func (d *decoder) length(size int) int {
	v := d.uvarint()
	if v > uint64(len(d.b)/size) {
		d.fail()
		return 0
	}
	return int(v)
}

func (d *decoder) time() time.Time {
	sec := d.varint()
	nsec := d.uvarint()
	if nsec >= 1e9 {
		d.fail()
		return time.Time{}
	}
	return time.Unix(sec, int64(nsec))
}

func (d *decoder) strings() []string {
	return decodeList(d, 1, func(s *string) { *s = d.string() })
}

// decodeSkills decodes a body into skills that hold what a build reuses.
// Any inconsistency, or bytes left over, is an error: nothing of the body
// is used then.
func decodeSkills(body []byte) ([]*Skill, error) {
	d := &decoder{b: body}
	var n int
	if len(body) >= 4 {
		n = int(binary.BigEndian.Uint32(body[len(body)-4:]))
		d.b = body[:len(body)-4]
		// Decoded strings share body's memory instead of copying a large
		// catalog's once more: body is the decoder's own (read or mapped
		// from the file, or encoded for it) and nothing writes to it after
		// this.
		d.s = unsafe.String(unsafe.SliceData(body), len(body)-4)
	} else {
		d.fail()
	}
	if n > len(d.b)/32 { // a record takes 32 bytes at least
		d.fail()
		n = 0
	}
	skills := make([]*Skill, 0, n)
	sources := map[string]*Source{}
	for range n {
		if d.err != nil {
			break
		}
		sk := &Skill{File: d.string(), RelFile: d.string()}
		name := d.string()
		src := sources[name]
		if src == nil {
			src = &Source{Name: name}
			sources[name] = src
		}
		sk.Source = src
		switch l := skill.Layout(d.uvarint()); l {
		case skill.LayoutFolder, skill.LayoutTree:
			sk.Layout = l
		default:
			d.fail()
		}
		sk.Size, sk.ModTime, sk.LoadedAt = d.varint(), d.time(), d.time()
		sk.fileDigest, sk.Dir, sk.Doc = d.string(), d.string(), d.document()
		sk.parseDiags = decodeList(d, 6, func(p *skill.Diagnostic) {
			p.Source, p.File, p.Line = d.string(), d.string(), d.int()
			switch sev := skill.Severity(d.uvarint()); sev {
			case skill.SeverityInfo, skill.SeverityWarning, skill.SeverityError:
				p.Severity = sev
			default:
				d.fail()
			}
			p.Code, p.Message = d.string(), d.string()
		})
		if k := d.length(8); k > 0 {
			sk.Files = make([]File, k)
			for i := range sk.Files {
				f := &sk.Files[i]
				f.Path, f.Size, f.ModTime = d.string(), d.varint(), d.time()
				f.Digest, f.MIME, f.Text = d.string(), d.string(), d.bool()
				if f.Path == "" || filepath.IsAbs(f.Path) {
					d.fail()
				}
			}
		}
		if !filepath.IsAbs(sk.File) || !strings.HasPrefix(sk.fileDigest, "sha256:") || sk.Size < 0 {
			d.fail()
		}
		skills = append(skills, sk)
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail()
	}
	if d.err != nil {
		return nil, fmt.Errorf("%w: at byte %d", d.err, d.off)
	}
	return skills, nil
}

// decodeList reads a list written by appendCount, each element by one
// (which takes at least size bytes): nil for a nil list.
func decodeList[T any](d *decoder, size int, one func(*T)) []T {
	n, isNil := d.count(size)
	if isNil {
		return nil
	}
	out := make([]T, n)
	for i := range out {
		one(&out[i])
	}
	return out
}

// document decodes appendDocument's record.
func (d *decoder) document() *skill.Document {
	doc := &skill.Document{HasFrontmatter: d.bool(), Body: d.string(), BodyLine: d.int()}
	fm := &doc.Frontmatter
	fm.Raw = d.mapValue()
	if n, isNil := d.count(2); !isNil {
		fm.KeyLines = make(map[string]int, n)
		for range n {
			k := d.string()
			fm.KeyLines[k] = d.int()
		}
	}
	fm.Name, fm.Description, fm.License, fm.Compatibility = d.string(), d.string(), d.string(), d.string()
	fm.AllowedTools = d.strings()
	fm.Metadata = d.mapValue()
	fm.Keywords = d.strings()
	fm.Priority = d.int()
	fm.Inherit = d.bool()
	fm.Assets = decodeList(d, 3, func(a *skill.Asset) {
		*a = skill.Asset{File: d.string(), Description: d.string(), Type: d.string()}
	})
	fm.Scripts = decodeList(d, 5, func(s *skill.Script) {
		s.File, s.Description, s.Execution = d.string(), d.string(), d.string()
		s.Args = decodeList(d, 4, func(a *skill.Arg) {
			a.Name, a.Description, a.Required = d.string(), d.string(), d.bool()
			if d.bool() {
				v := d.string()
				a.Default = &v
			}
		})
		s.Network = d.bool()
	})
	fm.Category = d.string()
	fm.Tags = d.strings()
	fm.DisableModelInvocation = d.bool()
	fm.UserInvocable = d.bool()
	fm.ArgumentHint = d.string()
	fm.AlwaysApply = d.bool()
	fm.Network = d.bool()
	return doc
}

// mapValue reads a value that must be a map[string]any or nil (a nil map
// and no value at all are the same to the parser's callers, and are kept
// apart here as appendValue wrote them).
func (d *decoder) mapValue() map[string]any {
	switch v := d.value(0).(type) {
	case nil:
		return nil
	case map[string]any:
		return v
	}
	d.fail()
	return nil
}

// value decodes appendValue's record.
func (d *decoder) value(depth int) any {
	if depth > maxValueDepth {
		d.fail()
		return nil
	}
	switch d.byte() {
	case tagNil:
		return nil
	case tagFalse:
		return false
	case tagTrue:
		return true
	case tagInt:
		return d.int()
	case tagFloat:
		if len(d.b) < 8 {
			d.fail()
			return nil
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
		d.advance(8)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			d.fail()
			return nil
		}
		return f
	case tagString:
		return d.string()
	case tagList:
		n := d.length(1)
		out := make([]any, n)
		for i := range out {
			out[i] = d.value(depth + 1)
			if d.err != nil {
				return nil
			}
		}
		return out
	case tagMap:
		n := d.length(2)
		out := make(map[string]any, n)
		for range n {
			k := d.string()
			out[k] = d.value(depth + 1)
			if d.err != nil {
				return nil
			}
		}
		return out
	case tagNilList:
		return []any(nil)
	case tagNilMap:
		return map[string]any(nil)
	}
	d.fail()
	return nil
}
