package search

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
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
const indexVersion = 1

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
		f, size, err := statefile.Open(c.indexPath, maxIndexFile)
		if err != nil {
			return
		}
		defer f.Close()
		st, _ := readIndex(f, size, indexBuffer)
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
	if err := statefile.Write(c.indexPath, func(w io.Writer) error { _, err := w.Write(encodeIndex(p.ix, &p.key)); return err }); err != nil {
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
//	postings: count (all terms')
//	terms: count, then each: text length, posting count, then each posting:
//	  skill (the first as is, then less the previous one's + 1), field
//	  mask (1 byte), pseudo term frequency (float32, 4 bytes)
//	surfaces: count, then each (sorted): length, term
//
// A term's idf and the idf of unknown terms are computed from the posting
// counts, as build does.

// encodeIndex returns the index file's content for ix, whose key is key.
func encodeIndex(ix *Index, key *cacheKey) []byte {
	surfs := sortedSurfaces(ix)
	nstr, npost := 0, 0
	for t := range ix.terms {
		nstr += len(ix.vocab.key(int32(t)))
		npost += len(ix.terms[t].postings)
	}
	for _, s := range surfs {
		nstr += len(ix.surfaces.key(s))
	}
	b := make([]byte, indexHeaderLen, indexHeaderLen+len(key)+len(ix.docs)+nstr+7*npost+4*len(ix.terms)+4*len(surfs)+32)
	b = append(b, key[:]...)
	b = binary.AppendUvarint(b, uint64(len(ix.docs)))
	for _, d := range ix.docs {
		b = append(b, byte(d.lang))
	}
	var flags byte
	if ix.hasCJK {
		flags |= 1
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(nstr))
	for _, k := range ix.vocab.byID() {
		b = append(b, k...)
	}
	for _, s := range surfs {
		b = append(b, ix.surfaces.key(s)...)
	}
	b = binary.AppendUvarint(b, uint64(npost))
	b = binary.AppendUvarint(b, uint64(len(ix.terms)))
	for id, t := range ix.terms {
		b = binary.AppendUvarint(b, uint64(len(ix.vocab.key(int32(id)))))
		b = binary.AppendUvarint(b, uint64(len(t.postings)))
		next := int32(0)
		for i, p := range t.postings {
			b = binary.AppendUvarint(b, uint64(p.doc-next))
			b = append(b, t.fields[i])
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(p.tf))
			next = p.doc + 1
		}
	}
	b = binary.AppendUvarint(b, uint64(len(surfs)))
	for _, s := range surfs {
		b = binary.AppendUvarint(b, uint64(len(ix.surfaces.key(s))))
		b = binary.AppendUvarint(b, uint64(ix.surfaceTerms[s]))
	}

	// The header, over the room left for it at the start.
	appendFileHeader(b[:0], indexFormat, indexVersion, b[indexHeaderLen:])
	return b
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

// indexReader decodes the payload from a stream, through a buffer of its
// own, so that the file's bytes are never whole in memory; after the first
// error it reads zeros.
type indexReader struct {
	src io.Reader
	// buf[off:] has been read from src and not decoded yet.
	buf []byte
	off int
	// left is how many bytes of the payload src has not given yet.
	left uint64
	err  error
}

// remaining is how many bytes of the payload are left to decode.
func (r *indexReader) remaining() uint64 { return uint64(len(r.buf)-r.off) + r.left }

// fill makes n bytes (at most the buffer's capacity), or all those left
// when fewer, ready in the buffer.
func (r *indexReader) fill(n int) {
	if len(r.buf)-r.off >= n || r.left == 0 || r.err != nil {
		return
	}
	k := copy(r.buf[:cap(r.buf)], r.buf[r.off:])
	m := int(min(uint64(cap(r.buf)-k), r.left))
	got, err := io.ReadFull(r.src, r.buf[k:k+m])
	r.buf, r.off = r.buf[:k+got], 0
	r.left -= uint64(got)
	if err != nil {
		r.err = errIndexFile // shorter than its header says, or unreadable
	}
}

// uvarint reads a number, at most most.
func (r *indexReader) uvarint(most uint64) uint64 {
	r.fill(binary.MaxVarintLen64)
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.buf[r.off:])
	if n <= 0 || v > most {
		r.err = errIndexFile
		return 0
	}
	r.off += n
	return v
}

// read fills dst with the next len(dst) bytes.
func (r *indexReader) read(dst []byte) {
	if r.err != nil {
		return
	}
	if uint64(len(dst)) > r.remaining() {
		r.err = errIndexFile
		return
	}
	k := copy(dst, r.buf[r.off:])
	r.off += k
	if k < len(dst) {
		got, err := io.ReadFull(r.src, dst[k:])
		r.left -= uint64(got)
		if err != nil {
			r.err = errIndexFile
		}
	}
}

