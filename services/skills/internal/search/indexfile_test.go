package search

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/skill"
	"github.com/skillsd/skillsd/services/skills/internal/testfs"
)

// openStored opens the analysis cache and index file of dir.
func openStored(dir string) *AnalysisCache {
	return OpenAnalysisCache(filepath.Join(dir, CacheFileName())).WithIndexFile(filepath.Join(dir, IndexFileName()))
}

// storeIndex builds the index of skills with a cache of dir and saves it
// (the analyses and the index file).
func storeIndex(t testing.TB, dir string, skills []*catalog.Skill, opts Options) *Index {
	t.Helper()
	opts.Cache = openStored(dir)
	ix := New(skills, opts)
	if ix.stored {
		t.Fatal("the index of an empty state folder was read from a file")
	}
	if err := opts.Cache.Save(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, IndexFileName())); err != nil {
		t.Fatalf("no index file saved: %v", err)
	}
	return ix
}

// matchers compares the ranked matcher's decisions over a and b.
func sameDecisions(t *testing.T, skills []*catalog.Skill, a, b *Index, queries []string) {
	t.Helper()
	ma := NewMatcher(skills, MatcherOptions{Strategy: StrategyRanked, Index: a})
	mb := NewMatcher(skills, MatcherOptions{Strategy: StrategyRanked, Index: b})
	for _, q := range queries {
		if want, got := ma.Match(q, "a restated "+q), mb.Match(q, "a restated "+q); !reflect.DeepEqual(got, want) {
			t.Errorf("match %q: %+v, want %+v", q, got, want)
		}
	}
}

// TestIndexFileSameIndex stores the index of a catalog, then reads it back
// in a new cache: the index read is the index built (every field, the typo
// index made from it) and answers every query alike, ranked, restated,
// all-terms and matched; a build of other skills over the same cache, after
// it, is the index built without a cache.
func TestIndexFileSameIndex(t *testing.T) {
	for _, c := range indexCorpora() {
		for _, workers := range c.workers {
			t.Run(fmt.Sprintf("%s/workers=%d", c.name, workers), func(t *testing.T) {
				skills := c.skills(t)
				queries := c.queries(t)
				want := New(skills, Options{Workers: workers})
				dir := t.TempDir()
				storeIndex(t, dir, skills, Options{Workers: workers})

				opts := Options{Workers: workers, Cache: openStored(dir)}
				opts.Cache.Preload()
				got := New(skills, opts)
				if !got.stored {
					t.Fatal("the index was built again, not read from its file")
				}
				sameIndex(t, want, got)
				if got.langs != want.langs || got.threshold != want.threshold || got.cutRatio != want.cutRatio {
					t.Errorf("langs %b threshold %v cut %v, want %b %v %v", got.langs, got.threshold, got.cutRatio, want.langs, want.threshold, want.cutRatio)
				}
				sameAnswers(t, want, got, queries, true)
				for _, q := range queries[:min(len(queries), 40)] {
					query := Query{Text: q, Restated: []string{"tests " + q}, Limit: 5}
					if a, b := want.Search(query), got.Search(query); !reflect.DeepEqual(a, b) {
						t.Errorf("%+v:\n got %s\nwant %s", query, hitsString(b), hitsString(a))
					}
				}
				sameDecisions(t, skills, want, got, queries[:min(len(queries), 40)])

				// The cache still has every analysis: a build of changed
				// skills after it replays the others.
				changed := edited(skills, 0, appendBody("\n\nAlso: réseau kubernetes playwright 不安定.\n"))
				if n, want := opts.Cache.Len(), OpenAnalysisCache(filepath.Join(dir, CacheFileName())).Len(); n != want || n == 0 {
					t.Fatalf("after reading the index the cache has %d analyses, want %d", n, want)
				}
				again := New(changed, opts)
				if again.stored {
					t.Fatal("the index file was used for other skills")
				}
				sameIndex(t, New(changed, Options{Workers: workers}), again)
			})
		}
	}
}

