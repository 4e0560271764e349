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
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/skillsd/skillsd/services/skills/internal/statefile"
)

// The index file keeps the last index an AnalysisCache's builds made, so
// that the next process, indexing the same skills with the same settings,
// reads it instead of replaying every skill's analysis: the terms, their
// posting lists and idf, the surface forms and each skill's language. The
// skills themselves are not in it: they are bound back by position, and the
// file's key (indexKey) covers each skill's analysis key in order.

// indexVersion changes whenever the index file's layout, or what build
// computes from the same analyses (weights, idf, term ids), changes.
const indexVersion = 2

// indexFormat names the index file's layout; it opens the file.
const indexFormat = "skillsd-search-index\n"

// indexHeaderLen is the header's size (fileheader.go; its version is
// indexVersion).
const indexHeaderLen = len(indexFormat) + fileHeaderTail

// maxIndexFile bounds what is read back from the index file.
const maxIndexFile = 512 << 20

// IndexFileName is the file name of the stored index under a state folder.
func IndexFileName() string { return "search-index-" + strconv.Itoa(indexVersion) + ".bin" }

// errIndexFile is the one answer to an index file that cannot be trusted.
var errIndexFile = errors.New("search index file: foreign or damaged file")

// storedIndex is an index file's content, decoded: all of an Index that
// build computes, less the skills.
type storedIndex struct {
	key    cacheKey
	langs  []lang // of each skill
	hasCJK bool
	terms  []termEntry
	// vocab, surfaces and surfaceTerms are as in Index.
	vocab        strTable
	surfaces     strTable
	surfaceTerms []int32
	// release, when set, undoes the mapping of the file it was decoded
	// from (statefile.Map): for an index not adopted (dropped).
	release func()
}

// drop releases the file st was decoded from, when st is not used (nothing
// on a nil st or one decoded from bytes of the caller's).
func (st *storedIndex) drop() {
	if st != nil && st.release != nil {
		st.release()
	}
}

// indexKey hashes what the index of the skills whose analyses have keys
// depends on besides them: the index and analysis versions, the analysis
// settings (config) and the ranking parameters.
func (ix *Index) indexKey(config *cacheKey, keys []cacheKey) cacheKey {
	h := sha256.New()
	fmt.Fprintf(h, "%s%d %d\n%#v\n", indexFormat, indexVersion, analysisVersion, ix.tune)
	h.Write(config[:])
	h.Write(binary.AppendUvarint(nil, uint64(len(keys))))
	for i := range keys {
		h.Write(keys[i][:])
	}
	return cacheKey(h.Sum(nil))
}

// adopt makes ix the stored index st when st is the index of ix's skills
// (its key is key); it reports whether it did. The skills' analyses are
// not needed: a later build reads them from the analysis cache's file, and
// analyses those it does not find there.
func (ix *Index) adopt(st *storedIndex, key *cacheKey) bool {
	if st == nil || st.key != *key || len(st.langs) != len(ix.docs) {
		return false
	}
	for i, l := range st.langs {
		ix.docs[i].lang = l
		ix.langs |= 1 << l
	}
	ix.hasCJK = st.hasCJK
	ix.terms, ix.vocab, ix.surfaces, ix.surfaceTerms = st.terms, st.vocab, st.surfaces, st.surfaceTerms
	ix.unknownIDF = idf(0, float64(len(ix.docs)))
	ix.stored = true
	return true
}

// WithIndexFile makes the cache keep the last index its builds made in the
// file at path too (next to its own, IndexFileName), and the next process's
// first build read it back when its skills and settings are the same. It
// must be called before the cache is used; it returns c.
func (c *AnalysisCache) WithIndexFile(path string) *AnalysisCache {
	c.indexPath = path
	return c
}

// loadIndex reads and decodes the index file, once.
func (c *AnalysisCache) loadIndex() {
	c.indexOnce.Do(func() {
		if c.indexPath == "" {
			return
		}
		// Mapped, once a process: the index decoded from it uses its
		// postings and strings where they lie (decodeIndex).
		data, release, err := statefile.Map(c.indexPath, maxIndexFile)
		if err != nil {
			return
		}
		st, err := decodeIndex(data)
		if err != nil {
			release()
			return
		}
		st.release = release
		c.mu.Lock()
		c.stored = st
		c.mu.Unlock()
	})
}

// takeIndex returns the index read from the file (nil if none) and forgets
// it: only the first build of a process can use it.
func (c *AnalysisCache) takeIndex() *storedIndex {
	c.loadIndex()
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.stored
	c.stored = nil
	return st
}

