package search

import (
	"math"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/text/unicode/norm"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
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
	// fields has bit f set when the term occurs in field f.
	fields uint8
}

// termEntry is one term of the vocabulary.
type termEntry struct {
	text     string
	idf      float64
	postings []posting // sorted by doc
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
	vocab     map[string]int32
	// surfaces maps each surface form (folded word) of the skills to its
	// term, for typo tolerance and word splitting.
	surfaces map[string]int32
	typos    *typoIndex
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
}

// New indexes the routable skills (others are ignored). It analyzes skills
// in parallel (Options.Workers).
func New(skills []*catalog.Skill, opts Options) *Index {
	ix := &Index{
		tune:      defaultTuning,
		threshold: opts.Threshold,
		cutRatio:  opts.CutRatio,
		stops:     newStopSet(opts.StopWords),
		vocab:     map[string]int32{},
		surfaces:  map[string]int32{},
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
	for _, sk := range skills {
		if sk != nil && sk.Routable {
			ix.docs = append(ix.docs, doc{skill: sk})
		}
	}
	ix.build(opts.Workers)
	n := len(ix.docs)
	ix.qpool.New = func() any { return newScratch(n) }
	return ix
}

// Len is the number of indexed skills.
func (ix *Index) Len() int { return len(ix.docs) }

// docTerm is a term's counts in one skill, by field, during the build.
type docTerm struct {
	term   int32 // worker-local id until merged
	counts [numFields]uint16
}

// analyzedDoc is a skill after analysis, before merging.
type analyzedDoc struct {
	terms  []docTerm
	length [numFields]int32
}

// worker analyzes skills with its own analyzer and local vocabulary.
type worker struct {
	a    *analyzer
	tune *tuning
	// ids maps each word as written (lower-cased when ASCII) to its local
	// term id, -1 for a word that is not indexed, per language.
	ids [numLangs]map[string]int32
	// local and names are the worker's vocabulary (local term ids).
	local map[string]int32
	names []string
	// pairs maps two adjacent local terms to the local id of their bigram.
	pairs    map[[2]int32]int32
	surfaces map[string]int32 // surface → local term
	// counts and touched count the current skill's terms.
	counts  [][numFields]uint16
	touched []int32
	// cjk and words count the current skill's CJK runs and words.
	cjk, words int
	hasCJK     bool
	buf        []byte
}

func newWorker(stops stopSet, tune *tuning) *worker {
	w := &worker{
		a:        newAnalyzer(stops, tune.analysis),
		tune:     tune,
		local:    map[string]int32{},
		pairs:    map[[2]int32]int32{},
		surfaces: map[string]int32{},
	}
	for l := range w.ids {
		w.ids[l] = map[string]int32{}
	}
	return w
}

func (ix *Index) build(workers int) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(ix.docs)/64+1))
	out := make([]analyzedDoc, len(ix.docs))
	ws := make([]*worker, workers)
	var wg sync.WaitGroup
	for w := range ws {
		ws[w] = newWorker(ix.stops, &ix.tune)
		wg.Go(func() {
			// Interleaved so that long and short skills spread evenly.
			for i := w; i < len(ix.docs); i += workers {
				out[i] = ws[w].doc(&ix.docs[i])
			}
		})
	}
	wg.Wait()

	// Merge the workers' vocabularies into global term ids.
	remap := make([][]int32, workers)
	for w, wk := range ws {
		m := make([]int32, len(wk.names))
		for lid, t := range wk.names {
			id, ok := ix.vocab[t]
			if !ok {
				id = int32(len(ix.terms))
				ix.vocab[t] = id
				ix.terms = append(ix.terms, termEntry{text: t})
			}
			m[lid] = id
		}
		remap[w] = m
		for s, lid := range wk.surfaces {
			if _, ok := ix.surfaces[s]; !ok {
				ix.surfaces[s] = m[lid]
			}
		}
		ix.hasCJK = ix.hasCJK || wk.hasCJK
	}
	df := make([]int32, len(ix.terms))
	inHead := make([]bool, len(ix.terms))
	var total [numFields]float64
	for i := range out {
		m := remap[i%workers]
		for j := range out[i].terms {
			dt := &out[i].terms[j]
			dt.term = m[dt.term]
			df[dt.term]++
			if dt.counts[fieldName]|dt.counts[fieldDesc]|dt.counts[fieldKeywords]|dt.counts[fieldHeadings] != 0 {
				inHead[dt.term] = true
			}
		}
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

	// The typo index (words worth correcting to: in a name, description,
	// keywords or heading, or in two skills) is built meanwhile.
	var typos sync.WaitGroup
	if ix.tune.typo || ix.tune.split {
		typos.Go(func() {
			ix.typos = newTypoIndex(ix.surfaces, func(t int32) bool { return inHead[t] || df[t] >= 2 })
		})
	}

	// Posting lists, allocated at their final size in one block.
	all := make([]posting, 0, sumInt32(df))
	for t := range ix.terms {
		ix.terms[t].idf = idf(float64(df[t]), n)
		ix.terms[t].postings = all[len(all) : len(all) : len(all)+int(df[t])]
		all = all[:len(all)+int(df[t])]
	}
	for i := range out {
		var norm [numFields]float64
		for f := range numFields {
			norm[f] = ix.tune.weight[f] / (1 - ix.tune.b[f] + ix.tune.b[f]*float64(out[i].length[f])/avg[f])
		}
		for _, dt := range out[i].terms {
			var tf float64
			var fields uint8
			for f, c := range dt.counts {
				if c > 0 {
					tf += float64(c) * norm[f]
					fields |= 1 << f
				}
			}
			e := &ix.terms[dt.term]
			e.postings = append(e.postings, posting{doc: int32(i), tf: float32(tf), fields: fields})
		}
	}
	typos.Wait()
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

// doc analyzes one skill.
func (w *worker) doc(d *doc) analyzedDoc {
	sk := d.skill
	body := sk.Doc.Body
	d.lang = detectLang(sk.Description, body)
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
	if w.cjk > 0 && w.cjk*5 > w.words {
		w.hasCJK = true
	}
	w.cjk, w.words = 0, 0
	ad.terms = make([]docTerm, len(w.touched))
	for i, lid := range w.touched {
		ad.terms[i] = docTerm{term: lid, counts: w.counts[lid]}
		w.counts[lid] = [numFields]uint16{}
	}
	w.touched = w.touched[:0]
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
				w.count(ad, f, w.intern(g))
			})
			continue
		}
		w.words++
		id := w.termID(text[start:end], l)
		if id < 0 {
			continue
		}
		w.count(ad, f, id)
		if pairs {
			if prev >= 0 {
				key := [2]int32{prev, id}
				pid, ok := w.pairs[key]
				if !ok {
					pid = w.intern(bigramKey(w.names[prev], w.names[id]))
					w.pairs[key] = pid
				}
				w.count(ad, f, pid)
			}
			prev = id
		}
	}
}

