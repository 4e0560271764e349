package search

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/skill"
	"github.com/skillsd/skillsd/services/skills/internal/statefile"
)

// analysisVersion changes whenever the analysis makes other terms, counts or
// surfaces from the same text (tokenizer, stemmers, stop lists, folding,
// bigrams, what worker.doc reads) or the cache file's layout changes, so that
// analyses kept by an older version are never reused.
const analysisVersion = 1

// cacheFormat names the cache file's layout; it opens the file.
const cacheFormat = "skillsd-search-analysis\n"

// cacheHeaderLen is the header's size (fileheader.go; its version is
// analysisVersion).
const cacheHeaderLen = len(cacheFormat) + fileHeaderTail

// maxCacheFile bounds what is read back from the cache file.
const maxCacheFile = 256 << 20

// CacheFileName is the file name of the analysis cache under a state folder.
func CacheFileName() string { return "search-cache-" + strconv.Itoa(analysisVersion) + ".bin" }

// cacheKey identifies one skill's analysis: a SHA-256 of everything the
// analysis reads (configKey, then the skill's indexed text).
type cacheKey [sha256.Size]byte

// AnalysisCache keeps the text analysis of skills (their terms and counts
// by field) between builds of the index, and between processes in a file:
// New (Options.Cache) analyses only the skills whose text or analysis
// settings changed. A missing, foreign, damaged or oversized file is
// ignored: everything is analysed again. It is safe for concurrent use.
type AnalysisCache struct {
	path string
	// version is WithVersion's.
	version string
	// mu guards m and dirty. m is never changed once set: each build
	// replaces it with the analyses of its own skills.
	mu    sync.Mutex
	m     map[cacheKey]*docAnalysis
	dirty bool
	// keys remembers the key of each skill file (its parsed document, which
	// a catalog build shares with the next build while the file does not
	// change) of the last build, so that the next build hashes the text of
	// the changed skills only (keyMemo).
	keys map[*skill.Document]keyMemo
	// loadOnce reads the file on first use (load), not in
	// OpenAnalysisCache: a server opens its cache when it starts and builds
	// its first index later, in the background.
	loadOnce sync.Once
	// saveMu makes Save calls one at a time; saving counts the saves
	// started in the background.
	saveMu sync.Mutex
	saving sync.WaitGroup
	// laterMu guards later, lastSave and closed: saveLater's pending save,
	// when the last one started, and whether Close has been called (no
	// save is scheduled after it).
	laterMu  sync.Mutex
	later    *time.Timer
	lastSave time.Time
	closed   bool
	// indexPath is the index file (WithIndexFile), read once by indexOnce.
	// Under mu, stored is what it holds until the first build takes it,
	// pending the index the next Save writes, onDisk the key of the index
	// the file holds (nil when unknown).
	indexPath string
	indexOnce sync.Once
	stored    *storedIndex
	pending   *pendingIndex
	onDisk    *cacheKey
}

// OpenAnalysisCache returns a cache backed by the file at path (created by
// Save); an empty path keeps analyses in memory only. The file is read on
// first use; when it is missing or cannot be trusted (another format or
// analysis version, a wrong checksum, truncated, oversized, inconsistent)
// the cache starts empty.
func OpenAnalysisCache(path string) *AnalysisCache {
	return &AnalysisCache{path: path}
}

// WithVersion makes the analyses kept depend on version, the version of the
// build that parses the skill files (skillsd's, as its catalog cache's): a
// skill's key holds its skill file's digest in place of its body (keyHasher),
// and another version may make another body of the same file.
func (c *AnalysisCache) WithVersion(version string) *AnalysisCache {
	c.version = version
	return c
}

// load reads the file, once.
func (c *AnalysisCache) load() {
	c.loadOnce.Do(func() {
		if c.path == "" {
			return
		}
		m, _ := readCacheFile(c.path)
		c.mu.Lock()
		c.m = m
		c.mu.Unlock()
	})
}