// keepIndex makes ix, whose key is key, the index the next Save writes,
// unless the file already holds that index.
func (c *AnalysisCache) keepIndex(ix *Index, key cacheKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.onDisk != nil && *c.onDisk == key {
		c.pending = nil
		return
	}
	c.pending = &pendingIndex{ix: ix, key: key}
}

// indexOnDisk records that the index file holds the index whose key is
// key.
func (c *AnalysisCache) indexOnDisk(key cacheKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onDisk = &key
}

// pendingIndex is an index to write, with its key.
type pendingIndex struct {
	ix  *Index
	key cacheKey
}

// saveIndex writes the index kept by the last build, if any (Save).
func (c *AnalysisCache) saveIndex() error {
	c.mu.Lock()
	p := c.pending
	c.pending = nil
	c.mu.Unlock()
	if p == nil {
		return nil
	}
	if err := statefile.Write(c.indexPath, func(w io.Writer) error { return writeIndex(w, p.ix, &p.key) }); err != nil {
		c.mu.Lock()
		if c.pending == nil {
			c.pending = p // try again on the next Save
		}
		c.mu.Unlock()
		return fmt.Errorf("search index file: %w", err)
	}
	c.mu.Lock()
	c.onDisk = &p.key
	c.mu.Unlock()
	return nil
}

// The payload, after the header; numbers are unsigned varints unless said.
//
//	key (32 bytes)
//	skills: count, then each skill's language (1 byte)
//	flags (1 byte: 1 = some skill is CJK)
//	strings: length, bytes (every term's text, then every surface's)
//	postings: count (all terms'), then zero bytes up to the next multiple
//	  of 8 from the start of the file, then each posting as it lies in
//	  memory (posting): skill (uint32), pseudo term frequency (float32),
//	  little endian; then each posting's field mask (1 byte)
//	terms: count, then each: text length, posting count (its postings are
//	  the next ones, by skill)
//	surfaces: count, then each (sorted): length, term
//
// A term's idf and the idf of unknown terms are computed from the posting
// counts, as build does. The postings, the field masks and the strings are
// used where they lie in the file, which a start maps (statefile.Map):
// decoding them would fill as much fresh memory, at several microseconds a
// page on a virtual machine, for what the file already holds as it is.

// encodeIndex returns the index file's content for ix, whose key is key
// (the tests'; writeIndex streams it).
func encodeIndex(ix *Index, key *cacheKey) []byte {
	var b bytes.Buffer
	_ = writeIndex(&b, ix, key) // a Buffer does not fail
	return b.Bytes()
}

// writeIndex writes the index file's content for ix, whose key is key, to
// w in two passes over the index: the first only sums the payload for the
// header, the second writes it. At 10,000 skills the file is about 60 MB,
// which a cold start no longer holds in memory whole beside what it built.
func writeIndex(w io.Writer, ix *Index, key *cacheKey) error {
	surfs := sortedSurfaces(ix)
	sum := &fileWriter{w: crc32.New(castagnoli), n: int64(indexHeaderLen)}
	writePayload(sum, ix, key, surfs)
	if sum.err != nil {
		return sum.err
	}
	crc := sum.w.(hash.Hash32).Sum32()
	size := uint64(sum.n) - uint64(indexHeaderLen)
	if _, err := w.Write(appendFileHeader(nil, indexFormat, indexVersion, size, crc)); err != nil {
		return err
	}
	out := &fileWriter{w: w, n: int64(indexHeaderLen)}
	writePayload(out, ix, key, surfs)
	if out.err == nil && uint64(out.n)-uint64(indexHeaderLen) != size {
		return errors.New("search index file: the index changed while it was written")
	}
	return out.err
}

