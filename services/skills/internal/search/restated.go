package search

import (
	"cmp"
	"slices"
	"strings"
)

// Restated queries. The caller of search_skills is usually a language model
// that knows what the catalog's words cannot tell the engine — that a
// "popular document database" is a NoSQL store, that "coins that take a
// cut when moved" are fee-on-transfer tokens — and can pass the request
// restated in plain technical terms. Each phrasing (the query and its
// restatements) is ranked on its own, with its own calibration, and the
// rankings are fused per skill:
//
//	fused = (best + agreement × (sum − best)) / (1 + agreement × (n − 1))
//
// where best is the skill's highest calibrated score over the n phrasings,
// sum the total (a phrasing that did not rank the skill counts 0). The best
// phrasing's evidence decides; the others add a little (agreement = 0.25),
// which breaks the near-ties of saturated probabilities (0.99 against 1.00)
// in favour of the skill both phrasings found. The denominator keeps the
// score in 0..1: it is the calibrated score itself when every phrasing
// agrees. A restatement that misses keeps the query's own evidence — its
// typo tolerance included — and a query that misses is rescued by the
// restatement.
//
// Abstention: the fused ranking answers when the query alone would
// (its best calibrated score reaches the threshold) or when some
// restatement's best calibrated score reaches restatedThreshold (0.5: more
// likely right than not). A restatement names technologies, so on a request
// no skill covers it still meets catalog words more often than the request
// does; it has to be more convincing than the query to answer alone.
//
// docs/routing.md has the measurements behind each choice (max, sums,
// reciprocal rank fusion, concatenation; the thresholds that give the same
// answers on the development queries, and both halves).

// MaxRestated is the number of restatements a query is expected to carry at
// most; servers reject more.
const MaxRestated = 3

// Phrasings returns q.Text followed by the restatements that take part in
// ranked search: the distinct, non-blank ones that differ from q.Text
// (white space and case ignored).
func (q Query) Phrasings() []string { return append([]string{q.Text}, restatements(q)...) }

// restatements returns q's distinct, non-blank restatements that differ from
// q.Text (white space and case ignored).
func restatements(q Query) []string {
	if len(q.Restated) == 0 {
		return nil
	}
	key := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	seen := []string{key(q.Text)}
	var out []string
	for _, r := range q.Restated {
		k := key(r)
		if k == "" || slices.Contains(seen, k) {
			continue
		}
		seen = append(seen, k)
		out = append(out, r)
	}
	return out
}

// phrasingScore is one skill's evidence in the fused ranking.
type phrasingScore struct {
	doc   int32
	fused float64
	// best is the phrasing with the highest calibrated score (the lowest
	// on ties: the query first), bestScore that score.
	best      int
	bestScore float64
	// origRank is the skill's rank in the query's own ranking (0-based),
	// or -1.
	origRank int
}

// searchRestated ranks q.Text and each restatement and fuses the rankings.
func (ix *Index) searchRestated(q Query, rest []string) []Hit {
	texts := append([]string{q.Text}, rest...)
	rs := make([]*result, len(texts))
	for i, t := range texts {
		qi := q
		qi.Text, qi.Restated = t, nil
		rs[i] = ix.rank(qi, q.Limit*4)
	}
	defer func() {
		for _, r := range rs {
			ix.release(r)
		}
	}()
	fused := ix.fusePhrasings(rs)
	if len(fused) == 0 || !ix.restatedAnswers(rs) {
		return []Hit{}
	}
	// Seed 004's cut and the limit, over the fused scores.
	cands := make([]cand, len(fused))
	for i, f := range fused {
		cands[i] = cand{doc: f.doc, score: f.fused}
	}
	cands = ix.cut(cands, q.Limit)
	hits := make([]Hit, len(cands))
	for i := range cands {
		f := fused[i]
		hits[i] = ix.hit(rs[f.best], f.doc, f.fused, f.best)
	}
	return hits
}

// restatedAnswers is the abstention rule: the query's own ranking answers,
// or some restatement's best score reaches restatedThreshold.
func (ix *Index) restatedAnswers(rs []*result) bool {
	if ix.threshold < 0 {
		return true
	}
	for i, r := range rs {
		if len(r.cands) == 0 {
			continue
		}
		th := ix.threshold
		if i > 0 {
			th = max(th, ix.tune.restatedThreshold)
		}
		if r.cands[0].score >= th {
			return true
		}
	}
	return false
}

// fusePhrasings fuses the phrasings' rankings, best first: by fused score,
// then by the query's own ranking, then by the best phrasing's score, then
// by catalog order.
func (ix *Index) fusePhrasings(rs []*result) []phrasingScore {
	n := float64(len(rs))
	type acc struct {
		sum float64
		ps  phrasingScore
	}
	byDoc := map[int32]*acc{}
	var order []int32
	for p, r := range rs {
		for rank, c := range r.cands {
			a := byDoc[c.doc]
			if a == nil {
				a = &acc{ps: phrasingScore{doc: c.doc, best: p, origRank: -1}}
				byDoc[c.doc] = a
				order = append(order, c.doc)
			}
			a.sum += c.score
			if c.score > a.ps.bestScore {
				a.ps.best, a.ps.bestScore = p, c.score
			}
			if p == 0 {
				a.ps.origRank = rank
			}
		}
	}
	lam := ix.tune.agreement
	out := make([]phrasingScore, 0, len(order))
	for _, d := range order {
		a := byDoc[d]
		a.ps.fused = (a.ps.bestScore + lam*(a.sum-a.ps.bestScore)) / (1 + lam*(n-1))
		out = append(out, a.ps)
	}
	rankOf := func(r int) int {
		if r < 0 {
			return int(^uint(0) >> 1)
		}
		return r
	}
	slices.SortFunc(out, func(a, b phrasingScore) int {
		if c := cmp.Compare(b.fused, a.fused); c != 0 {
			return c
		}
		if c := cmp.Compare(rankOf(a.origRank), rankOf(b.origRank)); c != 0 {
			return c
		}
		if c := cmp.Compare(b.bestScore, a.bestScore); c != 0 {
			return c
		}
		return cmp.Compare(a.doc, b.doc)
	})
	return out
}