// Preload reads the file now if it was not read yet: a server calls it in
// the background, beside its first catalog build, so that its first index
// does not wait for the file. With an index file (WithIndexFile), it reads
// that instead, and the analyses only when there is no index to read: a
// first build that takes the index does not need them (a later build reads
// them, when it does).
func (c *AnalysisCache) Preload() {
	if c == nil {
		return
	}
	if c.indexPath == "" {
		c.load()
		return
	}
	c.loadIndex()
	c.mu.Lock()
	none := c.stored == nil
	c.mu.Unlock()
	if none {
		c.load()
	}
}

// Len is the number of skill analyses the cache holds.
func (c *AnalysisCache) Len() int {
	if c == nil {
		return 0
	}
	c.load()
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// entries returns the analyses held; the caller must not change the map.
func (c *AnalysisCache) entries() map[cacheKey]*docAnalysis {
	c.load()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m
}

// keyMemo is a skill's cacheKey with what besides its document the key
// read: the skill's name and description (a name can come from the folder)
// and the analysis settings (configKey).
type keyMemo struct {
	name, desc  string
	config, key cacheKey
}

// knownKeys returns the keys of the last build's skills by document; the
// caller must not change the map.
func (c *AnalysisCache) knownKeys() map[*skill.Document]keyMemo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.keys
}

// knownKey returns the key of sk under config as the last build computed
// it, or false when that build did not index sk's document with the same
// name, description and settings.
func knownKey(known map[*skill.Document]keyMemo, config *cacheKey, sk *catalog.Skill) (cacheKey, bool) {
	m, ok := known[sk.Doc]
	if !ok || m.config != *config || m.name != sk.Name || m.desc != sk.Description {
		return cacheKey{}, false
	}
	return m.key, true
}

