package search

import (
	"encoding/binary"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/skill"
)

// field is a part of a skill that is indexed separately, with its own weight
// and length normalisation (BM25F).
type field uint8

const (
	// fieldName is the skill's name, split at '-', '_', '/' and '.'.
	fieldName field = iota
	// fieldDesc is the frontmatter description.
	fieldDesc
	// fieldKeywords holds keywords, tags and category.
	fieldKeywords
	// fieldHeadings holds the body's markdown headings (outside code
	// blocks); they are also part of fieldBody.
	fieldHeadings
	// fieldBody is the markdown body, outside fenced code blocks.
	fieldBody
	// fieldCode is the content of the body's fenced code blocks.
	fieldCode
	numFields
)

var fieldNames = [numFields]string{"name", "description", "keywords", "headings", "body", "code"}

func (f field) String() string { return fieldNames[f] }

// Options configure New. The zero value is ready to use.
type Options struct {
	// StopWords are extra stop words (any case, accents ignored), removed
	// from skills and queries of every language on top of the built-in
	// English, French, Spanish and German lists.
	StopWords []string
	// Threshold is the calibrated score (0..1) the best hit must reach for
	// ranked search to answer; below it Search returns no hits ("nothing
	// applies"). 0 means DefaultThreshold; a negative value never abstains.
	Threshold float64
	// CutRatio is seed 004's SEARCH_THRESHOLD: when more than 5 candidates
	// hit, ranked search keeps only those scoring at least CutRatio times the
	// best. 0 means DefaultCutRatio; a negative value keeps every candidate.
	CutRatio float64
	// Workers is how many goroutines analyze skills in New; 0 means
	// runtime.GOMAXPROCS(0).
	Workers int
	// Cache, when set, holds the analyses of skills indexed before: New
	// reuses those of unchanged skills instead of analysing their text
	// again, and keeps in it the analyses of this build's skills (see
	// AnalysisCache). With an index file (AnalysisCache.WithIndexFile), the
	// first build takes the index read from it when it indexes the same
	// skills with the same settings, replaying nothing. The index is the
	// same with or without it.
	Cache *AnalysisCache

	// tune overrides the ranking parameters (tests and experiments); nil
	// means defaultTuning.
	tune *tuning
}

const (
	// DefaultThreshold is the calibrated score below which ranked search
	// abstains, chosen on the routing benchmark's development queries (see
	// calibrate.go).
	DefaultThreshold = 0.25
	// DefaultCutRatio is seed 004's default SEARCH_THRESHOLD.
	DefaultCutRatio = 0.2
	// DefaultLimit is seed 004's default SEARCH_LIMIT.
	DefaultLimit = 10
)

// tuning holds the ranking parameters.
type tuning struct {
	// weight and b are each field's BM25F weight and length normalisation.
	weight [numFields]float64
	b      [numFields]float64
	// k1 is BM25's term frequency saturation.
	k1 float64
	// typo enables typo tolerance, typoWeight[d] scales a term found at
	// edit distance d.
	typo       bool
	typoWeight [3]float64
	// split enables splitting unknown query words into two known ones.
	split bool
	// crossLang enables looking up non-English query words with the
	// English stemmer too.
	crossLang bool
	// bigrams indexes pairs of adjacent words of the name, description,
	// keywords and headings; a query's adjacent pairs score bigramWeight
	// times a term's score (experiment; 0 = off).
	bigramWeight float64
	// analysis switches parts of the text analysis (measurements only).
	analysis analysis
	// foreignUnknown weighs an unknown word of a query whose language no
	// skill is written in, in the calibration (0..1).
	foreignUnknown float64
	// agreement and restatedThreshold fuse a query's phrasings
	// (restated.go).
	agreement, restatedThreshold float64
}