// TestIndexFileUnusedReleased: an index file for other skills is not
// adopted, and its mapping is undone; a damaged one too; an adopted one
// stays mapped (its postings are used where they lie).
func TestIndexFileUnusedReleased(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files are mapped on Linux only")
	}
	skills := cacheFixture()
	dir := t.TempDir()
	path := filepath.Join(dir, IndexFileName())
	storeIndex(t, dir, skills, Options{})
	if ix := New(skills[1:], Options{Cache: openStored(dir)}); ix.stored {
		t.Fatal("another catalog's index was adopted")
	}
	if testfs.Mapped(t, path) {
		t.Error("an index not adopted stays mapped")
	}
	if ix := New(skills, Options{Cache: openStored(dir)}); !ix.stored {
		t.Fatal("the index was not adopted")
	}
	if !testfs.Mapped(t, path) {
		t.Error("an adopted index is not mapped")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	damaged := filepath.Join(t.TempDir(), IndexFileName())
	if err := os.WriteFile(damaged, data[:len(data)-1], 0o600); err != nil {
		t.Fatal(err)
	}
	c := OpenAnalysisCache(filepath.Join(filepath.Dir(damaged), CacheFileName())).WithIndexFile(damaged)
	if c.takeIndex() != nil || testfs.Mapped(t, damaged) {
		t.Error("a damaged index file was decoded, or stays mapped")
	}
}

// TestIndexFileFollowsItsInputs checks that the index file is used only
// for the same skills, in the same order, with the same settings: a
// changed, added, removed or moved skill, other stop words or other ranking
// parameters build the index again; the abstention threshold and the cut,
// which the build does not read, do not.
func TestIndexFileFollowsItsInputs(t *testing.T) {
	skills := cacheFixture()
	dir := t.TempDir()
	storeIndex(t, dir, skills, Options{})
	body := edited(skills, 2, appendBody(" one more word"))
	last := edited(skills, len(skills)-1, func(sk *catalog.Skill, _ *skill.Document) { sk.Description += " And tables." })
	renamed := edited(skills, 1, func(sk *catalog.Skill, _ *skill.Document) { sk.Description += "." })
	moved := slices.Clone(skills)
	moved[0], moved[1] = moved[1], moved[0]
	tune := defaultTuning
	tune.k1 = 1.5
	tuneB := defaultTuning
	tuneB.weight[fieldCode] = 0.3
	cases := []struct {
		name   string
		skills []*catalog.Skill
		opts   Options
		stored bool
	}{
		{"same", skills, Options{}, true},
		{"threshold and cut", skills, Options{Threshold: 0.5, CutRatio: 0.4, Workers: 1}, true},
		{"edited body", body, Options{}, false},
		{"edited description", renamed, Options{}, false},
		{"edited last", last, Options{}, false},
		{"added", append(slices.Clone(skills), rankSkill("more", "One more skill.", "Body.")), Options{}, false},
		{"removed", skills[1:], Options{}, false},
		{"removed last", skills[:len(skills)-1], Options{}, false},
		{"moved", moved, Options{}, false},
		{"stop words", skills, Options{StopWords: []string{"cluster"}}, false},
		{"k1", skills, Options{tune: &tune}, false},
		{"weight", skills, Options{tune: &tuneB}, false},
	}
	base, err := os.ReadFile(filepath.Join(dir, IndexFileName()))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		// The analysis cache knows every skill of the case: only the
		// index file's key can tell the indexes apart.
		d := t.TempDir()
		opts := c.opts
		opts.Cache = openStored(d)
		New(c.skills, opts)
		if err := opts.Cache.Save(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, IndexFileName()), base, 0o600); err != nil {
			t.Fatal(err)
		}
		opts.Cache = openStored(d)
		got := New(c.skills, opts)
		if got.stored != c.stored {
			t.Errorf("%s: read from the file %v, want %v", c.name, got.stored, c.stored)
		}
		opts.Cache = nil
		sameIndex(t, New(c.skills, opts), got)
	}
	// The file is read by the first build of a cache only.
	c := openStored(dir)
	if !New(skills, Options{Cache: c}).stored {
		t.Fatal("the file was not read")
	}
	if New(skills, Options{Cache: c}).stored {
		t.Error("the second build of a cache read the file again")
	}
}

