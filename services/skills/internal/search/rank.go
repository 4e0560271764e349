package search

import (
	"container/heap"
	"slices"

	"github.com/blevesearch/snowballstem"
)

// Ranking: BM25F over the posting lists, into dense per-skill accumulators
// (pooled scratch space), then the best k skills that pass the filters.

// cand is a scored skill.
type cand struct {
	doc int32
	raw float64
	// score is the calibrated score.
	score float64
}

// result is a query's analysis and ranking; it lives in pooled scratch
// space until release.
type result struct {
	groups []qgroup
	// attainable is the sum of the groups' attainable scores; words counts
	// the query words that take part in it (a split word counts once).
	attainable, words float64
	cands             []cand
	s                 *scratch
	// spellings are the query's, for excerpts (querySpellings).
	spellings *querySpellings
}

// scratch is per-query working space, pooled.
type scratch struct {
	acc     []float64
	mask    []uint64
	touched []int32
	best    []float64
	btouch  []int32
	env     *snowballstem.Env
}

func newScratch(n int) *scratch {
	return &scratch{
		acc:  make([]float64, n),
		mask: make([]uint64, n),
		best: make([]float64, n),
		env:  snowballstem.NewEnv(""),
	}
}

// release returns r's scratch space to the pool; r is unusable after.
func (ix *Index) release(r *result) {
	s := r.s
	for _, d := range s.touched {
		s.acc[d] = 0
		s.mask[d] = 0
	}
	s.touched = s.touched[:0]
	r.s = nil
	ix.qpool.Put(s)
}

// maxMaskGroups is how many query words the per-skill match masks track;
// later words still score, but are not reported in Hit.Matched.
const maxMaskGroups = 64

// groupBit is the mask bit of group g (0 past maxMaskGroups).
func groupBit(g int) uint64 {
	if g >= maxMaskGroups {
		return 0
	}
	return 1 << g
}

// rank analyzes q and returns up to k candidates, best first, with
// calibrated scores.
func (ix *Index) rank(q Query, k int) *result {
	s := ix.qpool.Get().(*scratch)
	r := &result{s: s}
	r.groups = ix.analyzeQuery(q.Text, s)
	if w := ix.tune.bigramWeight; w > 0 {
		r.groups = ix.addBigrams(r.groups, w)
	}
	for _, g := range r.groups {
		r.attainable += g.attainable
		if g.attainable > 0 {
			r.words += g.weight
		}
	}
	if len(ix.docs) == 0 || len(r.groups) == 0 {
		return r
	}
	ix.score(r.groups, s)
	r.cands = ix.top(q, s, k)
	r.calibrate()
	return r
}

// score adds each group's BM25F score to the accumulators: for each term,
// idf × tf / (k1 + tf), tf being the posting's pseudo term frequency (field
// weights and length normalisation are in it), times the group's and the
// term's weights. Each skill's mask records the (non-bonus) groups it
// matched.
func (ix *Index) score(groups []qgroup, s *scratch) {
	k1 := ix.tune.k1
	sat := func(p *posting) float64 {
		tf := float64(p.tf)
		return tf / (k1 + tf)
	}
	for gi := range groups {
		g := &groups[gi]
		bit := groupBit(gi)
		if g.bonus {
			bit = 0
		}
		if len(g.alts) == 1 {
			a := g.alts[0]
			e := &ix.terms[a.term]
			c := g.weight * a.w * e.idf
			for i := range e.postings {
				p := &e.postings[i]
				if s.acc[p.doc] == 0 {
					s.touched = append(s.touched, p.doc)
				}
				s.acc[p.doc] += c * sat(p)
				s.mask[p.doc] |= bit
			}
			continue
		}
		// Several alternatives: a skill scores the best one.
		for _, a := range g.alts {
			e := &ix.terms[a.term]
			c := g.weight * a.w * e.idf
			for i := range e.postings {
				p := &e.postings[i]
				v := c * sat(p)
				if s.best[p.doc] == 0 {
					s.btouch = append(s.btouch, p.doc)
				}
				s.best[p.doc] = max(s.best[p.doc], v)
			}
		}
		for _, d := range s.btouch {
			if s.acc[d] == 0 {
				s.touched = append(s.touched, d)
			}
			s.acc[d] += s.best[d]
			s.mask[d] |= bit
			s.best[d] = 0
		}
		s.btouch = s.btouch[:0]
	}
}

// candHeap is a min-heap of candidates by raw score (ties: higher doc
// first, so that the lowest doc wins a tie).
type candHeap []cand

func (h candHeap) Len() int { return len(h) }
func (h candHeap) Less(i, j int) bool {
	if h[i].raw != h[j].raw {
		return h[i].raw < h[j].raw
	}
	return h[i].doc > h[j].doc
}
func (h candHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *candHeap) Push(x any)   { *h = append(*h, x.(cand)) }
func (h *candHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// top returns the k best-scoring skills that pass q's filters, best first.
func (ix *Index) top(q Query, s *scratch, k int) []cand {
	h := make(candHeap, 0, k+1)
	for _, d := range s.touched {
		raw := s.acc[d]
		if raw <= 0 {
			continue
		}
		if len(h) == k && (raw < h[0].raw || raw == h[0].raw && d > h[0].doc) {
			continue
		}
		if !q.Allows(ix.docs[d].skill) {
			continue
		}
		heap.Push(&h, cand{doc: d, raw: raw})
		if len(h) > k {
			heap.Pop(&h)
		}
	}
	out := []cand(h)
	slices.SortFunc(out, func(a, b cand) int {
		switch {
		case a.raw > b.raw:
			return -1
		case a.raw < b.raw:
			return 1
		}
		return int(a.doc - b.doc)
	})
	return out
}

// matched lists the query words skill d matched, in query order.
func (r *result) matched(ix *Index, d int32) []string {
	m := r.s.mask[d]
	out := []string{}
	for gi, g := range r.groups {
		if m&groupBit(gi) == 0 {
			continue
		}
		word := g.word
		if len(g.alts) > 1 || g.alts[0].word != g.word {
			// Report the alternative the skill has.
			for _, a := range g.alts {
				if ix.has(a.term, d) {
					word = a.word
					break
				}
			}
		}
		if !slices.Contains(out, word) {
			out = append(out, word)
		}
	}
	return out
}

// has reports whether term t occurs in skill d.
func (ix *Index) has(t, d int32) bool {
	_, ok := searchPostings(ix.terms[t].postings, d)
	return ok
}