var defaultTuning = tuning{
	weight:       [numFields]float64{fieldName: 3, fieldDesc: 2, fieldKeywords: 2, fieldHeadings: 1, fieldBody: 0.2, fieldCode: 0.2},
	b:            [numFields]float64{fieldName: 0.3, fieldDesc: 0.5, fieldKeywords: 0.3, fieldHeadings: 0.5, fieldBody: 0.75, fieldCode: 0.75},
	k1:           2,
	typo:         true,
	typoWeight:   [3]float64{1, 0.7, 0.5},
	split:        true,
	crossLang:    true,
	bigramWeight: 0.2,
	analysis:     fullAnalysis,

	foreignUnknown: 0.5,

	agreement:         0.25,
	restatedThreshold: 0.5,
}

// posting is one skill's entry in a term's posting list.
type posting struct {
	doc int32
	// tf is the BM25F pseudo term frequency: the sum over fields of
	// weight × count / length normalisation.
	tf float32
}

// termEntry is one term of the vocabulary (its text is in Index.vocab).
type termEntry struct {
	idf      float64
	postings []posting // sorted by doc
	// fields[i] has bit f set when the term occurs in field f of the skill
	// of postings[i]. Apart from the postings, which scoring reads, so
	// that a posting takes 8 bytes, not 12.
	fields []uint8
}

// doc is one indexed skill.
type doc struct {
	skill *catalog.Skill
	lang  lang
}

// Index is an immutable search index over the routable skills of a catalog.
// It is safe for concurrent use.
type Index struct {
	tune      tuning
	threshold float64
	cutRatio  float64
	stops     stopSet
	docs      []doc
	terms     []termEntry
	// vocab holds the terms' texts: a term's id in it is its index in
	// terms.
	vocab strTable
	// surfaces holds the surface forms (folded words) of the skills, and
	// surfaceTerms the term of each (by its id in surfaces), for typo
	// tolerance, word splitting and excerpts (surfaceTerm).
	surfaces     strTable
	surfaceTerms []int32
	// typos is the typo index, made on the first query that needs it
	// (typoIndex).
	typosOnce sync.Once
	typos     *typoIndex
	// typosMade is set once typos is made.
	typosMade atomic.Bool
	// langs has bit l set when some skill is written in language l; hasCJK
	// is true when some skill is mostly written in CJK characters (Japanese,
	// Chinese).
	langs  uint8
	hasCJK bool
	// unknownIDF is the idf of a term no skill has.
	unknownIDF float64
	// qpool holds scratch space for queries.
	qpool sync.Pool
	// lower is every skill's text lower-cased, made on the first all-terms
	// search.
	lowerOnce sync.Once
	lower     []lowered
	// spellings are the surface forms of each term, for excerpts.
	spellings spellings
	// stored is true when the index was read from the cache's index file
	// (indexfile.go) rather than built.
	stored bool
}

// New indexes the routable skills (others are ignored). It analyzes skills
// in parallel (Options.Workers), reusing the analyses of Options.Cache.
func New(skills []*catalog.Skill, opts Options) *Index {
	ix := &Index{
		tune:      defaultTuning,
		threshold: opts.Threshold,
		cutRatio:  opts.CutRatio,
		stops:     newStopSet(opts.StopWords),
	}
	if opts.tune != nil {
		ix.tune = *opts.tune
	}
	if ix.threshold == 0 {
		ix.threshold = DefaultThreshold
	}
	if ix.cutRatio == 0 {
		ix.cutRatio = DefaultCutRatio
	}
	n := 0
	for _, sk := range skills {
		if sk != nil && sk.Routable {
			n++
		}
	}
	ix.docs = make([]doc, 0, n)
	for _, sk := range skills {
		if sk != nil && sk.Routable {
			ix.docs = append(ix.docs, doc{skill: sk})
		}
	}
	ix.build(opts.Workers, opts.Cache)
	ix.qpool.New = func() any { return newScratch(n) }
	return ix
}

// Len is the number of indexed skills.
func (ix *Index) Len() int { return len(ix.docs) }

// surfaceTerm returns the term of the surface form s and true, or -1 and
// false when no skill has s.
func (ix *Index) surfaceTerm(s string) (int32, bool) {
	id, ok := ix.surfaces.id(s)
	if !ok {
		return -1, false
	}
	return ix.surfaceTerms[id], true
}