// TestIndexFileWithoutTheAnalyses checks that a first build that takes the
// stored index does not read the analyses (Preload does not either), and
// that a later build reads them then: it replays the unchanged skills. With
// the analysis file lost, the index file is still used, and the next build
// analyses every skill again, as a build without a cache does.
func TestIndexFileWithoutTheAnalyses(t *testing.T) {
	skills := cacheFixture()
	changed := edited(skills, 1, appendBody("\n\nAlso: kubernetes playwright.\n"))
	loaded := func(c *AnalysisCache) bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.m != nil
	}
	for _, lost := range []bool{false, true} {
		dir := t.TempDir()
		storeIndex(t, dir, skills, Options{})
		if lost {
			if err := os.Remove(filepath.Join(dir, CacheFileName())); err != nil {
				t.Fatal(err)
			}
		}
		c := openStored(dir)
		c.Preload()
		c.mu.Lock()
		read := c.stored != nil
		c.mu.Unlock()
		if !read {
			t.Fatalf("lost=%v: Preload returned before the index file was read", lost)
		}
		if !New(skills, Options{Cache: c}).stored {
			t.Fatalf("lost=%v: the index file was not used", lost)
		}
		if loaded(c) {
			t.Errorf("lost=%v: the analyses were read for a build that took the stored index", lost)
		}
		again := New(changed, Options{Cache: c})
		if again.stored {
			t.Fatalf("lost=%v: the index file was used for other skills", lost)
		}
		sameIndex(t, New(changed, Options{}), again)
		if n := c.Len(); n != again.Len() {
			t.Errorf("lost=%v: the cache has %d analyses after the next build, want %d", lost, n, again.Len())
		}
	}
}

// TestIndexFileSaves checks when Save writes the index file: after a build
// (the last of several), not again for the index the file holds.
func TestIndexFileSaves(t *testing.T) {
	skills := cacheFixture()
	dir := t.TempDir()
	path := filepath.Join(dir, IndexFileName())
	c := openStored(dir)
	New(skills, Options{Cache: c})
	New(skills[1:], Options{Cache: c})
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if !New(skills[1:], Options{Cache: openStored(dir)}).stored {
		t.Fatal("the file does not hold the last build's index")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	New(skills[1:], Options{Cache: c}) // the index the file held
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("the same index was written again")
	}
	New(skills, Options{Cache: c})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if !New(skills, Options{Cache: openStored(dir)}).stored {
		t.Error("Close did not write the last index")
	}
}

// TestRouterKeepsTheIndex: a Router whose cache has an index file saves
// its first index in the background; the Router of the next start reads
// it.
func TestRouterKeepsTheIndex(t *testing.T) {
	store := routerStore(t)
	dir := t.TempDir()
	first := openStored(dir)
	q := Query{Text: "fill a pdf form"}
	rt := NewRouter(RouterOptions{Store: store, Cache: first}).Routes(t.Context())
	if rt.Index.stored {
		t.Fatal("the first index was read from a file")
	}
	want := rt.Search(t.Context(), q)
	first.saving.Wait()
	if _, err := os.Stat(filepath.Join(dir, IndexFileName())); err != nil {
		t.Fatalf("the Router did not save the index: %v", err)
	}
	next := openStored(dir)
	next.Preload()
	rt = NewRouter(RouterOptions{Store: store, Cache: next}).Routes(t.Context())
	if !rt.Index.stored {
		t.Fatal("the next start built its index again")
	}
	if got := rt.Search(t.Context(), q); !reflect.DeepEqual(got, want) || len(got) == 0 {
		t.Errorf("with the stored index: %s, want %s", hitsString(got), hitsString(want))
	}
}

