package search

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/skill"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

// cacheFixture is rankFixture with skills in other languages and scripts,
// words that fold to the same surface, a word two languages stem apart, a
// long word, and a skill with no body: everything whose analysis the cache
// must keep exactly.
func cacheFixture() []*catalog.Skill {
	skills := rankFixture()
	// "politiques" is stemmed one way here and another in French below:
	// the first skill that has it decides its term.
	en := rankSkill("policies-en", "Write the network policies for the cluster and check them.",
		"# Policies\n\nThe politiques of the cluster are in the repository.\n")
	fr := rankSkill("reseau-fr", "Isoler le réseau des conteneurs avec des politiques réseau.",
		"# Réseau\n\nLe reseau et le Réseau sont isolés; on isole les conteneurs.\n")
	fr.Doc.Frontmatter.Keywords = []string{"réseau", "Conteneurs"}
	ja := rankSkill("flaky-ja", "不安定なテストを直す", "# テスト\n\n不安定なテストを直します。ﾃｽﾄ pdf\n")
	de := rankSkill("strasse", "Die Straße und die Strasse für Straßenkarten.", "Karten über Straßen.\n")
	long := rankSkill("digest", "Check a sha digest.", "digest "+string(slices.Repeat([]byte("ab"), 40))+" 12345 c++ c# f#\n")
	empty := rankSkill("empty", "Nothing but a description of pdf forms.", "")
	return append(skills, en, fr, ja, de, long, empty)
}

// cacheQueries are queries over cacheFixture: words, typos, split words,
// other languages, bigrams.
var cacheQueries = []string{
	"pdf forms", "fill a pdf form", "kubernetes network policy", "flaky playwright tests", "git worktree",
	"kuberentes", "playwrigth", "worktreees", "pdfforms", "réseau isolé", "isoler le reseau", "不安定なテスト",
	"Straße karten", "strasse", "digest", "c++", "word documents tracked changes", "e2e testing",
}

// sameIndex fails t unless a and b hold the same skills, terms, postings,
// surfaces and statistics.
func sameIndex(t *testing.T, a, b *Index) {
	t.Helper()
	if len(a.docs) != len(b.docs) {
		t.Fatalf("%d skills, want %d", len(b.docs), len(a.docs))
	}
	for i := range a.docs {
		if a.docs[i] != b.docs[i] {
			t.Errorf("doc %d: %+v, want %+v", i, b.docs[i], a.docs[i])
		}
	}
	if !reflect.DeepEqual(a.terms, b.terms) {
		if len(a.terms) != len(b.terms) {
			t.Errorf("%d terms, want %d", len(b.terms), len(a.terms))
		}
		for i := range min(len(a.terms), len(b.terms)) {
			if !reflect.DeepEqual(a.terms[i], b.terms[i]) {
				t.Errorf("term %d: %+v, want %+v", i, b.terms[i], a.terms[i])
				break
			}
		}
	}
	if !maps.Equal(a.vocab.asMap(), b.vocab.asMap()) {
		t.Error("vocabularies differ")
	}
	if as, bs := surfaceMap(a.surfaces, a.surfaceTerms), surfaceMap(b.surfaces, b.surfaceTerms); !maps.Equal(as, bs) {
		for s, id := range as {
			if got, ok := bs[s]; !ok || got != id {
				t.Errorf("surface %q: term %d (%v), want %d", s, got, ok, id)
			}
		}
		t.Errorf("%d surfaces, want %d", len(bs), len(as))
	}
	if a.langs != b.langs || a.hasCJK != b.hasCJK || a.unknownIDF != b.unknownIDF {
		t.Errorf("langs %b cjk %v unknown idf %v, want %b %v %v", b.langs, b.hasCJK, b.unknownIDF, a.langs, a.hasCJK, a.unknownIDF)
	}
	if !reflect.DeepEqual(a.typoIndex(), b.typoIndex()) {
		t.Error("typo indexes differ")
	}
}

// sameAnswers fails t unless a and b answer the queries alike: the same
// hits, scores, matched words and excerpts, ranked (and all-terms, which
// does not read the analysis, with allTerms).
func sameAnswers(t *testing.T, a, b *Index, queries []string, allTerms bool) {
	t.Helper()
	for _, q := range queries {
		queries := []Query{{Text: q, Limit: 10}}
		if allTerms {
			queries = append(queries, Query{Text: q, Limit: 10, AllTerms: true})
		}
		for _, query := range queries {
			want, got := a.Search(query), b.Search(query)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%+v:\n got %s\nwant %s", query, hitsString(got), hitsString(want))
			}
		}
	}
}