// typoIndex returns the typo index, making it on first use; nil when
// neither typo tolerance nor word splitting is on.
func (ix *Index) typoIndex() *typoIndex {
	if !ix.tune.typo && !ix.tune.split {
		return nil
	}
	ix.typosOnce.Do(func() {
		// Words worth correcting to: in a name, description, keywords or
		// heading of some skill, or in two skills.
		const head = 1<<fieldName | 1<<fieldDesc | 1<<fieldKeywords | 1<<fieldHeadings
		ix.typos = newTypoIndex(&ix.surfaces, ix.surfaceTerms, func(t int32) bool {
			e := &ix.terms[t]
			if len(e.postings) >= 2 {
				return true
			}
			for _, f := range e.fields {
				if f&head != 0 {
					return true
				}
			}
			return false
		})
		ix.typosMade.Store(true)
	})
	return ix.typos
}

// typoWarmDelay is how long after an index is made its typo index is made
// in the background, unless a query has needed it before.
const typoWarmDelay = time.Second

// typosLater makes the typo index after delay, in the background, unless a
// query has made it by then; its timer, nil when the index has none.
func (ix *Index) typosLater(delay time.Duration) *time.Timer {
	if !ix.tune.typo && !ix.tune.split {
		return nil
	}
	return time.AfterFunc(delay, func() { ix.typoIndex() })
}

// analyzedDoc is a skill after analysis, before merging: its terms with
// their counts by field, in the order of their first occurrence, and its
// field lengths. The terms are packed as a docAnalysis packs them
// (appendTerm), and are the bytes of its docAnalysis when it has one
// (analysed for the cache, or replayed): a list of structs took three times
// the memory at the build's peak.
type analyzedDoc struct {
	terms []byte
	// local maps the term ids of terms to worker-local ids + 1 when they are
	// ids in a docAnalysis's string table (a replayed skill); nil when they
	// are local ids already.
	local  []int32
	length [numFields]int32
}

// post appends to the posting lists of its terms (by worker-local id,
// through m to the index's terms) the postings of the skill ad, doc i, whose
// field length normalisation is norm.
func (ad *analyzedDoc) post(terms []termEntry, m []int32, i int32, norm *[numFields]float64) {
	r := packedReader{b: ad.terms}
	var counts [numFields]uint16
	for len(r.b) > 0 {
		t := r.term(&counts)
		if ad.local != nil {
			t = ad.local[t] - 1
		}
		var tf float64
		var fields uint8
		for f, c := range counts {
			if c > 0 {
				tf += float64(c) * norm[f]
				fields |= 1 << f
			}
		}
		e := &terms[m[t]]
		e.postings = append(e.postings, posting{doc: i, tf: float32(tf)})
		e.fields = append(e.fields, fields)
	}
}

// docAnalysis is one skill's analysis in a form that does not depend on
// the worker that made it (terms as text): what AnalysisCache keeps.
// Replaying it into a worker (worker.replay) changes the worker and gives
// the analyzedDoc exactly as analysing the skill again would.
type docAnalysis struct {
	lang lang
	// cjk is true when the skill is mostly written in CJK characters.
	cjk    bool
	length [numFields]int32
	// names and surfs are the string tables that the terms and surfaces of
	// packed index, shared by many analyses (a worker's vocabulary and
	// surface forms, or a cache file's strings) and never changed below
	// their length.
	names, surfs []string
	// packed holds the skill's terms (in names) in the order of their
	// first occurrence with their counts by field, then its indexed words
	// (surface forms, in surfs) in the order of their first occurrence,
	// each with its term (the worker's first sight of a surface decides
	// its term): varints, as a record of the cache file has them after its
	// lengths (cache.go), read with a packedReader.
	packed []byte
}

// surfaceRef is a surface form (an entry of worker.words) and its local
// term, as a worker sees them in the skill it analyzes.
type surfaceRef struct {
	surface, term int32
}