// indexWithHeader returns payload behind a good index file header.
func indexWithHeader(payload []byte) []byte {
	out := append([]byte(indexFormat), make([]byte, 16)...)
	binary.LittleEndian.PutUint32(out[len(indexFormat):], indexVersion)
	binary.LittleEndian.PutUint64(out[len(indexFormat)+4:], uint64(len(payload)))
	binary.LittleEndian.PutUint32(out[len(indexFormat)+12:], crc32.Checksum(payload, castagnoli))
	return append(out, payload...)
}

// smallIndex is the index of a few skills of the fixture, and its file.
func smallIndex(t testing.TB) ([]*catalog.Skill, *Index, []byte) {
	skills := cacheFixture()
	skills = []*catalog.Skill{skills[0], skills[len(skills)-4], skills[len(skills)-1]} // English, Japanese, no body
	ix := New(skills, Options{Workers: 1})
	key := cacheKey{1, 2, 3}
	return skills, ix, encodeIndex(ix, &key)
}

// TestIndexFileNotTrusted: a damaged, foreign, truncated or lying file
// decodes to an error, never a panic: every truncation of a small file's
// payload (checksum fixed up), every single bit flip (with and without the
// checksum fixed up), a wrong version, huge counts.
func TestIndexFileNotTrusted(t *testing.T) {
	_, ix, good := smallIndex(t)
	st, err := decodeIndex(good)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.terms, ix.terms) || !maps.Equal(surfaceMap(st.surfaces, st.surfaceTerms), surfaceMap(ix.surfaces, ix.surfaceTerms)) || !maps.Equal(st.vocab.asMap(), ix.vocab.asMap()) {
		t.Fatal("the good file decodes to another index")
	}
	// The postings, field masks and strings are the file's own bytes (it
	// is mapped: nothing to copy), where this machine lays postings out as
	// the file does; elsewhere, or misaligned, the postings are decoded.
	within := func(p unsafe.Pointer, data []byte) bool {
		at := uintptr(p)
		return at >= uintptr(unsafe.Pointer(&data[0])) && at < uintptr(unsafe.Pointer(&data[0]))+uintptr(len(data))
	}
	var e *termEntry
	for i := range st.terms {
		if len(st.terms[i].postings) > 0 {
			e = &st.terms[i]
			break
		}
	}
	if e == nil {
		t.Fatal("no term has postings")
	}
	if nativeLittleEndian && !within(unsafe.Pointer(&e.postings[0]), good) {
		t.Error("the postings were copied, not used where they lie")
	}
	if !within(unsafe.Pointer(&e.fields[0]), good) || !within(unsafe.Pointer(unsafe.StringData(st.vocab.key(0))), good) {
		t.Error("the field masks or the strings were copied")
	}
	if cap(e.postings) != len(e.postings) || cap(e.fields) != len(e.fields) {
		t.Error("a term's postings can be appended to in place")
	}
	// Misaligned (a copy one byte in): the same index, its postings decoded.
	shifted := append(make([]byte, 1, len(good)+1), good...)[1:]
	if got, err := decodeIndex(shifted); err != nil || !reflect.DeepEqual(got.terms, st.terms) {
		t.Errorf("misaligned: %v", err)
	}
	if got := postingsIn([]byte{1, 0, 0, 0, 0, 0, 0x80, 0x3f}); !reflect.DeepEqual(got, []posting{{doc: 1, tf: 1}}) {
		t.Errorf("postingsIn = %+v", got)
	}
	if got := postingsIn(append(make([]byte, 1, 9), 1, 0, 0, 0, 0, 0, 0x80, 0x3f)[1:]); !reflect.DeepEqual(got, []posting{{doc: 1, tf: 1}}) {
		t.Errorf("postingsIn, misaligned = %+v", got)
	}
	payload := good[indexHeaderLen:]
	for n := range len(payload) {
		if _, err := decodeIndex(indexWithHeader(payload[:n])); err == nil {
			t.Errorf("the payload cut at %d of %d bytes is trusted", n, len(payload))
		}
		if _, err := decodeIndex(good[:indexHeaderLen+n]); err == nil {
			t.Errorf("the file cut at %d bytes is trusted", indexHeaderLen+n)
		}
	}
	accepted := 0
	for i := range len(good) * 8 {
		b := slices.Clone(good)
		b[i/8] ^= 1 << (i % 8)
		if _, err := decodeIndex(b); err == nil {
			t.Errorf("bit %d flipped is trusted", i)
		}
		if i/8 < indexHeaderLen {
			continue
		}
		// The checksum fixed up: some flips still make a consistent index
		// (another tf, another key), never a panic nor an inconsistent one.
		if st, err := decodeIndex(indexWithHeader(b[indexHeaderLen:])); err == nil {
			accepted++
			checkStored(t, st)
		}
	}
	t.Logf("%d of %d bit flips behind a good checksum decode", accepted, len(good)*8)
	version := slices.Clone(good)
	binary.LittleEndian.PutUint32(version[len(indexFormat):], indexVersion+1)
	huge := binary.AppendUvarint(append([]byte{}, payload[:32]...), math.MaxUint64>>1)
	cases := map[string][]byte{
		"empty":          {},
		"analysis cache": withHeader([]byte{0, 0}),
		"version":        version,
		"trailing":       indexWithHeader(append(slices.Clone(payload), 0)),
		"huge skills":    indexWithHeader(huge),
		"huge strings":   indexWithHeader(append(binary.AppendUvarint(append([]byte{}, payload[:32]...), 0), 0, 0xff, 0xff, 0xff, 0xff, 0x0f)),
	}
	for name, data := range cases {
		if _, err := decodeIndex(data); err == nil {
			t.Errorf("%s: trusted", name)
		}
	}

	// Through a cache: a damaged file costs a build, nothing else.
	skills := cacheFixture()
	dir := t.TempDir()
	storeIndex(t, dir, skills, Options{})
	path := filepath.Join(dir, IndexFileName())
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := New(skills, Options{})
	for name, bad := range map[string][]byte{
		"truncated": data[:len(data)-1],
		"flipped":   append(slices.Clone(data[:len(data)/2]), append([]byte{data[len(data)/2] ^ 4}, data[len(data)/2+1:]...)...),
		"garbage":   []byte("not an index"),
	} {
		if err := os.WriteFile(path, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		got := New(skills, Options{Cache: openStored(dir)})
		if got.stored {
			t.Errorf("%s: the file was used", name)
		}
		sameIndex(t, want, got)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, maxIndexFile+1); err != nil {
		t.Fatal(err)
	}
	if New(skills, Options{Cache: openStored(dir)}).stored {
		t.Error("oversized: the file was used")
	}
}