func hitsString(hits []Hit) string {
	s := ""
	for _, h := range hits {
		s += fmt.Sprintf("%s %.6f %v; ", h.Skill.Name, h.Score, h.Matched)
	}
	return s
}

// TestCacheSameIndex builds indexes without a cache, with a cold one, with
// one read back from its file (every skill reused), and with one that knows
// only some of the skills; they must all be the same index.
func TestCacheSameIndex(t *testing.T) {
	for _, c := range indexCorpora() {
		for _, workers := range c.workers {
			t.Run(fmt.Sprintf("%s/workers=%d", c.name, workers), func(t *testing.T) {
				skills := c.skills(t)
				queries := c.queries(t)
				opts := Options{Workers: workers}
				want := New(skills, opts)

				path := filepath.Join(t.TempDir(), CacheFileName())
				opts.Cache = OpenAnalysisCache(path)
				if n := opts.Cache.Len(); n != 0 {
					t.Fatalf("a missing file gives %d analyses", n)
				}
				cold := New(skills, opts)
				sameIndex(t, want, cold)
				if err := opts.Cache.Save(); err != nil {
					t.Fatal(err)
				}

				opts.Cache = OpenAnalysisCache(path)
				if n := opts.Cache.Len(); n != want.Len() {
					t.Fatalf("the file gives %d analyses, want %d", n, want.Len())
				}
				warm := New(skills, opts)
				sameIndex(t, want, warm)
				sameAnswers(t, want, warm, queries, c.name == "fixture")

				// Every third skill changed, and the order changed: the
				// others come from the cache.
				changed := slices.Clone(skills)
				slices.Reverse(changed)
				for i := 0; i < len(changed); i += 3 {
					doc := *changed[i].Doc
					doc.Body += "\n\nAlso: réseau kubernetes playwright 不安定.\n"
					changed[i] = changed[i].WithDoc(&doc)
				}
				want = New(changed, Options{Workers: workers})
				partial := New(changed, opts)
				sameIndex(t, want, partial)
				sameAnswers(t, want, partial, queries, c.name == "fixture")
			})
		}
	}
}

// TestCacheKeysFollowTheirInputs checks that an analysis is reused only
// for the same text and settings: stop words and the analysis switches
// change every key, a skill's text changes its own.
func TestCacheKeysFollowTheirInputs(t *testing.T) {
	skills := cacheFixture()
	c := OpenAnalysisCache("")
	New(skills, Options{Cache: c})
	first := maps.Clone(c.entries())
	if n := New(skills, Options{}).Len(); len(first) != n {
		t.Fatalf("%d analyses, want %d", len(first), n)
	}

	New(skills, Options{Cache: c, StopWords: []string{"pdf"}})
	for k := range c.entries() {
		if _, ok := first[k]; ok {
			t.Error("an analysis is reused with other stop words")
		}
	}
	tune := defaultTuning
	tune.analysis.stem = false
	New(skills, Options{Cache: c, tune: &tune})
	for k := range c.entries() {
		if _, ok := first[k]; ok {
			t.Error("an analysis is reused with another analysis")
		}
	}

	config := (&Index{tune: defaultTuning, stops: newStopSet(nil)}).configKey("")
	base := docKey(&config, skills[0])
	edits := map[string]func(sk *catalog.Skill, doc *skill.Document){
		"name":        func(sk *catalog.Skill, _ *skill.Document) { sk.Name += "x" },
		"description": func(sk *catalog.Skill, _ *skill.Document) { sk.Description += "x" },
		"body":        func(_ *catalog.Skill, d *skill.Document) { d.Body += "x" },
		"keywords":    func(_ *catalog.Skill, d *skill.Document) { d.Frontmatter.Keywords = []string{"x"} },
		"tags": func(_ *catalog.Skill, d *skill.Document) {
			d.Frontmatter.Tags = append(slices.Clone(d.Frontmatter.Tags), "x")
		},
		"category": func(_ *catalog.Skill, d *skill.Document) { d.Frontmatter.Category += "x" },
		"tag to keyword": func(_ *catalog.Skill, d *skill.Document) {
			d.Frontmatter.Keywords, d.Frontmatter.Tags = d.Frontmatter.Tags, nil
		},
	}
	for name, edit := range edits {
		sk := *skills[0]
		doc := *sk.Doc
		edit(&sk, &doc)
		sk.Doc = &doc
		if docKey(&config, &sk) == base {
			t.Errorf("changing the %s keeps the key", name)
		}
	}
	sk := *skills[0]
	sk.Path = "elsewhere"
	if docKey(&config, &sk) != base {
		t.Error("the key depends on the path, which the analysis does not read")
	}
}

