package search

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// excerptLen is the target length of an excerpt, in characters.
const excerptLen = 160

// excerpt picks the ~160 characters of skill d that best show why it
// matched: the window of its description with the most (idf-weighted)
// matched terms when the description has any, else the window of the body;
// the description's start when neither has a matched word (the skill
// matched by name only).
func (ix *Index) excerpt(d *doc, r *result, di int32) string {
	// The skill's matched terms (→ idf), in the description and the body.
	inDesc, inBody := map[int32]float64{}, map[int32]float64{}
	m := r.s.mask[di]
	for gi, g := range r.groups {
		if m&groupBit(gi) == 0 {
			continue
		}
		for _, a := range g.alts {
			e := &ix.terms[a.term]
			if i, ok := searchPostings(e.postings, di); ok {
				if e.fields[i]&(1<<fieldDesc) != 0 {
					inDesc[a.term] = e.idf
				}
				if e.fields[i]&(1<<fieldBody|1<<fieldCode) != 0 {
					inBody[a.term] = e.idf
				}
			}
		}
	}
	sk := d.skill
	if len(inDesc) > 0 {
		if ex, ok := ix.bestWindow(sk.Description, inDesc, ix.querySpellings(r), false); ok {
			return ex
		}
	}
	if len(inBody) > 0 {
		if ex, ok := ix.bestWindow(sk.Doc.Body, inBody, ix.querySpellings(r), true); ok {
			return ex
		}
	}
	return window(sk.Description, 0, 0)
}