// termID returns the local term of a word token as written in a text of
// language l, or -1 when the word is not indexed (a stop word, digits).
func (w *worker) termID(raw string, l lang) int32 {
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
		if id, ok := ids[string(w.buf)]; ok {
			return id
		}
		key := string(w.buf)
		id := w.newWord(key, key, l)
		ids[key] = id
		return id
	}
	if id, ok := ids[raw]; ok {
		return id
	}
	id := int32(-1)
	if len(raw) <= 4*maxWordLen {
		lower := strings.ToLower(norm.NFKC.String(raw))
		id = w.newWord(lower, foldWord(lower), l)
	}
	ids[strings.Clone(raw)] = id
	return id
}

// newWord analyzes a word the worker has not seen (lower-cased, and its
// surface form) and returns its local term, or -1.
func (w *worker) newWord(lower, surface string, l lang) int32 {
	an := w.a.analyze(lower, surface, l)
	if an.skip || an.stop {
		return -1
	}
	id := w.intern(an.term)
	if _, ok := w.surfaces[surface]; !ok {
		w.surfaces[strings.Clone(surface)] = id
	}
	return id
}

// intern returns the local id of a term, adding it when new.
func (w *worker) intern(term string) int32 {
	id, ok := w.local[term]
	if !ok {
		id = int32(len(w.names))
		term = strings.Clone(term)
		w.local[term] = id
		w.names = append(w.names, term)
		w.counts = append(w.counts, [numFields]uint16{})
	}
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
