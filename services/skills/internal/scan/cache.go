package scan

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/skillsd/skillsd/services/skills/internal/statefile"
)

// engineVersion changes whenever the scanner's code finds differently (new
// checks, decoders, normalisation), so that results kept on disk by an older
// version are not reused.
const engineVersion = 1

// cacheFormat names the layout of the cache file. Format 1 was JSON lines,
// decoded by reflection: 3.5 ms of a warm start's CPU at 387 skills, in
// front of the search index's read (scanner, then search index, in one
// goroutine). Format 2 is the binary layout below.
const cacheFormat = "skillsd-scan-cache/2"

// cacheMagic opens every cache file.
const cacheMagic = cacheFormat + "\n"

// maxCacheFile bounds what is read back from the cache file.
const maxCacheFile = 256 << 20

// fingerprint identifies what a scan depends on besides the skill: the
// engine, the rule files and the scanned size.
func (s *Scanner) fingerprint(sources [][]byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "engine %d max %d\n", engineVersion, s.max)
	for _, src := range sources {
		fmt.Fprintf(h, "%d\n", len(src))
		h.Write(src)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Fingerprint identifies what a scan depends on besides the skill (the
// engine, the rule files, the scanned size): scanners with the same
// fingerprint find the same findings in the same skill.
func (s *Scanner) Fingerprint() string { return s.rulesPrint }

// cacheLoaded reads the cache file, once (Options.CacheFile).
func (s *Scanner) cacheLoaded() {
	if s.cacheFile != "" {
		s.cacheOnce.Do(s.loadCache)
	}
}

// Preload reads the cache file now if it was not read yet: a server calls
// it in the background, beside its first catalog build, so that the build
// does not wait for the file when it asks for the scans it holds.
func (s *Scanner) Preload() {
	if s != nil {
		s.cacheLoaded()
	}
}

// loadCache reads the scans kept by an earlier process with the same engine
// and rules. A missing, foreign or damaged file is ignored (everything is
// scanned again).
func (s *Scanner) loadCache() {
	data, err := statefile.Read(s.cacheFile, maxCacheFile)
	if err != nil {
		return
	}
	loaded, err := decodeCache(data, s.rulesPrint)
	if err != nil {
		return
	}
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	for k, v := range loaded {
		s.cache.putLocked(k, v)
	}
	s.cache.epoch++
}

// Flush writes the scans made since the last Flush to the cache file
// (Options.CacheFile), so that the next process does not scan unchanged
// skills again. It does nothing without a cache file or new scans. The file
// is replaced atomically and readable by its owner only.
func (s *Scanner) Flush() error {
	if s.cacheFile == "" {
		return nil
	}
	s.cacheLoaded()
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	c := &s.cache
	c.mu.Lock()
	if !c.dirty {
		c.mu.Unlock()
		return nil
	}
	entries := make(map[string][]Finding, len(c.young)+len(c.old))
	for k, v := range c.old {
		entries[k] = v
	}
	for k, v := range c.young {
		entries[k] = v
	}
	c.dirty = false
	c.mu.Unlock()

	data := encodeCache(s.rulesPrint, entries)
	err := statefile.Write(s.cacheFile, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return fmt.Errorf("scan cache: %w", err)
	}
	removeFormat1(s.cacheFile)
	return nil
}

// CacheFileName is the file name of the scan cache under a state folder.
func CacheFileName() string { return "scan-cache-" + strconv.Itoa(engineVersion) + ".bin" }

// removeFormat1 removes, beside file, the cache of format 1 (JSON lines,
// scan-cache-N.jsonl), which an upgrade would otherwise leave there: only
// when file has this package's name, so that its neighbours are ours.
func removeFormat1(file string) {
	if filepath.Base(file) != CacheFileName() {
		return
	}
	_ = os.Remove(strings.TrimSuffix(file, ".bin") + ".jsonl")
}

// The cache file, after cacheMagic: its payload, then the CRC-32C
// (Castagnoli) of the payload, 4 bytes little-endian. A damaged file is
// refused whole: a changed severity would change what is quarantined. In the
// payload every number is an unsigned varint and every string its length,
// then its bytes:
//
//	rules: the fingerprint of the engine and rules the scans were made with
//	entries: count, then each (sorted by key):
//	  key, then findings: count, then each:
//	    rule, severity (1 byte: Info..Critical), file, line, message
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errCacheFile is decodeCache's error for a file it does not take.
var errCacheFile = errors.New("scan cache: damaged or foreign file")

// encodeCache encodes entries, the scans made with the rules of fingerprint
// rules.
func encodeCache(rules string, entries map[string][]Finding) []byte {
	keys := slices.Sorted(maps.Keys(entries))
	b := []byte(cacheMagic)
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	str(rules)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		str(k)
		fs := entries[k]
		b = binary.AppendUvarint(b, uint64(len(fs)))
		for _, f := range fs {
			str(f.Rule)
			b = append(b, byte(f.Severity))
			str(f.File)
			b = binary.AppendUvarint(b, uint64(max(f.Line, 0)))
			str(f.Message)
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[len(cacheMagic):], castagnoli))
}

// decodeCache decodes a cache file whose scans were made with the rules of
// fingerprint rules; errCacheFile when it is damaged, of another format or
// of other rules. The strings are parts of one copy of data.
func decodeCache(data []byte, rules string) (map[string][]Finding, error) {
	body, ok := bytes.CutPrefix(data, []byte(cacheMagic))
	if !ok || len(body) < 4 {
		return nil, errCacheFile
	}
	payload, sum := body[:len(body)-4], binary.LittleEndian.Uint32(body[len(body)-4:])
	if crc32.Checksum(payload, castagnoli) != sum {
		return nil, errCacheFile
	}
	d := cacheDecoder{rest: string(payload)}
	if d.str() != rules {
		return nil, errCacheFile
	}
	// An entry takes 2 bytes at least (an empty key, no findings), a
	// finding 5.
	n := d.count(2)
	out := make(map[string][]Finding, n)
	for range n {
		key := d.str()
		var fs []Finding
		if m := d.count(5); m > 0 {
			fs = make([]Finding, m)
		}
		for i := range fs {
			f := &fs[i]
			f.Rule = d.str()
			f.Severity = Severity(d.byte())
			f.File = d.str()
			f.Line = int(d.uvarint(math.MaxInt32))
			f.Message = d.str()
			if f.Severity < Info || f.Severity > Critical {
				d.bad = true
			}
		}
		if d.bad {
			return nil, errCacheFile
		}
		if fs == nil {
			fs = []Finding{} // none: cached as found, not as unknown
		}
		out[key] = fs
	}
	if d.bad || d.rest != "" {
		return nil, errCacheFile
	}
	return out, nil
}

// cacheDecoder reads the payload of a cache file; bad is set, and zero
// values are read, once anything is out of bounds.
type cacheDecoder struct {
	rest string
	bad  bool
}

// uvarint reads a number of at most limit.
func (d *cacheDecoder) uvarint(limit uint64) uint64 {
	var v uint64
	for i := 0; i < len(d.rest) && i < binary.MaxVarintLen64; i++ {
		c := d.rest[i]
		if i == binary.MaxVarintLen64-1 && c > 1 {
			break // more than 64 bits
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			if v > limit {
				break
			}
			d.rest = d.rest[i+1:]
			return v
		}
	}
	d.bad = true
	d.rest = ""
	return 0
}

// count reads a count of items that take at least size bytes each (those
// left after the count itself: refused beyond them).
func (d *cacheDecoder) count(size int) int {
	n := d.uvarint(uint64(len(d.rest) / size))
	if n > uint64(len(d.rest)/size) {
		d.bad, d.rest = true, ""
		return 0
	}
	return int(n)
}

func (d *cacheDecoder) str() string {
	n := d.uvarint(uint64(len(d.rest)))
	if n > uint64(len(d.rest)) { // the bytes left after the length
		d.bad, d.rest = true, ""
		return ""
	}
	s := d.rest[:n]
	d.rest = d.rest[n:]
	return s
}

func (d *cacheDecoder) byte() byte {
	if d.rest == "" {
		d.bad = true
		return 0
	}
	b := d.rest[0]
	d.rest = d.rest[1:]
	return b
}