// checkStored fails t unless st is consistent: every id in range, postings
// sorted by skill, the vocabulary the terms'.
func checkStored(t *testing.T, st *storedIndex) {
	t.Helper()
	for _, l := range st.langs {
		if l >= numLangs {
			t.Fatalf("language %d", l)
		}
	}
	if st.vocab.len() != len(st.terms) {
		t.Fatalf("%d words for %d terms", st.vocab.len(), len(st.terms))
	}
	for id, e := range st.terms {
		text := st.vocab.key(int32(id))
		if got, _ := st.vocab.id(text); got != int32(id) {
			t.Fatalf("term %d %q is %d in the vocabulary", id, text, got)
		}
		if len(e.fields) != len(e.postings) {
			t.Fatalf("term %q: %d postings, %d field sets", text, len(e.postings), len(e.fields))
		}
		for i, p := range e.postings {
			if p.doc < 0 || int(p.doc) >= len(st.langs) || i > 0 && p.doc <= e.postings[i-1].doc || e.fields[i] == 0 || e.fields[i] >= 1<<numFields {
				t.Fatalf("term %q posting %d: %+v (fields %#x) of %d skills", text, i, p, e.fields[i], len(st.langs))
			}
		}
	}
	for s, id := range surfaceMap(st.surfaces, st.surfaceTerms) {
		if id < 0 || int(id) >= len(st.terms) {
			t.Fatalf("surface %q: term %d of %d", s, id, len(st.terms))
		}
	}
}