// worker analyzes skills with its own analyzer and local vocabulary.
type worker struct {
	a    *analyzer
	tune *tuning
	// ids maps each word as written (lower-cased when ASCII), per language,
	// to its entry in words, -1 for a word that is not indexed.
	ids   [numLangs]map[string]int32
	words []wordEntry
	// surfs is the surface form of each entry of words.
	surfs []string
	// local and names are the worker's vocabulary (local term ids).
	local map[string]int32
	names []string
	// pairs maps two adjacent local terms to the local id of their bigram.
	pairs    map[[2]int32]int32
	surfaces map[string]int32 // surface → local term
	// counts and touched count the current skill's terms; df counts the
	// skills each term occurs in.
	counts  [][numFields]uint16
	touched []int32
	df      []int32
	// cjk and nwords count the current skill's CJK runs and words.
	cjk, nwords int
	hasCJK      bool
	buf, key    []byte
	// record makes doc describe each skill as a docAnalysis too: stamp
	// numbers the current skill, seen collects its surfaces (words, local
	// terms), pos is scratch space indexed by local term.
	record bool
	stamp  int32
	seen   []surfaceRef
	pos    []int32
	// pack is scratch space for a docAnalysis's packed bytes, arena
	// where they are kept; terms keeps the packed terms of the skills
	// analysed without a docAnalysis (analyzedDoc), order is scratch space
	// for a replayed skill's terms.
	pack  []byte
	arena byteArena
	terms byteArena
	order []int32
	// termMemo and surfMemo remember, by string table (its first
	// element), the local term + 1 of each term replayed, and the surfaces
	// replayed, so that replay looks each string up once.
	termMemo map[*string][]int32
	surfMemo map[*string][]bool
}

// wordEntry is an indexed word: its local term, and the last skill it was
// seen in (worker.stamp, when recording).
type wordEntry struct {
	term  int32
	stamp int32
}

// newWorker returns a worker for about words distinct words in the skills
// it analyzes, and known in all (with those it replays).
func newWorker(stops stopSet, tune *tuning, record bool, words, known int) *worker {
	terms := known * 3 / 2 // words' terms and bigrams
	w := &worker{
		a:        newAnalyzer(stops, tune.analysis),
		tune:     tune,
		words:    make([]wordEntry, 0, words),
		surfs:    make([]string, 0, words),
		local:    make(map[string]int32, terms),
		names:    make([]string, 0, terms),
		counts:   make([][numFields]uint16, 0, terms),
		df:       make([]int32, 0, terms),
		pairs:    make(map[[2]int32]int32, words*3/4),
		surfaces: make(map[string]int32, known),
		record:   record,
		termMemo: map[*string][]int32{},
		surfMemo: map[*string][]bool{},
	}
	for l := range w.ids {
		size := 0
		if lang(l) == langEnglish {
			size = words
		}
		w.ids[l] = make(map[string]int32, size)
	}
	return w
}

// distinctWords estimates how many distinct words a worker meets in text
// bytes of skills: Heaps' law, fitted on the routing benchmark's corpus
// (0.8 MB of skills have about 9,000 distinct words, 3.6 MB about 18,000)
// and a little under, so that a map sized so grows at most once, and one
// of a catalog whose skills repeat each other is not oversized.
func distinctWords(bytes int) int {
	return min(int(8*math.Sqrt(float64(bytes))), 1<<20)
}

