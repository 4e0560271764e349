package search

import (
	"slices"
	"sort"
	"strings"
)

// Typo tolerance: a query word that no skill contains is looked up among the
// skills' surface forms (folded words) within a small edit distance —
// Damerau-Levenshtein (optimal string alignment: insertion, deletion,
// substitution, transposition of neighbours) — of 1 for words of
// typoMinLen1..typoMinLen2-1 bytes and 2 from typoMinLen2 bytes. Shorter
// words are never corrected: at four letters almost everything is one edit
// from something.
//
// Candidates come from a deletion neighbourhood (as in SymSpell): the index
// holds each surface and each of its one-character deletions, hashed; a
// query word's own deletions (up to two) are looked up and every candidate
// is verified with the real distance. This finds every candidate at distance
// 1, and the distance-2 candidates that need at most one deletion from the
// surface (so not two substitutions): enough for real typos, at the cost of
// one sorted array.
//
// Only ASCII surfaces take part, and only those worth correcting to: words of
// a skill's name, description, keywords or headings, and body words of at
// least two skills (a word seen once in one body is as likely a typo itself).
const (
	typoMinLen1 = 5
	typoMinLen2 = 8
)

// typoIndex finds the surfaces near a word.
type typoIndex struct {
	surfaces []string
	terms    []int32 // term of each surface
	entries  []typoEntry
}

type typoEntry struct {
	hash    uint64
	surface int32
}

// newTypoIndex indexes the surfaces (with terms, the term of each by its
// id in surfaces) worth correcting to.
func newTypoIndex(surfaces *strTable, terms []int32, worth func(term int32) bool) *typoIndex {
	var ids []int32
	n := 0
	for id, s := range surfaces.byID() {
		if len(s) >= typoMinLen1-1 && isASCII(s) && worth(terms[id]) {
			n += len(s) + 1
			ids = append(ids, id)
		}
	}
	// Deterministic ids: sorted by surface.
	slices.SortFunc(ids, func(a, b int32) int { return strings.Compare(surfaces.key(a), surfaces.key(b)) })
	ti := &typoIndex{surfaces: make([]string, len(ids)), terms: make([]int32, len(ids))}
	ti.entries = make([]typoEntry, 0, n)
	for i, id := range ids {
		s := surfaces.key(id)
		ti.surfaces[i], ti.terms[i] = s, terms[id]
		ti.entries = append(ti.entries, typoEntry{hashSkip(s, -1, -1), int32(i)})
		for j := range len(s) {
			if j > 0 && s[j] == s[j-1] {
				continue // same deletion as the previous one
			}
			ti.entries = append(ti.entries, typoEntry{hashSkip(s, j, -1), int32(i)})
		}
	}
	slices.SortFunc(ti.entries, func(a, b typoEntry) int {
		switch {
		case a.hash < b.hash:
			return -1
		case a.hash > b.hash:
			return 1
		}
		return int(a.surface - b.surface)
	})
	return ti
}

// hashSkip is FNV-1a of s without the bytes at i and j (-1: none).
func hashSkip(s string, i, j int) uint64 {
	h := uint64(14695981039346656037)
	for k := 0; k < len(s); k++ {
		if k == i || k == j {
			continue
		}
		h ^= uint64(s[k])
		h *= 1099511628211
	}
	return h
}

// typoMatch is a surface near a query word.
type typoMatch struct {
	surface string
	term    int32
	dist    int
}

// maxTypoDist is the edit distance allowed for a word of n bytes.
func maxTypoDist(n int) int {
	switch {
	case n >= typoMinLen2:
		return 2
	case n >= typoMinLen1:
		return 1
	}
	return 0
}

// near returns the surfaces closest to w (all at the smallest distance found,
// at most max), best first: smaller distance, then more frequent term.
func (ti *typoIndex) near(ix *Index, w string, limit int) []typoMatch {
	maxd := maxTypoDist(len(w))
	if maxd == 0 || !isASCII(w) || ti == nil {
		return nil
	}
	seen := map[int32]bool{}
	var found []typoMatch
	probe := func(h uint64) {
		i := sort.Search(len(ti.entries), func(k int) bool { return ti.entries[k].hash >= h })
		for ; i < len(ti.entries) && ti.entries[i].hash == h; i++ {
			sid := ti.entries[i].surface
			if seen[sid] {
				continue
			}
			seen[sid] = true
			s := ti.surfaces[sid]
			if d := editDistance(w, s, maxd); d > 0 && d <= maxd {
				found = append(found, typoMatch{surface: s, term: ti.terms[sid], dist: d})
			}
		}
	}
	probe(hashSkip(w, -1, -1))
	for i := range len(w) {
		if i > 0 && w[i] == w[i-1] {
			continue
		}
		probe(hashSkip(w, i, -1))
		if maxd >= 2 {
			for j := i + 1; j < len(w); j++ {
				probe(hashSkip(w, i, j))
			}
		}
	}
	if len(found) == 0 {
		return nil
	}
	slices.SortFunc(found, func(a, b typoMatch) int {
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		if da, db := len(ix.terms[a.term].postings), len(ix.terms[b.term].postings); da != db {
			return db - da
		}
		return compareStrings(a.surface, b.surface)
	})
	best := found[0].dist
	n := 0
	for n < len(found) && n < limit && found[n].dist == best {
		n++
	}
	return found[:n]
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// editDistance is the optimal-string-alignment distance between a and b
// (bytes), or limit+1 when it exceeds limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	if len(a) > maxWordLen || len(b) > maxWordLen {
		return limit + 1
	}
	var rows [3][maxWordLen + 1]int
	prev2, prev, cur := &rows[0], &rows[1], &rows[2]
	for j := 0; j <= len(b); j++ {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// split finds the best way to cut an unknown word into two words the skills
// use ("scrnaseq" → "scrna" "seq"), each part at least 3 bytes; ok is false
// when there is none. Of several cuts, the one whose rarer half is the most
// frequent wins, so that both halves are common words.
func (ti *typoIndex) split(ix *Index, w string) (left, right string, ok bool) {
	bestScore := 0
	for i := 3; i <= len(w)-3; i++ {
		l, r := w[:i], w[i:]
		tl, okl := ix.surfaceTerm(l)
		tr, okr := ix.surfaceTerm(r)
		if !okl || !okr || ix.stops[langEnglish][l] || ix.stops[langEnglish][r] {
			continue
		}
		score := min(len(ix.terms[tl].postings), len(ix.terms[tr].postings))
		if score > bestScore {
			bestScore, left, right, ok = score, l, r, true
		}
	}
	return left, right, ok
}