// FuzzDecodeIndexFile feeds arbitrary bytes to the index file's decoder,
// with a small good file and its parts as seeds (the checksum fixed up, so
// that the fuzzer reaches the payload). It must never panic; what it accepts
// must be consistent, encode back to the same index, and answer queries
// over as many skills without a panic.
func FuzzDecodeIndexFile(f *testing.F) {
	skills, _, good := smallIndex(f)
	f.Add(good[indexHeaderLen:], true)
	f.Add(good[indexHeaderLen:len(good)/2], true)
	f.Add(good, false)
	f.Add([]byte{}, true)
	f.Add(make([]byte, 40), true)
	f.Fuzz(func(t *testing.T, data []byte, payload bool) {
		if payload {
			data = indexWithHeader(data)
		}
		st, err := decodeIndex(data)
		if err != nil {
			return
		}
		checkStored(t, st)
		if len(st.langs) > 64 {
			return
		}
		docs := make([]*catalog.Skill, len(st.langs))
		for i := range docs {
			docs[i] = skills[i%len(skills)]
		}
		ix := &Index{tune: defaultTuning, stops: newStopSet(nil), threshold: -1, cutRatio: DefaultCutRatio}
		for _, sk := range docs {
			ix.docs = append(ix.docs, doc{skill: sk})
		}
		if !ix.adopt(st, &st.key) {
			t.Fatal("not adopted")
		}
		ix.qpool.New = func() any { return newScratch(len(docs)) }
		again, err := decodeIndex(encodeIndex(ix, &st.key))
		if err != nil || !reflect.DeepEqual(again, st) {
			t.Fatalf("re-encoded: %v", err)
		}
		for _, q := range []string{"pdf forms", "pdfform", "不安定なテスト", "kuberentes network"} {
			ix.Search(Query{Text: q})
		}
	})
}

// TestSpellings checks the table of spellings against the surfaces it is
// made from, for a built and a stored index: each term's forms are the
// surfaces of that term, every surface is some term's form, and a term out
// of range has none.
func TestSpellings(t *testing.T) {
	skills := corpusSkills(t)
	dir := t.TempDir()
	built := storeIndex(t, dir, skills, Options{})
	stored := New(skills, Options{Cache: openStored(dir)})
	if !stored.stored {
		t.Fatal("the index was built again, not read from its file")
	}
	for name, ix := range map[string]*Index{"built": built, "stored": stored} {
		ix.spellingsOf(nil)
		want := map[int32][]string{}
		surfaces := surfaceMap(ix.surfaces, ix.surfaceTerms)
		for s, term := range surfaces {
			want[term] = append(want[term], s)
		}
		n := 0
		for term := range int32(len(ix.terms)) {
			got := slices.Sorted(slices.Values(ix.spellings.of(term)))
			w := slices.Sorted(slices.Values(want[term]))
			if !slices.Equal(got, w) {
				t.Fatalf("%s: term %d (%s): spellings %q, want %q", name, term, ix.vocab.key(term), got, w)
			}
			n += len(got)
		}
		if n != len(surfaces) {
			t.Errorf("%s: %d spellings, want %d", name, n, len(surfaces))
		}
		for _, term := range []int32{-1, int32(len(ix.terms)), 1 << 30} {
			if f := ix.spellings.of(term); f != nil {
				t.Errorf("%s: spellings of term %d: %q, want none", name, term, f)
			}
		}
	}
}