func (ix *Index) build(workers int, cache *AnalysisCache) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(ix.docs)/64+1))
	// What the cache knows, and what this build will leave in it.
	var (
		memo   map[*skill.Document]keyMemo
		config cacheKey
		keys   []cacheKey
		kept   []*docAnalysis
	)
	if cache != nil {
		memo = cache.knownKeys()
		config = ix.configKey(cache.version)
		keys = make([]cacheKey, len(ix.docs))
		kept = make([]*docAnalysis, len(ix.docs))
	}
	// Each worker's share of the text: to analyze, and in all.
	bytes, known := make([]int, workers), make([]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			// Interleaved so that long and short skills spread evenly.
			var kh *keyHasher
			if cache != nil {
				kh = newKeyHasher()
			}
			for i := w; i < len(ix.docs); i += workers {
				known[w] += textBytes(ix.docs[i].skill)
				if cache != nil {
					// An unchanged skill's text is not hashed again.
					var ok bool
					if keys[i], ok = knownKey(memo, &config, ix.docs[i].skill); !ok {
						keys[i] = kh.key(&config, ix.docs[i].skill)
					}
				}
			}
		})
	}
	wg.Wait()
	var skills []*catalog.Skill
	if cache != nil {
		skills = make([]*catalog.Skill, len(ix.docs))
		for i := range ix.docs {
			skills[i] = ix.docs[i].skill
		}
		// The index the last process built over the same analyses, when
		// the cache has its file: nothing to replay, and the analyses are
		// not even read (not before a later build needs them).
		if cache.indexPath != "" {
			key := ix.indexKey(&config, keys)
			st := cache.takeIndex()
			if ix.adopt(st, &key) {
				cache.remember(&config, skills, keys)
				cache.indexOnDisk(key)
				return
			}
			st.drop() // another catalog's index: its file is not used
			defer cache.keepIndex(ix, key)
		}
		prev := cache.entries()
		for i := range ix.docs {
			if kept[i] = prev[keys[i]]; kept[i] == nil {
				bytes[i%workers] += textBytes(ix.docs[i].skill)
			}
		}
	} else {
		copy(bytes, known)
	}

	out := make([]analyzedDoc, len(ix.docs))
	ws := make([]*worker, workers)
	for w := range ws {
		wg.Go(func() {
			wk := newWorker(ix.stops, &ix.tune, cache != nil, distinctWords(bytes[w]), distinctWords(known[w]))
			ws[w] = wk
			for i := w; i < len(ix.docs); i += workers {
				d := &ix.docs[i]
				switch {
				case cache == nil:
					out[i] = wk.doc(d, nil)
				case kept[i] != nil:
					out[i] = wk.replay(d, kept[i])
				default:
					kept[i] = &docAnalysis{}
					out[i] = wk.doc(d, kept[i])
				}
			}
		})
	}
	wg.Wait()
	if cache != nil {
		cache.keep(&config, skills, keys, kept)
	}

	// Merge the workers' vocabularies into global term ids.
	names, nsurf := 0, 0
	for _, wk := range ws {
		names += len(wk.names)
		nsurf += len(wk.surfaces)
	}
	// At most the sum of the workers' (they share most words).
	ix.vocab = newStrTable(names)
	ix.surfaces = newStrTable(nsurf)
	ix.surfaceTerms = make([]int32, 0, nsurf)
	remap := make([][]int32, workers)
	for w, wk := range ws {
		m := make([]int32, len(wk.names))
		for lid, t := range wk.names {
			m[lid], _ = ix.vocab.add(t)
		}
		remap[w] = m
		for s, lid := range wk.surfaces {
			if _, added := ix.surfaces.add(s); added {
				ix.surfaceTerms = append(ix.surfaceTerms, m[lid])
			}
		}
		ix.hasCJK = ix.hasCJK || wk.hasCJK
	}
	ix.terms = make([]termEntry, ix.vocab.len())
	df := make([]int32, len(ix.terms))
	for w, wk := range ws {
		for lid, n := range wk.df {
			df[remap[w][lid]] += n
		}
	}
	var total [numFields]float64
	for i := range out {
		for f := range numFields {
			total[f] += float64(out[i].length[f])
		}
		ix.langs |= 1 << ix.docs[i].lang
	}
	n := float64(len(ix.docs))
	var avg [numFields]float64
	for f := range numFields {
		avg[f] = max(total[f]/max(n, 1), 1)
	}
	ix.unknownIDF = idf(0, n)

	// Posting lists, allocated at their final size in one block.
	npost := sumInt32(df)
	all, fields := make([]posting, 0, npost), make([]uint8, 0, npost)
	idfs := newIDFTable(n)
	for t := range ix.terms {
		e, end := &ix.terms[t], len(all)+int(df[t])
		e.idf = idfs.of(int(df[t]))
		e.postings, e.fields = all[len(all):len(all):end], fields[len(all):len(all):end]
		all, fields = all[:end], fields[:end]
	}
	for i := range out {
		var norm [numFields]float64
		for f := range numFields {
			norm[f] = ix.tune.weight[f] / (1 - ix.tune.b[f] + ix.tune.b[f]*float64(out[i].length[f])/avg[f])
		}
		out[i].post(ix.terms, remap[i%workers], int32(i), &norm)
		out[i] = analyzedDoc{} // in the postings now
	}
}