// remember records the keys of a build's skills (skills[i]'s is keys[i])
// for the next build's knownKey, as keep does, without the analyses: the
// build took a stored index, and the analyses held stay those of the file,
// read when a build asks for them.
func (c *AnalysisCache) remember(config *cacheKey, skills []*catalog.Skill, keys []cacheKey) {
	known := make(map[*skill.Document]keyMemo, len(keys))
	for i, k := range keys {
		sk := skills[i]
		known[sk.Doc] = keyMemo{name: sk.Name, desc: sk.Description, config: *config, key: k}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keys = known
}

// keep replaces the analyses held with those of a build: das[i] is the
// analysis of the skill whose key is keys[i], skills[i] that skill.
func (c *AnalysisCache) keep(config *cacheKey, skills []*catalog.Skill, keys []cacheKey, das []*docAnalysis) {
	c.load()
	m := make(map[cacheKey]*docAnalysis, len(keys))
	known := make(map[*skill.Document]keyMemo, len(keys))
	for i, k := range keys {
		m[k] = das[i]
		sk := skills[i]
		known[sk.Doc] = keyMemo{name: sk.Name, desc: sk.Description, config: *config, key: k}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keys = known
	changed := len(m) != len(c.m)
	for k, da := range m {
		if changed {
			break
		}
		changed = c.m[k] != da
	}
	c.m = m
	c.dirty = c.dirty || changed
}

// Save writes the analyses of the last build to the cache file, so that the
// next process does not analyse unchanged skills again, and the index the
// last build made from them to the index file (WithIndexFile). It does
// nothing without a file or when nothing changed since the file was read or
// last saved. The files are replaced atomically and readable by their owner
// only.
func (c *AnalysisCache) Save() error {
	if c == nil {
		return nil
	}
	c.saveMu.Lock()
	defer c.saveMu.Unlock()
	var errs []error
	if c.path != "" {
		errs = append(errs, c.saveAnalyses())
	}
	if c.indexPath != "" {
		errs = append(errs, c.saveIndex())
	}
	return errors.Join(errs...)
}

// saveAnalyses writes the analyses of the last build, when they changed.
func (c *AnalysisCache) saveAnalyses() error {
	c.mu.Lock()
	m, dirty := c.m, c.dirty
	c.dirty = false
	c.mu.Unlock()
	if !dirty {
		return nil
	}
	if err := statefile.Write(c.path, func(w io.Writer) error { return writeCache(w, m) }); err != nil {
		c.mu.Lock()
		c.dirty = true // try again on the next Save
		c.mu.Unlock()
		return fmt.Errorf("search cache: %w", err)
	}
	return nil
}

// saveLater saves the cache in the background, reporting an error to
// failed; Close waits for it. Nothing happens on a nil cache.
func (c *AnalysisCache) saveLater(failed func(error)) {
	if c == nil || c.path == "" && c.indexPath == "" {
		return
	}
	c.laterMu.Lock()
	defer c.laterMu.Unlock()
	if c.later != nil {
		return // a save is due: it will write this build's analyses
	}
	if c.closed {
		// A build that ended beside Close: scheduled, its save made that
		// Close wait for it (saving), up to saveEvery. The analyses stay
		// for the next Save or Close.
		return
	}
	c.saving.Add(1)
	c.later = time.AfterFunc(max(saveEvery-time.Since(c.lastSave), 0), func() {
		defer c.saving.Done()
		c.laterMu.Lock()
		c.later, c.lastSave = nil, time.Now()
		c.laterMu.Unlock()
		if err := c.Save(); err != nil {
			failed(err)
		}
	})
}

// saveEvery is the least time between two saves saveLater starts: a burst
// of rebuilds (edits a second apart) writes the file once, not once each.
const saveEvery = 5 * time.Second

// Close waits for the saves a Router started in the background, then saves
// what they have not. The cache stays usable, but saves nothing in the
// background any more: Save, or Close again, writes what it gains.
func (c *AnalysisCache) Close() error {
	if c == nil {
		return nil
	}
	c.laterMu.Lock()
	c.closed = true
	if c.later != nil && c.later.Stop() {
		c.later = nil
		c.saving.Done() // the save it would have made is made here
	}
	c.laterMu.Unlock()
	c.saving.Wait()
	return c.Save()
}

// readCacheFile reads and decodes the cache file at path: a regular file,
// not a link (nor a FIFO, whose opening would block).
func readCacheFile(path string) (map[cacheKey]*docAnalysis, error) {
	data, err := statefile.Read(path, maxCacheFile)
	if err != nil {
		return nil, err
	}
	return decodeCache(data)
}

// configKey hashes the settings the analysis depends on besides a skill's
// text: the analysis version, the analysis switches, bigrams, every
// language's stop words, and the version of the build that parsed the skill
// files (version: AnalysisCache.WithVersion).
func (ix *Index) configKey(version string) cacheKey {
	h := sha256.New()
	a := ix.tune.analysis
	fmt.Fprintf(h, "%s%d stop=%t stem=%t irregular=%t bigrams=%t\n", cacheFormat, analysisVersion,
		a.stopWords, a.stem, a.irregular, ix.tune.bigramWeight > 0)
	writeField(h, version)
	for l, set := range ix.stops {
		words := make([]string, 0, len(set))
		for w, stop := range set {
			if stop {
				words = append(words, w)
			}
		}
		slices.Sort(words)
		fmt.Fprintf(h, "%d %d\n", l, len(words))
		for _, w := range words {
			writeField(h, w)
		}
	}
	return cacheKey(h.Sum(nil))
}

// docKey hashes config and the text of sk that worker.doc reads.
func docKey(config *cacheKey, sk *catalog.Skill) cacheKey {
	return newKeyHasher().key(config, sk)
}

// keyHasher makes docKeys without copying the skills' text but through
// its buffer; it is not safe for concurrent use.
type keyHasher struct {
	h   hash.Hash
	buf [8 << 10]byte
}

func newKeyHasher() *keyHasher { return &keyHasher{h: sha256.New()} }

// key is docKey. The body is represented by the digest of the skill file
// it was parsed from, when the catalog has it (Skill.FileDigest): the same
// bytes parse to the same document, so hashing the digest is hashing the
// body, without reading the body again (3 MB of text at 387 skills, 25 MB
// at 3,000, on every warm start's way to its first answer). A build of
// another version may parse the same bytes otherwise: the cache's version
// is part of config (AnalysisCache.WithVersion).
func (k *keyHasher) key(config *cacheKey, sk *catalog.Skill) cacheKey {
	k.h.Reset()
	k.h.Write(config[:])
	digest := sk.FileDigest()
	if digest != "" {
		k.h.Write([]byte{keyByFile})
		k.field(digest)
	} else {
		k.h.Write([]byte{keyByBody})
	}
	fm := &sk.Doc.Frontmatter
	k.field(sk.Name)
	k.field(sk.Description)
	k.list(fm.Keywords)
	k.list(fm.Tags)
	k.field(fm.Category)
	if digest == "" {
		k.field(sk.Doc.Body)
	}
	var sum cacheKey
	k.h.Sum(sum[:0])
	return sum
}

// How a key stands for a skill's body: by its skill file's digest, or by
// the body itself.
const (
	keyByFile byte = 1
	keyByBody byte = 2
)

// field writes s after its length, so that fields cannot run into each
// other.
func (k *keyHasher) field(s string) {
	k.h.Write(binary.AppendUvarint(k.buf[:0], uint64(len(s))))
	for len(s) > 0 {
		n := copy(k.buf[:], s)
		k.h.Write(k.buf[:n])
		s = s[n:]
	}
}

func (k *keyHasher) list(xs []string) {
	k.h.Write(binary.AppendUvarint(k.buf[:0], uint64(len(xs))))
	for _, x := range xs {
		k.field(x)
	}
}

// writeField writes s to w after its length.
func writeField(w io.Writer, s string) {
	var n [binary.MaxVarintLen64]byte
	w.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
	io.WriteString(w, s)
}

// The payload, after the header: a string table, then the analyses, all
// numbers unsigned varints.
//
//	strings: count, then each (sorted, distinct): length, bytes
//	analyses: count, then each:
//	  key (32 bytes), language (1 byte), flags (1 byte: 1 = CJK)
//	  length of each field
//	  terms: count, then each: string, field mask (1 byte), the count of
//	    each field in the mask (1..65535)
//	  surfaces: count, then each: string, term (index in the terms)
//
// Analyses come in key order, so that the same analyses always encode to the
// same bytes.

// encodeCache returns the cache file's content for the analyses m (the
// tests'; writeCache streams it).
func encodeCache(m map[cacheKey]*docAnalysis) []byte {
	var b bytes.Buffer
	_ = writeCache(&b, m) // a Buffer does not fail
	return b.Bytes()
}

// writeCache writes the cache file's content for the analyses m to w in two
// passes: the first only sums the payload for the header, the second writes
// it. At 10,000 skills the file is about 35 MB, which a cold start, saving
// it just after its first index, held three times over in memory when it
// was built whole (body, payload, file).
func writeCache(w io.Writer, m map[cacheKey]*docAnalysis) error {
	keys := make([]cacheKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b cacheKey) int { return bytes.Compare(a[:], b[:]) })
	// The strings, sorted (the decoder checks that they are distinct).
	ids := map[string]uint64{}
	for _, da := range m {
		da.each(func(t int32, _ *[numFields]uint16) { ids[da.names[t]] = 0 },
			func(s, _ int32) { ids[da.surfs[s]] = 0 })
	}
	strs := slices.Sorted(maps.Keys(ids))
	for i, s := range strs {
		ids[s] = uint64(i)
	}
	sum := &fileWriter{w: crc32.New(castagnoli)}
	writeCachePayload(sum, m, keys, strs, ids)
	if sum.err != nil {
		return sum.err
	}
	if _, err := w.Write(appendFileHeader(nil, cacheFormat, analysisVersion, uint64(sum.n), sum.w.(hash.Hash32).Sum32())); err != nil {
		return err
	}
	out := &fileWriter{w: w}
	writeCachePayload(out, m, keys, strs, ids)
	if out.err == nil && out.n != sum.n {
		return errors.New("search cache: the analyses changed while they were written")
	}
	return out.err
}

// writeCachePayload writes the payload of the cache file for the analyses
// m (keys sorted, strs the distinct strings in order, ids their ids) to iw,
// and flushes it.
func writeCachePayload(iw *fileWriter, m map[cacheKey]*docAnalysis, keys []cacheKey, strs []string, ids map[string]uint64) {
	iw.buf = binary.AppendUvarint(iw.buf, uint64(len(strs)))
	for _, s := range strs {
		iw.buf = binary.AppendUvarint(iw.buf, uint64(len(s)))
		iw.buf = append(iw.buf, s...)
		iw.room()
	}
	iw.buf = binary.AppendUvarint(iw.buf, uint64(len(keys)))
	for _, k := range keys {
		da := m[k]
		iw.buf = append(iw.buf, k[:]...)
		var flags byte
		if da.cjk {
			flags |= 1
		}
		iw.buf = append(iw.buf, byte(da.lang), flags)
		for _, n := range da.length {
			iw.buf = binary.AppendUvarint(iw.buf, uint64(n))
		}
		r := packedReader{b: da.packed}
		nterms := r.uvarint()
		iw.buf = binary.AppendUvarint(iw.buf, nterms)
		var counts [numFields]uint16
		for range nterms {
			t := r.term(&counts)
			iw.buf = appendTerm(iw.buf, int32(ids[da.names[t]]), &counts)
		}
		nsurf := r.uvarint()
		iw.buf = binary.AppendUvarint(iw.buf, nsurf)
		for range nsurf {
			s, t := r.uvarint(), r.uvarint()
			iw.buf = binary.AppendUvarint(binary.AppendUvarint(iw.buf, ids[da.surfs[s]]), t)
		}
		iw.room()
	}
	iw.flush()
}

// appendTerm appends a term of a packed analysis (a record's term in the
// cache file): its string, the mask of the fields it occurs in, and its
// count in each of them.
func appendTerm(b []byte, term int32, counts *[numFields]uint16) []byte {
	b = binary.AppendUvarint(b, uint64(term))
	var mask byte
	for f, c := range counts {
		if c > 0 {
			mask |= 1 << f
		}
	}
	b = append(b, mask)
	for _, c := range counts {
		if c > 0 {
			b = binary.AppendUvarint(b, uint64(c))
		}
	}
	return b
}

// packedReader reads docAnalysis.packed. The bytes were made by describe
// or checked by decodeCache: it checks nothing.
type packedReader struct{ b []byte }

func (r *packedReader) uvarint() uint64 {
	if len(r.b) > 0 && r.b[0] < 0x80 { // most counts, and many terms: one byte
		c := r.b[0]
		r.b = r.b[1:]
		return uint64(c)
	}
	v, n := binary.Uvarint(r.b)
	r.b = r.b[n:]
	return v
}

// term reads a term (appendTerm): it returns its string, and sets counts.
func (r *packedReader) term(counts *[numFields]uint16) int32 {
	t := int32(r.uvarint())
	mask := r.b[0]
	r.b = r.b[1:]
	for f := range numFields {
		counts[f] = 0
		if mask&(1<<f) != 0 {
			counts[f] = uint16(r.uvarint())
		}
	}
	return t
}

// each calls term with each term of da (in names) and its counts, in
// order, then surface with each surface (in surfs) and its term (an index
// in the terms).
func (da *docAnalysis) each(term func(t int32, counts *[numFields]uint16), surface func(s, t int32)) {
	r := packedReader{b: da.packed}
	var counts [numFields]uint16
	for range r.uvarint() {
		term(r.term(&counts), &counts)
	}
	for range r.uvarint() {
		s, t := r.uvarint(), r.uvarint()
		surface(int32(s), int32(t))
	}
}

// byteArena hands out byte slices cut from large blocks: the packed
// analyses of a build are many small slices that live as long as each
// other, and one allocation for many of them saves the allocator's rounding
// and the collector's work.
type byteArena struct{ block []byte }

// arenaBlock is the size of an arena's blocks.
const arenaBlock = 256 << 10

// clone returns a copy of b in the arena, whose capacity ends with it.
func (a *byteArena) clone(b []byte) []byte {
	if len(b) > cap(a.block)-len(a.block) {
		a.block = make([]byte, 0, max(arenaBlock, len(b)))
	}
	start := len(a.block)
	a.block = append(a.block, b...)
	return a.block[start:len(a.block):len(a.block)]
}

// errCache is the one answer to a cache file that cannot be trusted.
var errCache = errors.New("search cache: foreign or damaged file")

// cacheReader reads the payload; after the first error it reads zeros.
type cacheReader struct {
	data []byte
	err  error
}

func (r *cacheReader) uvarint(most uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.data)
	if n <= 0 || v > most {
		r.err = errCache
		return 0
	}
	r.data = r.data[n:]
	return v
}