func (r *indexReader) byte() byte {
	r.fill(1)
	if r.err != nil || r.off == len(r.buf) {
		r.err = errIndexFile
		return 0
	}
	r.off++
	return r.buf[r.off-1]
}

// uint32 reads 4 bytes, little endian.
func (r *indexReader) uint32() uint32 {
	r.fill(4)
	if r.err != nil || len(r.buf)-r.off < 4 {
		r.err = errIndexFile
		return 0
	}
	r.off += 4
	return binary.LittleEndian.Uint32(r.buf[r.off-4:])
}

// indexBuffer is the size of readIndex's buffer when it reads a file.
const indexBuffer = 64 << 10

// decodeIndex decodes an index file's content (readIndex), through a
// small buffer: the tests and the fuzzer reach every refill.
func decodeIndex(data []byte) (*storedIndex, error) {
	return readIndex(bytes.NewReader(data), int64(len(data)), 16)
}

// readIndex reads and decodes an index file of size bytes from src with a
// buffer of bufSize bytes (16 at least), checking everything: the format,
// the version, the payload's length and checksum, every length and id
// against what is left and what it indexes (skills, terms), that posting
// lists are sorted by skill, that terms and surfaces are distinct, and that
// the file ends where the header says. Anything else is errIndexFile. The
// checksum is checked at the end, the rest as it reads: whatever it
// allocates is bounded by the size. What it returns shares no memory with
// its buffer: the strings are one block, the postings one slice.
func readIndex(src io.Reader, size int64, bufSize int) (*storedIndex, error) {
	var h [indexHeaderLen]byte
	if size < int64(indexHeaderLen) {
		return nil, errIndexFile
	}
	if _, err := io.ReadFull(src, h[:]); err != nil {
		return nil, errIndexFile
	}
	psize, sum, ok := parseFileHeader(h[:], indexFormat, indexVersion)
	if !ok || psize != uint64(size-int64(indexHeaderLen)) {
		return nil, errIndexFile
	}
	crc := crc32.New(castagnoli)
	r := &indexReader{src: io.TeeReader(src, crc), buf: make([]byte, 0, max(bufSize, 16)), left: uint64(size - int64(indexHeaderLen))}
	st, err := decodePayload(r)
	if err != nil {
		return nil, err
	}
	// Nothing after the payload (a file that grew), and the checksum of
	// all of it.
	var more [1]byte
	if _, err := io.ReadFull(src, more[:]); err != io.EOF || crc.Sum32() != sum {
		return nil, errIndexFile
	}
	return st, nil
}

// decodePayload decodes the payload from r (readIndex).
func decodePayload(r *indexReader) (*storedIndex, error) {
	st := &storedIndex{}
	r.read(st.key[:])
	ndocs := int(r.uvarint(min(r.remaining(), math.MaxInt32)))
	langs := make([]byte, ndocs)
	r.read(langs)
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
	blob := make([]byte, r.uvarint(r.remaining()))
	r.read(blob)
	var strs string
	if len(blob) > 0 {
		strs = unsafe.String(&blob[0], len(blob)) // never written again
	}
	// A posting takes 6 bytes at least, a term 2 (its lengths).
	npost := int(r.uvarint(r.remaining() / 6))
	nterms := int(r.uvarint(r.remaining() / 2))
	if r.err != nil {
		return nil, r.err
	}
	all, allFields := make([]posting, npost), make([]uint8, npost)
	st.terms = make([]termEntry, nterms)
	st.vocab = newStrTable(nterms)
	n := float64(ndocs)
	for t := range st.terms {
		e := &st.terms[t]
		l := int(r.uvarint(uint64(len(strs))))
		text := strs[:l]
		strs = strs[l:]
		df := int(r.uvarint(uint64(len(all))))
		e.postings, all = all[:df:df], all[df:]
		e.fields, allFields = allFields[:df:df], allFields[df:]
		next := uint64(0)
		for i := range e.postings {
			d := next + r.uvarint(uint64(ndocs))
			fields := r.byte()
			tf := r.uint32()
			if r.err != nil || d >= uint64(ndocs) || fields == 0 || fields >= 1<<numFields {
				return nil, errIndexFile
			}
			p := &e.postings[i]
			p.doc, e.fields[i] = int32(d), fields
			p.tf = math.Float32frombits(tf)
			if math.IsNaN(float64(p.tf)) || math.IsInf(float64(p.tf), 0) {
				return nil, errIndexFile
			}
			next = d + 1
		}
		if _, added := st.vocab.add(text); !added || r.err != nil {
			return nil, errIndexFile
		}
		e.idf = idf(float64(df), n)
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
