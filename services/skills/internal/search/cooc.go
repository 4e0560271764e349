package search

import (
	"math"
	"slices"
	"strings"
)

// Term co-occurrence expansion learned from the catalog (see expand.go; off
// by default): two words are associated when the skills that use them in a
// name, description, keywords or heading overlap — the cosine of their sets
// of skills, |A∩B| / √(|A|·|B|), with at least coocMinShared skills in
// common. A query word also stands for its coocTerms most associated words
// (at least coocMin), each scoring coocWeight × the association × its own
// score in the skills that lack the word itself.

// headHeavy is the share of skills above which a word is too common to
// learn associations from (but never fewer than headHeavyMin skills).
const (
	headHeavy    = 0.1
	headHeavyMin = 10
)

// heavy reports whether term t is too common to associate.
func (ix *Index) heavy(t int32) bool {
	return float64(ix.headDF[t]) > max(headHeavy*float64(len(ix.docs)), headHeavyMin)
}

// buildCooc keeps each skill's head terms (name, description, keywords,
// headings) and each term's head document frequency.
func (ix *Index) buildCooc() {
	n := len(ix.docs)
	ix.headTerms = make([][]int32, n)
	ix.headDF = make([]int32, len(ix.terms))
	for t := range ix.terms {
		e := &ix.terms[t]
		if strings.HasPrefix(e.text, "\x00") {
			continue
		}
		for _, p := range e.postings {
			if p.fields&(1<<fieldName|1<<fieldDesc|1<<fieldKeywords|1<<fieldHeadings) != 0 {
				ix.headTerms[p.doc] = append(ix.headTerms[p.doc], int32(t))
				ix.headDF[t]++
			}
		}
	}
}

// associated returns the terms most associated with t, best first, with
// their association.
func (ix *Index) associated(t int32) []qalt {
	x := &ix.tune.expansion
	dft := ix.headDF[t]
	if dft < int32(x.coocMinShared) || ix.heavy(t) {
		return nil
	}
	shared := map[int32]int32{}
	for _, p := range ix.terms[t].postings {
		if p.fields&(1<<fieldName|1<<fieldDesc|1<<fieldKeywords|1<<fieldHeadings) == 0 {
			continue
		}
		for _, u := range ix.headTerms[p.doc] {
			if u != t {
				shared[u]++
			}
		}
	}
	var out []qalt
	for u, c := range shared {
		if c < int32(x.coocMinShared) || ix.heavy(u) {
			continue
		}
		a := float64(c) / math.Sqrt(float64(dft)*float64(ix.headDF[u]))
		if a >= x.coocMin {
			out = append(out, qalt{term: u, w: a, word: ix.terms[u].text})
		}
	}
	slices.SortFunc(out, func(a, b qalt) int {
		switch {
		case a.w > b.w:
			return -1
		case a.w < b.w:
			return 1
		}
		return int(a.term - b.term)
	})
	return out[:min(len(out), x.coocTerms)]
}