// writePayload writes the payload of ix's file (whose key is key, whose
// surfaces in order are surfs) to iw, and flushes it.
func writePayload(iw *fileWriter, ix *Index, key *cacheKey, surfs []int32) {
	nstr, npost := 0, 0
	for t := range ix.terms {
		nstr += len(ix.vocab.key(int32(t)))
		npost += len(ix.terms[t].postings)
	}
	for _, s := range surfs {
		nstr += len(ix.surfaces.key(s))
	}
	iw.buf = append(iw.buf, key[:]...)
	iw.buf = binary.AppendUvarint(iw.buf, uint64(len(ix.docs)))
	for _, d := range ix.docs {
		iw.buf = append(iw.buf, byte(d.lang))
		iw.room()
	}
	var flags byte
	if ix.hasCJK {
		flags |= 1
	}
	iw.buf = append(iw.buf, flags)
	iw.buf = binary.AppendUvarint(iw.buf, uint64(nstr))
	for _, k := range ix.vocab.byID() {
		iw.buf = append(iw.buf, k...)
		iw.room()
	}
	for _, s := range surfs {
		iw.buf = append(iw.buf, ix.surfaces.key(s)...)
		iw.room()
	}
	iw.buf = binary.AppendUvarint(iw.buf, uint64(npost))
	for iw.offset()%postingAlign != 0 {
		iw.buf = append(iw.buf, 0)
	}
	for _, t := range ix.terms {
		for _, p := range t.postings {
			iw.buf = binary.LittleEndian.AppendUint32(iw.buf, uint32(p.doc))
			iw.buf = binary.LittleEndian.AppendUint32(iw.buf, math.Float32bits(p.tf))
		}
		iw.room()
	}
	for _, t := range ix.terms {
		iw.buf = append(iw.buf, t.fields...)
		iw.room()
	}
	iw.buf = binary.AppendUvarint(iw.buf, uint64(len(ix.terms)))
	for id, t := range ix.terms {
		iw.buf = binary.AppendUvarint(iw.buf, uint64(len(ix.vocab.key(int32(id)))))
		iw.buf = binary.AppendUvarint(iw.buf, uint64(len(t.postings)))
		iw.room()
	}
	iw.buf = binary.AppendUvarint(iw.buf, uint64(len(surfs)))
	for _, s := range surfs {
		iw.buf = binary.AppendUvarint(iw.buf, uint64(len(ix.surfaces.key(s))))
		iw.buf = binary.AppendUvarint(iw.buf, uint64(ix.surfaceTerms[s]))
		iw.room()
	}
	iw.flush()
}

// postingAlign is the alignment of the postings in the file (from its
// start) and in memory.
const postingAlign = 8

// A posting is 8 bytes, as the file holds it, and postingAlign aligns it
// (both fail to compile otherwise).
var (
	_ = [1]struct{}{}[unsafe.Sizeof(posting{})-8]
	_ = [1]struct{}{}[postingAlign%unsafe.Alignof(posting{})]
)

// nativeLittleEndian says this machine lays numbers out as the file does,
// so that the file's postings can be used where they lie.
var nativeLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// postingsIn returns the postings whose file form is raw (8 bytes each):
// raw itself, when this machine's layout is the file's and raw is aligned,
// else decoded into a slice of their own.
func postingsIn(raw []byte) []posting {
	n := len(raw) / 8
	if n == 0 {
		return nil
	}
	if at := unsafe.SliceData(raw); nativeLittleEndian && uintptr(unsafe.Pointer(at))%unsafe.Alignof(posting{}) == 0 {
		return unsafe.Slice((*posting)(unsafe.Pointer(at)), n)
	}
	out := make([]posting, n)
	for i := range out {
		out[i] = posting{doc: int32(binary.LittleEndian.Uint32(raw[8*i:])), tf: math.Float32frombits(binary.LittleEndian.Uint32(raw[8*i+4:]))}
	}
	return out
}

// sortedSurfaces returns the ids of ix's surfaces in the order of the
// surfaces.
func sortedSurfaces(ix *Index) []int32 {
	ids := make([]int32, ix.surfaces.len())
	for i := range ids {
		ids[i] = int32(i)
	}
	slices.SortFunc(ids, func(a, b int32) int { return strings.Compare(ix.surfaces.key(a), ix.surfaces.key(b)) })
	return ids
}

// indexReader decodes a payload held whole in memory; after the first
// error it reads zeros.
type indexReader struct {
	b   []byte
	off int
	err error
}

// remaining is how many bytes of the payload are left to decode.
func (r *indexReader) remaining() uint64 { return uint64(len(r.b) - r.off) }