// TestCacheKnownKeys checks that a build takes the key of a skill whose
// document the last build indexed from that build only when nothing else
// the key reads changed: the name and description (a catalog can give a new
// name to the same document, from its folder) and the settings.
func TestCacheKnownKeys(t *testing.T) {
	skills := cacheFixture()
	c := OpenAnalysisCache("")
	New(skills, Options{Cache: c})
	renamed := slices.Clone(skills)
	for i := 0; i < len(renamed); i += 2 {
		sk := *renamed[i] // the same document
		if i%4 == 0 {
			sk.Name += "-renamed"
		} else {
			sk.Description += " Also renamed."
		}
		renamed[i] = &sk
	}
	for _, opts := range []Options{{Cache: c}, {Cache: c, StopWords: []string{"pdf"}}} {
		ix := New(renamed, opts)
		config := ix.configKey("")
		want := map[cacheKey]bool{}
		for _, sk := range renamed {
			if sk.Routable {
				want[docKey(&config, sk)] = true
			}
		}
		got := map[cacheKey]bool{}
		for k := range c.entries() {
			got[k] = true
		}
		if !maps.Equal(got, want) {
			t.Errorf("stop words %v: the build kept %d keys, %d of them stale; want %d", opts.StopWords, len(got), len(got)-countIn(got, want), len(want))
		}
		sameIndex(t, New(renamed, Options{StopWords: opts.StopWords}), ix)
	}
}

func countIn(got, want map[cacheKey]bool) int {
	n := 0
	for k := range got {
		if want[k] {
			n++
		}
	}
	return n
}

// TestCacheSaveKeepsTheLastBuild checks that Save writes only the analyses
// of the last build, and nothing when nothing changed.
func TestCacheSaveKeepsTheLastBuild(t *testing.T) {
	skills := cacheFixture()
	path := filepath.Join(t.TempDir(), "state", CacheFileName())
	c := OpenAnalysisCache(path)
	New(skills, Options{Cache: c})
	New(skills[:3], Options{Cache: c})
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if n := OpenAnalysisCache(path).Len(); n != 3 {
		t.Errorf("the file has %d analyses, want the last build's 3", n)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	New(skills[:3], Options{Cache: c})
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("Save wrote an unchanged cache (%v)", err)
	}
	New(skills[:4], Options{Cache: c})
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if n := OpenAnalysisCache(path).Len(); n != 4 {
		t.Errorf("the file has %d analyses, want 4", n)
	}
	if err := OpenAnalysisCache("").Save(); err != nil {
		t.Errorf("Save without a file: %v", err)
	}
}