// searchPostings finds skill d in a posting list.
func searchPostings(ps []posting, d int32) (int, bool) {
	lo, hi := 0, len(ps)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if ps[mid].doc < d {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(ps) && ps[lo].doc == d
}

// occurrence is a matched term found in a text.
type occurrence struct {
	start, end int
	term       int32
}

// spellings maps each term to its surface forms (the folded words that
// stand for it in Index.surfaces), made on the first excerpt: an excerpt
// looks a text's words up among the few spellings of its wanted terms
// rather than in the whole vocabulary. The forms of term t are
// forms[start[t]:start[t+1]] (one slice for all: a map of slices was 1.5
// ms to make at 387 skills, on the first search's path).
type spellings struct {
	once  sync.Once
	start []int32
	forms []string
}

// of returns the surface forms of term t.
func (sp *spellings) of(t int32) []string {
	if t < 0 || int(t)+1 >= len(sp.start) {
		return nil
	}
	return sp.forms[sp.start[t]:sp.start[t+1]]
}

// fill makes the table of nterms terms from the surfaces that each calls
// (each surface once, with its term), counting first so that the forms
// take one slice.
func (sp *spellings) fill(nterms, nsurf int, each func(add func(s string, t int32))) {
	start := make([]int32, nterms+1)
	each(func(_ string, t int32) { start[t+1]++ })
	for t := range nterms {
		start[t+1] += start[t]
	}
	next := slices.Clone(start[:nterms])
	forms := make([]string, nsurf)
	each(func(s string, t int32) {
		forms[next[t]] = s
		next[t]++
	})
	sp.start, sp.forms = start, forms
}

// spellingsOf returns the surface forms of the terms in want, mapped to
// their term.
func (ix *Index) spellingsOf(want map[int32]float64) map[string]int32 {
	ix.spellings.once.Do(func() {
		ix.spellings.fill(len(ix.terms), ix.surfaces.len(), func(add func(string, int32)) {
			for id, s := range ix.surfaces.byID() {
				add(s, ix.surfaceTerms[id])
			}
		})
	})
	out := make(map[string]int32, 4*len(want))
	for t := range want {
		for _, s := range ix.spellings.of(t) {
			out[s] = t
		}
	}
	return out
}

// querySpellings are the surface forms of every term of a query, mapped to
// their term, with their filter: made once for all the excerpts of a
// result (each wants some of its terms), not once for each.
type querySpellings struct {
	spelt map[string]int32
	may   spellingFilter
}

// querySpellings returns r's querySpellings, made on first use.
func (ix *Index) querySpellings(r *result) *querySpellings {
	if r.spellings == nil {
		terms := map[int32]float64{}
		for _, g := range r.groups {
			for _, a := range g.alts {
				terms[a.term] = 0
			}
		}
		qs := &querySpellings{spelt: ix.spellingsOf(terms)}
		for s := range qs.spelt {
			qs.may.add(s)
		}
		r.spellings = qs
	}
	return r.spellings
}

// bestWindow finds the excerptLen-character window of text with the largest
// idf sum of distinct wanted terms, which are among the query's (qs). With
// early, it stops reading once every wanted term has been seen (bodies are
// long; their first mentions are good enough).
func (ix *Index) bestWindow(text string, want map[int32]float64, qs *querySpellings, early bool) (string, bool) {
	var occ []occurrence
	seen := map[int32]bool{}
	spelt, may := qs.spelt, &qs.may
	for tok := range tokens(text) {
		raw := text[tok.start:tok.end]
		var t int32
		var found bool
		if tok.kind == tokCJK {
			// Locate the run by its first wanted bigram.
			cjkBigrams(raw, func(g string) {
				if id, ok := ix.vocab.id(g); ok && !found {
					if _, w := want[id]; w {
						t, found = id, true
					}
				}
			})
		} else if len(raw) <= maxWordLen && (may.has(raw) || !isASCII(raw)) {
			t, found = lookupFolded(spelt, raw)
		}
		if !found {
			continue
		}
		if _, w := want[t]; !w {
			continue // a term of the query this text's skill did not match
		}
		occ = append(occ, occurrence{tok.start, tok.end, t})
		seen[t] = true
		if early && len(seen) == len(want) {
			break
		}
	}
	if len(occ) == 0 {
		return "", false
	}
	// Slide over the occurrences: the window starting a little before
	// occurrence i holds those that end within excerptLen bytes.
	best, bestScore := 0, -1.0
	var in []int32 // the distinct terms of the window: few
	for i := range occ {
		score := 0.0
		in = in[:0]
		for j := i; j < len(occ) && occ[j].end-occ[i].start <= excerptLen*3/4; j++ {
			if !slices.Contains(in, occ[j].term) {
				in = append(in, occ[j].term)
				score += want[occ[j].term]
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return window(text, occ[best].start, occ[best].end), true
}

// spellingFilter tells, from its length and first letter, that an ASCII
// word is none of a few spellings, without hashing it: most words of a text
// are none of them. An ASCII word folds to its lower case, of its own
// length, so only the ASCII spellings are added.
type spellingFilter struct {
	lens  uint64    // bit n: a spelling of n bytes (n < 64)
	first [4]uint64 // bit c: a spelling starting with byte c
}

func (f *spellingFilter) add(s string) {
	if s == "" || !isASCII(s) {
		return
	}
	f.lens |= 1 << min(len(s), 63)
	f.first[s[0]>>6] |= 1 << (s[0] & 63)
}

// has reports whether w, folded, may be one of the spellings added; false
// is certain for an ASCII w.
func (f *spellingFilter) has(w string) bool {
	if w == "" {
		return false
	}
	c := w[0]
	if 'A' <= c && c <= 'Z' {
		c += 'a' - 'A'
	}
	return f.lens&(1<<min(len(w), 63)) != 0 && f.first[c>>6]&(1<<(c&63)) != 0
}

// lookupFolded looks word up in spelt by its folded form (foldWord),
// without making a string for an ASCII word: most words of a text are, and
// an excerpt reads thousands of them.
func lookupFolded(spelt map[string]int32, word string) (int32, bool) {
	if len(word) > maxWordLen || !isASCII(word) {
		t, ok := spelt[foldWord(word)]
		return t, ok
	}
	var buf [maxWordLen]byte
	b := buf[:len(word)]
	for i := range len(word) {
		c := word[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	t, ok := spelt[string(b)]
	return t, ok
}

// window returns about excerptLen characters of text around [start, end),
// cut at word boundaries, white space collapsed, with "…" where text was cut.
func window(text string, start, end int) string {
	if atMostRunes(text, excerptLen) {
		return collapseSpace(text)
	}
	// Start a quarter of the window before the match.
	from := start
	for n := 0; from > 0 && n < excerptLen/4; n++ {
		_, size := utf8.DecodeLastRuneInString(text[:from])
		from -= size
	}
	to := from
	n := 0
	for ; to < len(text) && n < excerptLen; n++ {
		_, size := utf8.DecodeRuneInString(text[to:])
		to += size
	}
	// Near the end of the text, start earlier to fill the window.
	for ; from > 0 && n < excerptLen; n++ {
		_, size := utf8.DecodeLastRuneInString(text[:from])
		from -= size
	}
	to = max(to, min(end, len(text)))
	// Word boundaries: drop the partial words at both ends.
	if from > 0 && !isSpaceBefore(text, from) {
		if i := strings.IndexFunc(text[from:start], unicode.IsSpace); i >= 0 {
			from += i
		}
	}
	if to < len(text) {
		if space, _ := spaceAt(text, to); !space {
			if i := strings.LastIndexFunc(text[end:to], unicode.IsSpace); i >= 0 {
				to = end + i
			}
		}
	}
	out := collapseSpace(text[from:to])
	if from > 0 {
		out = "…" + out
	}
	if to < len(text) {
		out += "…"
	}
	return out
}

// atMostRunes reports whether s has at most n characters, reading no
// further than the n+1st.
func atMostRunes(s string, n int) bool {
	if len(s) <= n {
		return true
	}
	count := 0
	for range s {
		if count++; count > n {
			return false
		}
	}
	return true
}

func isSpaceBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsSpace(r)
}

// collapseSpace trims s and turns each run of white space (unicode.IsSpace)
// into one space: strings.Join(strings.Fields(s), " ") in one pass. Most
// excerpts need no change: s itself is returned then, and otherwise its
// words are copied whole.
func collapseSpace(s string) string {
	clean := true // no white space to trim, and each run is one ' '
	after := true // at the start, or after white space
	for i := 0; i < len(s) && clean; {
		space, size := spaceAt(s, i)
		if space {
			clean = !after && s[i] == ' '
		}
		after = space
		i += size
	}
	if clean && !after {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	word := -1 // where the current word starts
	for i := 0; i <= len(s); {
		space, size := true, 1
		if i < len(s) {
			space, size = spaceAt(s, i)
		}
		switch {
		case space && word >= 0:
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(s[word:i])
			word = -1
		case !space && word < 0:
			word = i
		}
		i += size
	}
	return b.String()
}

// spaceAt reports whether s has white space (unicode.IsSpace) at byte i,
// and the size of the character there (1 for a byte that is not UTF-8).
func spaceAt(s string, i int) (bool, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return asciiSpace[c], 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r), size
}

// asciiSpace marks the ASCII bytes unicode.IsSpace reports as white space.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}