// uvarint reads a number, at most most.
func (r *indexReader) uvarint(most uint64) uint64 {
	if r.err != nil {
		return 0
	}
	if r.off < len(r.b) && r.b[r.off] < 0x80 { // one byte: most of them
		v := uint64(r.b[r.off])
		if v > most {
			r.err = errIndexFile
			return 0
		}
		r.off++
		return v
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 || v > most {
		r.err = errIndexFile
		return 0
	}
	r.off += n
	return v
}

// bytes returns the next n bytes, where they lie.
func (r *indexReader) bytes(n uint64) []byte {
	if r.err != nil || n > r.remaining() {
		r.err = errIndexFile
		return nil
	}
	b := r.b[r.off : r.off+int(n) : r.off+int(n)]
	r.off += int(n)
	return b
}

func (r *indexReader) byte() byte {
	if r.err != nil || r.off == len(r.b) {
		r.err = errIndexFile
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

// decodeIndex decodes an index file's content, checking everything: the
// format, the version, the payload's length and checksum, every length and
// id against what is left and what it indexes (skills, terms), that posting
// lists are sorted by skill, that terms and surfaces are distinct, that the
// padding is zeros and that nothing follows the surfaces. Anything else is
// errIndexFile. Whatever it allocates is bounded by the size. What it
// returns shares data's memory (the strings, the postings, the field
// masks), which must not change after: the file mapped, or a slice of the
// caller's own.
func decodeIndex(data []byte) (*storedIndex, error) {
	if len(data) < indexHeaderLen {
		return nil, errIndexFile
	}
	psize, sum, ok := parseFileHeader(data[:indexHeaderLen], indexFormat, indexVersion)
	payload := data[indexHeaderLen:]
	if !ok || psize != uint64(len(payload)) || crc32.Checksum(payload, castagnoli) != sum {
		return nil, errIndexFile
	}
	return decodePayload(&indexReader{b: payload})
}

// decodePayload decodes the payload in r (decodeIndex), which starts
// indexHeaderLen bytes into the file.
func decodePayload(r *indexReader) (*storedIndex, error) {
	st := &storedIndex{}
	copy(st.key[:], r.bytes(uint64(len(st.key))))
	ndocs := int(r.uvarint(min(r.remaining(), math.MaxInt32)))
	langs := r.bytes(uint64(ndocs))
	flags := r.byte()
	if r.err != nil || flags&^1 != 0 {
		return nil, errIndexFile
	}
	st.hasCJK = flags&1 != 0
	st.langs = make([]lang, ndocs)
	for i, l := range langs {
		if l >= byte(numLangs) {
			return nil, errIndexFile
		}
		st.langs[i] = lang(l)
	}
	// One block for every string; each term and surface is a part of it.
	blob := r.bytes(r.uvarint(r.remaining()))
	var strs string
	if len(blob) > 0 {
		strs = unsafe.String(&blob[0], len(blob))
	}
	// A posting takes 9 bytes (8, and its field mask).
	npost := r.uvarint(r.remaining() / 9)
	pad := (postingAlign - (indexHeaderLen+r.off)%postingAlign) % postingAlign
	for _, z := range r.bytes(uint64(pad)) {
		if z != 0 {
			return nil, errIndexFile
		}
	}
	all, allFields := postingsIn(r.bytes(8*npost)), r.bytes(npost)
	// A term takes 2 bytes at least (its lengths).
	nterms := int(r.uvarint(r.remaining() / 2))
	if r.err != nil {
		return nil, r.err
	}
	st.terms = make([]termEntry, nterms)
	st.vocab = newStrTable(nterms)
	idfs := newIDFTable(float64(ndocs))
	for t := range st.terms {
		e := &st.terms[t]
		l := int(r.uvarint(uint64(len(strs))))
		text := strs[:l]
		strs = strs[l:]
		df := int(r.uvarint(uint64(len(all))))
		e.postings, all = all[:df:df], all[df:]
		e.fields, allFields = allFields[:df:df], allFields[df:]
		next := int32(0)
		for i := range e.postings {
			p, fields := &e.postings[i], e.fields[i]
			if p.doc < next || int(p.doc) >= ndocs || fields == 0 || fields >= 1<<numFields ||
				math.IsNaN(float64(p.tf)) || math.IsInf(float64(p.tf), 0) {
				return nil, errIndexFile
			}
			next = p.doc + 1
		}
		if _, added := st.vocab.add(text); !added || r.err != nil {
			return nil, errIndexFile
		}
		e.idf = idfs.of(df)
	}
	if len(all) != 0 {
		return nil, errIndexFile // fewer postings than counted
	}
	nsurf := int(r.uvarint(r.remaining() / 2))
	if r.err != nil {
		return nil, r.err
	}
	st.surfaces = newStrTable(nsurf)
	st.surfaceTerms = make([]int32, nsurf)
	prev := ""
	for i := range nsurf {
		l := int(r.uvarint(uint64(len(strs))))
		s := strs[:l]
		strs = strs[l:]
		t := r.uvarint(uint64(nterms))
		if r.err != nil || t >= uint64(nterms) || (i > 0 && s <= prev) {
			return nil, errIndexFile // out of range, not sorted, or twice
		}
		st.surfaces.add(s) // new: sorted, so distinct
		st.surfaceTerms[i] = int32(t)
		prev = s
	}
	if r.err != nil || r.remaining() != 0 || len(strs) != 0 {
		return nil, errIndexFile
	}
	return st, nil
}