// TestCacheFileNotTrusted damages a good cache file in every way and checks
// that the cache then starts empty, and that the index is still right.
func TestCacheFileNotTrusted(t *testing.T) {
	skills := cacheFixture()
	c := OpenAnalysisCache("")
	New(skills, Options{Cache: c})
	good := encodeCache(c.entries())
	if m, err := decodeCache(good); err != nil || len(m) != New(skills, Options{}).Len() {
		t.Fatalf("the good file decodes to %d analyses, %v", len(m), err)
	} else if !reflect.DeepEqual(resolved(m), resolved(c.entries())) {
		t.Fatal("the good file decodes to other analyses")
	}
	if m, err := decodeCache(withHeader([]byte{1, 1, 'a', 0})); err != nil || len(m) != 0 {
		t.Fatalf("a file with no analyses: %d, %v", len(m), err)
	}
	flip := func(i int) []byte {
		b := slices.Clone(good)
		b[i] ^= 0x40
		return b
	}
	version := slices.Clone(good)
	binary.LittleEndian.PutUint32(version[len(cacheFormat):], analysisVersion+1)
	// A payload that lies consistently (checksum and length fixed up): an
	// analysis whose counts exceed its field's length.
	m := maps.Clone(c.entries())
	for k, da := range m {
		bad := *da
		bad.length[fieldName] = 0
		m[k] = &bad
		break
	}
	cases := map[string][]byte{
		"empty":        {},
		"foreign":      []byte("{\"format\":\"skillsd-scan-cache/1\"}\n"),
		"format":       flip(0),
		"version":      version,
		"length":       flip(len(cacheFormat) + 4),
		"checksum":     flip(len(cacheFormat) + 12),
		"payload":      flip(len(good) / 2),
		"truncated":    good[:len(good)-1],
		"header only":  good[:cacheHeaderLen],
		"trailing":     append(slices.Clone(good), 0),
		"inconsistent": encodeCache(m),
		"string twice": withHeader([]byte{2, 1, 'a', 1, 'a', 0}),
		"not sorted":   withHeader([]byte{2, 1, 'b', 1, 'a', 0}),
	}
	dir := t.TempDir()
	want := New(skills, Options{})
	for name, data := range cases {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c := OpenAnalysisCache(path)
		if n := c.Len(); n != 0 {
			t.Errorf("%s: %d analyses trusted", name, n)
		}
		sameIndex(t, want, New(skills, Options{Cache: c}))
	}

	// Oversized: a sparse file just above the bound, the good file first.
	path := filepath.Join(dir, "oversized")
	if err := os.WriteFile(path, good, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, maxCacheFile+1); err != nil {
		t.Fatal(err)
	}
	if n := OpenAnalysisCache(path).Len(); n != 0 {
		t.Errorf("oversized: %d analyses trusted", n)
	}
	if n := OpenAnalysisCache(dir).Len(); n != 0 {
		t.Errorf("a folder: %d analyses trusted", n)
	}
	good1 := filepath.Join(dir, "good")
	if err := os.WriteFile(good1, good, 0o600); err != nil {
		t.Fatal(err)
	}
	if n := OpenAnalysisCache(good1).Len(); n == 0 {
		t.Fatal("the good file is not read")
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(good1, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if n := OpenAnalysisCache(link).Len(); n != 0 {
		t.Errorf("a link: %d analyses trusted", n)
	}
}

// TestCacheFileShared checks that the analyses read from a file are parts
// of what was read, not copies (the string table and each packed record),
// and that they encode back to the same bytes.
func TestCacheFileShared(t *testing.T) {
	c := OpenAnalysisCache("")
	New(cacheFixture(), Options{Cache: c})
	good := encodeCache(c.entries())
	data := slices.Clone(good)
	m, err := decodeCache(data)
	if err != nil || len(m) == 0 {
		t.Fatalf("decodeCache: %d analyses, %v", len(m), err)
	}
	within := func(p *byte) bool {
		a := uintptr(unsafe.Pointer(p))
		return a >= uintptr(unsafe.Pointer(&data[0])) && a < uintptr(unsafe.Pointer(&data[0]))+uintptr(len(data))
	}
	for k, da := range m {
		if len(da.packed) == 0 || !within(&da.packed[0]) {
			t.Fatalf("%x: the packed record is not part of the file's bytes", k)
		}
		for _, s := range da.names {
			if s != "" && !within(unsafe.StringData(s)) {
				t.Fatalf("%x: string %q is not part of the file's bytes", k, s)
			}
		}
	}
	if again := encodeCache(m); !bytes.Equal(again, good) {
		t.Fatal("the analyses read from the file encode to other bytes")
	}
}

// FuzzDecodeCache feeds arbitrary bytes to the cache file's decoder, with
// a good file and its parts as seeds (the checksum is fixed up, so that the
// fuzzer reaches the payload). It must never panic, and what it accepts
// must be consistent and encode back to the same analyses.
func FuzzDecodeCache(f *testing.F) {
	c := OpenAnalysisCache("")
	New(cacheFixture(), Options{Cache: c})
	good := encodeCache(c.entries())
	f.Add(good[cacheHeaderLen:], true)
	f.Add(good[cacheHeaderLen:len(good)/2], true)
	f.Add(good, false)
	f.Add([]byte{}, true)
	f.Add([]byte{0, 0}, true)
	f.Fuzz(func(t *testing.T, data []byte, payload bool) {
		if payload {
			data = withHeader(data)
		}
		m, err := decodeCache(data)
		if err != nil {
			return
		}
		for k, da := range m {
			if da.lang >= numLangs {
				t.Fatalf("%x: accepted language %d", k, da.lang)
			}
			nterms := 0
			da.each(func(id int32, _ *[numFields]uint16) {
				nterms++
				if id < 0 || int(id) >= len(da.names) {
					t.Fatalf("%x: term %d of %d strings", k, id, len(da.names))
				}
			}, func(s, term int32) {
				if term < 0 || int(term) >= nterms || s < 0 || int(s) >= len(da.surfs) {
					t.Fatalf("%x: surface %d of term %d of %d", k, s, term, nterms)
				}
			})
		}
		again, err := decodeCache(encodeCache(m))
		if err != nil || !reflect.DeepEqual(resolved(again), resolved(m)) {
			t.Fatalf("re-encoded: %v", err)
		}
	})
}

// withHeader returns payload behind a good header.
func withHeader(payload []byte) []byte {
	out := append([]byte(cacheFormat), make([]byte, 16)...)
	binary.LittleEndian.PutUint32(out[len(cacheFormat):], analysisVersion)
	binary.LittleEndian.PutUint64(out[len(cacheFormat)+4:], uint64(len(payload)))
	binary.LittleEndian.PutUint32(out[len(cacheFormat)+12:], crc32.Checksum(payload, castagnoli))
	return append(out, payload...)
}

// resolvedAnalysis is a docAnalysis with its strings instead of their
// indexes, to compare analyses whatever their string tables.
type resolvedAnalysis struct {
	lang     lang
	cjk      bool
	length   [numFields]int32
	terms    []string
	counts   [][numFields]uint16
	surfaces []string
	of       []int32 // the term of each surface
}

func resolved(m map[cacheKey]*docAnalysis) map[cacheKey]resolvedAnalysis {
	out := make(map[cacheKey]resolvedAnalysis, len(m))
	for k, da := range m {
		r := resolvedAnalysis{lang: da.lang, cjk: da.cjk, length: da.length}
		da.each(func(t int32, counts *[numFields]uint16) {
			r.terms = append(r.terms, da.names[t])
			r.counts = append(r.counts, *counts)
		}, func(s, t int32) {
			r.surfaces = append(r.surfaces, da.surfs[s])
			r.of = append(r.of, t)
		})
		out[k] = r
	}
	return out
}

// edited returns a copy of skills whose i-th skill (and its document) is a
// copy changed by edit: the other skills, and the originals, are shared.
func edited(skills []*catalog.Skill, i int, edit func(*catalog.Skill, *skill.Document)) []*catalog.Skill {
	out := slices.Clone(skills)
	doc := *out[i].Doc
	sk := out[i].WithDoc(&doc) // no longer the parse of its file
	edit(sk, &doc)
	out[i] = sk
	return out
}

// appendBody is an edit (edited) that adds text to a skill's body.
func appendBody(text string) func(*catalog.Skill, *skill.Document) {
	return func(_ *catalog.Skill, d *skill.Document) { d.Body += text }
}

// indexCorpora are the skills and queries the tests that compare indexes
// run over, with the worker counts each builds with.
func indexCorpora() []struct {
	name    string
	skills  func(testing.TB) []*catalog.Skill
	queries func(testing.TB) []string
	workers []int
} {
	return []struct {
		name    string
		skills  func(testing.TB) []*catalog.Skill
		queries func(testing.TB) []string
		workers []int
	}{
		{"fixture", func(testing.TB) []*catalog.Skill { return cacheFixture() }, func(testing.TB) []string { return cacheQueries }, []int{1, 3}},
		{"corpus", corpusSkills, func(tb testing.TB) []string {
			qs := slices.Clone(cacheQueries)
			for _, q := range devQueries(tb) {
				qs = append(qs, q.Query)
			}
			return qs
		}, []int{3}},
	}
}

// TestKeyStandsForTheSkillFile: a skill the catalog read from its file is
// keyed by that file's digest, not by its body: the same file read again
// gives the same key, an edited one another, and so do another version of
// the build that parsed it and a document that is not the file's parse
// (Skill.WithDoc), which is keyed by its body.
func TestKeyStandsForTheSkillFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pdf", "SKILL.md")
	write := func(body string) {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte("---\nname: pdf\ndescription: Fill PDF forms.\n---\n"+body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func() *catalog.Skill {
		t.Helper()
		snap, err := catalog.Build(t.Context(), []*source.Root{{Name: "t", Dir: dir, Kind: source.KindLocal, Trusted: true}}, catalog.Options{})
		if err != nil || len(snap.Skills()) != 1 {
			t.Fatalf("build: %v", err)
		}
		sk := snap.Skills()[0]
		if sk.FileDigest() == "" {
			t.Fatal("the catalog gave no file digest")
		}
		return sk
	}
	ix := &Index{tune: defaultTuning, stops: newStopSet(nil)}
	v1, v2 := ix.configKey("v1"), ix.configKey("v2")

	write("# PDF\n\nUse pdftk.\n")
	first := read()
	key := docKey(&v1, first)
	again := read()
	if again.Doc == first.Doc {
		t.Fatal("the second build shares the first one's document: not read again")
	}
	if docKey(&v1, again) != key {
		t.Error("the same file read again gives another key")
	}
	if docKey(&v2, again) == key {
		t.Error("another version of the build keeps the key")
	}
	if docKey(&v1, first.WithDoc(first.Doc)) == key {
		t.Error("a document not known to be the file's parse is keyed by the file")
	}
	write("# PDF\n\nUse qpdf.\n")
	if docKey(&v1, read()) == key {
		t.Error("the edited file keeps the key")
	}
}