// textBytes is the size of the text of sk that doc analyzes.
func textBytes(sk *catalog.Skill) int {
	n := len(sk.Name) + len(sk.Description) + len(sk.Doc.Body) + len(sk.Doc.Frontmatter.Category)
	for _, k := range sk.Doc.Frontmatter.Keywords {
		n += len(k)
	}
	for _, t := range sk.Doc.Frontmatter.Tags {
		n += len(t)
	}
	return n
}

func sumInt32(xs []int32) int {
	s := 0
	for _, x := range xs {
		s += int(x)
	}
	return s
}

// idf is BM25's inverse document frequency (never negative).
func idf(df, n float64) float64 {
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// idfTable gives idf(df, n) for one n, the small document frequencies
// from a table made once: most terms are in a few skills only, and a
// logarithm for each of them was a millisecond of CPU in a warm start of
// 387 skills (tens of thousands of terms read from the index file).
type idfTable struct {
	n     float64
	small [64]float64
}

func newIDFTable(n float64) *idfTable {
	t := &idfTable{n: n}
	for df := range t.small {
		t.small[df] = idf(float64(df), n)
	}
	return t
}

// of returns idf(df, n), the same value idf computes.
func (t *idfTable) of(df int) float64 {
	if df >= 0 && df < len(t.small) {
		return t.small[df]
	}
	return idf(float64(df), t.n)
}

// doc analyzes one skill; with rec, it also describes the analysis there
// (the worker must be recording).
func (w *worker) doc(d *doc, rec *docAnalysis) analyzedDoc {
	sk := d.skill
	body := sk.Doc.Body
	d.lang = detectLang(sk.Description, body)
	w.stamp++
	var ad analyzedDoc
	w.field(&ad, fieldName, sk.Name, d.lang)
	w.field(&ad, fieldDesc, sk.Description, d.lang)
	fm := &sk.Doc.Frontmatter
	for _, k := range fm.Keywords {
		w.field(&ad, fieldKeywords, k, d.lang)
	}
	for _, t := range fm.Tags {
		w.field(&ad, fieldKeywords, t, d.lang)
	}
	w.field(&ad, fieldKeywords, fm.Category, d.lang)
	forBody(body, func(text string, f field) { w.field(&ad, f, text, d.lang) })

	// A skill is CJK when its CJK runs outnumber a fifth of its words (a
	// skill about CJK fonts that shows a few characters is not).
	cjk := w.cjk > 0 && w.cjk*5 > w.nwords
	w.hasCJK = w.hasCJK || cjk
	w.cjk, w.nwords = 0, 0
	if rec != nil {
		w.describe(rec, d.lang, cjk, &ad)
	} else {
		b := w.pack[:0]
		for _, lid := range w.touched {
			b = appendTerm(b, lid, &w.counts[lid])
		}
		ad.terms = w.terms.clone(b)
		w.pack = b
	}
	for _, lid := range w.touched {
		w.counts[lid] = [numFields]uint16{}
		w.df[lid]++
	}
	w.touched = w.touched[:0]
	return ad
}

// describe fills rec with the analysis of a skill of language l whose
// terms and counts are those touched, and the surfaces seen in it; ad's
// terms are then a part of rec's packed bytes.
func (w *worker) describe(rec *docAnalysis, l lang, cjk bool, ad *analyzedDoc) {
	rec.lang, rec.cjk, rec.length = l, cjk, ad.length
	rec.names = w.names[:len(w.names):len(w.names)]
	rec.surfs = w.surfs[:len(w.surfs):len(w.surfs)]
	if len(w.pos) < len(w.names) {
		w.pos = make([]int32, len(w.names)+len(w.names)/2)
	}
	b := binary.AppendUvarint(w.pack[:0], uint64(len(w.touched)))
	start := len(b)
	for i, lid := range w.touched {
		b = appendTerm(b, lid, &w.counts[lid])
		w.pos[lid] = int32(i)
	}
	end := len(b)
	b = binary.AppendUvarint(b, uint64(len(w.seen)))
	for _, s := range w.seen {
		b = binary.AppendUvarint(binary.AppendUvarint(b, uint64(s.surface)), uint64(w.pos[s.term]))
	}
	rec.packed = w.arena.clone(b)
	ad.terms = rec.packed[start:end:end]
	w.pack = b
	w.seen = w.seen[:0]
}

// replay takes a skill's analysis made before (by any worker) instead of
// analysing it: the worker's vocabulary and surfaces change as doc would
// have changed them, and the result is the one doc would return.
func (w *worker) replay(d *doc, da *docAnalysis) analyzedDoc {
	d.lang = da.lang
	w.hasCJK = w.hasCJK || da.cjk
	r := packedReader{b: da.packed}
	ad := analyzedDoc{length: da.length}
	// ids are the skill's terms as local ids, in order.
	ids := w.order[:0]
	if n := r.uvarint(); n > 0 {
		memo := w.termMemo[&da.names[0]]
		if len(memo) < len(da.names) {
			memo = append(memo, make([]int32, len(da.names)-len(memo))...)
			w.termMemo[&da.names[0]] = memo
		}
		start := len(da.packed) - len(r.b)
		var counts [numFields]uint16
		for range n {
			t := r.term(&counts)
			id := memo[t] - 1
			if id < 0 {
				var ok bool
				if id, ok = w.local[da.names[t]]; !ok {
					id = w.add(da.names[t])
				}
				memo[t] = id + 1
			}
			ids = append(ids, id)
			w.df[id]++
		}
		// The memo may move as it grows for later skills, but what this
		// skill's terms map to is set now and never changes.
		end := len(da.packed) - len(r.b)
		ad.terms, ad.local = da.packed[start:end:end], memo
	}
	w.order = ids
	if n := r.uvarint(); n > 0 {
		// Only a surface's first sight counts: one replayed before is done.
		done := w.surfMemo[&da.surfs[0]]
		if len(done) < len(da.surfs) {
			done = append(done, make([]bool, len(da.surfs)-len(done))...)
			w.surfMemo[&da.surfs[0]] = done
		}
		for range n {
			s, t := r.uvarint(), r.uvarint()
			if done[s] {
				continue
			}
			done[s] = true
			if _, ok := w.surfaces[da.surfs[s]]; !ok {
				w.surfaces[da.surfs[s]] = ids[t]
			}
		}
	}
	return ad
}

// field counts the terms of one text of a skill.
func (w *worker) field(ad *analyzedDoc, f field, text string, l lang) {
	sc := scanner{text: text}
	pairs := w.tune.bigramWeight > 0 && f < fieldBody // name, description, keywords, headings
	prev := int32(-1)
	for {
		start, end, kind, ok := sc.next()
		if !ok {
			return
		}
		if kind == tokCJK {
			w.cjk++
			cjkBigrams(text[start:end], func(g string) {
				w.count(ad, f, w.intern(g, false))
			})
			continue
		}
		w.nwords++
		wi := w.word(text[start:end], l)
		if wi < 0 {
			continue
		}
		we := &w.words[wi]
		id := we.term
		if w.record && we.stamp != w.stamp {
			we.stamp = w.stamp
			w.seen = append(w.seen, surfaceRef{surface: wi, term: id})
		}
		w.count(ad, f, id)
		if pairs {
			if prev >= 0 {
				key := [2]int32{prev, id}
				pid, ok := w.pairs[key]
				if !ok {
					pid = w.bigram(prev, id)
					w.pairs[key] = pid
				}
				w.count(ad, f, pid)
			}
			prev = id
		}
	}
}

// word returns the entry (in w.words) of a word token as written in a text
// of language l, or -1 when the word is not indexed (a stop word, digits).
func (w *worker) word(raw string, l lang) int32 {
	ids := w.ids[l]
	if isASCII(raw) {
		if len(raw) > maxWordLen {
			return -1
		}
		w.buf = append(w.buf[:0], raw...)
		for i, c := range w.buf {
			if 'A' <= c && c <= 'Z' {
				w.buf[i] = c + 'a' - 'A'
			}
		}
		if wi, ok := ids[string(w.buf)]; ok {
			return wi
		}
		key := string(w.buf)
		// key is the worker's own copy: its term and surface need none.
		wi := w.newWord(key, key, l, true)
		ids[key] = wi
		return wi
	}
	if wi, ok := ids[raw]; ok {
		return wi
	}
	wi := int32(-1)
	if len(raw) <= 4*maxWordLen {
		lower := strings.ToLower(norm.NFKC.String(raw))
		wi = w.newWord(lower, foldWord(lower), l, false)
	}
	ids[strings.Clone(raw)] = wi
	return wi
}

// newWord analyzes a word the worker has not seen (lower-cased, and its
// surface form) and returns its entry in w.words, or -1. Unless owned,
// lower and surface may share memory with a skill's text, and are copied
// before they are kept.
func (w *worker) newWord(lower, surface string, l lang, owned bool) int32 {
	an := w.a.analyze(lower, surface, l)
	if an.skip || an.stop {
		return -1
	}
	id := w.intern(an.term, owned)
	if !owned {
		surface = strings.Clone(surface)
	}
	if _, ok := w.surfaces[surface]; !ok {
		w.surfaces[surface] = id
	}
	w.words = append(w.words, wordEntry{term: id})
	w.surfs = append(w.surfs, surface)
	return int32(len(w.words) - 1)
}

// intern returns the local id of a term, adding it when new (a copy of it
// unless owned: the term is the worker's own string, not part of a skill's
// text).
func (w *worker) intern(term string, owned bool) int32 {
	if id, ok := w.local[term]; ok {
		return id
	}
	if !owned {
		term = strings.Clone(term)
	}
	return w.add(term)
}

// bigram returns the local id of the bigram of local terms a and b.
func (w *worker) bigram(a, b int32) int32 {
	w.key = append(append(append(append(w.key[:0], 0), w.names[a]...), ' '), w.names[b]...)
	if id, ok := w.local[string(w.key)]; ok {
		return id
	}
	return w.add(string(w.key))
}

// add adds a new term to the worker's vocabulary and returns its local id.
func (w *worker) add(term string) int32 {
	id := int32(len(w.names))
	w.local[term] = id
	w.names = append(w.names, term)
	w.counts = append(w.counts, [numFields]uint16{})
	w.df = append(w.df, 0)
	return id
}

// count adds one occurrence of local term id in field f.
func (w *worker) count(ad *analyzedDoc, f field, id int32) {
	c := &w.counts[id]
	if *c == ([numFields]uint16{}) {
		w.touched = append(w.touched, id)
	}
	if c[f] < math.MaxUint16 {
		c[f]++
	}
	ad.length[f]++
}

// bigramKey is the index term of two adjacent terms (it cannot collide with
// a word's term).
func bigramKey(a, b string) string { return "\x00" + a + " " + b }

// forBody calls fn with the parts of a markdown body: runs of prose lines
// (fieldBody), fenced code blocks with their fences (fieldCode), and the
// text of each ATX heading ("## Usage") outside code (fieldHeadings; the
// heading is also part of its prose run).
func forBody(body string, fn func(text string, f field)) {
	inCode := false
	start := 0 // of the current run
	for i := 0; i < len(body); {
		end := len(body)
		if j := strings.IndexByte(body[i:], '\n'); j >= 0 {
			end = i + j + 1
		}
		line := strings.TrimLeft(body[i:end], " ")
		switch {
		case strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~"):
			if !inCode {
				if i > start {
					fn(body[start:i], fieldBody)
				}
				start, inCode = i, true
			} else {
				fn(body[start:end], fieldCode)
				start, inCode = end, false
			}
		case !inCode && strings.HasPrefix(line, "#"):
			h := strings.TrimLeft(line, "#")
			if n := len(line) - len(h); n <= 6 && (h == "" || h[0] == ' ' || h[0] == '\t') {
				fn(h, fieldHeadings)
			}
		}
		i = end
	}
	if start < len(body) {
		f := fieldBody
		if inCode {
			f = fieldCode
		}
		fn(body[start:], f)
	}
}