// index reads a number below n.
func (r *cacheReader) index(n int) int {
	if n == 0 {
		r.err = errCache
		return 0
	}
	return int(r.uvarint(uint64(n - 1)))
}

func (r *cacheReader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n > len(r.data) {
		r.err = errCache
		return nil
	}
	b := r.data[:n]
	r.data = r.data[n:]
	return b
}

func (r *cacheReader) byte() byte {
	if b := r.bytes(1); b != nil {
		return b[0]
	}
	return 0
}

// decodeCache decodes a cache file's content, checking everything: the
// format, the version, the checksum, every number's range, and that each
// analysis is consistent (distinct terms, counts within the field lengths).
// Anything else is errCache. The analyses it returns share data's memory
// (their strings and packed bytes are parts of it, not copies): the caller
// must not change data afterwards.
func decodeCache(data []byte) (map[cacheKey]*docAnalysis, error) {
	if len(data) < cacheHeaderLen {
		return nil, errCache
	}
	payload := data[cacheHeaderLen:]
	size, sum, ok := parseFileHeader(data[:cacheHeaderLen], cacheFormat, analysisVersion)
	if !ok || size != uint64(len(payload)) || sum != crc32.Checksum(payload, castagnoli) {
		return nil, errCache
	}
	r := &cacheReader{data: payload}
	// at is the offset in payload of what r reads next.
	at := func() int { return len(payload) - len(r.data) }

	// The string table: one string for all (the payload's own bytes), the
	// strings slices of it.
	nstr := r.uvarint(uint64(len(r.data)))
	start := at()
	spans := make([][2]int, 0, nstr)
	for range nstr {
		n := int(r.uvarint(uint64(len(r.data))))
		off := at()
		r.bytes(n)
		spans = append(spans, [2]int{off, off + n})
	}
	if r.err != nil {
		return nil, r.err
	}
	var all string
	if end := at(); end > start {
		all = unsafe.String(&payload[start], end-start)
	}
	strs := make([]string, len(spans))
	for i, sp := range spans {
		strs[i] = all[sp[0]-start : sp[1]-start]
		if i > 0 && strs[i-1] >= strs[i] {
			return nil, errCache // not sorted, or twice
		}
	}

	nent := r.uvarint(uint64(len(r.data)) / uint64(sha256.Size+2+int(numFields)+2))
	m := make(map[cacheKey]*docAnalysis, nent)
	seen := make([]uint64, len(strs)) // entry number + 1 that used the string as a term
	for e := range nent {
		var k cacheKey
		copy(k[:], r.bytes(len(k)))
		da := &docAnalysis{names: strs, surfs: strs}
		l, flags := r.byte(), r.byte()
		if l >= byte(numLangs) || flags&^1 != 0 {
			return nil, errCache
		}
		da.lang, da.cjk = lang(l), flags&1 != 0
		for f := range da.length {
			da.length[f] = int32(r.uvarint(math.MaxInt32))
		}
		packed := at()
		nterms := r.uvarint(uint64(len(r.data)) / 3)
		var sum [numFields]int64
		for range nterms {
			s := r.index(len(strs))
			mask := r.byte()
			if r.err != nil || mask == 0 || mask >= 1<<numFields || seen[s] == e+1 {
				return nil, errCache
			}
			seen[s] = e + 1
			for f := range numFields {
				if mask&(1<<f) != 0 {
					c := r.uvarint(math.MaxUint16)
					if c == 0 {
						return nil, errCache
					}
					sum[f] += int64(c)
				}
			}
		}
		for f, n := range da.length {
			if sum[f] > int64(n) {
				return nil, errCache
			}
		}
		nsurf := r.uvarint(uint64(len(r.data)) / 2)
		for range nsurf {
			r.index(len(strs))
			r.index(int(nterms))
			if r.err != nil {
				return nil, errCache
			}
		}
		if _, dup := m[k]; dup || r.err != nil {
			return nil, errCache
		}
		end := at()
		da.packed = payload[packed:end:end]
		m[k] = da
	}
	if r.err != nil || len(r.data) != 0 {
		return nil, errCache
	}
	return m, nil
}
